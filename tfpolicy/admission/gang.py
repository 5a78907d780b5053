"""Gang scheduling at admission: parse, validate, stamp (``tf_parser.go`` gang functions).

Gang is on when the pod says ``gang-enabled: "true"`` or its WorkloadProfile
has ``gangScheduling``. ``gang-min-members`` is read only with the
annotation on (0 = every desired member); ``gang-timeout`` must be a Go
duration unless empty, ``0`` or ``0s``. The desired size is
``enabled-replicas``, else the profile's ``replicas``, else the direct
controller's ``replicas`` (``parallelism``, ``completions`` for Jobs);
unknown with an explicit quorum of 2 or more falls back to that quorum. The
webhook stamps ``gang-desired-members``, ``gang-required-members`` and
``gang-group-key`` (``<namespace>/<workload>``). Cases:
``pod_webhook_test.go:1109-1306``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from tfpolicy.admission import keys
from tfpolicy.admission.admission_records import Rejection
from tfpolicy.admission.config import ProfileSpec
from tfpolicy.admission.resources import go_parse_error, parse_int32

# Go's time.ParseDuration: signed sequence of decimal numbers with unit suffixes.
_DURATION = re.compile(r"^[+-]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$")


def gang_stamps(
    ann: Mapping[str, str], profile: ProfileSpec | None, enabled_replicas: int | None,
    controller_replicas: int | None, group_key: str,
) -> dict[str, str]:
    """The annotations the webhook stamps; ``{}`` when gang is off. Raises on bad input."""
    on = ann.get(keys.GANG_ENABLED) == keys.TRUE
    if not on and (profile is None or profile.gang is None):
        return {}
    minimum = (profile.gang or 0) if profile is not None else 0
    if on:
        minimum = _min_members(ann, minimum)
        _timeout(ann)
    if minimum == 1:
        raise Rejection(f"invalid {keys.GANG_MIN_MEMBERS}=1: explicit gang minMembers must be >= 2")
    desired = _desired(enabled_replicas, profile, controller_replicas)
    _check(minimum, desired)
    if desired is None:
        desired = minimum  # _check refused an unknown size without a quorum
    required = minimum if minimum >= 2 else desired
    return {keys.GANG_DESIRED: str(desired), keys.GANG_REQUIRED: str(required),
            keys.GANG_GROUP_KEY: group_key}


def _min_members(ann: Mapping[str, str], current: int) -> int:
    text = ann.get(keys.GANG_MIN_MEMBERS, "")
    if not text:
        return current
    value = parse_int32(text)
    if value is None:
        raise Rejection(f'invalid {keys.GANG_MIN_MEMBERS} value "{text}": {go_parse_error(text)}')
    if value < 0:
        raise Rejection(f"invalid {keys.GANG_MIN_MEMBERS}={value}: must be >= 0")
    return value


def _timeout(ann: Mapping[str, str]) -> None:
    text = ann.get(keys.GANG_TIMEOUT, "")
    if text in ("", "0", "0s") or _DURATION.match(text):
        return
    raise Rejection(
        f'invalid {keys.GANG_TIMEOUT} value "{text}": time: invalid duration "{text}"')


def _desired(enabled_replicas: int | None, profile: ProfileSpec | None,
             controller_replicas: int | None) -> int | None:
    for value in (enabled_replicas, profile.replicas if profile else None, controller_replicas):
        if value is not None:
            return max(value, 0)
    return None


def _check(minimum: int, desired: int | None) -> None:
    if desired is not None and desired < 2:
        raise Rejection(f"invalid {keys.GANG_ENABLED}=true: gang scheduling requires at least "
                        f"2 replicas, got {desired}")
    if desired is not None and minimum >= 2 and minimum > desired:
        raise Rejection(
            f"invalid {keys.GANG_MIN_MEMBERS}={minimum}: exceeds desired replicas {desired}")
    if desired is None and minimum < 2:
        raise Rejection(f"invalid {keys.GANG_ENABLED}=true: cannot determine gang size — set "
                        f"{keys.GANG_MIN_MEMBERS} or spec.replicas on the workload")
