"""``tfpolicy promote --live``: kubectl run read-only, as ``verify --live`` runs it, through a
stand-in ``kubectl`` on PATH that records its argv and prints the snapshot's objects."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from tests.promote.promote_repo import SNAPSHOTS, Repo, capped

OPERATOR = {"GPU", "GPUNode", "GPUPool"}
STAND_IN = """#!{python}
import json, sys
with open({record!r}, "a") as out:
    out.write(json.dumps(sys.argv[1:]) + "\\n")
kinds = sys.argv[sys.argv.index("get") + 1]
if kinds.endswith((".argoproj.io", ".fluxcd.io")):  # no GitOps controller in this cluster
    sys.exit("error: the server doesn't have a resource type " + repr(kinds.split(".")[0]))
sys.stdout.write(open({workloads!r} if kinds.startswith("pods") else {operator!r}).read())
"""


def _kubectl(folder: Path, items: list[dict[str, object]], hour: int) -> Path:
    """A kubectl that answers `get pods,…` with the workloads, anything else with the
    operator's objects, every call appended to ``record``."""
    def listed(keep: bool) -> str:
        chosen = [i for i in items if (i["kind"] in OPERATOR) == keep]
        return SNAPSHOTS.as_list(chosen).replace("2026-11-30T09:", f"2026-11-30T{hour:02d}:")
    (folder / "workloads.yaml").write_text(listed(False), encoding="utf-8")
    (folder / "operator.yaml").write_text(listed(True), encoding="utf-8")
    script = folder / "kubectl"
    script.write_text(STAND_IN.format(python=sys.executable, record=str(folder / "argv"),
                                      workloads=str(folder / "workloads.yaml"),
                                      operator=str(folder / "operator.yaml")),
                      encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return folder / "argv"


def test_live_runs_kubectl_get_only_with_the_context(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    repo = Repo(tmp_path / "repo", monkeypatch)
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    record = _kubectl(bin_folder, capped(), 9)
    monkeypatch.setenv("PATH", f"{bin_folder}{os.pathsep}{os.environ['PATH']}")
    assert repo.promote("--live", "--context", "prod-eu", "--commit", hour=9) == 0
    calls = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]
    kinds = ["pods,replicasets,events",
             "gpus.tensor-fusion.ai,gpunodes.tensor-fusion.ai,gpupools.tensor-fusion.ai",
             "applications.argoproj.io", "kustomizations.kustomize.toolkit.fluxcd.io",
             "helmreleases.helm.toolkit.fluxcd.io", "gitrepositories.source.toolkit.fluxcd.io"]
    assert calls == [["--context", "prod-eu", "get", k, "-A", "-o", "yaml"] for k in kinds]
    out = capsys.readouterr().out
    assert "snapshot: kubectl --context prod-eu" in out
    assert "promote: committed" in out and "[takeover-25]" in repo.rung
    assert repo.git("log", "-1", "--format=%B").count("kubectl --context prod-eu") == 1
