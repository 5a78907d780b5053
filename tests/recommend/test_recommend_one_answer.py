"""A property: ``recommend``'s hints and ``check``'s findings are one answer.

Over drawn (framework, setting, model size, limit) tuples: a server of each
pre-allocating framework, its setting left at its default or drawn, a model of a
drawn size (named by its parameter count, or, for JAX and TensorFlow, declared to
``recommend -p`` as ``modelWeights``), and a limit drawn through the working memory
and ``--margin``. ``recommend`` runs through its CLI on a metrics file whose pool is
the one the setting takes of an A100 80GB; ``check`` runs through its CLI on the
unchanged manifest under the recommended policy. Every setting recommend asks to
change is a finding of check's at the same severity, word for word, and the reverse;
and a value of the setting a warning names, once written into the manifest, ends
the warning.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tfpolicy.cli import main

GIB = 1 << 30
CARD_GIB = 80  # NVIDIA A100-SXM4-80GB
END = 1_767_225_600
POD = "srv-7d9f8b6c5d-x7k2p"
IMAGES = {"vLLM": "vllm/vllm-openai:v0.8.5", "SGLang": "lmsysorg/sglang:v0.5.2-cu126",
          "TGI": "ghcr.io/huggingface/text-generation-inference:3.3.5",
          "TensorRT-LLM": "nvcr.io/nvidia/tensorrt-llm/release:0.20.0",
          "JAX": "nvcr.io/nvidia/jax:24.04-py3", "TensorFlow": "tensorflow/serving:2.15.0-gpu"}
FLAGS = {"vLLM": "--gpu-memory-utilization", "SGLang": "--mem-fraction-static",
         "TGI": "--cuda-memory-fraction", "TensorRT-LLM": "--kv_cache_free_gpu_memory_fraction"}
DEFAULTS = {"vLLM": 0.92, "TGI": 1.0, "TensorRT-LLM": 0.9, "JAX": 0.75, "TensorFlow": 1.0}


def container(framework: str, model: str, value: float | None) -> list[str]:
    """The container's YAML lines (at the containers list's indentation)."""
    setting = [] if value is None else [FLAGS.get(framework, ""), f"{value:.2f}"]
    args = {"vLLM": ["--model", model, "--max-model-len", "4096", *setting],
            "SGLang": ["--model-path", model, *setting],
            "TGI": ["--model-id", model, *setting],
            "TensorRT-LLM": [model, "--max_seq_len", "4096", *setting]}.get(framework, [])
    lines = ["- name: srv", f"  image: {IMAGES[framework]}"]
    command = {"SGLang": ["python3", "-m", "sglang.launch_server"],
               "TensorRT-LLM": ["trtllm-serve"], "JAX": ["python", "serve.py"]}.get(framework)
    if command:
        lines.append(f"  command: {json.dumps(command)}")
    if args:
        lines.append(f"  args: {json.dumps(args)}")
    if framework == "JAX" and value is not None:
        lines.append(f'  env: [{{name: XLA_PYTHON_CLIENT_MEM_FRACTION, value: "{value:.2f}"}}]')
    return [*lines, "  resources: {limits: {nvidia.com/gpu: 1}}"]


def manifest(framework: str, model: str, value: float | None) -> str:
    body = "\n".join("        " + line for line in container(framework, model, value))
    return ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: srv, namespace: ml}\n"
            "spec:\n  replicas: 1\n  selector: {matchLabels: {app: srv}}\n  template:\n"
            "    metadata: {labels: {app: srv}}\n    spec:\n      containers:\n" + body + "\n")


def pool_gib(framework: str, value: float | None, weights_gib: float) -> float:
    """What the setting takes of the whole card, written out here, not read from tfpolicy:
    vLLM, TGI, JAX, TensorFlow a share of the total; SGLang unset keeps 9.5 + 0.5 GiB
    free on an 80 GiB card (sglang v0.5.2 server_args.py:472-474); TensorRT-LLM a share
    of what the weights and 2 GiB of overhead leave."""
    share = DEFAULTS.get(framework) if value is None else value
    if share is None:
        return CARD_GIB - 10.0
    if framework == "TensorRT-LLM":
        return weights_gib + 2 + share * (CARD_GIB - weights_gib - 2)
    return share * CARD_GIB


def metrics(peak_gib: float) -> str:
    times = range(END - 3600 + 60, END + 1, 60)
    labels = {"namespace": "ml", "pod": POD, "modelName": "NVIDIA A100-SXM4-80GB"}

    def answer(values: list[list[object]]) -> dict[str, object]:
        return {"status": "success", "data": {"resultType": "matrix", "result": [
            {"metric": labels, "values": values}]}}

    empty = {"status": "success", "data": {"resultType": "matrix", "result": []}}
    return json.dumps({"apiVersion": "tfpolicy.dev/v1alpha1", "kind": "MetricsSnapshot",
                       "end": END, "window": "1h", "step": "1m", "answers": {
                           "activity": answer([[t, "0.2"] for t in times]),
                           "utilization": empty,
                           "framebuffer": answer([[END, str(round(peak_gib * 1024))]])}})


def tfpolicy(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def findings(text: str) -> set[tuple[str, str]]:
    return set(re.findall(r"\[(warning|info)\] Deployment/ml/srv: (container srv: .*) "
                          r"\(webhook-framework-pool\)", text))


SIZES = (0.5, 1, 1.5, 1.7, 3, 7, 8, 13, 14)


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, float | None, float, float, float]:
    framework = draw(st.sampled_from(sorted(IMAGES)))
    low = 0.45 if framework != "TensorRT-LLM" else 0.05
    value = None if framework == "TensorFlow" else draw(st.one_of(
        st.none(), st.integers(int(low * 100), 100).map(lambda v: v / 100)))
    size = draw(st.sampled_from(SIZES))
    working = draw(st.integers(1, 24)) / 4  # GiB
    margin = draw(st.sampled_from((0.0, 0.05, 0.15, 0.5, 1.0)))
    return framework, value, size, working, margin


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_recommend_hints_and_check_findings_agree(
        case: tuple[str, float | None, float, float, float]) -> None:
    framework, value, size, working, margin = case
    model = f"acme/model-{size:g}B-Instruct"
    weights = size * 2  # GB: 16-bit
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "srv.yaml").write_text(manifest(framework, model, value), encoding="utf-8")
        declared = f"      modelWeights: {weights * 1e9 / GIB * 1024:.0f}Mi\n" \
            if framework in ("JAX", "TensorFlow") else ""
        (root / "sizes.yaml").write_text(
            "apiVersion: tfpolicy.dev/v1alpha1\nkind: MigrationPolicy\nmetadata: {name: s}\n"
            "spec:\n  stage: takeover\n  workloads:\n    - match: {names: [srv]}\n"
            f"{declared}      workingMemory: {working * 1024:.0f}Mi\n", encoding="utf-8")
        peak = pool_gib(framework, value, weights * 1e9 / GIB)
        (root / "m.json").write_text(metrics(peak), encoding="utf-8")
        code, policy, said = tfpolicy("recommend", "--metrics", str(root / "m.json"),
                                      "--margin", str(margin), "-p", str(root / "sizes.yaml"),
                                      str(root / "srv.yaml"))
        assert code == 0, said
        (root / "rec.yaml").write_text(policy, encoding="utf-8")
        _, checked, _ = tfpolicy("check", "-p", str(root / "rec.yaml"), str(root / "srv.yaml"))
        asked = set(re.findall(r"tfpolicy: \[(warning|info)\] Deployment/ml/srv: check: (.*)",
                               said))
        assert asked == findings(checked), (policy, said, checked)
        event(f"{framework}: {' '.join(sorted(sev for sev, _ in asked)) or 'nothing'}")
        assert ("check flags nothing" in policy) == (not asked)
        fix = re.search(rf"; set {re.escape(FLAGS.get(framework, '-'))} ([0-9.]+)$",
                        next((s for sev, s in asked if sev == "warning"), ""))
        if fix:  # the value the warning names ends it
            (root / "srv.yaml").write_text(manifest(framework, model, float(fix.group(1))),
                                           encoding="utf-8")
            _, fixed, _ = tfpolicy("check", "-p", str(root / "rec.yaml"), str(root / "srv.yaml"))
            assert not {f for f in findings(fixed) if f[0] == "warning"}, fixed
