"""The example fleet's measured week, as dcgm-exporter would have exported it.

Matches ``examples/manifests``: a Deployment restarted a day ago (new
ReplicaSet hash, so new pod names), a Job on a GPU without profiling
metrics (utilization only), a StatefulSet that runs hot on four GPUs, a PyTorchJob, a
RayCluster worker group, a CronJob with twenty minutes of data, a MIG Deployment
with no data, and pods the manifests do not make.
"""

from __future__ import annotations

from tests.recommend.dcgm_series import DAY, Run, Workload

A100, L4 = "NVIDIA A100-SXM4-80GB", "NVIDIA L4"
WINDOW = "2d"


def fleet() -> list[Workload]:
    return [
        Workload("ml-serving", "vllm", A100, (
            Run("llama-8b-vllm-7d9f8b6c5d-x7k2p", 2 * DAY, DAY),
            Run("llama-8b-vllm-7d9f8b6c5d-q9z4m", 2 * DAY, DAY),
            Run("llama-8b-vllm-6b8c4f9d7b-m5n6p", DAY),
            Run("llama-8b-vllm-6b8c4f9d7b-t2v4w", DAY)),
            activity=0.25, swing=0.15, fb_mib=30000, interval=15),
        Workload("ml-training", "embed", L4, (Run("embed-corpus-2024-10-x4z7b", DAY, DAY // 2),),
                 activity=0.30, swing=0.10, fb_mib=6000, profiling=False),
        Workload("ml-serving", "ray-worker", L4, (
            Run("ray-serve-llm-gpu-workers-worker-k8s2z", 2 * DAY),
            Run("ray-serve-llm-gpu-workers-worker-p4q7r", 2 * DAY)),
            activity=0.40, swing=0.20, fb_mib=12000),
        Workload("ml-serving", "grafana", L4, (Run("grafana-7c9d8f6b5c-x2z4b", 2 * DAY),),
                 activity=0.05, swing=0.0, fb_mib=500),
        Workload("ml-training", "trainer", A100, tuple(
            Run(f"llm-finetune-{i}", 2 * DAY) for i in range(2)),
            activity=0.93, swing=0.03, fb_mib=71000, gpus=4),
        Workload("ml-training", "pytorch", A100, tuple(
            Run(f"resnet-ddp-{role}", 2 * DAY) for role in
            ("master-0", "worker-0", "worker-1", "worker-2")),
            activity=0.50, swing=0.10, fb_mib=40000, gpus=2),
        Workload("ml-training", "eval", A100, (Run("nightly-eval-29420160-b4c2d", 1200),),
                 activity=0.60, swing=0.0, fb_mib=20000),
        Workload("other-team", "x", A100, (Run("not-in-the-manifests-0", 2 * DAY),),
                 activity=0.5, swing=0.1, fb_mib=1000),
    ]


POOL_MODEL = "Qwen/Qwen2.5-0.5B-Instruct"


def pool_fleet() -> list[Workload]:
    """``examples/metrics/vllm-small-model.yaml``: vLLM serving a 0.5B model on an A100 80GB
    with --gpu-memory-utilization 0.90, so DCGM shows about 90 % of the card (up to 73,728 MiB) in use
    all day, while its own gauge says at most 5 % of its KV-cache pool holds sequences; and
    the same server without the gauge (no PodMonitor on it), sized by the default budget."""
    return [
        Workload("ml-serving", "vllm", A100, (Run("qwen-small-vllm-5c7d9b8f6d-h2k4m", 2 * DAY),),
                 activity=0.12, swing=0.05, fb_mib=68000, interval=15, cache=0.05,
                 served=POOL_MODEL),
        Workload("ml-serving", "vllm", A100, (Run("qwen-small-batch-7f9c6d5b8d-p4q9r", 2 * DAY),),
                 activity=0.10, swing=0.05, fb_mib=68000, interval=15),
    ]


EVIDENCE = "ml-evidence"
QWEN_7B, QWEN_SMALL, LLAMA_8B = ("Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-0.5B-Instruct",
                                 "meta-llama/Llama-3.1-8B-Instruct")


def evidence_fleet() -> list[Workload]:
    """``tests/recommend/evidence/manifests.yaml``: vLLM servers whose figures disagree.

    - qwen7b-under: Qwen2.5-7B (14.2 GiB of bf16 weights), no --gpu-memory-utilization,
      peaking near 11 GiB of an A100 80GB: under its weights, and 0.14 of the card;
    - qwen-small-pool14: Qwen2.5-0.5B, flag unset (0.92 × 80 GiB = 73.6 GiB), peaking at
      0.14 of the card (11.2 GiB), with vLLM's KV-cache gauge at 5 %;
    - qwen7b-tp2: Qwen2.5-7B over two GPUs (--tensor-parallel-size 2), each at 0.92 of its
      card, with token counters the compute agrees with;
    - llama8b-tokens: Llama-3.1-8B counting 3,000 generated tokens/s (48 TFLOPS of work)
      on a GPU busy 5 % of the time (15.6 of 312 TFLOPS);
    - qwen-small-busy: busy half the time while it counts one token every ten seconds;
    - qwen-small-low: --gpu-memory-utilization 0.10, a pool of 8 GiB as measured.
    """
    return [
        Workload(EVIDENCE, "vllm", A100, (Run("qwen7b-under-6b8c4f9d7b-m5n6p", 2 * DAY),),
                 activity=0.20, swing=0.05, fb_mib=10400, interval=15, cache=0.05,
                 served=QWEN_7B),
        Workload(EVIDENCE, "vllm", A100, (Run("qwen-small-pool14-5c7d9b8f6d-h2k4m", 2 * DAY),),
                 activity=0.12, swing=0.05, fb_mib=10500, interval=15, cache=0.05,
                 served=QWEN_SMALL),
        Workload(EVIDENCE, "vllm", A100, (Run("qwen7b-tp2-7f9c6d5b8d-p4q9r", 2 * DAY),),
                 activity=0.30, swing=0.05, fb_mib=70000, interval=15, cache=0.05,
                 served=QWEN_7B, gpus=2, generated=800, prompted=2400),
        Workload(EVIDENCE, "vllm", A100, (Run("llama8b-tokens-7d9f8b6c5d-x7k2p", 2 * DAY),),
                 activity=0.05, swing=0.01, fb_mib=70000, interval=15, served=LLAMA_8B,
                 generated=3000, prompted=3000),
        Workload(EVIDENCE, "vllm", A100, (Run("qwen-small-busy-6d5b8c7f9d-q2w4z", 2 * DAY),),
                 activity=0.50, swing=0.05, fb_mib=68000, interval=15, served=QWEN_SMALL,
                 generated=0.05, prompted=0.05),
        Workload(EVIDENCE, "vllm", A100, (Run("qwen-small-low-8c7f9d6b5c-t2v4w", 2 * DAY),),
                 activity=0.10, swing=0.05, fb_mib=7800, interval=15, cache=0.05,
                 served=QWEN_SMALL),
    ]
