"""A pod's DRA claim resolved over the whole input, not its own document (docs/kinds.md,
"GPUs through DRA"): a Deployment naming a ResourceClaimTemplate held in another file is
reported as holding DRA GPUs (a warning, ``gpu-dra-claim``), one naming a claim of a
non-GPU class is silent, one naming a claim the input lacks gets the info; and ``apply``
over the folder, ``apply`` of the files as one stream, ``plan`` and the KRM function over
a ResourceList of the same objects say the same; ``plan`` counts the claim's GPUs as held
outside TensorFusion at every step."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tfpolicy.cli import main

TEMPLATE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: two-gpus, namespace: ml}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu.nvidia.com, count: 2}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: nic, namespace: ml}
spec:
  devices:
    requests:
    - name: n
      exactly: {deviceClassName: rdma-net}
"""


def _app(name: str, claim_kind: str, claim: str) -> str:
    return f"""\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}, namespace: ml}}
spec:
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      containers:
      - name: main
        image: x
        resources: {{claims: [{{name: dev}}]}}
      resourceClaims:
      - name: dev
        {claim_kind}: {claim}
"""


FILES = {"claims.yaml": TEMPLATE,
         "gpu-app.yaml": _app("gpu-app", "resourceClaimTemplateName", "two-gpus"),
         "nic-app.yaml": _app("nic-app", "resourceClaimName", "nic"),
         "lost-app.yaml": _app("lost-app", "resourceClaimName", "elsewhere")}
# What each object gets: (rule, severity) by object name.
EXPECTED = [("gpu-app", "gpu-dra-claim", "warning"),
            ("lost-app", "gpu-dra-claim-missing", "info"),
            ("two-gpus", "gpu-dra-claim", "warning")]
INVENTORY = ("apiVersion: tfpolicy.dev/v1alpha1\nkind: Inventory\nmetadata: {name: one}\n"
             "spec:\n  defaultPool: pool\n  pools:\n  - name: pool\n    nodeGroups: [{name: n, "
             "count: 1, gpusPerNode: 4, model: A100_SXM_80G}]\n")


def _folder(tmp: Path) -> Path:
    for name, text in FILES.items():
        (tmp / name).write_text(text)
    return tmp


def _said(findings: list[dict[str, object]]) -> list[tuple[str, str, str]]:
    return sorted((f["resourceRef"]["name"], f["tags"]["rule"], f["severity"])  # type: ignore[index]
                  for f in findings if str(f["tags"]["rule"]).startswith("gpu-dra"))  # type: ignore[index]


def test_apply_over_the_folder_and_as_one_stream(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    folder = _folder(tmp_path)
    code = main(["apply", "-p", "takeover", "--fail-on", "warning", str(folder)])
    _, err = capsys.readouterr()
    assert code == 1  # the DRA GPUs are warnings: CI fails on them
    assert "gpu-app" in err and "which this document does not hold" not in err
    assert "nic-app" not in err  # a claim of no GPU class: nothing to say
    (tmp_path / "stream.yaml").write_text("---\n".join(FILES.values()))
    assert main(["apply", "-p", "takeover", str(tmp_path / "stream.yaml")]) == 0
    out, err = capsys.readouterr()
    assert out == "---\n".join(FILES.values())  # nothing of DRA is rewritten
    assert "2 GPU requests not migrated (2 gpu-dra-claim)" in err


def test_plan_counts_the_pod_held_through_another_documents_claim(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "m").mkdir()
    folder = _folder(tmp_path / "m")
    (tmp_path / "inv.yaml").write_text(INVENTORY)
    args = ["plan", "-p", "takeover", "--inventory", str(tmp_path / "inv.yaml"),
            *map(str, sorted(folder.iterdir()))]
    assert main(args) == 0
    assert "GPU requests not migrated: 2 (2 gpu-dra-claim)" in capsys.readouterr()[0]
    # The claim template's two GPUs are held by the pod at every step, outside TensorFusion:
    # the plan hands them to no one else.
    assert main([*args, "--format", "json"]) == 0
    plan = json.loads(capsys.readouterr()[0])
    assert plan["start"]["gpus"] == {"total": 4, "devicePlugin": 2, "tensorFusion": 0,
                                     "idle": 2}
    assert [s["gpus"]["devicePlugin"] for s in plan["steps"]] == [2] * len(plan["steps"])
    assert (plan["summary"]["gpusBefore"], plan["summary"]["gpusAfter"]) == (2, 2)


def test_the_krm_function_over_a_resource_list_says_the_same(tmp_path: Path) -> None:
    items = [dict(doc, metadata={**doc["metadata"], "annotations": {
        "config.kubernetes.io/path": name, "config.kubernetes.io/index": str(index)}})
        for name, text in FILES.items()
        for index, doc in enumerate(yaml.safe_load_all(text))]
    listed = yaml.safe_dump({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList",
                             "items": items, "functionConfig": {
                                 "apiVersion": "v1", "kind": "ConfigMap",
                                 "metadata": {"name": "function-input"},
                                 "data": {"policies": "takeover"}}}, sort_keys=False)
    done = subprocess.run([str(Path(sys.executable).parent / "tfpolicy"), "krm"], cwd=tmp_path,
                          input=listed, text=True, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr
    results = yaml.safe_load(done.stdout)["results"]
    assert _said(results) == EXPECTED
    gpu = next(r for r in results if r["resourceRef"]["name"] == "gpu-app")
    assert "2 devices of class gpu.nvidia.com through ResourceClaimTemplate 'two-gpus'" \
        in gpu["message"] and gpu["file"]["path"] == "gpu-app.yaml"
