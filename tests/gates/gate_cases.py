"""The cases of the gate tests: a Deployment of four vLLM replicas at a 25 % rung (one
TensorFusion pod, three native ones over the enabled-replicas cap), one namespace per
case, and the series a real Prometheus holds for each (``app_series``).

The snapshots are verify's (``tests/verify/build_snapshots.py``) taken at 09:20: every
pod created and ready at 09:00, so the soak window is 09:00–09:20; the rung was committed
at 08:00 (``tests/promote/promote_repo.py``), so a time-shifted baseline is 07:40–08:00.
"""

from __future__ import annotations

import copy
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.gates.app_series import GpuXid, PodLoad, at, openmetrics
from tests.promote.promote_repo import SNAPSHOTS, Repo
from tests.recommend.prometheus_server import binaries

B = SNAPSHOTS
START, READY, TAKEN = at("2026-11-30T07:00:00Z"), at("2026-11-30T09:00:00Z"), \
    at("2026-11-30T09:20:00Z")
COMMITTED = at("2026-11-30T08:00:00Z")
NEW, OLD = B.NEW, B.OLD
NATIVES = ("m3v8t", "r5t7y", "w9x2c")
EARLIER = ("a1b2c", "d3e4f", "g5h6j", "k7m8n")  # the old revision's pods, before the rung
MANIFEST = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
  namespace: {namespace}
spec:
  replicas: 4
  selector:
    matchLabels:
      app: vllm
  template:
    metadata:
      labels:
        app: vllm
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.6.3
        resources:
          limits:
            nvidia.com/gpu: 1
"""
GATES = """\
gates:
  - name: p99-latency
    query: histogram_quantile(0.99, sum by (le, namespace, pod) (rate({latency}[1m])))
    baseline: {{maxRatio: 1.15}}
  - name: error-rate
    query: sum by (namespace, pod) (rate(http_requests_total{{code=~"5.."}}[1m])) or sum by (namespace, pod) (rate(http_requests_total[1m])) * 0
    max: 0.01
  - name: tokens-per-second
    query: sum by (namespace, pod) (rate(vllm:generation_tokens_total[1m]))
    baseline: {{minRatio: 0.9}}
"""
LATENCY = "vllm:e2e_request_latency_seconds_bucket"
XID_UUID = "GPU-5E1D0C4B-9A2F-4B7E-8C6D-3F2A1B0C9D8E"  # the xid case's first card


def config(rung: str, latency: str = LATENCY) -> str:
    return (f"# The migration's rung; `tfpolicy promote` moves it.\npolicies: [{rung}]  # rung\n"
            + GATES.format(latency=latency))


def loads() -> list[PodLoad]:
    """Every case's pods: (namespace, TensorFusion latency, tokens, first scrape)."""
    found = []
    cases = {"within": (0.50, 98.0, READY), "slower": (0.95, 60.0, READY),
             "sparse": (0.50, 98.0, TAKEN - 150), "xid": (0.50, 98.0, READY),
             "restarts": (0.50, 98.0, READY)}
    for ns, (latency, tokens, first) in cases.items():
        found.append(PodLoad(ns, f"{NEW}-k2x9p", first, TAKEN, latency, tokens))
        found += [PodLoad(ns, f"{NEW}-{n}", READY, TAKEN, 0.50, 100.0, 0.002) for n in NATIVES]
    found += [PodLoad("last", f"{NEW}-{n}", READY, TAKEN, 0.52, 97.0)
              for n in ("k2x9p", *NATIVES)]
    found += [PodLoad("last", f"{OLD}-{n}", START, COMMITTED + 120, 0.50, 100.0)
              for n in EARLIER]
    return found


def gpus() -> list[GpuXid]:
    """The four cards clean; the xid case's card (``XID_UUID``) reports XID 79 (the GPU
    fell off the bus) from 09:10."""
    return [*(GpuXid(uuid, START, TAKEN) for uuid in B.UUIDS),
            GpuXid(XID_UUID, START, TAKEN, 79, at("2026-11-30T09:10:00Z"))]


def backfill(folder: Path) -> Path:
    _, promtool = binaries()
    source, data = folder / "gates.om", folder / "data"
    with source.open("w", encoding="utf-8") as out:
        out.writelines(openmetrics(loads(), gpus()))
    subprocess.run([promtool, "tsdb", "create-blocks-from", "openmetrics", str(source),
                    str(data)], check=True, capture_output=True, timeout=600)
    return data


def _in(namespace: str, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for item in items:
        if item["kind"] in ("Pod", "ReplicaSet"):
            item["metadata"]["namespace"] = namespace
    return items


def canary(namespace: str) -> list[dict[str, Any]]:
    """The 25 % rung: one TensorFusion pod on the first card, three native over the cap."""
    tf_gpu = 0
    tf = B.pod(f"{NEW}-k2x9p", "vllm", ("ReplicaSet", NEW), tf=True, gpu_index=tf_gpu)
    natives = []
    for name in NATIVES:
        native = B.pod(f"{NEW}-{name}", "vllm", ("ReplicaSet", NEW), tf=False, gpu_index=None)
        native["metadata"]["labels"]["tensor-fusion.ai/enabled"] = "true"
        native["metadata"]["annotations"].update({"tensor-fusion.ai/isolation": "shared",
                                                  "tensor-fusion.ai/enabled-replicas": "1"})
        natives.append(native)
    cards = [B.gpu(i, True) if i == tf_gpu else B.device_plugin_gpu(i) for i in range(4)]
    return _in(namespace, [tf, *natives, B.replicaset(OLD, 1, 0, False),
                           _sized(B.replicaset(NEW, 2, 4, True)), B.gpupool(), B.gpunode(1),
                           *cards])


def last(namespace: str) -> list[dict[str, Any]]:
    """The last rung: every replica a TensorFusion pod, the old revision's gone."""
    pods = [B.pod(f"{NEW}-{n}", "vllm", ("ReplicaSet", NEW), tf=True, gpu_index=i)
            for i, n in enumerate(("k2x9p", *NATIVES))]
    return _in(namespace, [*pods, B.replicaset(OLD, 1, 0, False),
                           _sized(B.replicaset(NEW, 2, 4, True)), B.gpupool(), B.gpunode(4),
                           *(B.gpu(i, True) for i in range(4))])


def on_xid_card(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same cluster, its first card another one: the card that reports the XID."""
    text = B.as_list(items)
    old = B.UUIDS[0]
    text = text.replace(old.lower(), XID_UUID.lower()).replace(old, XID_UUID)
    from tfpolicy.yamlio import load_all

    return list(next(iter(load_all(text, file="snapshot")))["items"])


def restarted(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The TensorFusion pod's container OOMKilled twice, running again and ready."""
    items = copy.deepcopy(items)
    status = items[0]["status"]["containerStatuses"][0]
    status.update({"restartCount": 2, "lastState": {"terminated": {
        "exitCode": 137, "reason": "OOMKilled", "startedAt": "2026-11-30T09:02:00Z",
        "finishedAt": "2026-11-30T09:05:00Z"}}})
    return items


def _sized(rs: dict[str, Any]) -> dict[str, Any]:
    rs["metadata"]["annotations"]["deployment.kubernetes.io/desired-replicas"] = "4"
    return rs


def repo(path: Path, monkeypatch: pytest.MonkeyPatch, namespace: str, rung: str = "takeover-25",
         latency: str = LATENCY) -> Repo:
    """Verify's repository, holding this case's Deployment, at ``rung``, with the gates."""
    made = Repo(path, monkeypatch, rung)
    (made.path / "manifests" / "serving.yaml").write_text(MANIFEST.format(namespace=namespace),
                                                          encoding="utf-8")
    (made.path / ".tfpolicy.yaml").write_text(config(rung, latency), encoding="utf-8")
    from tfpolicy.cli import main

    main(["fix", "manifests"])
    made.commit_all(f"GPU migration: {rung}, gated", hour=8)
    return made
