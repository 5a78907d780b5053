"""``tfpolicy verify`` through its real entry points: bad input, JSON, ``--live``."""

from __future__ import annotations

import importlib.util
import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tfpolicy.cli import main

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "tests" / "verify"
MANIFESTS = str(HERE / "manifests.yaml")
SNAPSHOTS = HERE / "snapshots"
OPERATOR = {"GPU", "GPUNode", "GPUPool"}


def _run(*args: str, path: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if path is not None:
        env["PATH"] = path
    return subprocess.run([sys.executable, "-m", "tfpolicy.cli", *args], capture_output=True,
                          text=True, cwd=ROOT, env=env, check=False)


def _verify(*extra: str) -> list[str]:
    return ["verify", "-p", "takeover", MANIFESTS, *extra]


def test_snapshots_are_what_the_builder_writes() -> None:
    spec = importlib.util.spec_from_file_location("build_snapshots", HERE / "build_snapshots.py")
    assert spec is not None and spec.loader is not None
    builder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(builder)
    for name, items in builder.scenarios().items():
        assert (SNAPSHOTS / f"{name}.yaml").read_text(encoding="utf-8") == builder.as_list(items)


def test_clean_step_is_ready_through_the_installed_entry_point() -> None:
    done = _run(*_verify("--cluster", str(SNAPSHOTS / "clean.yaml"), "--format", "json"))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["verdict"] == "ready" and report["rollback"] is None
    assert {w["workload"]: w["verdict"] for w in report["workloads"]} == {
        "Deployment/ml-serving/vllm": "ready", "StatefulSet/ml-training/trainer": "ready"}
    assert [g["expected"]["tflops"] for g in report["gpus"]].count(0) == 3


def test_rejected_pods_name_the_webhook_and_the_rollback(capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    code = main(_verify("--cluster", str(SNAPSHOTS / "rejected.yaml"), "--step", "2"))
    out = capsys.readouterr().out
    assert code == 1
    assert 'admission webhook "mpod.tensor-fusion.ai" denied the request' in out
    assert "rollback: apply the policy of step 01 (takeover-1)" in out


def test_snapshot_from_stdin_and_several_files(tmp_path: Path) -> None:
    docs = yaml.safe_load((SNAPSHOTS / "clean.yaml").read_text(encoding="utf-8"))
    pods = [i for i in docs["items"] if i["kind"] not in OPERATOR]
    ops = [i for i in docs["items"] if i["kind"] in OPERATOR]
    (tmp_path / "ops.yaml").write_text(yaml.safe_dump({"kind": "List", "items": ops}))
    done = subprocess.run([sys.executable, "-m", "tfpolicy.cli", *_verify(
        "--cluster", "-", "--cluster", str(tmp_path / "ops.yaml"))], cwd=ROOT, text=True,
        input=yaml.safe_dump({"kind": "List", "items": pods}), capture_output=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "ready for the next step" in done.stdout


@pytest.mark.parametrize(("snapshot", "message"), [
    ("items: [\n  - kind: Pod\n    metadata: [oops\n", "snap.yaml:2:3: error: invalid YAML"),
    ("- just\n- a list\n", "snap.yaml: error: a cluster snapshot holds Kubernetes objects"),
    ("kind: List\nitems:\n- kind: Pod\n  metadata: {namespace: a}\n",
     "snap.yaml: error: a Pod without metadata.name"),
])
def test_bad_snapshot_is_exit_2_with_its_file(tmp_path: Path, snapshot: str, message: str
                                              ) -> None:
    (tmp_path / "snap.yaml").write_text(snapshot)
    done = _run(*_verify("--cluster", str(tmp_path / "snap.yaml")))
    assert done.returncode == 2
    assert done.stdout == ""
    assert message in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.splitlines()) == 1


def test_an_object_twice_is_refused(tmp_path: Path) -> None:
    clean = str(SNAPSHOTS / "clean.yaml")
    done = _run(*_verify("--cluster", clean, "--cluster", clean))
    assert done.returncode == 2 and "appears twice in the snapshot" in done.stderr


def test_unreadable_gpu_quantity_is_exit_2(tmp_path: Path) -> None:
    docs = yaml.safe_load((SNAPSHOTS / "clean.yaml").read_text(encoding="utf-8"))
    gpu = next(i for i in docs["items"] if i["kind"] == "GPU")
    gpu["status"]["available"]["tflops"] = "lots"
    (tmp_path / "snap.yaml").write_text(yaml.safe_dump(docs))
    done = _run(*_verify("--cluster", str(tmp_path / "snap.yaml")))
    assert done.returncode == 2 and "Traceback" not in done.stderr and done.stdout == ""
    assert done.stderr.startswith(f"{tmp_path / 'snap.yaml'}: error: not a quantity")
    assert "status.available.tflops" in done.stderr and "lots" not in done.stderr


def test_unreadable_request_of_a_pod_is_exit_2(tmp_path: Path) -> None:
    docs = yaml.safe_load((SNAPSHOTS / "insufficient-tflops.yaml").read_text(encoding="utf-8"))
    other = next(i for i in docs["items"] if i["metadata"]["name"] == "notebook-7")
    other["metadata"]["annotations"]["tensor-fusion.ai/vram-request"] = "1e999999"
    (tmp_path / "snap.yaml").write_text(yaml.safe_dump(docs))
    done = subprocess.run([sys.executable, "-m", "tfpolicy.cli", "verify", "-p",
                           "rightsize-example", MANIFESTS, "--cluster", str(tmp_path / "snap.yaml")],
                          cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "Pod research/notebook-7 tensor-fusion.ai/vram-request" in done.stderr


@pytest.mark.parametrize(("extra", "message"), [
    ((), "either as --cluster SNAPSHOT… or as --live"),
    (("--cluster", "x.yaml", "--live"), "either as --cluster SNAPSHOT… or as --live"),
    (("--cluster", "x.yaml", "--context", "prod"), "--context goes with --live"),
    (("--cluster", str(SNAPSHOTS / "clean.yaml"), "--step", "9"), "--step: 9 is not a step"),
])
def test_bad_options_are_exit_2(extra: tuple[str, ...], message: str) -> None:
    done = _run(*_verify(*extra))
    assert done.returncode == 2 and message in done.stderr and done.stdout == ""


def _stand_in(folder: Path, operator_missing: bool = False, current: str = "") -> Path:
    """A `kubectl` that records its argv and prints the snapshot part it is asked for."""
    docs = yaml.safe_load((SNAPSHOTS / "partial.yaml").read_text(encoding="utf-8"))
    parts: dict[str, Any] = {
        "workloads": [i for i in docs["items"] if i["kind"] not in OPERATOR],
        "operator": [i for i in docs["items"] if i["kind"] in OPERATOR]}
    for name, items in parts.items():
        (folder / f"{name}.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List",
                                                             "items": items}))
    missing = 'echo \'error: the server doesn\'"\'"\'t have a resource type "gpus"\' >&2; exit 1'
    script = folder / "kubectl"
    script.write_text(f"""#!/bin/sh
echo "$@" >> {folder}/argv.log
case "$*" in
  "config current-context") {f'echo {current}' if current else 'exit 1'};;
  *gpus.tensor-fusion.ai*) {missing if operator_missing else f'cat {folder}/operator.yaml'};;
  *.argoproj.io*|*.fluxcd.io*) {missing};;
  *) cat {folder}/workloads.yaml;;
esac
""")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return folder / "argv.log"


def test_live_runs_kubectl_get_with_the_context(tmp_path: Path) -> None:
    log = _stand_in(tmp_path)
    done = _run(*_verify("--live", "--context", "prod-eu"),
                path=f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    assert done.returncode == 75, done.stderr  # wait
    assert "wait: the rollout is in progress" in done.stdout
    assert log.read_text().splitlines() == [
        "--context prod-eu get pods,replicasets,events -A -o yaml",
        "--context prod-eu get gpus.tensor-fusion.ai,gpunodes.tensor-fusion.ai,"
        "gpupools.tensor-fusion.ai -A -o yaml",
        *(f"--context prod-eu get {kind} -A -o yaml" for kind in (
            "applications.argoproj.io", "kustomizations.kustomize.toolkit.fluxcd.io",
            "helmreleases.helm.toolkit.fluxcd.io", "gitrepositories.source.toolkit.fluxcd.io"))]


def test_live_names_the_current_context_it_read(tmp_path: Path) -> None:
    log = _stand_in(tmp_path, current="prod-eu-2")
    path = f"{tmp_path}{os.pathsep}{os.environ['PATH']}"
    done = _run(*_verify("--live"), path=path)
    assert done.returncode == 75, done.stderr
    snapshot = next(line for line in done.stdout.splitlines() if line.startswith("snapshot: "))
    assert snapshot.startswith(
        "snapshot: kubectl, its current context (prod-eu-2); its latest object time ")
    assert log.read_text().splitlines()[:2] == [
        "get pods,replicasets,events -A -o yaml",
        "get gpus.tensor-fusion.ai,gpunodes.tensor-fusion.ai,gpupools.tensor-fusion.ai -A -o yaml"]
    html = _run(*_verify("--live", "--format", "html"), path=path).stdout
    assert "kubectl, its current context (prod-eu-2)" in html
    # A kubeconfig without a current context: the line says so, unnamed.
    _stand_in(tmp_path)
    unnamed = _run(*_verify("--live", "--format", "json"), path=path)
    assert json.loads(unnamed.stdout)["snapshot"]["source"] == "kubectl, its current context"


def test_live_without_the_operator_crds_says_so(tmp_path: Path) -> None:
    log = _stand_in(tmp_path, operator_missing=True)
    done = _run(*_verify("--live"), path=f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    assert done.returncode == 1, done.stderr
    assert "the TensorFusion operator is not installed" in done.stdout
    assert log.read_text().splitlines()[0] == "get pods,replicasets,events -A -o yaml"


def test_live_kubectl_failure_is_exit_2(tmp_path: Path) -> None:
    script = tmp_path / "kubectl"
    script.write_text("#!/bin/sh\necho 'error: You must be logged in to the server' >&2\nexit 1\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    done = _run(*_verify("--live"), path=f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    assert done.returncode == 2 and done.stdout == ""
    assert "kubectl get pods,replicasets,events failed (1)" in done.stderr


def test_live_without_kubectl_is_exit_2(tmp_path: Path) -> None:
    done = _run(*_verify("--live"), path=str(tmp_path))
    assert done.returncode == 2 and "kubectl is not on PATH" in done.stderr


def test_example_snapshot_is_what_its_builder_writes(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(HERE / "build_example.py"),
                           str(tmp_path / "built.yaml")], cwd=ROOT, capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "built.yaml").read_text(encoding="utf-8") == (
        ROOT / "examples" / "cluster" / "after-takeover.yaml").read_text(encoding="utf-8")


def test_a_finished_pod_counts_but_holds_no_gpu(tmp_path: Path) -> None:
    docs = yaml.safe_load((SNAPSHOTS / "clean.yaml").read_text(encoding="utf-8"))
    trainer = next(i for i in docs["items"] if i["metadata"]["name"] == "trainer-0")
    trainer["status"]["phase"] = "Succeeded"
    (tmp_path / "snap.yaml").write_text(yaml.safe_dump(docs))
    done = _run(*_verify("--cluster", str(tmp_path / "snap.yaml"), "--format", "json"))
    report = json.loads(done.stdout)
    trainer_result = report["workloads"][1]
    assert trainer_result["tensorFusionPods"] == {"expected": 1, "seen": 1}
    assert trainer_result["verdict"] == "ready"
    # its GPU still shows taken while the pod no longer holds it: the ledger disagrees
    assert report["verdict"] == "stop" and done.returncode == 1
    off = [g for g in report["gpus"] if g["verdict"] == "stop"]
    assert [g["expected"]["vramMiB"] for g in off] == [81920]
