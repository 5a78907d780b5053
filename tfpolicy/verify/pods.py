"""One pod as the cluster shows it: TensorFusion or native, placed or not, and what is wrong.

A TensorFusion pod carries the webhook's marks (NexusGPU/tensor-fusion
internal/utils/compose.go:170, pkg/constants/constants.go:71): label
``tensor-fusion.ai/enabled: "true"``, the component label, and the
annotations the webhook always writes (gpupool, gpu-count, isolation,
inject-container); the scheduler adds ``gpu-ids`` in PreBind
(``internal/scheduler/gpuresources/gpuresources.go:882``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfpolicy.admission.keys import COMPONENT, ENABLED, GPU_COUNT, GPUPOOL, INJECT_CONTAINER
from tfpolicy.admission.keys import ISOLATION as ISOLATION_KEY
from tfpolicy.records import Record
from tfpolicy.verify.cluster_snapshot import controller_of, meta, name_of
from tfpolicy.verify.shares import Share, pod_share
from tfpolicy.verify.verdicts import Problem, Verdict

GPU_IDS = "tensor-fusion.ai/gpu-ids"
WEBHOOK_MARKS = (GPUPOOL, GPU_COUNT, ISOLATION_KEY, INJECT_CONTAINER)
# Waiting reasons of a container that will not get better by waiting.
_STUCK = ("CrashLoopBackOff", "ImagePullBackOff", "ErrImagePull", "CreateContainerConfigError",
          "CreateContainerError", "RunContainerError", "InvalidImageName")
_UNSCHEDULED = ("FailedScheduling", "GPUQuotaOrCapacityNotEnough")
_LONGEST = 300  # an event or condition message is cut here: one line per problem


class PodState(Record):
    name: str
    tensor_fusion: bool
    gpu_ids: tuple[str, ...]
    active: bool  # not terminating and not finished: it holds its GPUs
    problem: Problem | None
    done: bool = False  # Succeeded: it ran (a Job's pod) and holds no GPU any more
    unmutated: bool = False  # labelled tensor-fusion.ai/enabled, yet without the webhook's marks
    status: str = ""  # the phase, a stuck container's reason, or Terminating
    gpu_count: int = 0  # the webhook's gpu-count annotation (0: absent or unreadable)
    share: Share | None = None  # a TensorFusion pod's share, as the webhook wrote it
    owner: str = ""  # its controller's name (a ReplicaSet's tells its revision)
    stale: bool = False  # at another share than the step's (verify.shares)


def pod_state(pod: Mapping[str, Any], events: list[Mapping[str, Any]]) -> PodState:
    labels, notes = meta(pod, "labels"), meta(pod, "annotations")
    name = name_of(pod)
    ids = tuple(i for i in str(notes.get(GPU_IDS, "")).split(",") if i)
    phase = str((pod.get("status") or {}).get("phase") or "Pending")
    terminating = bool((pod.get("metadata") or {}).get("deletionTimestamp"))
    active = not terminating and phase not in ("Succeeded", "Failed")
    # Labelled but never mutated, the pod runs on the device plugin: it is no TensorFusion pod.
    # Right over an enabled-replicas cap (pod_counter.go:40), wrong otherwise: the workload says.
    unmutated = labels.get(ENABLED) == "true" and bool(missing_marks(pod))
    tf = labels.get(ENABLED) == "true" and not unmutated
    problem = None if terminating else _problem(pod, phase, tf, ids, events)
    status = "Terminating" if terminating else _waiting_reason(pod) or phase
    count = str(notes.get(GPU_COUNT, ""))
    owner = controller_of(pod)
    return PodState(name, tf, ids, active, problem, phase == "Succeeded" and not terminating,
                    unmutated, status, int(count) if count.isdigit() else 0,
                    pod_share(notes) if tf else None, owner[1] if owner else "")


def _problem(pod: Mapping[str, Any], phase: str, tf: bool, ids: tuple[str, ...],
             events: list[Mapping[str, Any]]) -> Problem | None:
    name = name_of(pod)
    if phase == "Failed":
        return Problem(Verdict.STOP, name, f"Failed: {_status_reason(pod)}")
    if phase == "Pending":
        return _pending(pod, events)
    if (stuck := _stuck_container(pod)) is not None:
        return Problem(Verdict.STOP, name, stuck)
    if tf and phase == "Running" and not ids:
        return Problem(Verdict.STOP, name, "runs without tensor-fusion.ai/gpu-ids: no GPU "
                       "was allocated to it by tensor-fusion-scheduler")
    if phase == "Running" and _condition(pod, "Ready").get("status") != "True":
        return Problem(Verdict.WAIT, name, "Running but not Ready yet")
    return None


def missing_marks(pod: Mapping[str, Any]) -> list[str]:
    notes = meta(pod, "annotations")
    missing = [k for k in WEBHOOK_MARKS if k not in notes]
    if COMPONENT not in meta(pod, "labels"):
        missing.insert(0, f"label {COMPONENT}")
    return missing


def _pending(pod: Mapping[str, Any], events: list[Mapping[str, Any]]) -> Problem:
    """Unschedulable will not resolve by itself (stop); anything else is on its way (wait)."""
    scheduled = _condition(pod, "PodScheduled")
    # kube-scheduler's FitError event, or the GPU plugin's own (`gpuresources.go` Filter).
    failed = [e for e in events if e.get("reason") in _UNSCHEDULED]
    message = str(scheduled.get("message") or (failed[-1].get("message") if failed else ""))
    if scheduled.get("status") == "False" and scheduled.get("reason") == "Unschedulable":
        return Problem(Verdict.STOP, name_of(pod), f"Pending, Unschedulable: {_line(message)}")
    if (stuck := _stuck_container(pod)) is not None:
        return Problem(Verdict.STOP, name_of(pod), stuck)
    return Problem(Verdict.WAIT, name_of(pod), "Pending: " + (_line(message) or "starting"))


def _stuck_container(pod: Mapping[str, Any]) -> str | None:
    status = pod.get("status") or {}
    for container in status.get("containerStatuses") or []:
        waiting = (container.get("state") or {}).get("waiting") or {}
        if waiting.get("reason") in _STUCK:
            restarts = int(container.get("restartCount") or 0)
            return (f"container {container.get('name')}: {waiting['reason']} "
                    f"({restarts} restarts){_last_exit(container)}")
    return None


def _waiting_reason(pod: Mapping[str, Any]) -> str:
    for container in (pod.get("status") or {}).get("containerStatuses") or []:
        reason = ((container.get("state") or {}).get("waiting") or {}).get("reason")
        if reason in _STUCK:
            return str(reason)
    return ""


def _last_exit(container: Mapping[str, Any]) -> str:
    ended = (container.get("lastState") or {}).get("terminated") or {}
    if not ended:
        return ""
    return f", last exit {ended.get('exitCode')} ({ended.get('reason', 'Error')})"


def _status_reason(pod: Mapping[str, Any]) -> str:
    status = pod.get("status") or {}
    return _line(str(status.get("reason") or "") + (": " + str(status["message"])
                 if status.get("message") else "")) or "no reason given"


def _condition(pod: Mapping[str, Any], kind: str) -> Mapping[str, Any]:
    for condition in (pod.get("status") or {}).get("conditions") or []:
        if isinstance(condition, Mapping) and condition.get("type") == kind:
            return condition
    return {}


def _line(text: str) -> str:
    """One line, at most ``_LONGEST`` characters: a message comes from the cluster."""
    flat = " ".join(text.split())
    return flat if len(flat) <= _LONGEST else flat[:_LONGEST - 1] + "…"


def event_line(event: Mapping[str, Any]) -> str:
    return _line(str(event.get("message") or ""))
