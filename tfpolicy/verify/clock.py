"""When a snapshot was taken, by its own objects' times, bounded so one wrong clock cannot
move it (docs/verify.md, "The snapshot's time").

Each object's latest time (creation, conditions, events, the operator's last sync) is a
witness. One node or GPU with a clock in 2099 would otherwise make every pod look soaked
for decades, so witnesses out of line are set aside, and said:

- live (``kubectl`` just answered): a time later than the wall clock by more than
  :data:`SKEW` is an outlier, and the snapshot's time is never later than the wall clock;
- from files: a time more than :data:`BOUND_DAYS` days after the median witness is an
  outlier (a median, so a minority of wrong clocks cannot move the bound itself).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from tfpolicy.records import Record

BOUND_DAYS = 366
SKEW = timedelta(minutes=5)
_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
_END = "9999-12-31T23:59:59Z"


class Clock(Record):
    """The snapshot's time ('' when no object carries one) and the times set aside."""

    time: str = ""
    outliers: tuple[str, ...] = ()  # "Kind namespace/name at TIME", sorted
    rule: str = ""  # why they were set aside


def snapshot_clock(witnesses: Iterable[tuple[str, str]], wall: str = "") -> Clock:
    """``witnesses``: (object, its latest time) pairs; ``wall``: the wall clock when live."""
    known = [(who, when) for who, when in witnesses if _parse(when) is not None]
    if not known:
        return Clock(wall)
    if wall:
        limit = _plus(wall, SKEW)
        rule = f"later than the wall clock {wall} (by more than {SKEW.seconds // 60} minutes)"
    else:
        middle = sorted(when for _, when in known)[len(known) // 2]
        limit = _plus(middle, timedelta(days=BOUND_DAYS))
        rule = f"more than {BOUND_DAYS} days after the median object time {middle}"
    kept = [when for _, when in known if when <= limit]
    outliers = tuple(sorted(f"{who} at {when}" for who, when in known if when > limit))
    time = max(kept, default="")
    if wall and (not time or time > wall):
        time = wall
    return Clock(time, outliers, rule if outliers else "")


def wall_clock() -> str:
    return datetime.now(UTC).strftime(_FORMAT)


def is_time(text: str) -> bool:
    return _parse(text) is not None


def _parse(text: str) -> datetime | None:
    try:
        return datetime.strptime(text, _FORMAT).replace(tzinfo=UTC)
    except ValueError:
        return None


def _plus(text: str, delta: timedelta) -> str:
    when = _parse(text)
    try:
        return _END if when is None else (when + delta).strftime(_FORMAT)
    except OverflowError:
        return _END


def label(item: Mapping[str, Any]) -> str:
    meta = item.get("metadata")
    meta = meta if isinstance(meta, Mapping) else {}
    where = "/".join(str(p) for p in (meta.get("namespace"), meta.get("name")) if p)
    return f"{item.get('kind')} {where}"
