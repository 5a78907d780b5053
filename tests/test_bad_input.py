"""Bad input: one line with file:line, exit 2, empty stdout, nothing written (DESIGN §3)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

BAD = sorted((ROOT / "tests" / "corpus" / "bad").glob("*.yaml"))
TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
EXPECTED_LINE = {
    "unclosed-quote.yaml": 11, "bad-indentation.yaml": 15, "duplicate-keys.yaml": 16,
    "non-utf8.yaml": 7, "document-is-sequence.yaml": 2, "document-is-scalar.yaml": 6,
    "helm-template-unrendered.yaml": 4, "tab-indentation.yaml": 4,
}


def tfpolicy(*args: str, stdin: bytes | None = None,
             cwd: Path = ROOT) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([TFPOLICY, *args], input=stdin, capture_output=True, cwd=cwd,
                          timeout=60, check=False)


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.name)
def test_apply_refuses_with_one_located_line(path: Path) -> None:
    result = tfpolicy("apply", "-p", "takeover", str(path.relative_to(ROOT)))
    assert result.returncode == 2
    assert result.stdout == b""
    lines = result.stderr.decode().splitlines()
    assert len(lines) == 1, lines
    match = re.match(rf"^tests/corpus/bad/{re.escape(path.name)}:(\d+)(:\d+)?: error: ", lines[0])
    assert match, lines[0]
    if path.name in EXPECTED_LINE:
        assert int(match.group(1)) == EXPECTED_LINE[path.name]


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.name)
def test_apply_from_stdin_refuses_too(path: Path) -> None:
    result = tfpolicy("apply", "-p", "takeover", "-", stdin=path.read_bytes())
    assert result.returncode == 2
    assert result.stdout == b""
    assert result.stderr.decode().startswith("<stdin>:")


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.name)
def test_fix_writes_nothing_when_any_file_is_bad(path: Path, tmp_path: Path) -> None:
    good = tmp_path / "good.yaml"
    shutil.copy(ROOT / "examples" / "manifests" / "llm-server.yaml", good)
    bad = tmp_path / path.name
    shutil.copy(path, bad)
    before = {p: p.read_bytes() for p in (good, bad)}
    result = tfpolicy("fix", "-p", "takeover", str(good), str(bad))
    assert result.returncode == 2
    assert result.stdout == b""
    assert {p: p.read_bytes() for p in (good, bad)} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([good.name, bad.name])


def test_alias_bomb_is_refused_before_it_expands() -> None:
    # The runner's timeout is a guard against a hang, not a measure of speed.
    result = tfpolicy("check", "-p", "takeover", "tests/corpus/bad/billion-laughs.yaml")
    assert result.returncode == 2
    assert b"aliases expand" in result.stderr


def test_policy_failing_its_schema_is_exit_2_with_every_violation(tmp_path: Path) -> None:
    policy = tmp_path / "p.yaml"
    policy.write_text(
        "apiVersion: tfpolicy.dev/v1alpha1\nkind: MigrationPolicy\nmetadata:\n  name: p\n"
        "spec:\n  stage: takeover\n  enabledReplica: 3\n  qos: fast\n"
    )
    result = tfpolicy("apply", "-p", str(policy), "examples/manifests")
    assert result.returncode == 2
    assert result.stdout == b""
    lines = result.stderr.decode().splitlines()
    assert lines == [
        f"{policy}:7:19: [error] unknown field 'enabledReplica' (did you mean enabledReplicas?) "
        "($.spec.enabledReplica) (p)",
        f"{policy}:8:8: [error] 'fast' is not one of: low, medium, high, critical ($.spec.qos) (p)",
    ]


def test_huge_document_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    payload = "x" * (17 << 20)
    big.write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: a}}\ndata:\n"
                   f"  a: {payload}\n")
    result = tfpolicy("apply", "-p", "takeover", str(big))
    assert result.returncode == 2
    assert result.stdout == b""
    assert b"larger than 16 MiB" in result.stderr


def test_missing_file_and_unknown_policy_are_usage_errors() -> None:
    missing = tfpolicy("apply", "-p", "takeover", "no/such.yaml")
    assert (missing.returncode, missing.stdout) == (2, b"")
    assert missing.stderr.decode().startswith("no/such.yaml: error: no such file")
    unknown = tfpolicy("apply", "-p", "takeoff", "examples/manifests")
    assert unknown.returncode == 2
    assert "built-in: " in unknown.stderr.decode() and "takeover" in unknown.stderr.decode()


def test_bad_flag_is_exit_2() -> None:
    result = tfpolicy("apply", "--no-such-flag")
    assert result.returncode == 2
    assert result.stdout == b""
