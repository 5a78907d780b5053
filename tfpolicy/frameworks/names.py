"""A model's size when the model table does not know it: from its name and the server's flags.

The parameter count is the one a Hugging Face id writes in its last part
(``Llama-3.2-1B``, ``SmolLM2-1.7B``, ``Qwen2.5-0.5B``, ``Qwen2-72B``, ``opt-125m``,
``Mixtral-8x7B``): a number then ``B`` (billions) or ``M`` (millions), between dashes,
underscores or dots. A name that writes two different counts (``…-7B-distilled-70B``)
is not read: never a guess. ``NxMB`` (a mixture of experts) is read as N × M, an upper
figure, since the experts share their attention layers (Mixtral-8x7B's model card:
46.7B, not 56B).

Bytes per parameter, from the flags the servers take (``--dtype``, ``--quantization``
/ ``-q``, TGI's ``--quantize``) or, for a checkpoint quantized before it was
published, a quantization named in the model id (``-AWQ``, ``-GPTQ-Int4``, ``-FP8``):
16-bit 2, float32 4, 8-bit (fp8, int8, EETQ, bitsandbytes) 1, 4-bit (AWQ, GPTQ,
Marlin, bitsandbytes nf4/fp4) 0.5. A 4-bit checkpoint keeps its embeddings and its
scales in 16 bits, so 0.5 is its floor, not its size. Other quantizations (EXL2,
compressed-tensors, GGUF) have no fixed width here: unknown, never guessed.
The KV cache's bytes per value come from ``--kv-cache-dtype`` (fp8: 1, else 2).
"""

from __future__ import annotations

import re
from fractions import Fraction

from tfpolicy.records import Record

_COUNT = re.compile(r"(?:^|[-_.])(\d+(?:\.\d+)?)(?:x(\d+(?:\.\d+)?))?([bm])(?=$|[-_.])",
                    re.IGNORECASE)
_SIXTEEN = frozenset({"auto", "half", "float16", "fp16", "bfloat16", "bf16"})
_WIDTHS: dict[str, Fraction] = {
    **{name: Fraction(2) for name in _SIXTEEN},
    "float": Fraction(4), "float32": Fraction(4), "fp32": Fraction(4),
    # 8-bit: vLLM --quantization fp8 / fbgemm_fp8 / modelopt, SGLang --quantization fp8 /
    # w8a8_int8 / w8a8_fp8, TGI --quantize fp8 / eetq / bitsandbytes
    # (huggingface/text-generation-inference launcher/src/main.rs:407-446)
    **{name: Fraction(1) for name in ("fp8", "fbgemm_fp8", "modelopt", "w8a8_int8", "w8a8_fp8",
                                      "eetq", "bitsandbytes", "int8", "experts_int8")},
    # 4-bit: AWQ, GPTQ and their Marlin kernels, bitsandbytes nf4/fp4
    **{name: Fraction(1, 2) for name in ("awq", "gptq", "marlin", "awq_marlin", "gptq_marlin",
                                         "gptq_marlin_24", "bitsandbytes-nf4", "bitsandbytes-fp4",
                                         "int4", "4bit", "nf4", "w4a16")},
}
_IN_NAME = re.compile(r"(?:^|[-_.])(awq|gptq|int4|int8|fp8|4bit|nf4|w4a16)(?=$|[-_.])",
                      re.IGNORECASE)


class Width(Record):
    """Bytes per parameter, and how they were found (for the evidence)."""

    bytes: Fraction | None  # None: a quantization of no fixed width
    basis: str


class Count(Record):
    """Billions of parameters a name writes; ``experts``: an ``NxMB`` mixture, whose
    parameters a token uses are fewer than its total and not told by the name."""

    billions: float
    experts: bool = False


def parameters(model_id: str) -> Count | None:
    """The parameter count the id's last part names, or None (none, or several)."""
    last = model_id.rstrip("/").rsplit("/", 1)[-1]
    counts = {_count(m) for m in _COUNT.finditer(last)}
    return counts.pop() if len(counts) == 1 else None


def _count(match: re.Match[str]) -> Count:
    first, experts, unit = match.group(1), match.group(2), match.group(3).lower()
    value = float(first) * (float(experts) if experts else 1.0)
    return Count(value / 1000 if unit == "m" else value, experts is not None)


def width(model_id: str, dtype: str | None, quantization: str | None) -> Width:
    """Bytes per parameter of the weights: the quantization flag, else one in the name,
    else ``--dtype`` (16 bits when absent or ``auto``)."""
    if quantization:
        found = _WIDTHS.get(quantization.lower())
        return Width(found, f"--quantization {quantization}" if found is not None else
                     f"{quantization}: no fixed width")
    named = _IN_NAME.search(model_id.rsplit("/", 1)[-1])
    if named:
        return Width(_WIDTHS[named.group(1).lower()], f"{named.group(1)} in the model's name")
    if dtype is None or dtype.lower() in _SIXTEEN:
        return Width(Fraction(2), "16-bit")
    found = _WIDTHS.get(dtype.lower())
    return Width(found, f"--dtype {dtype}" if found is not None else f"--dtype {dtype}: unknown")


def kv_bytes(kv_dtype: str | None) -> int:
    """Bytes per cached key or value: 1 for an fp8 KV cache, else the model's 16 bits."""
    return 1 if kv_dtype and kv_dtype.lower().startswith("fp8") else 2
