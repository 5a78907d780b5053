"""The VRAM a pre-allocating server needs: its weights, an overhead, its working memory.

- weights: the policy's ``modelWeights`` for the workload, else the model the
  args name (``models``) × bytes per parameter (2 for fp16/bf16, 4 for
  float32, 1 for fp8) ÷ the tensor-parallel size;
- overhead: ``OVERHEAD`` per GPU (CUDA context, activations, CUDA graphs);
- working memory: the policy's ``workingMemory``; else, where the framework
  exports the share of its KV-cache pool in use, the peak of that share × the
  pool (what the card showed in use, less weights and overhead); else the
  default budget: the KV cache of ``SEQUENCES`` sequences at the configured
  maximum length (the model's own when none is given).

The setting that fits a limit: TensorFusion's soft limiter shows the process
its VRAM limit as the device's total memory (docs/recommend.md), so a share of
the total is need ÷ limit (SGLang's static share: (weights + working) ÷ limit),
and TensorRT-LLM's share of the free memory is the working memory ÷ (limit −
weights − overhead), all rounded up to hundredths.
"""

from __future__ import annotations

import math

from tfpolicy.frameworks.detect import Found, flag_value
from tfpolicy.frameworks.models import Model, lookup
from tfpolicy.records import Record

GIB = 1 << 30
OVERHEAD = 2 * GIB
SEQUENCES = 4


class Serving(Record):
    """Where a framework's command line names the model and its lengths."""

    model: tuple[str, ...]
    after: str = ""  # the model as the positional argument after this token
    max_len: tuple[str, ...] = ()
    tp: tuple[str, ...] = ()
    dtype: tuple[str, ...] = ("--dtype",)
    quantization: tuple[str, ...] = ()
    env_model: str = ""


SERVING: dict[str, Serving] = {
    "vLLM": Serving(("--model",), "serve", ("--max-model-len",),
                    ("--tensor-parallel-size", "-tp"), quantization=("--quantization", "-q")),
    "SGLang": Serving(("--model-path", "--model"), "", ("--context-length",),
                      ("--tp-size", "--tp"), quantization=("--quantization",)),
    "TGI": Serving(("--model-id",), "", ("--max-total-tokens",), ("--num-shard",),
                   quantization=("--quantize",), env_model="MODEL_ID"),
    "TensorRT-LLM": Serving(("--model",), "trtllm-serve", ("--max_seq_len",), ("--tp_size",)),
}
_DTYPE = {"float32": 4, "float": 4, "fp8": 1}


class Given(Record):
    """What the policy says of one workload (bytes per GPU; None = not given)."""

    weights: int | None = None
    working: int | None = None


class Need(Record):
    weights: int
    overhead: int
    working: int
    weights_basis: str  # how each figure was found, for the evidence
    working_basis: str

    @property
    def total(self) -> int:
        return self.weights + self.overhead + self.working


def model_id(found: Found) -> str:
    serving = SERVING.get(found.framework.name)
    if serving is None:
        return ""
    named = flag_value(found.args, *serving.model) if serving.model else None
    if named is None and serving.after in found.args:
        rest = found.args[found.args.index(serving.after) + 1:]
        named = rest[0] if rest and not rest[0].startswith("-") else None
    if not named and serving.env_model:
        named = found.env.get(serving.env_model)
    return named or ""


def _int_flag(found: Found, names: tuple[str, ...], env: str = "") -> int | None:
    raw = flag_value(found.args, *names) if names else None
    raw = raw if raw is not None else found.env.get(env) if env else None
    return int(raw) if raw is not None and raw.isdigit() and int(raw) > 0 else None


def need(found: Found, given: Given, pool: int | None, cache_peak: float | None) -> Need | str:
    """The need per GPU, or why it cannot be told (then nothing is recommended)."""
    serving = SERVING.get(found.framework.name, Serving(()))
    tp = _int_flag(found, serving.tp) or 1
    named = model_id(found)
    model = lookup(named) if named else None
    weights, wbasis = _weights(found, serving, given, model, named, tp)
    if weights is None:
        return wbasis
    if given.working is not None:
        return Need(weights, OVERHEAD, given.working, wbasis, "from the policy")
    if cache_peak is not None and pool is not None:
        kv_pool = max(pool - weights - OVERHEAD, 0)
        return Need(weights, OVERHEAD, math.ceil(cache_peak * kv_pool), wbasis,
                    f"peak {cache_peak:.0%} in use of its {_gib(kv_pool)} KV-cache pool, "
                    f"{found.framework.name}'s own metric")
    if model is None:
        return ("no KV-cache metric and the model's shape is unknown: "
                "give workingMemory in the policy")
    length = _int_flag(found, serving.max_len) or model.context
    working = math.ceil(model.kv_bytes_per_token() * length * SEQUENCES / tp)
    return Need(weights, OVERHEAD, working, wbasis,
                f"no cache metric: the default budget, {SEQUENCES} sequences × {length} tokens")


def _weights(found: Found, serving: Serving, given: Given, model: Model | None, named: str,
             tp: int) -> tuple[int | None, str]:
    if given.weights is not None:
        return given.weights, "from the policy"
    if model is None:
        what = f"model {named!r} is not in the model table" if named else "no model named"
        return None, f"{what}: give modelWeights in the policy"
    quantized = flag_value(found.args, *serving.quantization) if serving.quantization else None
    if quantized not in (None, "fp8"):
        return None, f"a {quantized}-quantized model: give modelWeights in the policy"
    dtype = flag_value(found.args, *serving.dtype) or ""
    size = 1 if quantized == "fp8" else _DTYPE.get(dtype, 2)
    weights = math.ceil(model.params * 1e9 * size / tp)
    split = f" ÷ TP {tp}" if tp > 1 else ""
    return weights, f"{model.name}, {model.params:g}B parameters × {size} B{split}"


def fitting_fraction(found: Found, need_: Need, limit: int) -> float | None:
    """The framework setting that keeps its pool inside ``limit`` (the total it is shown)."""
    if found.framework.share == "free":
        free = limit - need_.weights - need_.overhead
        return None if free <= 0 else _up(need_.working / free)
    if found.framework.share == "static":  # weights and KV cache; the overhead stays outside
        return _up((need_.weights + need_.working) / limit)
    return _up(need_.total / limit)


def _up(value: float) -> float | None:
    rounded = math.ceil(value * 100 - 1e-9) / 100
    return rounded if 0 < rounded <= 1 else None


def _gib(value: int) -> str:
    return f"{value / GIB:.2f}Gi"
