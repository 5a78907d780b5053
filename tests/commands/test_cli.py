"""The command line through its real entry points: ``main()`` in process, and the console script."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT
from tfpolicy import cli

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
# The record takeover writes on a template with no metadata (README "The record").
RECORD = ('{"labels":{"tensor-fusion.ai/enabled":{}},"annotations":{"tensor-fusion.ai/isolation":{}},'
          '"maps":{"metadata":{},"labels":{},"annotations":{}}}')
LLM = ROOT / "examples" / "manifests" / "llm-server.yaml"
GPU_DOC = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
      - name: main
        resources:
          limits:
            nvidia.com/gpu: 1
"""


def main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_apply_reads_stdin_and_writes_only_manifests() -> None:
    result = subprocess.run([TFPOLICY, "apply", "-p", "takeover", "-"], input=GPU_DOC.encode(),
                            capture_output=True, check=False, timeout=60)
    assert result.returncode == 0
    doc = yaml.safe_load(result.stdout)
    assert doc["spec"]["template"]["metadata"]["labels"] == {"tensor-fusion.ai/enabled": "true"}
    assert result.stderr == b""


def test_apply_joins_files_into_one_stream(tmp_path: Path, capsys) -> None:
    one, two = tmp_path / "a.yaml", tmp_path / "b.yaml"
    one.write_text("apiVersion: v1\nkind: Service\nmetadata: {name: a}")  # no final newline
    two.write_text(GPU_DOC)
    code, out, _ = main(capsys, "apply", "-p", "takeover", str(one), str(two))
    assert code == 0
    assert out.startswith("apiVersion: v1\nkind: Service\nmetadata: {name: a}\n---\n")
    assert [d["kind"] for d in yaml.safe_load_all(out)] == ["Service", "Deployment"]


def test_apply_findings_go_to_stderr_and_errors_exit_1(tmp_path: Path, capsys) -> None:
    pod = tmp_path / "pod.yaml"
    pod.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
                   "  - name: c\n    resources: {limits: {nvidia.com/gpu: 1}}\n")
    code, out, err = main(capsys, "apply", "-p", "takeover-1", str(pod))
    assert code == 1
    assert out == pod.read_text()  # a template with an error finding is left alone
    assert f"{pod}:3:1: [error] Pod/p: the webhook rejects a pod" in err


def test_fix_rewrites_in_place_keeping_mode_and_crlf(tmp_path: Path, capsys) -> None:
    path = tmp_path / "d.yaml"
    path.write_bytes(GPU_DOC.replace("\n", "\r\n").encode())
    path.chmod(0o640)
    code, out, _ = main(capsys, "fix", "-p", "takeover", str(path))
    assert (code, out) == (1, f"Fixing {path}\n")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    data = path.read_bytes()
    assert b"tensor-fusion.ai/enabled: \"true\"\r\n" in data
    assert b"\n" not in data.replace(b"\r\n", b"")
    assert list(tmp_path.iterdir()) == [path]


def test_fix_leaves_unchanged_files_alone(tmp_path: Path, capsys) -> None:
    path = tmp_path / "d.yaml"
    path.write_text(GPU_DOC)
    assert main(capsys, "fix", "-p", "takeover", str(path))[0] == 1
    os.utime(path, (1_000_000, 1_000_000))
    code, out, _ = main(capsys, "fix", "-p", "takeover", str(path))
    assert (code, out) == (0, "")
    assert path.stat().st_mtime == 1_000_000


def test_fix_keeps_a_byte_order_mark(tmp_path: Path, capsys) -> None:
    path = tmp_path / "d.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + GPU_DOC.encode())
    main(capsys, "fix", "-p", "takeover", str(path))
    assert path.read_bytes().startswith(b"\xef\xbb\xbfapiVersion")


def test_check_writes_nothing_and_reports_changes(tmp_path: Path, capsys) -> None:
    path = tmp_path / "d.yaml"
    path.write_text(GPU_DOC)
    code, out, _ = main(capsys, "check", "-p", "takeover", str(path))
    assert code == 1
    assert path.read_text() == GPU_DOC
    assert out.startswith(f"{path}:6:3: [warning] Deployment/web: would set "
                          "metadata (takeover)")


def test_check_diff_shows_what_fix_would_write(tmp_path: Path, capsys) -> None:
    path = tmp_path / "d.yaml"
    path.write_text(GPU_DOC)
    code, out, _ = main(capsys, "check", "-p", "takeover", "--diff", str(path))
    assert code == 1 and path.read_text() == GPU_DOC
    diff = out[out.index(f"--- a/{path}"):]
    assert diff.splitlines()[2:] == [  # a missing metadata goes before the template's spec
        "@@ -4,6 +4,12 @@", "   name: web", " spec:", "   template:", "+    metadata:",
        "+      labels:", '+        tensor-fusion.ai/enabled: "true"', "+      annotations:",
        "+        tensor-fusion.ai/isolation: shared",
        f"+        tfpolicy.dev/original: '{RECORD}'", "     spec:", "       containers:",
        "       - name: main",
    ]


def test_fix_and_check_refuse_stdin(capsys) -> None:
    for command in ("fix", "check"):
        code, out, err = main(capsys, command, "-p", "takeover", "-")
        assert (code, out) == (2, "")
        assert err == "tfpolicy: error: fix and check work on files; use `tfpolicy apply -` for stdin\n"


def test_check_clean_is_exit_0(tmp_path: Path, capsys) -> None:
    path = tmp_path / "d.yaml"
    path.write_text(GPU_DOC)
    main(capsys, "fix", "-p", "takeover", str(path))
    assert main(capsys, "check", "-p", "takeover", str(path)) == (0, "", "")


def test_findings_as_json_and_github(tmp_path: Path, capsys) -> None:
    path = tmp_path / "d.yaml"
    path.write_text(GPU_DOC)
    _, out, _ = main(capsys, "check", "-p", "takeover", "--format", "json", str(path))
    result = json.loads(out)[0]
    assert result["severity"] == "warning"
    assert result["resourceRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
    assert result["file"] == {"path": str(path), "index": 0}
    _, out, _ = main(capsys, "check", "-p", "takeover", "--format", "github", str(path))
    assert out.startswith(f"::warning file={path},line=6,col=3,title=tfpolicy takeover::would ")


def test_validate_builtin_and_broken_policies(tmp_path: Path, capsys) -> None:
    builtins = sorted(str(p) for p in (ROOT / "policies").glob("*.yaml"))
    code, _, err = main(capsys, "validate", *builtins)
    assert (code, err) == (0, f"{len(builtins)} policies valid\n")
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: tfpolicy.dev/v1alpha1\nkind: MigrationPolicy\nmetadata: {name: b}\n"
                   "spec:\n  stage: rightsize\n  resources: {tflops: {limit: lots}}\n")
    code, out, err = main(capsys, "validate", str(bad))
    assert (code, out) == (2, "")  # exit 2: findings on stderr, stdout empty
    assert err == (f"{bad}:6:31: [error] 'lots' is not a Kubernetes quantity such as \"30\", "
                   "\"149.7\", 8Gi or 512Mi ($.spec.resources.tflops.limit) (b)\n")


def test_project_config_supplies_policies(tmp_path: Path, monkeypatch, capsys) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "policies").mkdir()
    shutil.copy(ROOT / "policies" / "takeover-25.yaml", tmp_path / "policies" / "canary.yaml")
    (tmp_path / ".tfpolicy.yaml").write_text("policies: [policies/canary.yaml]\n")
    sub = tmp_path / "apps"
    sub.mkdir()
    (sub / "d.yaml").write_text(GPU_DOC)
    monkeypatch.chdir(sub)
    code, out, _ = main(capsys, "apply", "d.yaml")
    assert code == 0
    annotations = yaml.safe_load(out)["spec"]["template"]["metadata"]["annotations"]
    assert annotations["tensor-fusion.ai/enabled-replicas"] == "1"


def test_no_policy_anywhere_is_a_usage_error(tmp_path: Path, monkeypatch, capsys) -> None:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    code, out, err = main(capsys, "apply", "-")
    assert (code, out) == (2, "")
    assert err == "tfpolicy: error: no policy given: use -p POLICY or a .tfpolicy.yaml\n"


def test_internal_error_is_exit_3_in_one_line(monkeypatch, capsys) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr("tfpolicy.files.streamed.transform_stream", boom)
    code, out, err = main(capsys, "apply", "-p", "takeover", str(LLM))
    assert (code, out) == (3, "")
    assert err == "tfpolicy: internal error: RuntimeError: boom\n"


def test_version_and_help() -> None:
    result = subprocess.run([TFPOLICY, "--version"], capture_output=True, check=False)
    assert result.returncode == 0 and result.stdout.startswith(b"tfpolicy, version ")
    result = subprocess.run([TFPOLICY, "--help"], capture_output=True, check=False)
    assert b"apply" in result.stdout and b"validate" in result.stdout


def test_output_is_deterministic() -> None:
    runs = [subprocess.run([TFPOLICY, "apply", "-p", "rightsize-example", "examples/manifests"],
                           capture_output=True, cwd=ROOT, check=False) for _ in range(2)]
    assert runs[0].stdout == runs[1].stdout and runs[0].stderr == runs[1].stderr
