"""The soak window a rung's gates are measured over (docs/gates.md, "The window").

From the moment the rung's last TensorFusion pod became ready to the snapshot's time,
at a fixed step: 30 s, coarser only when the window would exceed the 11,000 points a
series Prometheus answers (``web/api/v1/api.go``, "exceeded maximum resolution").
"""

from __future__ import annotations

from tfpolicy.gates.records import Window

STEP = 30
MOST_POINTS = 11000


def soak_window(last_ready: int | None, taken: int, soak: int) -> Window | str:
    """The window, or why there is none yet (a wait)."""
    if last_ready is None:
        return "no TensorFusion pod of the rung has a Ready time: nothing to measure yet"
    length = taken - last_ready
    if length < max(soak, STEP):
        return (f"the soak window is {_shown(length)} (the rung's last TensorFusion pod ready "
                f"to the snapshot), shorter than --min-soak {_shown(max(soak, STEP))}")
    step = STEP * -(-length // (STEP * MOST_POINTS))
    return Window(last_ready, taken, step)


def _shown(seconds: int) -> str:
    hours, rest = divmod(max(seconds, 0), 3600)
    minutes, secs = divmod(rest, 60)
    text = "".join(f"{n}{u}" for n, u in ((hours, "h"), (minutes, "m"), (secs, "s")) if n)
    return text or "0s"
