"""A canary rung on kinds whose pods TensorFusion cannot cap (docs/stages.md, "Canary rungs"):
``apply``, ``plan`` and ``verify`` through the CLI on a PyTorchJob, a LeaderWorkerSet and a
Deployment in one input, and the order's properties."""

from __future__ import annotations

import importlib.util
import itertools
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import ROOT
from tfpolicy.cli import main
from tfpolicy.files.sources import load_policy_set
from tfpolicy.rewrite import firstpass
from tfpolicy.rewrite.pipeline import Options, transform
from tfpolicy.stages.canary import Cohort, Member, chosen

CASE = ROOT / "tests" / "cases" / "canary-workloads"
INPUT = CASE / "input.yaml"
TF = "tensor-fusion.ai/"


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _templates(text: str) -> dict[str, dict[str, Any]]:
    """Each pod template's metadata, by workload kind and template."""
    docs = {d["kind"]: d for d in yaml.safe_load_all(text)}
    specs = docs["PyTorchJob"]["spec"]["pytorchReplicaSpecs"]
    lws = docs["LeaderWorkerSet"]["spec"]["leaderWorkerTemplate"]
    found = {"pytorch/Master": specs["Master"]["template"],
             "pytorch/Worker": specs["Worker"]["template"],
             "lws/leader": lws["leaderTemplate"], "lws/worker": lws["workerTemplate"],
             "deployment": docs["Deployment"]["spec"]["template"]}
    return {k: t.get("metadata") or {} for k, t in found.items()}


def _tf_keys(meta: dict[str, Any]) -> set[str]:
    keys = {*(meta.get("labels") or {}), *(meta.get("annotations") or {})}
    return {k for k in keys if k.startswith(TF) or k.startswith("tfpolicy.dev/")}


def test_takeover_1_moves_the_first_uncapped_workload_whole(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "apply", "-p", "takeover-1", str(INPUT))
    assert code == 0, err
    meta = _templates(out)
    for role in ("pytorch/Master", "pytorch/Worker"):
        assert meta[role]["labels"][TF + "enabled"] == "true"
        assert TF + "enabled-replicas" not in meta[role]["annotations"]
    for role in ("lws/leader", "lws/worker"):
        assert _tf_keys(meta[role]) == set(), meta[role]
    assert meta["deployment"]["annotations"][TF + "enabled-replicas"] == "1"
    assert "not enforced" not in err.replace("enabled-replicas is not enforced on a", "")
    waits = [line for line in err.splitlines() if "waits for a later rung" in line]
    assert len(waits) == 2 and all("LeaderWorkerSet/serving/llama" in w for w in waits)
    assert all("#2 of the 2 workloads of this input" in w for w in waits)


def test_a_pinned_workload_goes_first(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs = list(yaml.safe_load_all(INPUT.read_text()))
    docs[1]["metadata"]["labels"] = {"tfpolicy.dev/canary": "first"}
    pinned = tmp_path / "pinned.yaml"
    pinned.write_text(yaml.safe_dump_all(docs))
    code, out, err = _run(capsys, "apply", "-p", "takeover-1", str(pinned))
    assert code == 0, err
    meta = _templates(out)
    assert meta["lws/leader"]["labels"][TF + "enabled"] == "true"
    assert _tf_keys(meta["pytorch/Master"]) == set() and _tf_keys(meta["pytorch/Worker"]) == set()


def test_the_last_rung_and_rollback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, canary, _ = _run(capsys, "apply", "-p", "takeover-1", str(INPUT))
    staged = tmp_path / "staged.yaml"
    staged.write_text(canary)
    code, out, err = _run(capsys, "apply", "-p", "takeover", str(staged))
    assert code == 0, err
    for role, meta in _templates(out).items():
        assert meta["labels"][TF + "enabled"] == "true", role
        assert TF + "enabled-replicas" not in meta["annotations"], role
    code, back, err = _run(capsys, "apply", "-p", "rollback", str(staged))
    assert code == 0 and back == INPUT.read_text(), err


def test_plan_counts_pods_and_workloads_per_rung(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "plan", "-p", "takeover", "--inventory",
                          str(CASE / "inventory.yaml"), str(INPUT))
    assert code == 0, err
    first = out.split("step 01 takeover-1")[1].split("step 02")[0]
    assert "pods: 5 TensorFusion, 7 device plugin" in first  # 4 PyTorchJob pods + 1 of chat
    assert "workloads: 2 of 3 on TensorFusion" in first
    assert "wait for a later rung, left as they are: LeaderWorkerSet/serving/llama" in first
    assert "the first of this input's" in first
    last = out.split("step 04 takeover-100")[1].split("summary")[0]
    assert "pods: 12 TensorFusion, 0 device plugin" in last and "  workloads:" not in last
    _, text, _ = _run(capsys, "plan", "-p", "takeover", "--inventory",
                      str(CASE / "inventory.yaml"), "--format", "json", str(INPUT))
    steps = json.loads(text)["steps"]
    assert steps[0]["moved"] == {"tensorFusion": 2, "total": 3,
                                 "whole": ["PyTorchJob/ml/finetune"],
                                 "waiting": ["LeaderWorkerSet/serving/llama"]}
    assert "moved" not in steps[3]


def idle_operator(tmp_path: Path) -> Path:
    """An operator with idle GPUs and no workload pod yet: verify lists what it expects."""
    path = ROOT / "tests" / "verify" / "build_snapshots.py"
    spec = importlib.util.spec_from_file_location("build_snapshots", path)
    assert spec is not None and spec.loader is not None
    builder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(builder)
    items = [builder.gpupool(), builder.gpunode(0), *(builder.gpu(i, False) for i in range(4))]
    out = tmp_path / "cluster.yaml"
    out.write_text(builder.as_list(items))
    return out


def test_verify_expects_the_chosen_workloads_whole_and_the_others_untouched(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, text, err = _run(capsys, "verify", "-p", "takeover", "--step", "1", "--cluster",
                        str(idle_operator(tmp_path)), "--format", "json", str(INPUT))
    expected = {w["workload"]: (w["tensorFusionPods"]["expected"], w["nativePods"]["expected"])
                for w in json.loads(text)["workloads"]}
    assert expected == {
        "PyTorchJob/ml/finetune/Master": (1, 0), "PyTorchJob/ml/finetune/Worker": (3, 0),
        "LeaderWorkerSet/serving/llama/leaderTemplate": (0, 2),
        "LeaderWorkerSet/serving/llama/workerTemplate": (0, 2),
        "Deployment/serving/chat": (1, 3)}, err


_KEYS = st.tuples(st.sampled_from(["a", "b", "ml"]), st.sampled_from(["Job", "PyTorchJob"]),
                  st.text("xyz", min_size=1, max_size=3))
_MEMBERS = st.lists(st.builds(Member, st.just("p"), _KEYS, st.booleans()), max_size=12)
_RUNGS = st.lists(st.one_of(st.integers(1, 15), st.integers(1, 120).map(lambda n: f"{n}%")),
                  min_size=2, max_size=5)


def _size(rung: int | str, total: int) -> float:
    return rung if isinstance(rung, int) else int(rung[:-1]) * total / 100


@given(_MEMBERS, _RUNGS, st.randoms())
def test_the_chosen_set_grows_with_the_rung_and_ignores_input_order(
        members: list[Member], rungs: list[int | str], rnd: Any) -> None:
    cohort = Cohort.of(members)
    shuffled = list(members)
    rnd.shuffle(shuffled)
    assert Cohort.of(shuffled) == cohort
    total = len({m.key for m in members})
    ordered = sorted(rungs, key=lambda r: _size(r, total))
    sets = [set(chosen(cohort, "p", r)) for r in ordered]
    assert all(low <= high for low, high in itertools.pairwise(sets))
    pins = {m.key for m in members if m.pinned}
    for picked in sets:
        assert not picked or min(len(pins), len(picked)) == len(pins & picked)
        assert total == 0 or picked


def _split(tmp_path: Path) -> list[Path]:
    paths = []
    for number, doc in enumerate(INPUT.read_text().split("---\n")):
        path = tmp_path / f"{number}.yaml"
        path.write_text(doc)
        paths.append(path)
    return paths


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_apply_chooses_over_every_file_whatever_their_order(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], jobs: str) -> None:
    paths = _split(tmp_path)
    chosen_by_order = []
    for order in (paths, paths[::-1]):
        code, out, err = _run(capsys, "apply", "-j", jobs, "-p", "takeover-25",
                              *map(str, order))
        assert code == 0, err
        meta = _templates(out)
        chosen_by_order.append({role for role, m in meta.items() if _tf_keys(m)})
        assert err.count("#2 of the 2 workloads of this input") == 2, err
    assert chosen_by_order[0] == chosen_by_order[1] == {
        "pytorch/Master", "pytorch/Worker", "deployment"}


def test_a_rung_below_one_share_still_moves_one_and_half_moves_half(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs = list(yaml.safe_load_all(INPUT.read_text()))[:1]
    for name in ("b", "c", "d"):
        copy = yaml.safe_load(yaml.safe_dump(docs[0]))
        copy["metadata"]["name"] = name
        docs.append(copy)
    path = tmp_path / "jobs.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    for rung, moved in (("takeover-25", 1), ("takeover-50", 2)):
        _, out, _ = _run(capsys, "apply", "-p", rung, str(path))
        names = [d["metadata"]["name"] for d in yaml.safe_load_all(out)
                 if "tensor-fusion.ai/enabled" in (
                     d["spec"]["pytorchReplicaSpecs"]["Master"]["template"].get("metadata")
                     or {}).get("labels", {})]
        assert names == ["b", "c", "d", "finetune"][:moved]


def test_files_read_one_at_a_time_choose_as_apply_does_once_ordered_together(
        tmp_path: Path) -> None:
    """What a command reading files one by one (fix, check) would do with the first pass
    over all of them: each file's rewrite then chooses as ``apply`` does over the whole."""
    paths = _split(tmp_path)
    texts = [(str(p), p.read_text()) for p in paths]
    policies = load_policy_set(["takeover-1"])
    alone = [transform(text, policies, name, Options()).changed for name, text in texts]
    ordered = firstpass.over_texts(policies, texts, "default")
    together = [transform(text, ordered, name, Options()).changed for name, text in texts]
    assert alone == [True, True, True]  # each file on its own: its workload is the first
    assert together == [True, False, True]  # the LeaderWorkerSet waits, as under apply


def test_a_workload_no_longer_chosen_gets_its_own_text_back(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, staged, _ = _run(capsys, "apply", "-p", "takeover-1", str(INPUT))
    marker = "  name: llama\n"
    pinned = staged.replace(marker, marker + "  labels:\n    tfpolicy.dev/canary: first\n")
    path = tmp_path / "pinned.yaml"
    path.write_text(pinned)
    code, out, err = _run(capsys, "apply", "-p", "takeover-1", str(path))
    assert code == 0, err
    assert out.split("---\n")[0] == INPUT.read_text().split("---\n")[0]  # the PyTorchJob
    assert _templates(out)["lws/worker"]["labels"][TF + "enabled"] == "true"
