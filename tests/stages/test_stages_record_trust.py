"""Issue 24 §2 through the real CLI: the record (``tfpolicy.dev/original``) is input, edited by
anyone who can edit a manifest, so it may only undo what a stage wrote. An entry for a key no
stage owns, or for a resource that is not a GPU, is ignored with a warning; an oversized,
over-deep or surrogate-holding record is a located error, quickly, never exit 3."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
RECORD = "tfpolicy.dev/original"
BASE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
  namespace: ml
spec:
  replicas: 1
  selector:
    matchLabels:
      app: vllm
  template:
    metadata:
      labels:
        app: vllm
      annotations:
        team: ml
    spec:
      containers:
        - name: server
          image: vllm/vllm-openai:v0.6.3
          resources:
            limits:
              nvidia.com/gpu: 1
              cpu: "4"
              memory: 8Gi
"""
_RECORD_LINE = re.compile(rf"^(\s*{re.escape(RECORD)}: )'(.*)'$", re.MULTILINE)


def tfpolicy(cwd: Path, *args: str, stdin: str | None = None
             ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TFPOLICY, *args], cwd=cwd, input=stdin, capture_output=True,
                          text=True, check=False, timeout=120)


def staged(policy: str) -> str:
    done = tfpolicy(Path.cwd(), "apply", "-p", policy, "-", stdin=BASE)
    assert done.returncode == 0, done.stderr
    assert RECORD in done.stdout
    return done.stdout


def doctored(text: str, change: Callable[[dict[str, Any]], None]) -> str:
    """``text`` with its record edited as a pull request could: read, changed, written back."""
    found = _RECORD_LINE.search(text)
    assert found is not None
    record = json.loads(found.group(2).replace("''", "'"))
    change(record)
    quoted = json.dumps(record, separators=(",", ":")).replace("'", "''")
    return text[:found.start()] + f"{found.group(1)}'{quoted}'" + text[found.end():]


def hostile(record: dict[str, Any]) -> None:
    record.setdefault("labels", {})["app"] = {}
    annotations = record.setdefault("annotations", {})
    annotations["team"] = {"was": "pwned"}
    annotations["kubernetes.io/foo"] = {"was": "x"}
    limits = record.setdefault("resources", {}).setdefault("server", {})
    limits.setdefault("limits", {}).update({"cpu": "64", "memory": "1Ti"})
    limits["requests"] = {"cpu": "32"}


HOSTILE_NAMES = ["the label 'app'", "the annotation 'team'", "the annotation 'kubernetes.io/foo'",
                 "'cpu' in the limits", "'memory' in the limits", "'cpu' in the requests"]


def line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


def warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "[warning]" in line]


def assert_ignored(stderr: str, file: str, text: str) -> None:
    """One located warning per hostile entry, at the record's line, naming the entry."""
    ignored = [w for w in warnings(stderr) if "ignored, not restored" in w]
    assert len(ignored) == len(HOSTILE_NAMES), stderr
    where = f"{file}:{line_of(text, RECORD)}:"
    assert all(w.startswith(where) for w in ignored), stderr
    for name in HOSTILE_NAMES:
        assert sum(name in w for w in ignored) == 1, (name, stderr)


@pytest.mark.parametrize("stage", ["takeover", "rightsize-example"])
def test_rollback_ignores_entries_no_stage_owns(tmp_path: Path, stage: str) -> None:
    text = doctored(staged(stage), hostile)
    (tmp_path / "d.yaml").write_text(text)
    done = tfpolicy(tmp_path, "apply", "-p", "rollback", "d.yaml")
    assert done.returncode == 0, done.stderr  # warnings alone: apply exits 0
    assert done.stdout == BASE  # the valid entries undone, the user's keys untouched
    assert_ignored(done.stderr, "d.yaml", text)


def test_fix_and_check_ignore_them_too(tmp_path: Path) -> None:
    text = doctored(staged("rightsize-example"), hostile)
    target = tmp_path / "d.yaml"
    target.write_text(text)
    checked = tfpolicy(tmp_path, "check", "-p", "rollback", "d.yaml")
    assert checked.returncode == 1  # rollback would change the file
    assert target.read_text() == text
    assert_ignored(checked.stdout + checked.stderr, "d.yaml", text)
    fixed = tfpolicy(tmp_path, "fix", "-p", "rollback", "d.yaml")
    assert fixed.returncode == 1, fixed.stderr
    assert target.read_text() == BASE
    assert_ignored(fixed.stdout + fixed.stderr, "d.yaml", text)


@pytest.mark.parametrize(("first", "then"), [("rightsize-example", "takeover"),
                                             ("takeover", "rightsize-example"),
                                             ("rightsize-example", "rightsize-example")])
def test_a_stage_over_a_doctored_record_undoes_only_its_own(tmp_path: Path, first: str,
                                                             then: str) -> None:
    text = doctored(staged(first), hostile)
    (tmp_path / "d.yaml").write_text(text)
    done = tfpolicy(tmp_path, "apply", "-p", then, "d.yaml")
    assert done.returncode == 0, done.stderr
    assert yaml.safe_load(done.stdout) == yaml.safe_load(staged(then))  # its new record is clean
    assert_ignored(done.stderr, "d.yaml", text)


def test_a_legacy_record_gives_back_gpus_only(tmp_path: Path) -> None:
    legacy = '{"server":{"limits":{"nvidia.com/gpu":1,"cpu":"64"}}}'
    text = (BASE.replace("              nvidia.com/gpu: 1\n", "")
            .replace("        team: ml\n", f"        team: ml\n        {RECORD}-gpu-resources: "
                                         f"'{legacy}'\n"))
    (tmp_path / "d.yaml").write_text(text)
    done = tfpolicy(tmp_path, "apply", "-p", "rollback", "d.yaml")
    assert done.returncode == 0, done.stderr
    limits = yaml.safe_load(done.stdout)["spec"]["template"]["spec"]["containers"][0][
        "resources"]["limits"]
    assert limits == {"nvidia.com/gpu": 1, "cpu": "4", "memory": "8Gi"}
    ignored = warnings(done.stderr)
    assert len(ignored) == 1 and "'cpu' in the limits" in ignored[0], done.stderr


def test_maps_the_stage_did_not_create_are_not_put_back(tmp_path: Path) -> None:
    """A stage creates a map only where there was none or a null one: a record saying the
    template's metadata "was" a map of labels is not obeyed."""
    bare = BASE.replace("    metadata:\n      labels:\n        app: vllm\n"
                        "      annotations:\n        team: ml\n", "")
    taken = tfpolicy(tmp_path, "apply", "-p", "takeover", "-", stdin=bare)
    assert taken.returncode == 0, taken.stderr

    def lie(record: dict[str, Any]) -> None:
        record["maps"]["metadata"] = {"was": {"labels": {"app": "evil"}}}
        record["maps"]["labels"] = {"was": "evil"}

    text = doctored(taken.stdout, lie)
    (tmp_path / "d.yaml").write_text(text)
    done = tfpolicy(tmp_path, "apply", "-p", "rollback", "d.yaml")
    assert done.returncode == 0, done.stderr
    assert "evil" not in done.stdout
    ignored = warnings(done.stderr)
    assert len(ignored) == 2, done.stderr
    assert any("the 'metadata' map" in w for w in ignored)
    assert any("the 'labels' map" in w for w in ignored)


def test_hamis_annotations_are_still_given_back(tmp_path: Path) -> None:
    def hami(record: dict[str, Any]) -> None:
        record["annotations"]["hami.io/gpu-scheduler-policy"] = {"was": "spread"}

    (tmp_path / "d.yaml").write_text(doctored(staged("rightsize-example"), hami))
    done = tfpolicy(tmp_path, "apply", "-p", "rollback", "d.yaml")
    assert done.returncode == 0, done.stderr
    assert warnings(done.stderr) == []
    template = yaml.safe_load(done.stdout)["spec"]["template"]
    assert template["metadata"]["annotations"] == {"team": "ml",
                                                   "hami.io/gpu-scheduler-policy": "spread"}


def _flat(depth: int) -> str:
    return "'{\"layout\":" + "[" * depth + "]" * depth + "}'"


def _block(depth: int) -> str:
    """The same JSON over many lines, in a block scalar (the form YAML readers take fast)."""
    lines = ["["] * depth + ["]"] * depth
    return "|\n" + "".join(f"          {line}\n" for line in ['{"layout":', *lines, "}"])


def with_record(value: str) -> str:
    return BASE.replace("        team: ml\n", f"        team: ml\n        {RECORD}: {value}\n")


BAD_RECORDS = [
    pytest.param(_flat(2_000), "nested deeper than 8 levels", id="2000-deep"),
    pytest.param(_block(50_000), "nested deeper than 8 levels", id="50000-deep"),
    pytest.param("'{\"layout\":{\"x\":{\"text\":\"" + "a" * 300_000 + "\"}}}'",
                 "larger than 256 KiB", id="over-256-KiB"),
    pytest.param("'{\"annotations\":{\"tensor-fusion.ai/qos\":{\"was\":\"\\ud83d\"}}}'",
                 "surrogate code point U+D83D", id="json-lone-surrogate"),
]


@pytest.mark.parametrize(("value", "reason"), BAD_RECORDS)
@pytest.mark.parametrize("command", ["apply", "check", "fix"])
def test_a_bad_record_is_a_quick_located_error(tmp_path: Path, value: str, reason: str,
                                               command: str) -> None:
    text = with_record(value)
    target = tmp_path / "d.yaml"
    target.write_text(text)
    # 50,000 deep took minutes before the bound; the runner's timeout guards a hang
    done = tfpolicy(tmp_path, command, "-p", "rollback", "d.yaml")
    assert done.returncode == 1, done.stderr
    assert "internal error" not in done.stderr
    errors = [line for line in (done.stdout + done.stderr).splitlines() if "[error]" in line]
    assert len(errors) == 1, done.stdout + done.stderr
    assert errors[0].startswith(f"d.yaml:{line_of(text, RECORD)}:")
    assert f"cannot read {RECORD}: " in errors[0] and reason in errors[0]
    assert target.read_text() == text
    if command == "apply":
        assert done.stdout == text  # refused: the document as it was


QOS_POLICY = """\
apiVersion: tfpolicy.dev/v1alpha1
kind: MigrationPolicy
metadata: {name: qos}
spec: {stage: takeover, qos: high}
"""


@pytest.mark.parametrize("command", ["apply", "check", "fix"])
@pytest.mark.parametrize("escape", ["\\ud83d\\ude00", "\\ud83d"])
def test_a_surrogate_in_an_owned_annotation_is_a_located_error(tmp_path: Path, command: str,
                                                                escape: str) -> None:
    """YAML's ``\\u`` escapes are code points: ``"\\ud83d\\ude00"`` reads as two surrogates,
    which the stage would have to keep in its record (and UTF-8 cannot write)."""
    (tmp_path / "qos.yaml").write_text(QOS_POLICY)
    owned = f'        tensor-fusion.ai/qos: "{escape}"\n'
    text = BASE.replace("        team: ml\n", "        team: ml\n" + owned)
    target = tmp_path / "d.yaml"
    target.write_text(text)
    done = tfpolicy(tmp_path, command, "-p", "qos.yaml", "d.yaml")
    assert_invalid_yaml_at(done, text, "tensor-fusion.ai/qos", target)


@pytest.mark.parametrize("command", ["apply", "check", "fix"])
def test_a_yaml_surrogate_escape_in_the_record_is_invalid_yaml(tmp_path: Path,
                                                               command: str) -> None:
    """libyaml refuses a ``\\u`` escape of a surrogate, so the document is bad input
    (exit 2, one located line), whichever reader looked at it first."""
    value = '"{\\"annotations\\":{\\"tensor-fusion.ai/qos\\":{\\"was\\":\\"\\ud83d\\"}}}"'
    text = with_record(value)
    target = tmp_path / "d.yaml"
    target.write_text(text)
    done = tfpolicy(tmp_path, command, "-p", "rollback", "d.yaml")
    assert_invalid_yaml_at(done, text, RECORD, target)


def assert_invalid_yaml_at(done: subprocess.CompletedProcess[str], text: str, key: str,
                           target: Path) -> None:
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"d.yaml:{line_of(text, key)}:")
    assert "invalid Unicode character escape" in lines[0]
    assert target.read_text() == text


NOT_MAPS = [
    pytest.param("    metadata:\n      - app\n", "metadata", id="metadata-list"),
    pytest.param("    metadata:\n      labels: app\n      annotations:\n        team: ml\n",
                 "labels", id="labels-scalar"),
    pytest.param("    metadata:\n      labels:\n        app: vllm\n      annotations:\n"
                 "        - team\n", "annotations", id="annotations-list"),
]


@pytest.mark.parametrize(("metadata", "name"), NOT_MAPS)
def test_check_reports_a_map_that_is_not_one_as_apply_does(tmp_path: Path, metadata: str,
                                                           name: str) -> None:
    text = BASE.replace("    metadata:\n      labels:\n        app: vllm\n"
                        "      annotations:\n        team: ml\n", metadata)
    assert text != BASE
    (tmp_path / "d.yaml").write_text(text)
    applied = tfpolicy(tmp_path, "apply", "-p", "takeover", "d.yaml")
    checked = tfpolicy(tmp_path, "check", "-p", "takeover", "d.yaml")
    assert applied.returncode == checked.returncode == 1, checked.stderr
    wanted = [line for line in applied.stderr.splitlines() if "[error]" in line]
    assert len(wanted) == 1 and f"{name} is not a mapping" in wanted[0]
    assert wanted[0].startswith("d.yaml:")
    assert wanted[0] in (checked.stdout + checked.stderr).splitlines()
    assert "internal error" not in checked.stderr


def test_a_long_chain_of_layout_entries_is_only_layout(tmp_path: Path) -> None:
    """Layout entries that each follow the next, thousands long: placed without recursion
    (it exhausted the stack: exit 3), and the data is the template's."""
    count = 3_000
    labels = "".join(f"        l{i}: x\n" for i in range(count))
    text = staged("takeover").replace("        app: vllm\n", "        app: vllm\n" + labels, 1)

    def chain(record: dict[str, Any]) -> None:
        record["layout"] = {f"metadata.labels[l{i}]": {"after": f"l{i + 1}",
                                                       "text": f"        l{i}: x\n"}
                            for i in range(count - 1)}

    (tmp_path / "d.yaml").write_text(doctored(text, chain))
    done = tfpolicy(tmp_path, "apply", "-p", "rollback", "d.yaml")
    assert done.returncode == 0, done.stderr
    expected = yaml.safe_load(BASE.replace("        app: vllm\n", "        app: vllm\n" + labels, 1))
    assert yaml.safe_load(done.stdout) == expected


@pytest.mark.parametrize(("resources", "where"), [
    ("          resources: [1]\n", "its resources is not a mapping"),
    ("          resources:\n            limits: lots\n", "its resources.limits is not a mapping"),
])
def test_gpus_the_record_gives_back_to_a_place_that_is_no_map_are_an_error(
        tmp_path: Path, resources: str, where: str) -> None:
    def side(record: dict[str, Any]) -> None:
        record["resources"] = {"side": {"limits": {"nvidia.com/gpu": 1}}}

    text = doctored(staged("takeover"), side) + "        - name: side\n          image: x\n"
    text += resources
    (tmp_path / "d.yaml").write_text(text)
    done = tfpolicy(tmp_path, "apply", "-p", "rollback", "d.yaml")
    assert done.returncode == 1, done.stderr
    assert "internal error" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if "[error]" in line]
    assert len(errors) == 1 and where in errors[0], done.stderr
    assert errors[0].startswith(f"d.yaml:{len(text.splitlines())}:")
    assert done.stdout == text
