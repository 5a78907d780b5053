"""What the outside differential test found (issue 24 §1, §4), each through the real CLI.

rapidyaml read these otherwise than libyaml, and the read back shared its
reading: a key hidden behind NEL in a comment, a container named
``"a\\u2028"``, a GPU count after a tab left unmigrated with exit 0; and it
accepted what libyaml refuses (a tab-only line, a key over 1,024
characters, ``& x``, a surrogate escape). Now every output is what libyaml
reads in the input plus the planned edits, or the run is refused with one
located line and nothing written; deep nesting says so in one line, fast.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
GPU = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: infer
spec:
  template:
    spec:
      containers:
      - name: {name}
        image: x
        resources:
          limits:
            nvidia.com/gpu:{sep}2
          # note{hide}
            nvidia.com/gpu: 2
      - name: b
        image: y
"""
CONFIG = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: b\n"


def gpu(name: str = "a", sep: str = " ", hide: str = "\n          requests:") -> str:
    return GPU.format(name=name, sep=sep, hide=hide)


def run(command: str, policy: str, text: str, tmp_path: Path) -> tuple[int, str, str, str]:
    """Exit code, stdout, stderr and the file's text after ``tfpolicy <command>``."""
    path = tmp_path / "in.yaml"
    path.write_text(text, encoding="utf-8")
    done = subprocess.run([TFPOLICY, command, "-p", policy, "in.yaml"], cwd=tmp_path,
                          capture_output=True, timeout=120, check=False)
    return (done.returncode, done.stdout.decode("utf-8"), done.stderr.decode("utf-8"),
            path.read_text("utf-8"))


def libyaml(text: str) -> Any:
    return yaml.load(text, Loader=yaml.CSafeLoader)


def template(text: str) -> Any:
    return libyaml(text)["spec"]["template"]


@pytest.mark.parametrize("command", ["apply", "fix"])
def test_a_tab_after_the_gpu_key_is_migrated_as_libyaml_reads_it(command: str,
                                                                   tmp_path: Path) -> None:
    code, out, err, written = run(command, "rightsize-example", gpu(sep="\t"), tmp_path)
    assert code == (0 if command == "apply" else 1), err
    result = template(out if command == "apply" else written)
    annotations = result["metadata"]["annotations"]
    assert annotations["tensor-fusion.ai/gpu-count"] == "2"
    assert annotations["tensor-fusion.ai/inject-container"] == "a"
    assert "resources" not in result["spec"]["containers"][0]  # the GPU limits and requests
    record = json.loads(annotations["tfpolicy.dev/original"])
    assert record["resources"]["a"] == {"limits": {"nvidia.com/gpu": 2},
                                        "requests": {"nvidia.com/gpu": 2}}


def test_takeover_labels_the_workload_behind_a_tab(tmp_path: Path) -> None:
    code, out, err, _ = run("apply", "takeover", gpu(sep="\t"), tmp_path)
    assert code == 0, err
    assert template(out)["metadata"]["labels"] == {"tensor-fusion.ai/enabled": "true"}


def test_a_line_separator_ends_the_container_name(tmp_path: Path) -> None:
    """libyaml breaks the line at U+2028: the container is "a", and so is inject-container."""
    text = gpu(name="a\u2028")
    assert libyaml(text)["spec"]["template"]["spec"]["containers"][0]["name"] == "a"
    code, out, err, _ = run("apply", "rightsize-example", text, tmp_path)
    assert code == 0, err
    result = template(out)
    assert result["metadata"]["annotations"]["tensor-fusion.ai/inject-container"] == "a"
    assert result["spec"]["containers"][0] == {"name": "a", "image": "x"}


@pytest.mark.parametrize("command", ["apply", "fix"])
def test_requests_behind_nel_in_a_comment_are_never_left_behind(command: str,
                                                                 tmp_path: Path) -> None:
    """NEL ends the comment for libyaml, so ``requests`` after it is data: the output either
    reads (by libyaml) with the GPU requests removed and recorded, or the rewrite is
    refused with one located line and nothing written. Never exit 0 with them left."""
    text = gpu(hide="\x85          requests:")
    assert libyaml(text)["spec"]["template"]["spec"]["containers"][0]["resources"] == {
        "limits": {"nvidia.com/gpu": 2}, "requests": {"nvidia.com/gpu": 2}}
    code, out, err, written = run(command, "rightsize-example", text, tmp_path)
    if code == 2:
        assert re.fullmatch(r"in\.yaml:\d+(:\d+)?: error: .+\n", err), err
        assert out == "" and written == text
        return
    assert code == (0 if command == "apply" else 1), err
    result = template(out if command == "apply" else written)
    assert "resources" not in result["spec"]["containers"][0]
    record = json.loads(result["metadata"]["annotations"]["tfpolicy.dev/original"])
    assert record["resources"]["a"]["requests"] == {"nvidia.com/gpu": 2}


# (what is appended to a GPU document or a document no policy reads, a word of the reason)
REFUSED = [
    ("\t\n", "tab"),
    ("x:\n  " + "k" * 1100 + ": v\n", "mapping values"),
    ("x: & x\n", "anchor"),
    ('x: "\\ud83d\\ude00"\n', "escape"),
    ("x: \"\\ud83d\"\n", "escape"),
    ("x: |1:30\n  y\n", "block scalar"),
    ("]x: 1\n", "YAML"),
    (": v\n", "YAML"),
]


@pytest.mark.parametrize(("tail", "reason"), REFUSED)
@pytest.mark.parametrize("base", ["gpu", "config"])
@pytest.mark.parametrize("command", ["apply", "fix"])
def test_what_libyaml_refuses_is_exit_2_located(tail: str, reason: str, base: str, command: str,
                                                tmp_path: Path) -> None:
    text = (gpu() if base == "gpu" else CONFIG) + tail
    with pytest.raises(yaml.YAMLError):
        libyaml(text)
    code, out, err, written = run(command, "takeover", text, tmp_path)
    assert code == 2, err
    lines = err.splitlines()
    assert len(lines) == 1 and re.match(r"in\.yaml:\d+:\d+: error: invalid YAML", lines[0]), err
    assert reason in lines[0], lines[0]
    assert out == "" and written == text


def test_a_surrogate_escape_in_an_owned_annotation_is_located(tmp_path: Path) -> None:
    text = gpu().replace("    spec:\n      containers:",
                         "    metadata:\n      annotations:\n"
                         "        tensor-fusion.ai/isolation: \"\\ud83d\\ude00\"\n"
                         "    spec:\n      containers:", 1)
    code, out, err, _ = run("apply", "takeover", text, tmp_path)
    assert code == 2, err
    assert re.fullmatch(r"in\.yaml:9:\d+: error: invalid YAML: .*escape.*\n", err), err
    assert out == ""


@pytest.mark.parametrize("body", ["[" * 100_000 + "]" * 100_000, "{a: " * 2000 + "1" + "}" * 2000])
@pytest.mark.parametrize("base", ["gpu", "config"])
def test_deep_nesting_is_one_line_and_quick(body: str, base: str, tmp_path: Path) -> None:
    """200 KB of nested brackets on one line used to take 57 s in the open-flow screen
    and printed rapidyaml's own errors beside tfpolicy's; the subprocess's timeout bounds it."""
    text = (gpu() if base == "gpu" else CONFIG) + f"x: {body}\n"
    code, out, err, _ = run("apply", "takeover", text, tmp_path)
    assert code == 2, err
    assert re.fullmatch(r"in\.yaml:\d+:\d+: error: invalid YAML: .*nesting depth\n", err), err
    assert out == ""


@pytest.mark.parametrize("shape", ["flow", "mapping", "block"])
@pytest.mark.parametrize("command", ["apply", "check", "fix"])
def test_nesting_just_under_libyamls_limit_in_a_rewritten_document_is_no_crash(
        shape: str, command: str, tmp_path: Path) -> None:
    """998 levels: libyaml reads them, but comparing the read back, or ruamel.yaml's round
    trip, went past Python's recursion limit (exit 3). Now it is one located line, exit 2,
    and the file is left as it is."""
    depth = 998
    body = {"flow": "x: " + "[" * depth + "]" * depth + "\n",
            "mapping": "x: " + "{a: " * depth + "1" + "}" * depth + "\n",
            "block": "".join(f"{'  ' * d}a{d}:\n" for d in range(depth)) + "  " * depth + "v: 1\n"}
    text = gpu() + body[shape]
    libyaml(text)  # valid YAML
    code, out, err, written = run(command, "rightsize-example", text, tmp_path)
    assert code == 2, err
    assert re.fullmatch(r"in\.yaml:\d+(:\d+)?: error: .+\n", err), err
    assert out == "" and written == text
