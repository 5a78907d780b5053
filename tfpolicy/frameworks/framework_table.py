"""The frameworks that pre-allocate GPU memory, and the setting each reads.

Each default is the framework's own, cited at its row (repository, file and line,
and the commit or release read). A policy adds rows (``spec.frameworks``), tried
before these.

``share`` says what the fraction is a share of and what it holds: ``total``
(of the memory the process is shown as the device's total, for everything it
allocates), ``static`` (of the total, for weights and KV cache only: SGLang
keeps activations and CUDA graphs outside it) or ``free`` (TensorRT-LLM: of
the memory still free once the weights are loaded, for the KV cache). A
fraction of ``None`` is one the framework derives at start (SGLang);
``disabled_by`` names env settings that turn pre-allocation off, the first of
them the one a finding suggests where no fraction can be set (TensorFlow).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

from tfpolicy.records import Record


class Framework(Record):
    name: str
    images: tuple[str, ...]  # shell globs on the image without its registry host
    commands: tuple[str, ...]  # shell globs on one token of command or args
    flag: str = ""  # the command-line flag that holds the fraction
    env: str = ""  # the environment variable that holds it
    default: Fraction | None = None  # when absent; None: derived by the framework at start
    share: str = "total"  # "total" | "static" | "free"
    disabled_by: tuple[tuple[str, str], ...] = ()  # (env, value) that turns the pool off
    enabled_by: tuple[tuple[str, str], ...] = ()  # (env, value) without which there is none
    cache_metrics: tuple[str, ...] = ()  # gauges of the share of its cache pool in use
    source: str = ""  # where the default is written

    @property
    def setting(self) -> str:
        """The name a finding tells the user to set: the flag, else the env variable, else
        the env setting that turns the pool off."""
        return self.flag or self.env or (self.disabled_by[0][0] if self.disabled_by else "")


BUILTIN: tuple[Framework, ...] = (
    # vllm-project/vllm vllm/config/cache.py:103 (CacheConfig.gpu_memory_utilization,
    # commit 002f10e0): "If unspecified, will use the default value of 0.92"; earlier
    # versions documented 0.9 (vllm/engine/arg_utils.py EngineArgs). The larger is assumed,
    # so a starved pool is never missed for want of the version.
    Framework("vLLM", ("vllm/vllm-openai*", "*/vllm-openai*", "*vllm*"),
              ("vllm", "vllm.entrypoints.*", "*/vllm"), flag="--gpu-memory-utilization",
              default=Fraction(92, 100),
              cache_metrics=("vllm:gpu_cache_usage_perc", "vllm:kv_cache_usage_perc"),
              source="vllm-project/vllm vllm/config/cache.py:103"),
    # sglang v0.5.2 python/sglang/srt/server_args.py:164: mem_fraction_static defaults to
    # None, and :451-495 derive it from the GPU memory the process sees, less a reserve for
    # activations and CUDA graphs (``sizing.sglang_reserve``).
    Framework("SGLang", ("lmsysorg/sglang*", "*/sglang*"),
              ("sglang.launch_server", "sglang"), flag="--mem-fraction-static", share="static",
              cache_metrics=("sglang:token_usage",),
              source="sglang v0.5.2 python/sglang/srt/server_args.py:164"),
    # huggingface/text-generation-inference launcher/src/main.rs:810-813 (commit db931fcf):
    # cuda_memory_fraction, clap default "1.0", also read from CUDA_MEMORY_FRACTION.
    Framework("TGI", ("huggingface/text-generation-inference*",
                      "*/text-generation-inference*"),
              ("text-generation-launcher",), flag="--cuda-memory-fraction",
              env="CUDA_MEMORY_FRACTION", default=Fraction(1),
              source="huggingface/text-generation-inference launcher/src/main.rs:812"),
    # NVIDIA/TensorRT-LLM tensorrt_llm/llmapi/llm_args.py KvCacheConfig.free_gpu_memory_fraction
    # 0.9, and Triton's tensorrtllm_backend parameter kv_cache_free_gpu_mem_fraction ("If not
    # specified, the default is 0.9"): a share of the memory free after the weights load.
    Framework("TensorRT-LLM", ("nvidia/tritonserver:*trtllm*", "nvidia/tensorrt-llm*",
                               "*/tensorrt-llm*", "*tritonserver*trtllm*"),
              ("trtllm-serve", "*kv_cache_free_gpu_mem*"),
              flag="--kv_cache_free_gpu_memory_fraction", default=Fraction(9, 10),
              share="free",
              source="NVIDIA/TensorRT-LLM tensorrt_llm/llmapi/llm_args.py KvCacheConfig"),
    # jax-ml/jax docs/gpu_memory_allocation.rst:4-19 (commit cec06d11): "JAX will preallocate
    # 75% of the total GPU memory"; XLA_PYTHON_CLIENT_PREALLOCATE=false or the platform
    # allocator turns it off, XLA_PYTHON_CLIENT_MEM_FRACTION sets the share.
    Framework("JAX", ("*/jax:*", "*/jax", "*jax*"), (), env="XLA_PYTHON_CLIENT_MEM_FRACTION",
              default=Fraction(3, 4),
              disabled_by=(("XLA_PYTHON_CLIENT_PREALLOCATE", "false"),
                           ("XLA_PYTHON_CLIENT_ALLOCATOR", "platform")),
              source="jax-ml/jax docs/gpu_memory_allocation.rst:4"),
    # tensorflow/docs site/en/guide/gpu.ipynb:216 and :278 (commit 7c365021): "By default,
    # TensorFlow maps nearly all of the GPU memory"; TF_FORCE_GPU_ALLOW_GROWTH=true grows.
    Framework("TensorFlow", ("tensorflow/tensorflow:*gpu*", "tensorflow/serving:*gpu*",
                             "nvidia/tensorflow:*", "*/tensorflow:*gpu*"), (),
              default=Fraction(1), disabled_by=(("TF_FORCE_GPU_ALLOW_GROWTH", "true"),),
              source="tensorflow/docs site/en/guide/gpu.ipynb:216"),
)


def from_policy(entries: Iterable[Mapping[str, Any]]) -> tuple[Framework, ...]:
    """Rows of ``spec.frameworks`` (schema-valid): ``name``, ``match.image``/``match.command``
    globs, ``flag`` or ``env``, ``default`` (a fraction, or absent), ``share``."""
    found = []
    for entry in entries:
        match = entry.get("match") or {}
        default = entry.get("default")
        found.append(Framework(
            str(entry["name"]), tuple(match.get("images", [])), tuple(match.get("commands", [])),
            flag=str(entry.get("flag", "")), env=str(entry.get("env", "")),
            default=None if default is None else Fraction(str(default)),
            share=str(entry.get("share", "total")),
            cache_metrics=tuple(entry.get("cacheMetrics", [])), source="the policy"))
    return tuple(found)
