"""TensorFusion's own table-driven tests, paraphrased as YAML cases: tests/cases/upstream/*.yaml.

Each case names the upstream test (``upstream: <file>:<line>`` at commit
3e0a4901 of NexusGPU/tensor-fusion) and restates its input and what it
asserts; ``xfail`` names a feature the simulation knowingly leaves out.

``check`` says which upstream function the case exercises:

- ``admit``: the webhook's ``Handle`` on ``pod`` (``expect``: ``decision``,
  ``error`` substring, ``annotations`` / ``labels`` subsets of the admitted
  pod, ``absentAnnotations``, ``schedulerName``, ``resources`` of container 0);
- ``parse``: ``ParseTensorFusionInfo`` (``expect``: ``error`` substring,
  ``workload`` / ``workloadPrefix``, ``inject``, ``pool``, ``qos``,
  ``resources`` per-GPU strings, ``stamps`` subset, ``noStamps``);
- ``auto-migrate``: ``ShouldAutoMigrateGPUPod`` (``expect: {migrate: bool}``);
- ``has-gpu``: ``HasGPUResourceRequest`` on the pod as given (``expect: {gpu: bool}``).

The cluster: ``values`` (Helm values), ``objects`` (operator objects as
``kubectl get -o yaml`` prints them), ``context`` (ownerKind, replicas,
takenOver, namespaceLabels). The upstream suite's pool ``mock`` is the
default pool unless a case says otherwise.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from tests.conftest import ROOT
from tfpolicy.admission import (
    Admission,
    AdmissionContext,
    Found,
    Pool,
    WebhookConfig,
    admit,
    operator_objects,
    should_auto_migrate,
    webhook_config,
)
from tfpolicy.admission.admission_records import Rejection
from tfpolicy.admission.native import has_gpu_request
from tfpolicy.admission.parse import parse_profile

CASES = ROOT / "tests" / "cases" / "upstream"
UPSTREAM_FILES = (
    "internal/webhook/v1/pod_webhook_test.go", "internal/webhook/v1/auto_migration_test.go",
    "internal/webhook/v1/tf_parser_isolation_test.go", "internal/utils/reconcile_test.go",
    "internal/webhook/v1/pod_counter_test.go",
)
MOCK_POOL = Pool("mock", is_default=True)


def _cases() -> list[Any]:
    found = []
    for path in sorted(CASES.glob("*.yaml")):
        case = yaml.safe_load(path.read_text())
        marks = [pytest.mark.xfail(reason=case["xfail"], strict=True)] if "xfail" in case else []
        found.append(pytest.param(case, id=path.stem, marks=marks))
    return found


def _webhook(case: dict[str, Any]) -> WebhookConfig:
    raw = case.get("context") or {}
    found = operator_objects([Found("objects", o) for o in case.get("objects") or []], "default")
    return webhook_config(
        case.get("values"), pools=found.pools or (MOCK_POOL,),
        namespace_labels=raw.get("namespaceLabels"), gpu_models=found.gpu_models,
        quotas=found.quotas, providers=found.providers, profiles=found.profiles)


def _context(case: dict[str, Any]) -> AdmissionContext:
    raw = case.get("context") or {}
    meta = case["pod"].get("metadata") or {}
    return AdmissionContext(
        namespace=meta.get("namespace") or "default",
        workload=raw.get("owner", meta.get("name") or ""),
        owner_kind=raw.get("ownerKind", "Pod"), replicas=raw.get("replicas"),
        taken_over=raw.get("takenOver", 0), webhook=_webhook(case),
        generate_name=meta.get("generateName") or "")


@pytest.mark.parametrize("case", _cases())
def test_upstream_case(case: dict[str, Any]) -> None:
    assert case["upstream"].rsplit(":", 1)[0] in UPSTREAM_FILES
    CHECKS[case["check"]](case, case.get("expect") or {})


def _admit(case: dict[str, Any], expect: dict[str, Any]) -> None:
    result = admit(case["pod"], _context(case))
    if "decision" in expect:
        assert result.decision.value == expect["decision"], result.reason or result.error
    if "error" in expect:
        assert expect["error"] in result.error
        return
    assert result.pod is not None, result.error
    meta = result.pod["metadata"]
    _subset(meta.get("annotations") or {}, expect.get("annotations") or {})
    _subset(meta.get("labels") or {}, expect.get("labels") or {})
    for key in expect.get("absentAnnotations") or []:
        assert key not in (meta.get("annotations") or {}), key
    if "schedulerName" in expect:
        assert result.pod["spec"].get("schedulerName") == expect["schedulerName"]
    if "resources" in expect:
        assert result.pod["spec"]["containers"][0].get("resources") == expect["resources"]
    _shape(case, result, expect)


def _shape(case: dict[str, Any], result: Admission, expect: dict[str, Any]) -> None:
    """Injection, container count, prefixes and what must stay as submitted."""
    assert result.pod is not None
    spec, meta = result.pod["spec"], result.pod["metadata"]
    annotations = meta.get("annotations") or {}
    if "initContainers" in expect:
        assert bool(spec.get("initContainers")) is expect["initContainers"]
    if "containerCount" in expect:
        assert len(spec["containers"]) == expect["containerCount"]
    for key, prefix in (expect.get("annotationPrefixes") or {}).items():
        assert str(annotations.get(key, "")).startswith(prefix), key
    if expect.get("noChanges"):
        assert result.changes == ()
    given = (case["pod"]["metadata"].get("annotations") or {})
    for key in expect.get("unchanged") or []:
        assert annotations.get(key) == given.get(key), key


def _parse(case: dict[str, Any], expect: dict[str, Any]) -> None:
    ctx = _context(case)
    try:
        profile = parse_profile(case["pod"], ctx)
    except Rejection as error:
        assert "error" in expect, error.message
        assert expect["error"] in error.message
        return
    assert "error" not in expect, "expected a rejection"
    r = profile.gpu.resources
    shown = {"tflopsRequest": r.tflops_request, "tflopsLimit": r.tflops_limit,
             "vramRequest": r.vram_request, "vramLimit": r.vram_limit,
             "percentRequest": r.percent_request, "percentLimit": r.percent_limit}
    _subset(shown, expect.get("resources") or {})
    assert profile.workload.startswith(expect.get("workloadPrefix", ""))
    for name, value in (("workload", profile.workload), ("pool", profile.pool.name),
                        ("qos", profile.qos), ("inject", list(profile.inject)),
                        ("isolation", profile.isolation), ("gpuCount", profile.gpu.count)):
        if name in expect:
            assert value == expect[name], name
    _subset(dict(profile.stamps), expect.get("stamps") or {})
    if expect.get("noStamps"):
        assert not profile.stamps


def _auto_migrate(case: dict[str, Any], expect: dict[str, Any]) -> None:
    ctx = _context(case)
    labels = case["pod"]["metadata"].get("labels") or {}
    verdict = should_auto_migrate(ctx.webhook.auto_migration, ctx.namespace, labels,
                                  ctx.webhook.namespace_labels)
    assert verdict.migrate is expect["migrate"], verdict.reason


def _has_gpu(case: dict[str, Any], expect: dict[str, Any]) -> None:
    assert has_gpu_request(case["pod"], _webhook(case).resources) is expect["gpu"]


def _subset(actual: dict[str, Any], expected: dict[str, Any]) -> None:
    for key, value in expected.items():
        assert actual.get(key) == value, f"{key}: {actual.get(key)!r} != {value!r}"


CHECKS = {"admit": _admit, "parse": _parse, "auto-migrate": _auto_migrate, "has-gpu": _has_gpu}


def test_enough_cases_name_their_source() -> None:
    cases = [yaml.safe_load(p.read_text()) for p in CASES.glob("*.yaml")]
    assert len(cases) >= 45
    assert all("xfail" not in c or len(c["xfail"]) > 20 for c in cases)
