"""Differential property (issue 8 §1): whatever the text looks like, the rewrite means the edits.

A GPU Deployment is drawn as data together with a way to write it: block
or flow collections, plain/single/double quotes (a GPU key spelt with an
escape), comments and blank lines, 2- or 4-space indentation, indented or indentless
sequences, anchors and aliases (selector labels, limits/requests, the GPU
count, a whole ``resources``, a container), merge keys, explicit keys, ``\\n``/``\\r\\n``/
``\\r`` line endings, block scalars of each chomping, template metadata with
and without labels and annotations, a ``--- {flow}`` document. Through
``pipeline.transform`` with the built-in policies:

- the output parses (with PyYAML, not tfpolicy's loader) to exactly the
  input data plus the planned edits, or the rewrite is refused with exit 2
  (the input itself, valid YAML that kubectl reads, is never refused);
- applying again changes nothing;
- rollback of the output gives back the input data.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.conftest import policy_set
from tfpolicy.edits import Path, apply_edits, edited
from tfpolicy.errors import ExitCode, TfpolicyError
from tfpolicy.rewrite.pipeline import Options, transform

GPU = "nvidia.com/gpu"
STAGES = ["takeover", "rightsize-example", "autoscale"]
POLICIES = {name: policy_set(name) for name in [*STAGES, "rollback"]}
# 500 examples draw each layout class dozens of times; the file runs in
# about 8 s alone and well under 60 s on a loaded machine.
EXAMPLES = 500
label_values = st.sampled_from(["web", "true", "1", "on", "x-y", "v1.2", "a b", "it's"])
_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*(?:/[A-Za-z0-9_.-]+)?")


@dataclass
class Plan:
    """The data of one document and how parts of it are shared."""

    data: dict[str, Any]
    anchors: dict[Path, str] = field(default_factory=dict)
    aliases: dict[Path, str] = field(default_factory=dict)
    merges: dict[Path, tuple[str, dict[str, Any]]] = field(default_factory=dict)
    block_scalars: set[Path] = field(default_factory=set)


@st.composite
def plans(draw: Any) -> Plan:
    labels = {"app": draw(label_values)}
    if draw(st.booleans()):
        labels["tier"] = draw(label_values)
    meta: dict[str, Any] = {"name": "w", **({"labels": dict(labels)} if draw(st.booleans()) else {})}
    data: dict[str, Any] = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta}
    plan = Plan(data)
    container: dict[str, Any] = {"name": "main", "image": "img:1"}
    if draw(st.integers(0, 2)) > 0:
        container["command"] = draw(st.sampled_from(["run.sh\n", "run.sh", "run.sh\n\n", "a\nb\n",
                                                     "a\n\n\n"]))
        plan.block_scalars.add(("spec", "template", "spec", "containers", 0, "command"))
    container["resources"] = _resources(draw, plan)
    if draw(st.booleans()):
        container["workingDir"] = "/w"
    where: Path = ("spec", "template", "spec", "containers", 0)
    if not any(p[:len(where)] == where for p in [*plan.anchors, *plan.aliases, *plan.merges]) \
            and draw(st.integers(0, 4)) == 0:  # the container itself defined above and aliased
        data["x-container"] = container
        plan.anchors[("x-container",)] = "ctr"
        plan.aliases[where] = "ctr"
        plan.block_scalars = {("x-container", "command")}
    containers = [container]
    if draw(st.booleans()):
        containers.append({"name": "side", "image": "img:2"})
    spec = {"replicas": draw(st.integers(0, 3)), "selector": {"matchLabels": labels},
            "template": {"metadata": _template_metadata(draw, plan, labels),
                         "spec": {"containers": containers}}}
    if not spec["template"]["metadata"]:
        del spec["template"]["metadata"]
    data["spec"] = spec
    return plan


def _resources(draw: Any, plan: Plan) -> dict[str, Any]:
    count = draw(st.sampled_from([1, 2, 4, "1", "2"]))
    limits = {GPU: count, **({"memory": "8Gi"} if draw(st.booleans()) else {})}
    mode = draw(st.sampled_from(["plain", "requests", "requests-alias", "count-alias",
                                 "resources-alias", "merge"]))
    where: Path = ("spec", "template", "spec", "containers", 0, "resources")
    if mode == "requests":
        return {"limits": limits, "requests": {GPU: count}}
    if mode == "requests-alias":
        plan.anchors[(*where, "limits")] = "lim"
        plan.aliases[(*where, "requests")] = "lim"
        return {"limits": limits, "requests": dict(limits)}
    if mode == "count-alias":
        plan.anchors[(*where, "limits", GPU)] = "n"
        plan.aliases[(*where, "requests", GPU)] = "n"
        return {"limits": limits, "requests": {GPU: count}}
    if mode in ("resources-alias", "merge"):
        plan.data["x-resources"] = {"limits": limits}
        plan.anchors[("x-resources",)] = "res"
        if mode == "merge":
            plan.merges[where] = ("res", {"limits": limits})
            return {"limits": dict(limits), "requests": {"cpu": "1"}}
        plan.aliases[where] = "res"
        return {"limits": dict(limits)}
    return {"limits": limits}


def _template_metadata(draw: Any, plan: Plan, labels: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    where: Path = ("spec", "template", "metadata")
    mode = draw(st.sampled_from(["none", "labels", "alias", "merge"]))
    if mode == "merge":
        plan.anchors[("metadata",)] = "meta"
        plan.merges[where] = ("meta", plan.data["metadata"])
        out.update(plan.data["metadata"])
    elif mode != "none":
        out["labels"] = dict(labels)
    if mode == "alias":
        plan.anchors[("spec", "selector", "matchLabels")] = "sel"
        plan.aliases[(*where, "labels")] = "sel"
    if draw(st.booleans()):
        out["annotations"] = {"prometheus.io/scrape": draw(label_values)}
    return out


@dataclass
class Writer:
    """Writes a plan as YAML text, drawing each layout choice as it goes."""

    draw: Any
    plan: Plan
    step: int = 2
    indentless: bool = False
    kept: bool = False  # the last thing written is a "|+" block scalar

    def document(self) -> str:
        self.step = self.draw(st.sampled_from([2, 4]))
        self.indentless = self.draw(st.booleans())
        if self.draw(st.integers(0, 9)) == 0:
            return "--- " + self.flow(self.plan.data, ()) + "\n"
        start = self.draw(st.sampled_from(["", "---\n", "# a comment\n---\n"]))
        return start + "".join(self.entries(self.plan.data, (), 0))

    def entries(self, mapping: dict[str, Any], path: Path, indent: int) -> list[str]:
        lines, keys = [], list(mapping)
        if path in self.plan.merges:
            name, source = self.plan.merges[path]
            lines.append(f"{' ' * indent}<<: *{name}\n")
            keys = [k for k in keys if k not in source]
        for key in keys:
            lines += self.entry(key, mapping[key], (*path, key), indent, first=not lines)
        return lines

    def entry(self, key: str, value: Any, path: Path, indent: int, first: bool) -> list[str]:
        pad, name = " " * indent, self.key(key)
        lines = [] if first else self.draw(st.sampled_from([[], [], [], [f"{pad}# about {key}\n"],
                                                            [] if self.kept else ["\n"]]))
        self.kept = False
        if path in self.plan.aliases:
            return [*lines, f"{pad}{name}: *{self.plan.aliases[path]}{self.comment()}\n"]
        anchor = f" &{self.plan.anchors[path]}" if path in self.plan.anchors else ""
        if path in self.plan.block_scalars and self.draw(st.integers(0, 3)) > 0:
            return [*lines, *self.block_scalar(f"{pad}{name}:{anchor}", value, indent)]
        collection = isinstance(value, dict | list) and bool(value)
        if collection and self.draw(st.integers(0, 5)) > 0:
            inner = self.entries(value, path, indent + self.step) if isinstance(value, dict) \
                else self.items(value, path, indent)
            return [*lines, f"{pad}{name}:{anchor}{self.comment()}\n", *inner]
        text = self.flow(value, path)
        if not collection and self.draw(st.integers(0, 5)) == 0:
            return [*lines, f"{pad}? {name}\n", f"{pad}: {text}\n"]  # explicit key
        return [*lines, f"{pad}{name}: {text}{self.comment()}\n"]

    def items(self, values: list[Any], path: Path, indent: int) -> list[str]:
        at = indent if self.indentless else indent + self.step
        lines = []
        for index, value in enumerate(values):
            if (*path, index) in self.plan.aliases:
                lines.append(f"{' ' * at}- *{self.plan.aliases[(*path, index)]}\n")
                continue
            inner = self.entries(value, (*path, index), at + 2)
            lines += [" " * at + "- " + inner[0][at + 2:], *inner[1:]]
        return lines

    def block_scalar(self, head: str, value: str, indent: int) -> list[str]:
        trailing = len(value) - len(value.rstrip("\n"))
        chomp = {0: "-", 1: ""}.get(trailing, "+")
        body = value.rstrip("\n").split("\n") + [""] * max(0, trailing - 1)
        pad = " " * (indent + self.step)
        self.kept = chomp == "+"  # a blank line after it would belong to it
        return [f"{head} |{chomp}\n", *(f"{pad}{line}\n" if line else "\n" for line in body)]

    def flow(self, value: Any, path: Path) -> str:
        if path in self.plan.aliases:
            return f"*{self.plan.aliases[path]}"
        anchor = f"&{self.plan.anchors[path]} " if path in self.plan.anchors and path else ""
        if isinstance(value, dict):
            keys = list(value)
            parts = []
            if path in self.plan.merges:
                name, source = self.plan.merges[path]
                parts.append(f"<<: *{name}")
                keys = [k for k in keys if k not in source]
            parts += [f"{self.key(k)}: {self.flow(value[k], (*path, k))}" for k in keys]
            return anchor + "{" + ", ".join(parts) + "}"
        if isinstance(value, list):
            items = [self.flow(v, (*path, i)) for i, v in enumerate(value)]
            return anchor + "[" + ", ".join(items) + "]"
        return anchor + self.scalar(value, flow=True)

    def key(self, key: str) -> str:
        if key == GPU:
            return self.draw(st.sampled_from([GPU, f'"{GPU}"', f"'{GPU}'", '"nvidia.com\\x2Fgpu"',
                                              '"nvidia.com\\u002Fgpu"', '"nvidia.com\\/gpu"']))
        return self.scalar(key, flow=True)

    def scalar(self, value: Any, flow: bool) -> str:
        if not isinstance(value, str):
            return json.dumps(value)
        styles = ["double"] if "\n" in value else ["double", "single"]
        if _PLAIN.fullmatch(value) and yaml.safe_load(value) == value:
            styles.append("plain")
        style = self.draw(st.sampled_from(styles))
        if style == "plain":
            return value
        if style == "single":
            return "'" + value.replace("'", "''") + "'"
        return json.dumps(value)

    def comment(self) -> str:
        return "  # note" if self.draw(st.integers(0, 7)) == 0 else ""


@st.composite
def documents(draw: Any) -> tuple[str, Any]:
    plan = draw(plans())
    text = Writer(draw, plan).document()
    newline = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    return text.replace("\n", newline), plan.data


def _load(text: str) -> Any:
    """Data as PyYAML reads it, aliases copied (JSON has none), types kept."""
    return json.loads(json.dumps(yaml.safe_load(text)))


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(document=documents(), stage=st.sampled_from(STAGES))
def test_rewrite_reads_back_as_the_planned_edits(document: tuple[str, Any], stage: str) -> None:
    text, drawn = document
    data = _load(text)  # unshared: the drawn data shares dicts between its merges
    assert _same(data, drawn), "the test's writer wrote other data"
    try:
        result = transform(text, POLICIES[stage], "w.yaml", Options())
    except TfpolicyError as exc:
        assert exc.exit_code is ExitCode.INVALID
        assert "invalid YAML" not in exc.message, "kubectl reads every drawn document"
        event("refused")
        return
    event("rewritten")
    edits = [edit for change in result.changes for edit in change.edits]
    assert edits, "every drawn document is a GPU workload"
    assert _same(_load(result.text), apply_edits(data, edits))
    assert _same(edited(data, edits), apply_edits(data, edits))  # the safety net's copy
    assert transform(result.text, POLICIES[stage], "w.yaml", Options()).text == result.text
    back = transform(result.text, POLICIES["rollback"], "w.yaml", Options()).text
    assert _same(_load(back), data)
