"""Every document of a stream is checked, including those no policy reads (issue 9).

Through the real CLI: a malformed, non-mapping or key-repeating document
anywhere is exit 2 with one located line and empty stdout; a valid one is
passed on byte for byte; rapidyaml's own error printing never shows.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tfpolicy.yamlio import cleared

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
GPU = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: infer
spec:
  selector:
    matchLabels:
      app: infer
  template:
    metadata:
      labels:
        app: infer
    spec:
      containers:
        - name: infer
          image: vllm/vllm-openai:v0.6.0
          resources:
            limits:
              nvidia.com/gpu: 1
"""
CONFIG = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n"


def apply(stream: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "in.yaml"
    path.write_text(stream, encoding="utf-8")
    return subprocess.run([TFPOLICY, "apply", "-p", "takeover", "in.yaml"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, check=False)


# (second document's text, expected "line:col" prefix of the error, a word of the reason)
REFUSED = [
    (CONFIG + "  mode: [fast\n", "in.yaml:27:", "flow sequence"),
    (CONFIG + "  mode: fast\n  mode: slow\n", "in.yaml:27:3:",
     "duplicate key 'mode' (first at line 26)"),
    (CONFIG + "  mode: fast\n\tmore: x\n", "in.yaml:27:", "tab"),
    (CONFIG + "  mode: 'fast\n", "in.yaml:26:9:", "quoted"),
    ("- a\n- b\n", "in.yaml:21", "mapping"),
    ("just a string\n", "in.yaml:21", "mapping"),
    (CONFIG + "  a: 1\n b: 2\n", "in.yaml:27:", "YAML"),
    # Where rapidyaml alone is more lenient than libyaml: never cleared by it.
    (CONFIG + "  mode: @fast\n", "in.yaml:26:9:", "cannot start any token"),
    (CONFIG + "  mode: `fast`\n", "in.yaml:26:9:", "cannot start any token"),
    (CONFIG + "  mode: !custom fast\n", "in.yaml:26:", "!custom"),
    (CONFIG + "  mode: *nowhere\n", "in.yaml:26:9:", "undefined alias"),
    ("%YAML 2.0\n---\n" + CONFIG, "in.yaml:", "YAML"),
    (CONFIG + "  mode: x\n\x0c  b: 1\n", "in.yaml:27:1:", "control character"),
    # Keys rapidyaml reads apart and libyaml as one (YAML 1.1's booleans), nested too.
    (CONFIG + "  yes: a\n  true: b\n", "in.yaml:27:3:", "duplicate key 'true' (first at line 26)"),
    (CONFIG.removesuffix("data:\n") + 'data: {on: 1, "x": [{y: 1, true: 2}]}\n', "in.yaml:25:28:",
     "duplicate key 'true' (first at line 25)"),
]


@pytest.mark.parametrize(("second", "where", "reason"), REFUSED)
def test_a_bad_document_without_gpu_is_refused(second: str, where: str, reason: str,
                                               tmp_path: Path) -> None:
    result = apply(GPU + "---\n" + second, tmp_path)
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, lines  # nothing of rapidyaml's own printing
    assert lines[0].startswith(where), lines[0]
    assert reason in lines[0], lines[0]


ACCEPTED = [
    CONFIG + "  mode: fast\n",
    "# only a comment\n",
    "---\n# an empty document\n",
    "base: &b {x: 1}\nmore:\n  <<: *b\n  y: 2\n",  # merge keys, as kubectl reads them
    CONFIG + "  'mode': fast\n  \"other\": slow\n",
    CONFIG + "  script: |\n    a: 1\n    a: 1\n",  # repeated text inside a block scalar
    '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "j"}}\n',
    CONFIG + '  image: nginx@sha256:0a1b\n  mail: a@b.c\n  cron: "58 2 * * *"\n  x: y!\n',
    CONFIG + '  "yes": a\n  true: b\n  .dockerconfigjson: c\n',  # a quoted "yes" is a string
]


@pytest.mark.parametrize("second", ACCEPTED)
def test_a_good_document_without_gpu_passes_byte_for_byte(second: str, tmp_path: Path) -> None:
    result = apply(GPU + "---\n" + second, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout.endswith("---\n" + second)
    assert 'tensor-fusion.ai/enabled: "true"' in result.stdout


def test_cleared_is_only_ever_a_shortcut() -> None:
    """``cleared`` says True only for one clean mapping; anything else goes to the full parse."""
    assert cleared("a: 1\nb: [1, 2]\n")
    assert cleared("---\na: 1\n")
    assert cleared("# nothing\n")
    assert not cleared("a: 1\na: 2\n")
    assert not cleared("a: [1\n")
    assert not cleared("- 1\n")
    assert not cleared("text\n")
    assert not cleared("? [a]\n: 1\n")  # a key rapidyaml cannot hold: libyaml decides


def test_rapidyaml_errors_do_not_reach_stderr(capfd: pytest.CaptureFixture[str]) -> None:
    assert not cleared("a: [1\n")
    assert capfd.readouterr().err == ""
    print("still", file=sys.stderr)  # and descriptor 2 works again afterwards
    assert capfd.readouterr().err == "still\n"


def test_checking_many_documents_holds_no_memory() -> None:
    """rapidyaml's own JSON buffer leaked ~1.5 KB per document: memory must stay flat."""
    code = (
        "import resource, sys\n"
        "from tfpolicy.yamlio import cleared\n"
        "doc = sys.argv[1]\n"
        "for _ in range(2000): cleared(doc)\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "for _ in range(20000): cleared(doc)\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)\n"
    )
    doc = CONFIG + "".join(f"  key{i}: value number {i} of the map\n" for i in range(40))
    grown_kb = int(subprocess.run([sys.executable, "-c", code, doc], capture_output=True,
                                  text=True, timeout=120, check=True).stdout)
    assert grown_kb < 4096, grown_kb
