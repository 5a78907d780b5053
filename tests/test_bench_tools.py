"""The bench's own helpers: what it counts in an output must not depend on how it reads it;
the start-up figures time real runs and pair them as they say."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import startup
from run import count_in

NEEDLE = b'tensor-fusion.ai/enabled: "true"'
PIECES = st.sampled_from([NEEDLE, b"x", b"tensor", b"\n", b'"true"', NEEDLE[:-1]])


@settings(max_examples=200, deadline=None)
@given(parts=st.lists(PIECES, max_size=200), chunk=st.integers(min_value=1, max_value=80))
def test_count_in_matches_bytes_count_whatever_the_chunk_size(tmp_path_factory, parts, chunk):
    data = b"".join(parts)
    path = tmp_path_factory.mktemp("count") / "out.yaml"
    path.write_bytes(data)
    assert count_in(path, NEEDLE, chunk) == data.count(NEEDLE)


# --- start-up figures ------------------------------------------------------------------

TFPOLICY = Path(sys.executable).with_name("tfpolicy")


def test_each_start_up_case_does_its_work_on_the_fixtures(tmp_path: Path) -> None:
    """The commands timed are real runs: a check that finds the change, an ArgoCD render
    of every document, help and version."""
    root = startup.fixtures(tmp_path)
    assert len([d for d in yaml.safe_load_all((root / "app" / "all.yaml").read_text()) if d]) == 200
    outcomes = {}
    for case in startup.CASES:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ARGOCD_", "PARAM_"))}
        done = subprocess.run([str(TFPOLICY), *case.args], cwd=root / case.cwd,
                              env={**env, **dict(case.env)}, capture_output=True, text=True)
        outcomes[case.args[0]] = (done.returncode, done.stdout, done.stderr)
    assert outcomes["check"][0] == 1 and "small.yaml:" in outcomes["check"][1]
    assert outcomes["apply"][0] == 0 and 'tensor-fusion.ai/enabled: "true"' in outcomes["apply"][1]
    assert outcomes["--help"][0] == 0 and outcomes["--help"][1].startswith("Usage: tfpolicy")
    assert outcomes["--version"][0] == 0 and outcomes["--version"][1].startswith("tfpolicy, ")
    code, out, _ = outcomes["argocd"]
    assert code == 0 and len([d for d in yaml.safe_load_all(out) if d]) == 200


def _measured(values: dict[str, list[float]], codes: dict[str, int] | None = None):
    """A stand-in for ``cpu_of``: each command's CPU seconds in turn, and its exit code."""
    def measure(argv, cwd, env):
        key = "bare" if argv[-1] == "pass" else "tfpolicy"
        return values[key].pop(0), (codes or {}).get(key, 0)
    return measure


def test_start_up_ratios_are_paired_medians_without_the_warm_up(tmp_path: Path) -> None:
    case = startup.CASES[0]
    values = {"tfpolicy": [9.0, 0.10, 0.30, 0.20], "bare": [9.0, 0.010, 0.010, 0.040]}
    figure = startup.paired(case, TFPOLICY, tmp_path, 3, _measured(values))
    assert figure.cpu == 0.20 and figure.bare == 0.010
    assert figure.ratio == 10.0  # the pairs give 10, 30 and 5
    assert startup.report([figure], 3).splitlines()[-1].split()[-3:] == ["10.0", "≤", "6"]


def test_a_failing_start_up_command_has_no_ratio(tmp_path: Path) -> None:
    values = {"tfpolicy": [0.1, 0.1], "bare": [0.01, 0.01]}
    figure = startup.paired(startup.CASES[0], TFPOLICY, tmp_path, 1,
                            _measured(values, {"tfpolicy": 2}))
    assert figure.ratio is None and figure.note == "exit 2"
    assert "—" in startup.report([figure], 1)


# --- beside the peers ------------------------------------------------------------------

import peers  # noqa: E402


def _in_turn(values: dict[str, list[float]], codes: dict[str, int] | None = None):
    """A stand-in for ``cpu_of``: tfpolicy's and the peer's CPU seconds in turn."""
    def measure(argv, cwd, env):
        key = "tfpolicy" if argv[0].endswith("tfpolicy") else "peer"
        return values[key].pop(0), (codes or {}).get(key, 0)
    return measure


def test_peer_ratios_are_paired_medians_without_the_warm_up(tmp_path: Path) -> None:
    pair = peers.PAIRS[0]
    values = {"tfpolicy": [9.0, 0.10, 0.30, 0.20], "peer": [9.0, 0.20, 0.10, 0.40]}
    found = peers.compare(pair, TFPOLICY, tmp_path, 3, _in_turn(values))
    assert found.cpu == 0.20 and found.peer_cpu == 0.20
    assert found.ratio == 0.5  # the pairs give 0.5, 3 and 0.5
    assert peers.report([found], 3).splitlines()[-1].split()[-3:] == ["0.50", "≤", "1"]


def test_a_peer_not_installed_is_reported_absent(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(peers.shutil, "which", lambda name: None)
    monkeypatch.setattr(peers.sys, "executable", str(tmp_path / "python"))
    found = peers.compare(peers.PAIRS[0], TFPOLICY, tmp_path, 3, _in_turn({}))
    assert found.ratio is None and found.note == "yamllint absent"
    assert "yamllint absent" in peers.report([found], 3)


def test_a_failing_peer_has_no_ratio(tmp_path: Path) -> None:
    values = {"tfpolicy": [0.1, 0.1], "peer": [0.01, 0.01]}
    found = peers.compare(peers.PAIRS[0], TFPOLICY, tmp_path, 1,
                          _in_turn(values, {"peer": 2}))
    assert found.ratio is None and found.note == "yamllint exit 2"


def test_the_kustomize_app_renders_every_document_through_tfpolicy(tmp_path: Path) -> None:
    """The app the render is timed on is a real kustomize app: kustomize gives its 200
    documents, and ``argocd generate`` migrates every GPU Deployment among them."""
    root = peers.fixtures(tmp_path)
    kustomize = peers.peer_argv("kustomize")
    if not kustomize and os.environ.get("CI") != "true":
        import pytest

        pytest.skip("neither kustomize nor kubectl installed")
    alone = subprocess.run(kustomize, cwd=root / "kapp", capture_output=True, text=True,
                           check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARGOCD_", "PARAM_"))}
    done = subprocess.run([str(TFPOLICY), "argocd", "generate"], cwd=root / "kapp",
                          env={**env, "ARGOCD_ENV_TFPOLICY_POLICIES": "takeover"},
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert len([d for d in yaml.safe_load_all(alone.stdout) if d]) == 200
    rendered = [d for d in yaml.safe_load_all(done.stdout) if d]
    enabled = [d for d in rendered if d["kind"] == "Deployment" and d["spec"]["template"][
        "metadata"]["labels"].get("tensor-fusion.ai/enabled") == "true"]
    assert len(rendered) == 200 and len(enabled) == 100
