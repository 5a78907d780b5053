"""What a pre-allocating server needs per GPU: its weights, an overhead, its KV cache.

- weights: the policy's ``modelWeights`` for the workload; else the model the args
  name, from the model table (``models``) or, for a model it does not know, from the
  parameter count its name writes (``names``: labelled "estimated from the name"),
  × bytes per parameter (``names.width``: the dtype or quantization) ÷ the tensor-
  and pipeline-parallel sizes (the GPUs the model is split over);
- overhead: ``OVERHEAD`` per GPU (CUDA context, activations, CUDA graphs). SGLang, which
  keeps these outside its share, reserves 2.8 GiB + 0.1 GiB per GPU of the model for
  them on cards under 35 GiB (sglang v0.5.2 python/sglang/srt/server_args.py:466-471,
  ``sglang_reserve``); 2 GiB is below it, so a warning for want of it is never false;
- one sequence: the KV cache of one sequence at the configured maximum length (the
  model's own when none is given), for a model whose shape the table knows;
- working memory: the policy's ``workingMemory``, else the default budget of
  ``SEQUENCES`` such sequences. ``recommend`` replaces it with what it measured.

Pure: data in, data out. ``check`` sizes from the container alone (``Given()``);
``recommend`` adds the policy's ``Given``.
"""

from __future__ import annotations

import math

from tfpolicy.frameworks.detect import Found, flag_value
from tfpolicy.frameworks.models import Model, lookup
from tfpolicy.frameworks.names import kv_bytes, parameters, width
from tfpolicy.records import Record

GIB = 1 << 30
OVERHEAD = 2 * GIB
SEQUENCES = 4


class Serving(Record):
    """Where a framework's command line names the model, its lengths, split and types."""

    model: tuple[str, ...]
    after: str = ""  # the model as the positional argument after this token
    max_len: tuple[str, ...] = ()
    tp: tuple[str, ...] = ()
    pp: tuple[str, ...] = ()
    dtype: tuple[str, ...] = ("--dtype",)
    quantization: tuple[str, ...] = ()
    kv_dtype: tuple[str, ...] = ("--kv-cache-dtype",)
    env_model: str = ""


# vLLM: vllm/engine/arg_utils.py EngineArgs; SGLang: sglang v0.5.2
# python/sglang/srt/server_args.py:860-1133; TGI: huggingface/text-generation-inference
# launcher/src/main.rs:596-640; trtllm-serve: NVIDIA/TensorRT-LLM tensorrt_llm/commands/serve.py.
SERVING: dict[str, Serving] = {
    "vLLM": Serving(("--model",), "serve", ("--max-model-len",),
                    ("--tensor-parallel-size", "-tp"), ("--pipeline-parallel-size", "-pp"),
                    quantization=("--quantization", "-q")),
    "SGLang": Serving(("--model-path", "--model"), "", ("--context-length",),
                      ("--tp-size", "--tp"), ("--pp-size",), quantization=("--quantization",)),
    "TGI": Serving(("--model-id",), "", ("--max-total-tokens",), ("--num-shard",),
                   quantization=("--quantize",), env_model="MODEL_ID"),
    "TensorRT-LLM": Serving(("--model",), "trtllm-serve", ("--max_seq_len",), ("--tp_size",),
                            ("--pp_size",)),
}


class Given(Record):
    """What the policy says of one workload (bytes per GPU; None = not given)."""

    weights: int | None = None
    working: int | None = None


class Sizes(Record):
    """What one server needs per GPU, each figure with how it was found."""

    weights: int | None  # None: unknown (``weights_basis`` says why)
    weights_basis: str
    overhead: int
    one_sequence: int | None  # KV cache of one sequence at ``length``; None: shape unknown
    length: int
    working: int | None  # the working-memory budget; None: unknown
    working_basis: str
    parallel: int = 1  # the GPUs the model is split over (tensor × pipeline parallel)
    active: float | None = None  # billions of parameters a token uses; None: not told
    model: str = ""  # the model id the args name
    budgeted: bool = False  # the working memory is the user's: a length they set, or given


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


def _int_flag(found: Found, names: tuple[str, ...]) -> int | None:
    raw = flag_value(found.args, *names) if names else None
    return int(raw) if raw is not None and raw.isdigit() and int(raw) > 0 else None


def _flag(found: Found, names: tuple[str, ...]) -> str | None:
    return flag_value(found.args, *names) if names else None


def sizes(found: Found, given: Given | None = None) -> Sizes:
    """The server's needs per GPU from its container (and the policy's ``given``)."""
    given = given or Given()
    serving = SERVING.get(found.framework.name, Serving(()))
    parallel = (_int_flag(found, serving.tp) or 1) * (_int_flag(found, serving.pp) or 1)
    named = model_id(found)
    model = lookup(named) if named else None
    weights, basis, active = _weights(found, serving, model, named, parallel)
    if given.weights is not None:
        weights, basis = given.weights, "from the policy"
    one, length = _one_sequence(found, serving, model, parallel)
    budgeted = _int_flag(found, serving.max_len) is not None
    if given.working is not None:
        working, wbasis, budgeted = given.working, "from the policy", True
    elif one is not None:
        working = one * SEQUENCES
        wbasis = f"the default budget, {SEQUENCES} sequences × {length} tokens"
    else:
        working, wbasis = None, "the model's KV-cache shape is unknown"
    return Sizes(weights, basis, OVERHEAD, one, length, working, wbasis, parallel, active, named,
                 budgeted)


def _one_sequence(found: Found, serving: Serving, model: Model | None,
                  parallel: int) -> tuple[int | None, int]:
    if model is None:
        return None, 0
    length = _int_flag(found, serving.max_len) or model.context
    per_token = model.kv_bytes_per_token(kv_bytes(_flag(found, serving.kv_dtype)))
    return math.ceil(per_token * length / parallel), length


def _weights(found: Found, serving: Serving, model: Model | None, named: str,
             parallel: int) -> tuple[int | None, str, float | None]:
    """Weights per GPU, how they were found, and the parameters a token uses."""
    if not named:
        return None, f"{found.framework.name} names no model on its command line", None
    count = parameters(named) if model is None else None
    if model is None and count is None:
        return None, (f"model {named!r} is not in the model table and its name writes no "
                      "parameter count"), None
    wide = width(named, _flag(found, serving.dtype), _flag(found, serving.quantization))
    if wide.bytes is None:
        return None, f"{named}: {wide.basis}", None
    billions = model.params if model is not None else count.billions if count else 0.0
    weights = math.ceil(billions * 1e9 * wide.bytes / parallel)
    split = f" ÷ {parallel} GPUs" if parallel > 1 else ""
    per = f"{float(wide.bytes):g} bytes ({wide.basis})"
    if model is not None:
        return weights, f"{model.name}, {billions:g}B parameters × {per}{split}", \
            model.active or model.params
    name = named.rsplit("/", 1)[-1]
    experts = count is not None and count.experts
    return weights, (f"{name}, {billions:g}B parameters estimated from the name "
                     f"× {per}{split}"), None if experts else billions


def sglang_reserve(total: int, parallel: int) -> int:
    """What SGLang keeps outside its static share when ``--mem-fraction-static`` is unset,
    for a process shown ``total`` bytes (sglang v0.5.2 python/sglang/srt/server_args.py:
    466-483; the extras for speculative decoding and DP attention are not counted)."""
    mib = total / (1 << 20)
    if mib < 35 * 1024:
        reserve = 2.8 + parallel / 10
    elif mib < 90 * 1024:
        reserve = 9.5 + parallel / 2
    elif mib < 160 * 1024:
        reserve = 12 + parallel / 2
    else:
        reserve = 32.0
    return math.ceil(reserve * GIB)


def gib(value: int) -> str:
    return f"{value / GIB:.2f}Gi"
