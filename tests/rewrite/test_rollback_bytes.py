"""Rollback gives the user's bytes back, not only their data (issue 14 §1).

``rollback(stage(x))`` is byte-identical to ``x``, and so is a rollback
after a chain of stages, over:

- every file of the round-trip corpus (anchors, merge keys, flow style,
  CRLF and CR line ends, a missing final newline, comments everywhere),
  the real-world manifests, and every golden case's input that tfpolicy
  never wrote to;
- generated templates whose GPU keys sit anywhere among their siblings,
  quoted any way, with trailing comments, comment lines above them and
  odd indentation.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import ROOT, policy_set, run
from tfpolicy.errors import TfpolicyError
from tfpolicy.rewrite.engine import PolicySet

STAGES = ["takeover", "takeover-25", "rightsize-example", "autoscale"]
CHAINS = [("takeover", "rightsize-example"), ("rightsize-example", "takeover"),
          ("takeover-25", "autoscale"), ("autoscale", "rightsize-example")]


def _read(path: Path) -> str:
    with path.open(encoding="utf-8", newline="") as handle:  # CR and CRLF kept as they are
        return handle.read()


def _originals() -> list[Path]:
    found = [*sorted((ROOT / "tests" / "corpus" / "roundtrip").glob("*.yaml")),
             *sorted((ROOT / "tests" / "realworld").glob("*.yaml")),
             *sorted((ROOT / "tests" / "cases").glob("*/*/input.yaml"))]
    return [p for p in found if "tfpolicy.dev/" not in p.read_text(errors="replace")
            and _valid(p)]


def _valid(path: Path) -> bool:
    """Input tfpolicy accepts at all (a few real files hold unrendered ``{placeholders}``)."""
    try:
        run(_read(path), policy_set("rollback"), path.name)
    except TfpolicyError:
        return False
    return True


ORIGINALS = _originals()
_SETS: dict[str, PolicySet] = {name: policy_set(name) for name in [*STAGES, "rollback"]}


def _staged(text: str, chain: tuple[str, ...], sets: dict[str, PolicySet], file: str) -> str:
    for name in chain:
        text = run(text, sets[name], file).text
    return text


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("path", ORIGINALS, ids=_rel)
def test_rollback_after_each_stage_gives_the_bytes_back(path: Path) -> None:
    sets = _SETS
    text = _read(path)
    for stage in STAGES:
        staged = _staged(text, (stage,), sets, path.name)
        assert run(staged, sets["rollback"], path.name).text == text, stage


@pytest.mark.parametrize("path", ORIGINALS, ids=_rel)
def test_rollback_after_a_chain_of_stages_gives_the_bytes_back(path: Path) -> None:
    sets = _SETS
    text = _read(path)
    for chain in CHAINS:
        staged = _staged(text, chain, sets, path.name)
        assert run(staged, sets["rollback"], path.name).text == text, chain


def test_the_corpus_is_rewritten_at_all() -> None:
    """The properties above are not vacuous: most files are changed by a stage."""
    changed = [p for p in ORIGINALS
               if _staged(_read(p), ("rightsize-example",), _SETS, p.name) != _read(p)]
    assert len(changed) > len(ORIGINALS) // 2


# -- generated templates ------------------------------------------------------------------

_GPU_VALUES = ["1", "'1'", '"1"', "2", "'2'"]
_COMMENTS = ["", "  # one card", " # see capacity sheet"]
_SIBLINGS = [("cpu", '"2"'), ("memory", "16Gi"), ("ephemeral-storage", "10Gi")]


@st.composite
def _resources(draw: Any, indent: int, step: int) -> list[str]:
    """A ``resources:`` block: GPU keys anywhere among their siblings, in any style."""
    lines = [" " * indent + "resources:"]
    sections = draw(st.sampled_from([("limits",), ("limits", "requests"), ("requests", "limits")]))
    gpu_value = draw(st.sampled_from(_GPU_VALUES))
    inner = indent + draw(st.sampled_from([step, step + 2]))  # as a chart may indent it
    for section in sections:
        lines.append(" " * inner + f"{section}:" + draw(st.sampled_from(["", "  # sizing"])))
        others = draw(st.lists(st.sampled_from(_SIBLINGS), unique=True, max_size=2))
        entries = [f"{k}: {v}" for k, v in others]
        gpu = f"nvidia.com/gpu: {gpu_value}" + draw(st.sampled_from(_COMMENTS))
        entries.insert(draw(st.integers(0, len(entries))), gpu)
        for entry in entries:
            if draw(st.integers(0, 4)) == 0:
                lines.append(" " * (inner + step) + "# about the next line")
            lines.append(" " * (inner + step) + entry)
    return lines


@st.composite
def _template_text(draw: Any) -> str:
    step = draw(st.sampled_from([2, 4]))
    dash = draw(st.sampled_from(["indentless", "indented"]))
    items = 4 * step if dash == "indented" else 3 * step
    container = items + 2
    meta = draw(st.sampled_from(["labels", "none", "null-annotations", "user-isolation"]))
    lines = ["apiVersion: apps/v1", "kind: Deployment", "metadata:", " " * step + "name: web",
             "spec:", " " * step + "replicas: 2", " " * step + "template:"]
    lines += _meta(meta, step)
    lines += [" " * 2 * step + "spec:", " " * 3 * step + "containers:",
              " " * items + "- name: main", " " * container + "image: vllm/vllm-openai:v0.6.3"]
    block = draw(_resources(container, step))
    after = draw(st.sampled_from([[], ["args: [--port, '8000']"], ["workingDir: /srv"]]))
    where = draw(st.sampled_from(["end", "middle"]))
    if where == "middle" and after:
        lines += block + [" " * container + a for a in after]
    else:
        lines += [" " * container + a for a in after] + block
    ending = draw(st.sampled_from(["\n", "", "\n\n"]))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    return newline.join(lines) + ending.replace("\n", newline)


def _meta(kind: str, step: int) -> list[str]:
    pad = " " * 2 * step
    head = [" " * step * 2 + "metadata:"] if kind != "none" else []
    if kind == "labels":
        return [*head, pad + " " * step + "labels:", pad + " " * 2 * step + "app: web"]
    if kind == "null-annotations":
        return [*head, pad + " " * step + "annotations:", pad + " " * step + "labels: {app: web}"]
    if kind == "user-isolation":
        return [*head, pad + " " * step + "annotations:", pad + " " * 2 * step + "tensor-fusion.ai/isolation: 'soft'  # ours"]
    return head


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_template_text(), chain=st.sampled_from([(s,) for s in STAGES] + CHAINS))
def test_generated_templates_roll_back_byte_for_byte(text: str, chain: tuple[str, ...]) -> None:
    staged = _staged(text, chain, _SETS, "gen.yaml")
    assert staged != text
    assert run(staged, _SETS["rollback"], "gen.yaml").text == text


# -- a layout that no longer fits ---------------------------------------------------------

_DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: main
        image: img:1
        resources:
          limits:
            cpu: "2"
            nvidia.com/gpu: '1'  # one card
            memory: 8Gi
"""


def _data(text: str) -> Any:
    import yaml

    return yaml.safe_load(text)


def test_a_layout_that_no_longer_fits_still_gives_the_value_back() -> None:
    """The sibling the GPU key followed is gone and the block re-indented by hand: rollback
    writes the value the ordinary way, and the data is the user's."""
    staged = _staged(_DEPLOYMENT, ("rightsize-example",), _SETS, "d.yaml")
    assert "'1'  # one card" in staged  # the record keeps the line
    edited = staged.replace('          limits:\n            cpu: "2"\n            memory: 8Gi\n',
                            "          limits:\n              memory: 8Gi\n")
    assert edited != staged
    back = run(edited, _SETS["rollback"], "d.yaml").text
    expected = _data(_DEPLOYMENT)
    del expected["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["cpu"]
    assert _data(back) == expected
    assert "nvidia.com/gpu: '1'  # one card" not in back  # its recorded line did not fit


def test_a_recorded_line_that_reads_as_another_value_is_not_used() -> None:
    """A record edited by hand so that its text says another value: the value in the record
    wins, written the ordinary way."""
    staged = _staged(_DEPLOYMENT, ("rightsize-example",), _SETS, "d.yaml")
    tampered = staged.replace("nvidia.com/gpu: '1'  # one card", "nvidia.com/gpu: '7'  # one card")
    assert tampered != staged
    back = run(tampered, _SETS["rollback"], "d.yaml").text
    assert _data(back) == _data(_DEPLOYMENT)
    assert "'7'" not in back
