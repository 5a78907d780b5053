"""``tfpolicy promote`` up the rightsize ladder (docs/promote.md, "The rungs"): from the
whole cards of takeover-100 to each workload's share at 1 replica, 25 %, 50 %, 100 %, then
the autoscaler; and back to the whole cards on a stop, byte for byte.

The repository's ``.tfpolicy.yaml`` names ``rightsize.yaml`` (what ``recommend`` writes)
and ``rung:``. The Deployment has two replicas: rightsize-1, -25 and -50 all cap it at one
TensorFusion pod, the StatefulSet moves whole from rightsize-1 on. Each snapshot is taken
after the commit before it (hours apart), promote's commit at half past its hour.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.promote import rightsize_snapshots as R
from tests.promote.promote_repo import INVENTORY, Repo, at_hour, clean
from tfpolicy.cli import main
from tfpolicy.yamlio import load_all

ADVANCED, STOP, REFUSED, DONE, WAIT = 0, 1, 4, 5, 75
COMPACT = INVENTORY.with_name("inventory-compact.yaml")


def ladder_repo(path: Path, monkeypatch: pytest.MonkeyPatch, rung: str = "takeover-100",
                policy: str = R.AUTOSCALED) -> Repo:
    """The repository of promote's tests, at ``rung`` of the ladder of ``policy``."""
    repo = Repo(path, monkeypatch)
    (repo.path / "rightsize.yaml").write_text(policy, encoding="utf-8")
    (repo.path / ".tfpolicy.yaml").write_text(
        "# The migration's rung; `tfpolicy promote` moves it.\n"
        f"policies: [rightsize.yaml]\nrung: {rung}  # the plan's step\n", encoding="utf-8")
    assert main(["fix", "manifests"]) == 1
    repo.commit_all(f"GPU migration: {rung}", hour=8)
    return repo


def _rung(repo: Repo) -> str:
    line = next(x for x in repo.rung.splitlines() if x.startswith("rung:"))
    return line.split()[1]


def test_takeover_to_each_share_then_the_autoscaler(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    repo = ladder_repo(tmp_path / "repo", monkeypatch)
    climb = [(9, clean(), "rightsize-1"), (10, R.shares(True), "rightsize-25"),
             (11, R.shares(True), "rightsize-50"), (12, R.shares(True), "rightsize-100"),
             (13, R.shares(False), "autoscale")]
    for hour, items, rung in climb:
        snapshot = at_hour(items, hour, tmp_path, "cluster")
        assert repo.promote("--cluster", snapshot, "--commit", hour=hour) == ADVANCED, \
            capsys.readouterr()
        assert _rung(repo) == rung
        assert f"names {rung}" in capsys.readouterr().out
    assert repo.rung.startswith("# The migration's rung")  # the file's comments stay
    assert "# the plan's step" in repo.rung
    final = at_hour(R.autoscaled(R.shares(False)), 14, tmp_path, "cluster")
    assert repo.promote("--cluster", final, "--commit", hour=14) == DONE
    out = capsys.readouterr().out
    assert "promote: autoscale (step 09): done" in out
    assert "every replica runs on its share under the autoscaler" in out
    assert repo.log()[:6] == [
        "GPU migration: rightsize-100 to autoscale, verify said ready",
        "GPU migration: rightsize-50 to rightsize-100, verify said ready",
        "GPU migration: rightsize-25 to rightsize-50, verify said ready",
        "GPU migration: rightsize-1 to rightsize-25, verify said ready",
        "GPU migration: takeover-100 to rightsize-1, verify said ready",
        "GPU migration: takeover-100"]
    text = (repo.path / "manifests" / "serving.yaml").read_text(encoding="utf-8")
    assert 'tensor-fusion.ai/autoscale: "true"' in text and "enabled-replicas" not in text
    assert repo.status() == "" and main(["check", "manifests"]) == 0


def test_without_autoscale_the_ladder_ends_at_every_share(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    repo = ladder_repo(tmp_path / "repo", monkeypatch, "rightsize-100", R.RIGHTSIZE)
    snapshot = at_hour(R.shares(False), 9, tmp_path, "cluster")
    assert repo.promote("--cluster", snapshot, "--commit", hour=9) == DONE
    assert "promote: rightsize-100 (step 08): done" in capsys.readouterr().out


def _at_rightsize_25(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Repo, bytes]:
    """The repository climbed from takeover-100 to rightsize-25, and its takeover bytes."""
    repo = ladder_repo(tmp_path / "repo", monkeypatch, "takeover-100")
    whole = (repo.path / "manifests" / "serving.yaml").read_bytes()
    assert repo.promote("--cluster", at_hour(clean(), 9, tmp_path, "c"), "--commit",
                        hour=9) == ADVANCED
    assert repo.promote("--cluster", at_hour(R.shares(True), 10, tmp_path, "c"), "--commit",
                        hour=10) == ADVANCED
    assert _rung(repo) == "rightsize-25"
    return repo, whole


def test_an_oom_killed_share_writes_the_whole_cards_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """At rightsize-25 a pod OOM-killed under its vram-limit (the restarts built-in gate)
    writes takeover-100 back: the manifests are the bytes they were at takeover-100, not
    those of rightsize-1."""
    repo, whole = _at_rightsize_25(tmp_path, monkeypatch)
    manifest = repo.path / "manifests" / "serving.yaml"
    assert manifest.read_bytes() != whole
    capsys.readouterr()
    snapshot = at_hour(R.oom_killed(R.shares(True)), 11, tmp_path, "c")
    assert repo.promote("--cluster", snapshot, "--commit", hour=11) == STOP
    out = capsys.readouterr().out
    assert "promote: rightsize-25 (step 06): stop" in out
    assert "ready, but a gate failed; roll back to takeover-100" in out
    assert "last OOMKilled" in out
    assert _rung(repo) == "takeover-100"
    assert load_all(manifest.read_text(encoding="utf-8"), file="now") == load_all(
        whole.decode("utf-8"), file="takeover-100")  # the same data; the bytes: below
    assert repo.log()[0] == ("GPU migration: roll back rightsize-25 to takeover-100, "
                             "a gate failed")
    assert repo.status() == "" and main(["check", "manifests"]) == 0


def test_an_oom_killed_share_gives_the_takeover_bytes_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo, whole = _at_rightsize_25(tmp_path, monkeypatch)
    snapshot = at_hour(R.oom_killed(R.shares(True)), 11, tmp_path, "c")
    assert repo.promote("--cluster", snapshot, "--commit", hour=11) == STOP
    assert (repo.path / "manifests" / "serving.yaml").read_bytes() == whole


def test_no_rollback_leaves_the_share_on_a_stop(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    repo, _ = _at_rightsize_25(tmp_path, monkeypatch)
    head = repo.head()
    snapshot = at_hour(R.oom_killed(R.shares(True)), 11, tmp_path, "c")
    assert repo.promote("--cluster", snapshot, "--commit", "--no-rollback", hour=11) == STOP
    assert repo.head() == head and _rung(repo) == "rightsize-25" and repo.status() == ""


def test_a_second_run_on_the_same_snapshot_waits(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    repo = ladder_repo(tmp_path / "repo", monkeypatch)
    snapshot = at_hour(clean(), 9, tmp_path, "c")
    assert repo.promote("--cluster", snapshot, "--commit", hour=9) == ADVANCED
    head = repo.head()
    assert repo.promote("--cluster", snapshot, "--commit", hour=9) == WAIT
    assert repo.head() == head and _rung(repo) == "rightsize-1"


def test_the_savings_said_are_the_plans(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """The summary and the commit message of takeover-100 → rightsize-1 carry the GPUs,
    nodes and cost that ``tfpolicy plan --format json`` gives for step 05 against step 04,
    run on the same manifests."""
    repo = ladder_repo(tmp_path / "repo", monkeypatch)
    capsys.readouterr()
    assert main(["plan", "--inventory", str(COMPACT), "--format", "json",
                 "manifests"]) == 0
    steps = json.loads(capsys.readouterr().out)["steps"]
    whole, share = steps[3], steps[4]
    assert (whole["name"], share["name"]) == ("takeover-100", "rightsize-1")
    gpus = [s["gpus"]["devicePlugin"] + s["gpus"]["tensorFusion"] for s in (whole, share)]
    saved = whole["costPerHour"] - share["costPerHour"]
    assert gpus[0] > gpus[1] and saved > 0  # the shares free a card: a test that can fail
    summary = tmp_path / "pr.md"
    snapshot = at_hour(clean(), 9, tmp_path, "c")
    assert repo.promote("--cluster", snapshot, "--commit", "--summary", str(summary),
                        hour=9, inventory=COMPACT) == ADVANCED, capsys.readouterr()
    said = (f"Savings the plan promised so far (the plan's step 05 rightsize-1 against step "
            f"04 takeover-100): {gpus[0] - gpus[1]} GPUs freed ({gpus[0]} → {gpus[1]} in use), "
            f"nodes in use {whole['nodesInUse']} → {share['nodesInUse']}, "
            f"{24 * (gpus[0] - gpus[1])} GPU-hours per day.")
    cost = (f"Cost the plan promised saved: ${saved:,.2f} per hour, ${saved * 730:,.2f} per "
            "month (730 hours; GPU prices from the inventory).")
    message = repo.git("log", "-1", "--format=%B")
    text = summary.read_text(encoding="utf-8")
    for line in (said, cost):
        assert line in message.splitlines()
        assert f"- {line}" in text.splitlines()


VLLM_ARGS = ("        args: [--model, meta-llama/Llama-3.1-8B-Instruct, --max-model-len, \"8192\",\n"
             "               --gpu-memory-utilization, \"0.50\"]\n")
STARVED = R.RIGHTSIZE.replace("limit: 16Gi", "limit: 32Gi")


def _vllm_repo(path: Path, monkeypatch: pytest.MonkeyPatch, accept: str = "") -> Repo:
    """At takeover-100, the vLLM server keeping half the memory it is shown for its pool:
    under a 32Gi vram-limit, 16Gi, below the 18Gi Llama-3.1-8B needs to start."""
    repo = ladder_repo(path, monkeypatch, policy=STARVED)
    manifest = repo.path / "manifests" / "serving.yaml"
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text.replace("        image: vllm/vllm-openai:v0.6.3\n",
                                     "        image: vllm/vllm-openai:v0.6.3\n" + VLLM_ARGS),
                        encoding="utf-8")
    if accept:
        config = repo.path / ".tfpolicy.yaml"
        config.write_text(config.read_text(encoding="utf-8") + accept, encoding="utf-8")
    repo.commit_all("the server's arguments", hour=8)
    return repo


def test_a_share_that_starves_a_preallocating_server_is_refused_at_its_setting(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    repo = _vllm_repo(tmp_path / "repo", monkeypatch)
    head, config = repo.head(), repo.rung
    capsys.readouterr()
    snapshot = at_hour(clean(), 9, tmp_path, "c")
    assert repo.promote("--cluster", snapshot, "--commit", hour=9) == REFUSED
    err = capsys.readouterr().err.strip().splitlines()
    text = (repo.path / "manifests" / "serving.yaml").read_text(encoding="utf-8")
    line = next(n for n, x in enumerate(text.splitlines(), start=1)
                if "--gpu-memory-utilization" in x)
    column = text.splitlines()[line - 1].index("--gpu-memory-utilization") + 1
    assert len(err) == 1 and err[0].startswith(
        "promote: refused: step 05 would starve a server that pre-allocates GPU memory: "
        f"manifests/serving.yaml:{line}:{column}: Deployment/ml-serving/vllm: container vllm: "
        "vram-limit 32.00Gi starves a pre-allocating framework: vLLM "
        "(--gpu-memory-utilization 0.50)"), err
    assert err[0].endswith("; write `--gpu-memory-utilization 0.66`; change the setting, or "
                           "accept it in .tfpolicy.yaml (acceptPreallocation: "
                           "[ml-serving/vllm])")
    assert repo.head() == head and repo.rung == config and repo.status() == ""


@pytest.mark.parametrize("how", ["accepted", "fixed"])
def test_an_accepted_or_fixed_setting_climbs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             how: str) -> None:
    accept = "acceptPreallocation: [ml-serving/*]\n" if how == "accepted" else ""
    repo = _vllm_repo(tmp_path / "repo", monkeypatch, accept)
    if how == "fixed":
        manifest = repo.path / "manifests" / "serving.yaml"
        manifest.write_text(manifest.read_text(encoding="utf-8").replace('"0.50"', '"0.66"'),
                            encoding="utf-8")
        repo.commit_all("the server's pool fits its share", hour=8)
    snapshot = at_hour(clean(), 9, tmp_path, "c")
    assert repo.promote("--cluster", snapshot, "--commit", hour=9) == ADVANCED
    assert _rung(repo) == "rightsize-1"


PYTORCHJOB = """\
---
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: bert
  namespace: ml-training
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: nvcr.io/nvidia/pytorch:24.08-py3
            resources:
              limits:
                nvidia.com/gpu: 1
"""


def _on_tensor_fusion(text: str) -> list[int]:
    """Per pod template of the manifests, in order: 1 where it carries the label."""
    return [int('tensor-fusion.ai/enabled: "true"' in part)
            for part in text.split("template:")[1:]]


@pytest.mark.parametrize(("rung", "number", "whole"), [
    ("rightsize-1", 5, ["PyTorchJob/ml-training/bert"]),
    ("rightsize-25", 6, ["PyTorchJob/ml-training/bert"]),
    ("rightsize-50", 7, ["PyTorchJob/ml-training/bert"]),
    ("rightsize-100", 8, []),
])
def test_kinds_without_a_cap_move_whole_in_the_canary_order(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        rung: str, number: int, whole: list[str]) -> None:
    """A StatefulSet and a PyTorchJob beside the Deployment: on a capped rightsize rung the
    first of them in the canary order (namespace, kind, name: the PyTorchJob) takes its
    share whole, the other runs on the device plugin as written (docs/stages.md, "Canary
    rungs"); the Deployment is capped. What ``fix`` writes at the rung is what the plan's
    step moves."""
    repo = ladder_repo(tmp_path / "repo", monkeypatch, policy=R.RIGHTSIZE)
    manifest = repo.path / "manifests" / "serving.yaml"
    manifest.write_text(manifest.read_text(encoding="utf-8") + PYTORCHJOB, encoding="utf-8")
    config = repo.path / ".tfpolicy.yaml"
    config.write_text(config.read_text(encoding="utf-8").replace("takeover-100", rung),
                      encoding="utf-8")
    assert main(["fix", "manifests"]) == 1
    text = manifest.read_text(encoding="utf-8")
    moved = [] if rung == "rightsize-100" else ["PyTorchJob/ml-training/bert"]
    statefulset = 0 if moved else 1
    assert _on_tensor_fusion(text) == [1, statefulset, 1]  # vllm, trainer, bert's master
    assert ('tensor-fusion.ai/enabled-replicas: "1"' in text) == bool(moved)
    capsys.readouterr()
    eight = tmp_path / "inventory.yaml"  # room for a surge pod beside the four GPUs in use
    eight.write_text(INVENTORY.read_text(encoding="utf-8").replace("gpusPerNode: 4",
                                                                   "gpusPerNode: 8"))
    assert main(["plan", "--inventory", str(eight), "--format", "json", "manifests"]) == 0
    step = json.loads(capsys.readouterr().out)["steps"][number - 1]
    assert step["name"] == rung
    if moved:
        assert step["moved"]["whole"] == whole
        assert step["moved"]["waiting"] == ["StatefulSet/ml-training/trainer"]
    assert main(["check", "manifests"]) == 0


def test_the_examples_ladder_snapshot_is_what_its_builder_writes(tmp_path: Path) -> None:
    """``examples/cluster/ladder-takeover-soaked.yaml`` is the builder's output for
    ``examples/ladder/rightsize.yaml`` as it is (``make demo`` checks that policy against
    recommend's output)."""
    from tests.promote import build_ladder_example

    target = tmp_path / "snapshot.yaml"
    assert build_ladder_example.main(target) == 0
    assert target.read_bytes() == build_ladder_example.TARGET.read_bytes()


def test_the_savings_measured_are_verifys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """From rightsize-1 the commit message and the summary carry what verify measured at
    that rung (the GPUs and GPU nodes the snapshot leaves free, against the plan's promise):
    the same figures as ``tfpolicy verify --format json`` on the same snapshot."""
    repo = ladder_repo(tmp_path / "repo", monkeypatch, "rightsize-1")
    snapshot = at_hour(R.shares(True), 9, tmp_path, "cluster")
    capsys.readouterr()
    main(["verify", "--inventory", str(INVENTORY), "--cluster", snapshot, "--format", "json",
          "manifests"])
    found = json.loads(capsys.readouterr().out)["savings"]
    assert found is not None and found["plannedGpusFree"] > 0  # a rung that frees cards
    summary = tmp_path / "pr.md"
    assert repo.promote("--cluster", snapshot, "--commit", "--summary", str(summary),
                        hour=9) == ADVANCED, capsys.readouterr()
    said = (f"Savings measured at step 05 rightsize-1 (the snapshot's GPUs and pods): "
            f"{found['gpusFree']} GPUs and {found['nodesFree']} GPU nodes free; the plan "
            f"promised {found['plannedGpusFree']} GPUs and {found['plannedNodesFree']} GPU "
            "nodes.")
    assert said in repo.git("log", "-1", "--format=%B").splitlines()
    assert f"- {said}" in summary.read_text(encoding="utf-8").splitlines()
