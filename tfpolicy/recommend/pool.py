"""VRAM of a workload whose server pre-allocates a pool: from the model, not the card.

The framebuffer such a pod shows in use is the pool its framework took, so it is
reported as the pool and never sized as the need. The need is the model's
(``tfpolicy.frameworks.sizing``): weights, an overhead, and the working memory,
which is the peak share of its KV-cache pool in use where the framework exports it
(the ``cache`` query), applied to the pool ``crosscheck.vram`` settles on, else the
default budget; for vLLM never less than one sequence at its maximum length, which
it needs to start. Request = limit: the framework takes its pool at start. The
limit is the need × (1 + margin), or, when the container's setting takes too small a
share for that to hold the need, the least limit under which it does (at most
``RAISE`` times as much: a smaller share must change instead).

The setting is judged as ``check`` judges it (``frameworks.traps.verdict_for``: the
container alone, under the recommended limit), and that verdict, word for word, is
the only change the comment and stderr ask for: a setting ``recommend`` asks to
change is one ``check`` flags on the unchanged manifest under the recommended
policy, and the reverse.
"""

from __future__ import annotations

import math

from tfpolicy.frameworks.detect import Found
from tfpolicy.frameworks.fit import Verdict, least_limit, pool
from tfpolicy.frameworks.sizing import GIB, Given, Sizes, gib, sizes
from tfpolicy.frameworks.traps import verdict_for
from tfpolicy.recommend.crosscheck import VramReading, vram
from tfpolicy.records import Record, replace

MIB = 1 << 20
# A setting that holds the need only under a larger limit: the limit is raised to it when
# that costs at most RAISE × need × (1 + margin); beyond, the setting must change, and
# check's verdict under need × (1 + margin) says to what.
RAISE = 2


class Measured(Record):
    """What the series say of one workload's GPU memory."""

    peak_mib: float  # the framebuffer peak: the pool
    card_mib: int | None  # the card's memory, from the GPU tables
    cache: float | None  # the peak share of the KV-cache pool in use
    isolation: str = "soft"  # the template's, under which check judges the setting


class Need(Record):
    weights: int
    overhead: int
    working: int
    weights_basis: str
    working_basis: str

    @property
    def total(self) -> int:
        return self.weights + self.overhead + self.working


class PoolSizing(Record):
    limit: int  # bytes; the request is the same
    need: Need
    pool_mib: float
    lines: tuple[str, ...]  # the evidence after the need: the limit's rule, the check
    notes: tuple[str, ...]  # cross-checks and check's warning: said on stderr too
    setting: str  # check's info finding, for stderr's [info] line; "" when none
    verdict: Verdict | None = None  # what check says of the setting under the limit
    expected: str = ""  # the pool the setting takes of the card, when the measurement agrees
    apart: bool = False  # the measurement is not the pool the setting takes of the card


def size(found: Found, given: Given, measured: Measured, margin: float) -> PoolSizing | str:
    """The limit from the model's need, or why it cannot be told."""
    peak = int(measured.peak_mib * MIB)
    own = sizes(found, given)
    taken = (f"{found.framework.name} pre-allocates its pool ({found.where}), so the "
             f"measured {measured.peak_mib / 1024:.1f}Gi is the pool, not the need")
    if own.weights is None:
        return f"{taken}; {own.weights_basis}: give modelWeights in the policy"
    card = measured.card_mib * MIB if measured.card_mib else None
    reading = vram(found, own, peak, card)
    if reading.refused:
        return reading.refused
    working = _working(found, own, reading, measured.cache)
    if isinstance(working, str):
        return f"{taken}; {working}"
    need = Need(own.weights, own.overhead, working[0], own.weights_basis, working[1])
    return _sized(found, own, need, measured, margin, reading)


def _working(found: Found, own: Sizes, reading: VramReading,
             cache: float | None) -> tuple[int, str] | str:
    if own.working is not None and own.working_basis == "from the policy":
        working, basis = own.working, own.working_basis
    elif cache is not None and reading.kv_pool is not None:
        working = math.ceil(cache * reading.kv_pool)
        basis = (f"peak {cache:.0%} in use of its {gib(reading.kv_pool)} KV-cache pool, "
                 f"{found.framework.name}'s own metric")
    elif own.working is not None:
        working, basis = own.working, f"no cache metric: {own.working_basis}"
    else:
        return ("no KV-cache metric and the model's shape is unknown: give workingMemory in "
                "the policy")
    one = own.one_sequence
    if found.framework.name == "vLLM" and one is not None and working < one:
        return one, (f"{basis}, raised to one sequence of {own.length} tokens, "
                     "which vLLM needs to start")
    return max(working, 1), basis


def _sized(found: Found, own: Sizes, need: Need, measured: Measured, margin: float,
           reading: VramReading) -> PoolSizing:
    limit = _mib(math.ceil(need.total * (1 + margin)))
    verdict = verdict_for(found, limit, measured.isolation)
    rule = "limit = need × (1 + margin)"
    held = least_limit(found, need.weights, need.overhead, need.working, own.parallel) or 0
    if limit < held <= RAISE * limit:
        limit = _mib(held)  # the setting as it is holds the need only under a larger limit
        verdict = verdict_for(found, limit, measured.isolation)
        rule = (f"limit = the least under which {found.where} holds the need, above need × "
                "(1 + margin): a larger share would let it be smaller")
    elif verdict is not None and verdict.severity == "warning":
        rule += f"; {found.framework.name}{_MUST_CHANGE}"
    lines, notes, setting = [rule], list(reading.lines), ""
    if verdict is None:
        taken = pool(found, limit, need.weights, need.overhead, own.parallel)
        lines.append(f"setting: {taken.phrase}, which holds the need: no change "
                     "(check flags nothing)")
    else:
        said = f"check: container {found.container}: {verdict.message}"
        lines.append(said)
        if verdict.severity == "warning":
            notes.append(said)
        else:
            setting = said
    return PoolSizing(limit, need, measured.peak_mib, tuple(lines), tuple(notes), setting,
                      verdict, reading.expected, reading.apart)


def whole_card(sizing: PoolSizing) -> PoolSizing:
    """The sizing of a workload that keeps a whole card: no vram-limit is written, so
    nothing is judged under the modelled one (``check`` under takeover judges none)."""
    said = {line for line in sizing.lines if line.startswith("check: ")}
    lines = [_unjudged(line) for line in sizing.lines if line not in said
             and not line.startswith("setting: ")]
    lines.append("setting: not judged, since the workload keeps a whole card and no "
                 "vram-limit is written (check flags nothing)")
    return replace(sizing, lines=tuple(lines), setting="", verdict=None,
                   notes=tuple(note for note in sizing.notes if note not in said))


_MUST_CHANGE = "'s setting must change to start under it (check)"


def _unjudged(rule: str) -> str:
    """The rule without its clause on the setting, which a whole card does not judge."""
    if not rule.endswith(_MUST_CHANGE):
        return rule
    return rule[:rule.rfind("; ")]


def _mib(value: int) -> int:
    return max(-(-value // MIB) * MIB, GIB)


def evidence(sizing: PoolSizing, found: Found) -> list[str]:
    """The lines that say which figures the limit came from."""
    sized = sizing.need
    shown, name = f"{sizing.pool_mib / 1024:.1f}Gi", found.framework.name
    head = (f"VRAM: the {shown} measured is not taken as the need: {name} pre-allocates a pool "
            f"({found.where})" if sizing.apart else
            f"VRAM: the {shown} measured is {name}'s pre-allocated pool ({found.where}"
            f"{sizing.expected}), not its need")
    return [head,
            *(note for note in sizing.notes if note not in sizing.lines),
            f"need {gib(sized.total)} = weights {gib(sized.weights)} ({sized.weights_basis}) "
            f"+ overhead {gib(sized.overhead)} + KV cache {gib(sized.working)} "
            f"({sized.working_basis})", *sizing.lines]
