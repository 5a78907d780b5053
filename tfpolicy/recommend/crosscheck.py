"""Cross-checks: a pre-allocating server's measured figures against its model and setting.

Each figure comes from somewhere else (dcgm-exporter's series, the server's own
gauges and counters, the model table or the model's name, the manifest's setting),
and each can be wrong: a series mapped to the wrong pod, a quantized or sharded
model the manifest does not show, a setting written in a config file. The checks
say where two figures disagree, which one the limit follows and why, and leave
the workload out when they cannot be reconciled (docs/recommend.md, "Cross-checks"):

- ``vram``: the measured peak below the model's weights per GPU cannot be (left
  out); a measured "pool" far from the one the setting takes of the card says the
  setting or the series is not what it seems (said; the KV-cache share is applied
  to the larger of the two pools, so the limit holds the share either way);
- ``compute``: the tokens the server counted need at least 2 FLOPs a parameter a
  token (Kaplan et al., "Scaling Laws for Neural Language Models",
  arXiv:2001.08361, Table 1), so a token rate whose FLOPs exceed the compute
  measured cannot be (left out); compute far above what the tokens imply says the
  GPU does other work (said; the limit follows the measurement, which never starves
  the pod).
"""

from __future__ import annotations

import math

from tfpolicy.frameworks.detect import Found
from tfpolicy.frameworks.sizing import Sizes, gib, sglang_reserve
from tfpolicy.records import Record

# A measured pool within [LOW × expected, expected + max(SLACK × card, 2 GiB)] is the one
# the setting takes: vLLM adds its CUDA graphs after its budget, JAX and TGI their CUDA
# context, and a server may not fill its budget at once.
LOW, SLACK = 0.8, 0.1
# Decoding reads every weight once a step: about 1 FLOP a byte at batch 1, while a card
# does at most about 300 FLOPs in the time it reads a byte (H100 SXM: 989 TFLOPS dense
# BF16 over 3.35 TB/s, NVIDIA's H100 datasheet). Compute beyond FAR × what the tokens
# imply is more than serving them can keep busy.
FAR = 1000.0


class VramReading(Record):
    kv_pool: int | None  # what the KV-cache share applies to; None: no measured basis
    lines: tuple[str, ...] = ()  # cross-check lines, said in the comment and on stderr
    refused: str = ""  # the reason to leave the workload out, when the figures disagree
    expected: str = ""  # the pool the setting takes of the card, when the peak agrees
    apart: bool = False  # the peak is not the pool the setting takes of the card


def expected_pool(found: Found, card: int, weights: int, overhead: int, parallel: int) -> int:
    """What the setting takes of a whole card (the process sees the card before migration)."""
    fraction, share = found.fraction, found.framework.share
    if share == "static" and fraction is None:
        return card - sglang_reserve(card, parallel)
    if share == "free":
        return weights + overhead + math.floor((fraction or 0) * max(card - weights - overhead, 0))
    return math.floor((fraction or 0) * card)


def vram(found: Found, sized: Sizes, peak: int, card: int | None) -> VramReading:
    """Weigh the measured framebuffer peak against the weights and the setting's pool."""
    weights, overhead = sized.weights or 0, sized.overhead
    expected = None
    if card and (found.fraction is not None or found.framework.share == "static"):
        expected = expected_pool(found, card, weights, overhead, sized.parallel)
    if peak < weights:
        return VramReading(None, (), _below_weights(found, sized, peak, card, expected))
    lines, kv, agrees = [], peak - weights - overhead, ""
    if expected is not None and card and _apart(peak, expected, card):
        lines.append(
            f"cross-check: the {gib(peak)} measured is {peak / card:.2f} of the card, not the "
            f"{gib(expected)} that {found.framework.name} ({found.where}) takes of its "
            f"{gib(card)}: the pod runs with another setting than the manifest's (a config "
            "file, an older image), or the series is another process's; the limit follows "
            "the model, and the KV-cache share applies to the larger of the two pools")
        kv = max(kv, expected - weights - overhead)
    elif expected is not None and card:
        agrees = f"; {gib(expected)} of the card's {gib(card)}, as measured"
    if kv <= 0:
        lines.append(f"cross-check: the {gib(peak)} measured leaves no KV-cache pool beside "
                     f"the weights {gib(weights)} and overhead {gib(overhead)}: its share "
                     "in use is not applied to it")
        return VramReading(None, tuple(lines), "", agrees, bool(lines))
    return VramReading(kv, tuple(lines), "", agrees, bool(lines))


def _apart(peak: int, expected: int, card: int) -> bool:
    return peak < LOW * expected or peak > expected + max(SLACK * card, 2 * (1 << 30))


def _below_weights(found: Found, sized: Sizes, peak: int, card: int | None,
                   expected: int | None) -> str:
    if sized.weights_basis == "from the policy":
        causes = ("the policy's modelWeights is above what the pod ever held, or the series is "
                  "another pod's (dcgm-exporter's pod mapping)")
    else:
        causes = ("the model is quantized (--quantization, or a quantized checkpoint), split "
                  "over several GPUs (--tensor-parallel-size / --pipeline-parallel-size not "
                  "in the manifest), or the series is another pod's (dcgm-exporter's pod "
                  "mapping); give modelWeights per GPU in a policy (-p) if it is smaller")
    pool = ""
    if expected is not None and card:
        pool = (f", and {peak / card:.2f} of the card where {found.framework.name} "
                f"({found.where}) would take {gib(expected)}")
    return (f"the evidence contradicts itself: the {gib(peak)} measured at peak is below the "
            f"{gib(sized.weights or 0)} of the model's weights per GPU ({sized.weights_basis})"
            f"{pool}; likely {causes}; no limit rather than a guess")


class ComputeReading(Record):
    lines: tuple[str, ...] = ()
    refused: str = ""


def compute(active: float | None, parallel: int, generated: float | None,
            prompted: float | None, measured: float, peak: float) -> ComputeReading:
    """Weigh the mean TFLOPS measured (per GPU) against the mean token rates (per pod)."""
    if active is None or generated is None:
        return ComputeReading()
    least = 2 * active * 1e9 * generated / parallel / 1e12
    said = (f"the {generated:.1f} tokens/s generated by a {active:g}B-parameter model "
            f"need at least {least:.2f} TFLOPS per GPU (2 FLOPs a parameter a token)")
    if least > min(measured, peak):
        what = (f"the card's {peak:g} peak" if least > peak else
                f"the {measured:.2f} TFLOPS measured on average")
        return ComputeReading(refused=(
            f"the evidence contradicts itself: {said}, above {what}: the token counter or "
            "the DCGM series is not this pod's, or the model is not the one its name says; "
            "no limit rather than a guess"))
    most = 2 * active * 1e9 * (generated + (prompted or 0.0)) / parallel / 1e12
    if measured >= 1 and measured > FAR * most:
        return ComputeReading((
            f"cross-check: the {measured:.2f} TFLOPS measured on average is more than "
            f"{FAR:g} × the {most:.2g} TFLOPS its prompt and generated tokens imply, more than "
            "serving them keeps a GPU busy: the GPU does other work, or the series is another "
            "process's; the TFLOPS limit follows the measurement, which never starves the "
            "pod",))
    return ComputeReading()
