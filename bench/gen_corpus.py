"""Deterministic generator of a Helm-like rendered manifest corpus.

``python bench/gen_corpus.py --n 10000 --out bench/out/corpus.yaml
[--split-dir bench/out/split] [--seed 7]`` writes what ``helm template`` would
print for a fleet of GPU charts: ``---`` then ``# Source: chart/templates/x.yaml``
before every document, documents of one release in Helm's install order.

``--n`` counts workloads (Deployment, StatefulSet, Job, CronJob, DaemonSet),
about half of the documents; a fifth are Services, ConfigMaps and
ServiceAccounts; the rest HPAs, PDBs, Ingresses, NetworkPolicies, RBAC and
ServiceMonitors. About 60 % of the workloads ask for 1–8 GPUs (a few as MIG
slices). The output depends only on ``--n`` and ``--seed``: a seeded
``random.Random``, no clock, no hash order.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from random import Random
from typing import Any

Node = Any  # dict[str, Node] | list[Node] | str | int | bool: a YAML tree


class Quoted(str):
    """A string the chart passes through ``| quote``: always double-quoted."""

    __slots__ = ()


# Plain scalars that read back as the same string under YAML 1.1 and 1.2.
_PLAIN = re.compile(r"[A-Za-z/][A-Za-z0-9 ._/@+=,()$-]*(:[A-Za-z0-9._/@+=-][A-Za-z0-9._/@+=-]*)*")
_QUANTITY = re.compile(r"[0-9]+(m|Ki|Mi|Gi|Ti)")
_YAML11_WORDS = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null"})


def scalar(value: Node) -> str:
    """One scalar as a chart would print it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = str(value)
    plain = (
        not isinstance(value, Quoted)
        and (_PLAIN.fullmatch(text) is not None or _QUANTITY.fullmatch(text) is not None)
        and not text.endswith(" ")
        and text.lower() not in _YAML11_WORDS
    )
    return text if plain else json.dumps(text, ensure_ascii=False)


def emit(node: Node, indent: int, indentless: bool) -> list[str]:
    """Block-style lines of a mapping or sequence at ``indent`` spaces."""
    pad = " " * indent
    if isinstance(node, list):
        return [line for item in node for line in _emit_item(item, indent, indentless)]
    lines: list[str] = []
    for key, value in node.items():
        lines.extend(_emit_entry(pad + scalar(key), value, indent, indentless))
    return lines


def _emit_entry(head: str, value: Node, indent: int, indentless: bool) -> list[str]:
    if isinstance(value, dict | list) and not value:
        return [f"{head}: {'{}' if isinstance(value, dict) else '[]'}"]
    if isinstance(value, dict):
        return [f"{head}:", *emit(value, indent + 2, indentless)]
    if isinstance(value, list):
        return [f"{head}:", *emit(value, indent + (0 if indentless else 2), indentless)]
    if isinstance(value, str) and "\n" in value:
        return [f"{head}: {'|' if value.endswith(chr(10)) else '|-'}", *_block(value, indent + 2)]
    return [f"{head}: {scalar(value)}"]


def _emit_item(item: Node, indent: int, indentless: bool) -> list[str]:
    if not isinstance(item, dict | list) or not item:
        return [" " * indent + "- " + (scalar(item) if not isinstance(item, dict) else "{}")]
    lines = emit(item, indent + 2, indentless)
    lines[0] = " " * indent + "- " + lines[0][indent + 2:]
    return lines


def _block(text: str, indent: int) -> list[str]:
    return [(" " * indent + line) if line else "" for line in text.rstrip("\n").split("\n")]


def render(doc: Node, indentless: bool) -> str:
    """One document as block YAML, newline-terminated."""
    return "\n".join(emit(doc, 0, indentless)) + "\n"


# --- the fleet -------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Chart:
    name: str
    version: str
    app_version: str
    image: str
    port: int
    gpu_share: float  # probability that one of its workloads asks for GPUs


CHARTS: tuple[Chart, ...] = (
    Chart("vllm", "0.4.2", "v0.6.3", "vllm/vllm-openai:v0.6.3", 8000, 0.95),
    Chart("tgi", "1.3.0", "2.3.1", "ghcr.io/huggingface/text-generation-inference:2.3.1", 80, 0.9),
    Chart("triton", "2.1.0", "24.08", "nvcr.io/nvidia/tritonserver:24.08-py3", 8000, 0.85),
    Chart("sd-webui", "0.9.1", "1.10.1", "ghcr.io/example/stable-diffusion-webui:1.10.1",
          7860, 0.9),
    Chart("whisper", "0.3.4", "1.6.0", "ghcr.io/example/whisper-asr:1.6.0-cuda12", 9000, 0.8),
    Chart("trainer", "1.8.0", "2.4.0", "nvcr.io/nvidia/pytorch:24.07-py3", 29500, 0.95),
    Chart("embeddings", "0.7.0", "1.5", "ghcr.io/huggingface/text-embeddings-inference:1.5",
          80, 0.7),
    Chart("jupyterhub-gpu", "3.3.8", "4.1.6", "quay.io/jupyter/pytorch-notebook:cuda12-2024-09-09",
          8888, 0.7),
    Chart("api-gateway", "2.4.1", "1.27.1", "nginx:1.27.1", 8080, 0.0),
    Chart("redis", "19.6.4", "7.4.0", "docker.io/bitnami/redis:7.4.0", 6379, 0.0),
    Chart("feature-store", "0.40.0", "0.40.1", "feastdev/feature-server:0.40.1", 6566, 0.05),
    Chart("etl", "0.2.0", "3.12", "python:3.12-slim", 8080, 0.1),
)
SIDECARS: tuple[tuple[str, str, int], ...] = (
    ("metrics-exporter", "prom/statsd-exporter:v0.27.1", 9102),
    ("log-shipper", "cr.fluentbit.io/fluent/fluent-bit:3.1.7", 2020),
    ("envoy", "envoyproxy/envoy:v1.31.2", 9901),
    ("otel-collector", "otel/opentelemetry-collector-contrib:0.109.0", 8888),
    ("oauth2-proxy", "quay.io/oauth2-proxy/oauth2-proxy:v7.7.0", 4180),
)
TEAMS = ("search", "ads", "assist", "vision", "speech", "research", "platform", "recsys")
MIG_PROFILES = ("nvidia.com/mig-1g.10gb", "nvidia.com/mig-2g.20gb", "nvidia.com/mig-3g.40gb")
WORKLOAD_KINDS = ("Deployment", "StatefulSet", "Job", "CronJob", "DaemonSet")
WORKLOAD_WEIGHTS = (40, 20, 15, 10, 15)
# Per workload one companion: Service/ConfigMap/ServiceAccount 40 %, the rest 60 %.
COMPANIONS = ("Service", "ConfigMap", "ServiceAccount", "HorizontalPodAutoscaler",
              "PodDisruptionBudget", "Ingress", "NetworkPolicy", "Role", "RoleBinding",
              "ServiceMonitor")
COMPANION_WEIGHTS = (16, 14, 10, 12, 12, 8, 10, 6, 6, 6)
# helm's InstallOrder (pkg/release/util/kind_sorter.go); unknown kinds go last.
INSTALL_ORDER = ("NetworkPolicy", "PodDisruptionBudget", "ServiceAccount", "ConfigMap", "Role",
                 "RoleBinding", "Service", "DaemonSet", "Deployment", "HorizontalPodAutoscaler",
                 "StatefulSet", "Job", "CronJob", "Ingress")


@dataclass(frozen=True, slots=True)
class Release:
    name: str
    namespace: str
    chart: Chart
    indentless: bool


def chart_labels(rel: Release, component: str) -> dict[str, Node]:
    return {
        "helm.sh/chart": f"{rel.chart.name}-{rel.chart.version}",
        "app.kubernetes.io/name": rel.chart.name,
        "app.kubernetes.io/instance": rel.name,
        "app.kubernetes.io/component": component,
        "app.kubernetes.io/version": Quoted(rel.chart.app_version),
        "app.kubernetes.io/managed-by": "Helm",
    }


def selector_labels(rel: Release, component: str) -> dict[str, Node]:
    return {"app.kubernetes.io/name": rel.chart.name, "app.kubernetes.io/instance": rel.name,
            "app.kubernetes.io/component": component}


def metadata(rel: Release, name: str, component: str) -> dict[str, Node]:
    return {"name": name, "namespace": rel.namespace, "labels": chart_labels(rel, component)}


def gpu_limits(rng: Random) -> dict[str, Node]:
    """The GPU part of a container's limits: 1–8 whole GPUs, or one MIG slice."""
    if rng.random() < 0.06:
        return {rng.choice(MIG_PROFILES): 1}
    return {"nvidia.com/gpu": rng.choice((1, 1, 1, 1, 2, 2, 4, 4, 8))}


def main_resources(rng: Random, gpu: dict[str, Node] | None) -> dict[str, Node]:
    cpu = rng.choice((2, 4, 8, 16))
    mem = f"{rng.choice((8, 16, 32, 64, 128))}Gi"
    limits: dict[str, Node] = {"cpu": Quoted(str(cpu)), "memory": mem, **(gpu or {})}
    requests: dict[str, Node] = {"cpu": Quoted(str(cpu // 2)), "memory": mem}
    if gpu and rng.random() < 0.3:  # some charts repeat the GPU count under requests
        requests.update(gpu)
    return {"limits": limits, "requests": requests}


def env_vars(rng: Random, rel: Release) -> list[Node]:
    env: list[Node] = [
        {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
        {"name": "HF_HOME", "value": "/models/.cache"},
        {"name": "LOG_LEVEL", "value": rng.choice(("info", "debug", "warning"))},
        {"name": "PORT", "value": Quoted(str(rel.chart.port))},
        {"name": "OMP_NUM_THREADS", "value": Quoted(str(rng.choice((1, 2, 4, 8))))},
    ]
    if rng.random() < 0.4:
        env.append({"name": "OTEL_EXPORTER_OTLP_ENDPOINT",
                    "value": "http://otel-collector.observability:4317"})
    for i in range(rng.randint(0, 3)):
        env.append({"name": f"FEATURE_FLAG_{i}", "value": Quoted(rng.choice(("true", "false")))})
    if rng.random() < 0.3:
        env.append({"name": "HUGGING_FACE_HUB_TOKEN", "valueFrom": {"secretKeyRef": {
            "name": f"{rel.name}-hf-token", "key": "token"}}})
    return env


def probe(path: str, port: str, delay: int) -> dict[str, Node]:
    return {"httpGet": {"path": path, "port": port}, "initialDelaySeconds": delay,
            "periodSeconds": 10}


def main_container(rng: Random, rel: Release, gpu: dict[str, Node] | None) -> dict[str, Node]:
    model = rng.choice(("meta-llama/Llama-3.1-8B-Instruct", "mistralai/Mistral-7B-Instruct-v0.3",
                        "Qwen/Qwen2.5-14B-Instruct", "google/gemma-2-9b-it"))
    args = ["--model", model, "--port", Quoted(str(rel.chart.port))]
    if gpu:
        args += ["--tensor-parallel-size", Quoted(str(next(iter(gpu.values()))))]
    return {
        "name": rel.chart.name, "image": rel.chart.image,
        "imagePullPolicy": "IfNotPresent", "args": args,
        "ports": [{"name": "http", "containerPort": rel.chart.port, "protocol": "TCP"}],
        "env": env_vars(rng, rel),
        "livenessProbe": probe("/health", "http", 120),
        "readinessProbe": {"httpGet": {"path": "/ready", "port": "http"}},
        "resources": main_resources(rng, gpu),
        "volumeMounts": [{"name": "models", "mountPath": "/models"},
                         {"name": "shm", "mountPath": "/dev/shm"}],
    }


def sidecar(entry: tuple[str, str, int]) -> dict[str, Node]:
    name, image, port = entry
    return {
        "name": name, "image": image,
        "ports": [{"name": "metrics", "containerPort": port, "protocol": "TCP"}],
        "resources": {"limits": {"cpu": "200m", "memory": "256Mi"}},
    }


def pod_spec(rng: Random, rel: Release, component: str, restart: str | None) -> dict[str, Node]:
    """A pod template (metadata + spec); GPU or not by the chart's share."""
    gpu = gpu_limits(rng) if rng.random() < rel.chart.gpu_share else None
    containers = [main_container(rng, rel, gpu)]
    # distinct sidecars: the API server refuses two containers of one name
    containers += [sidecar(e) for e in rng.sample(SIDECARS, rng.choice((0, 0, 1, 1, 2)))]
    spec: dict[str, Node] = {"serviceAccountName": rel.name}
    if restart:
        spec["restartPolicy"] = restart
    spec["securityContext"] = {"runAsNonRoot": True, "runAsUser": 1000, "fsGroup": 1000}
    spec["containers"] = containers
    if gpu:
        spec["nodeSelector"] = {"nvidia.com/gpu.product": rng.choice(
            ("NVIDIA-A100-SXM4-80GB", "NVIDIA-H100-80GB-HBM3", "NVIDIA-L40S"))}
        spec["tolerations"] = [{"key": "nvidia.com/gpu", "operator": "Exists",
                                "effect": "NoSchedule"}]
    spec["volumes"] = [
        {"name": "models", "persistentVolumeClaim": {"claimName": f"{rel.name}-models"}},
        {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}},
    ]
    meta: dict[str, Node] = {"labels": selector_labels(rel, component)}
    if rng.random() < 0.6:
        meta["annotations"] = {"checksum/config": f"{rng.getrandbits(256):064x}",
                               "prometheus.io/scrape": Quoted("true")}
    return {"metadata": meta, "spec": spec}


def workload(rng: Random, rel: Release, kind: str, name: str, component: str) -> Node:
    head: dict[str, Node] = {"apiVersion": "batch/v1" if kind in ("Job", "CronJob") else "apps/v1",
                             "kind": kind, "metadata": metadata(rel, name, component)}
    select = {"selector": {"matchLabels": selector_labels(rel, component)}}
    if kind == "Deployment":
        spec = {"replicas": rng.randint(1, 6), "revisionHistoryLimit": 3, **select,
                "strategy": {"type": "RollingUpdate",
                             "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 0}},
                "template": pod_spec(rng, rel, component, None)}
    elif kind == "StatefulSet":
        spec = {"replicas": rng.randint(1, 4), "serviceName": f"{name}-headless", **select,
                "podManagementPolicy": "Parallel", "template": pod_spec(rng, rel, component, None)}
    elif kind == "DaemonSet":
        spec = {**select, "updateStrategy": {"type": "RollingUpdate"},
                "template": pod_spec(rng, rel, component, None)}
    elif kind == "Job":
        spec = {"backoffLimit": 2, "ttlSecondsAfterFinished": 86400,
                "template": pod_spec(rng, rel, component, "Never")}
    else:
        job = {"backoffLimit": 1, "template": pod_spec(rng, rel, component, "OnFailure")}
        spec = {"schedule": Quoted(f"{rng.randint(0, 59)} {rng.randint(0, 23)} * * *"),
                "concurrencyPolicy": "Forbid", "successfulJobsHistoryLimit": 3,
                "jobTemplate": {"spec": job}}
    return {**head, "spec": spec}


RULES = """groups:
  - name: {name}.rules
    rules:
      - alert: {alert}HighLatency
        expr: >-
          histogram_quantile(0.99, sum(rate(request_latency_seconds_bucket{{job="{name}"}}[5m]))
          by (le)) > 2
        for: 10m
        labels:
          severity: warning
        annotations:
          summary: "High p99 latency on {{{{ $labels.instance }}}}"
          description: "p99 is {{{{ $value | humanizeDuration }}}} for {{{{ $labels.pod }}}}"
"""


def companion(rng: Random, rel: Release, kind: str, name: str, component: str) -> Node:
    """One non-workload document of the release."""
    meta = metadata(rel, name, component)
    port = rel.chart.port
    sel = selector_labels(rel, component)
    if kind == "Service":
        return {"apiVersion": "v1", "kind": kind, "metadata": meta, "spec": {
            "type": "ClusterIP", "ports": [{"port": port, "targetPort": "http",
                                            "protocol": "TCP", "name": "http"}],
            "selector": sel}}
    if kind == "ConfigMap":
        data: dict[str, Node] = {"LOG_FORMAT": "json", "MAX_BATCH_SIZE": Quoted("32")}
        if rng.random() < 0.5:
            data["alerts.yaml"] = RULES.format(name=name, alert=rel.chart.name.title()
                                               .replace("-", ""))
        else:
            data["app.yaml"] = (f"server:\n  port: {port}\n  workers: {rng.randint(1, 8)}\n"
                                f"model:\n  cache: /models/.cache\n  dtype: bfloat16\n")
        return {"apiVersion": "v1", "kind": kind, "metadata": meta, "data": data}
    if kind == "ServiceAccount":
        return {"apiVersion": "v1", "kind": kind, "metadata": meta,
                "automountServiceAccountToken": False}
    if kind == "HorizontalPodAutoscaler":
        return {"apiVersion": "autoscaling/v2", "kind": kind, "metadata": meta, "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
            "minReplicas": 1, "maxReplicas": rng.randint(2, 10),
            "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {
                "type": "Utilization", "averageUtilization": 70}}}]}}
    if kind == "PodDisruptionBudget":
        return {"apiVersion": "policy/v1", "kind": kind, "metadata": meta,
                "spec": {"maxUnavailable": 1, "selector": {"matchLabels": sel}}}
    if kind == "Ingress":
        host = f"{name}.{rel.namespace}.example.com"
        return {"apiVersion": "networking.k8s.io/v1", "kind": kind, "metadata": meta, "spec": {
            "ingressClassName": "nginx", "tls": [{"hosts": [host], "secretName": f"{name}-tls"}],
            "rules": [{"host": host, "http": {"paths": [{"path": "/", "pathType": "Prefix",
                       "backend": {"service": {"name": name, "port": {"number": port}}}}]}}]}}
    if kind == "NetworkPolicy":
        return {"apiVersion": "networking.k8s.io/v1", "kind": kind, "metadata": meta, "spec": {
            "podSelector": {"matchLabels": sel}, "policyTypes": ["Ingress"],
            "ingress": [{"from": [{"namespaceSelector": {"matchLabels": {
                "kubernetes.io/metadata.name": "ingress-nginx"}}}],
                "ports": [{"port": port, "protocol": "TCP"}]}]}}
    if kind == "Role":
        return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind, "metadata": meta,
                "rules": [{"apiGroups": [""], "resources": ["configmaps", "secrets"],
                           "verbs": ["get", "list", "watch"]}]}
    if kind == "RoleBinding":
        return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind, "metadata": meta,
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                            "name": name},
                "subjects": [{"kind": "ServiceAccount", "name": rel.name,
                              "namespace": rel.namespace}]}
    return {"apiVersion": "monitoring.coreos.com/v1", "kind": "ServiceMonitor", "metadata": meta,
            "spec": {"selector": {"matchLabels": sel},
                     "endpoints": [{"port": "http", "path": "/metrics", "interval": "30s"}]}}


Doc = tuple[str, str, str, str]  # (source path, kind, name, rendered text)


def release_docs(rng: Random, index: int, workloads: int) -> list[Doc]:
    """One release: its workloads and one companion each, in Helm's install order."""
    chart = rng.choice(CHARTS)
    team = rng.choice(TEAMS)
    rel = Release(f"{team}-{chart.name}-{index:05d}", f"ml-{team}", chart, rng.random() < 0.3)
    docs: list[tuple[int, Doc]] = []
    for n in range(workloads):
        component = ("server", "worker", "batch")[n % 3]
        name = f"{rel.name}-{component}"
        kind = rng.choices(WORKLOAD_KINDS, WORKLOAD_WEIGHTS)[0]
        extra = rng.choices(COMPANIONS, COMPANION_WEIGHTS)[0]
        for k, tree in ((kind, workload(rng, rel, kind, name, component)),
                        (extra, companion(rng, rel, extra, name, component))):
            source = f"{chart.name}/templates/{k.lower()}-{component}.yaml"
            order = INSTALL_ORDER.index(k) if k in INSTALL_ORDER else len(INSTALL_ORDER)
            docs.append((order, (source, k, name, render(tree, rel.indentless))))
    docs.sort(key=lambda pair: pair[0])  # stable: equal kinds keep their order
    return [doc for _, doc in docs]


def generate(n: int, seed: int) -> Iterator[Doc]:
    """The documents of ``n`` workloads, grouped in releases of 1–3 workloads."""
    rng = Random(seed)
    done = index = 0
    while done < n:
        count = min(n - done, rng.choice((1, 1, 2, 3)))
        yield from release_docs(rng, index, count)
        done += count
        index += 1


def write(n: int, seed: int, out: Path, split_dir: Path | None) -> tuple[int, int]:
    """Write the stream (and the split files); return (documents, bytes)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    if split_dir is not None:
        split_dir.mkdir(parents=True, exist_ok=True)
    docs = size = 0
    with out.open("w", encoding="utf-8", newline="\n") as stream:
        for source, kind, name, text in generate(n, seed):
            chunk = f"---\n# Source: {source}\n{text}"
            stream.write(chunk)
            size += len(chunk.encode())
            if split_dir is not None:
                path = split_dir / f"{docs:06d}-{kind.lower()}-{name}.yaml"
                path.write_text(f"# Source: {source}\n{text}", encoding="utf-8", newline="\n")
            docs += 1
    return docs, size


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=10000, help="number of workloads")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=Path("bench/out/corpus.yaml"))
    parser.add_argument("--split-dir", type=Path, help="also write one file per document here")
    args = parser.parse_args(argv)
    docs, size = write(args.n, args.seed, args.out, args.split_dir)
    print(f"{args.out}: {args.n} workloads, {docs} documents, {size / 1e6:.1f} MB",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
