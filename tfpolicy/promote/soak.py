"""How long the rung's TensorFusion pods have been ready, by the snapshot's own times.

A pod's readiness starts at its ``Ready`` condition's ``lastTransitionTime``
(status ``True``); the snapshot's time is the latest time its objects carry
(:attr:`tfpolicy.verify.Snapshot.latest`: events, conditions, the operator's
last sync), so the age is measured on the cluster's clock, never on the
machine that runs promote.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from tfpolicy.errors import TfpolicyError
from tfpolicy.verify import Report, Snapshot

_DURATION = re.compile(r"^(?:(\d{1,4})h)?(?:(\d{1,6})m)?(?:(\d{1,8})s)?$")
_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")


def parse_duration(text: str) -> int:
    """``"10m"``, ``"1h30m"``, ``"90s"``, ``"0"`` → seconds; anything else is exit 2."""
    match = _DURATION.match(text.strip())
    if text.strip() == "0":
        return 0
    if not text.strip() or match is None:
        raise TfpolicyError(f"--min-soak: {text!r} is not a duration (like 10m, 1h30m, 90s)")
    hours, minutes, seconds = (int(part or 0) for part in match.groups())
    return hours * 3600 + minutes * 60 + seconds


def parse_time(text: str) -> datetime | None:
    """An RFC 3339 time (``Z`` or an offset, as git's ``%cI`` prints it), None otherwise."""
    if not _TIME.match(text):
        return None
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def shown(seconds: int) -> str:
    """``5400`` → ``"1h30m"``; ``0`` → ``"0s"``."""
    hours, rest = divmod(max(seconds, 0), 3600)
    minutes, secs = divmod(rest, 60)
    text = "".join(f"{n}{unit}" for n, unit in ((hours, "h"), (minutes, "m"), (secs, "s")) if n)
    return text or "0s"


def ready_ages(report: Report, snapshot: Snapshot, at: datetime) -> dict[str, int | None]:
    """Each TensorFusion pod of the report's workloads: seconds ready at ``at`` (None: no
    Ready time). A pod that ran to completion (a Job's) is not ready any more: left out."""
    pods = {(_meta(p, "namespace"), _meta(p, "name")): p for p in snapshot.of("Pod")}
    ages: dict[str, int | None] = {}
    for result in report.workloads:
        namespace = result.workload.split("/")[1] if result.workload.count("/") >= 2 else ""
        for line in (p for p in result.pods if p.tensor_fusion):
            pod = pods.get((namespace, line.name), {})
            if (pod.get("status") or {}).get("phase") == "Succeeded":
                continue
            since = _ready_since(pod)
            ages[f"{namespace}/{line.name}"] = (None if since is None
                                               else int((at - since).total_seconds()))
    return ages


def unsoaked(ages: Mapping[str, int | None], minimum: int) -> list[str]:
    """Why the rung has not soaked: each pod ready for less than ``minimum`` seconds."""
    return [f"pod {pod}: " + ("no Ready time in its conditions" if age is None else
                              f"ready for {shown(age)}, less than {shown(minimum)}")
            for pod, age in sorted(ages.items()) if age is None or age < minimum]


def _ready_since(pod: Mapping[str, Any]) -> datetime | None:
    status = pod.get("status")
    conditions = (status.get("conditions") if isinstance(status, Mapping) else None) or []
    for condition in conditions:
        if (isinstance(condition, Mapping) and condition.get("type") == "Ready"
                and condition.get("status") == "True"):
            return parse_time(str(condition.get("lastTransitionTime") or ""))
    return None


def _meta(item: Mapping[str, Any], key: str) -> str:
    return str((item.get("metadata") or {}).get(key) or "")
