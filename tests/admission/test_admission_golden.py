"""Golden cases for the admission simulation: tests/cases/admission/<case>/.

Each case has ``input.yaml`` (a pod template), optionally ``values.yaml``
(Helm values) and ``context.yaml`` (namespace, workload, ownerKind,
podTemplateHash, takenOver, pools, namespaceLabels, gpuModels, quotas,
providers), and
the expected outcome: ``expected.yaml`` (the admitted Pod) plus
``summary.txt`` (decision, reason, allocation, changes), or ``error.txt``.
Regenerate with ``TFPOLICY_UPDATE_GOLDEN=1 pytest tests/admission`` and
review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from tfpolicy.admission import (
    Admission,
    AdmissionContext,
    ModelCapacity,
    Pool,
    QuotaDefaults,
    admit,
    webhook_config,
)
from tfpolicy.gpus.resources import Provider

CASES = Path(__file__).resolve().parent.parent / "cases" / "admission"
UPDATE = os.environ.get("TFPOLICY_UPDATE_GOLDEN") == "1"


def _load(path: Path) -> Any:
    return yaml.safe_load(path.read_text()) if path.exists() else None


def context_for(case: Path) -> AdmissionContext:
    raw = _load(case / "context.yaml") or {}
    pools = tuple(
        Pool(p["name"], p.get("isDefault", False), p.get("defaultUsingLocalGPU"),
             p.get("defaultQoS", ""))
        for p in raw["pools"]
    ) if "pools" in raw else None
    config = webhook_config(
        _load(case / "values.yaml"),
        pools=pools,
        namespace_labels=raw.get("namespaceLabels"),
        gpu_models={k: ModelCapacity(**v) for k, v in (raw.get("gpuModels") or {}).items()},
        quotas={k: QuotaDefaults(**v) for k, v in (raw.get("quotas") or {}).items()},
        providers=tuple(Provider(p["name"], p["vendor"], tuple(p["resources"]))
                        for p in raw.get("providers") or []),
    )
    return AdmissionContext(
        namespace=raw.get("namespace", "default"),
        workload=raw.get("workload", "app"),
        owner_kind=raw.get("ownerKind", "Deployment"),
        pod_template_hash=raw.get("podTemplateHash"),
        taken_over=raw.get("takenOver", 0),
        webhook=config,
    )


def summary(result: Admission) -> str:
    lines = [f"decision: {result.decision.value}", f"reason: {result.reason}"]
    lines += [f"note: {n}" for n in result.notes]
    if result.allocation is not None:
        lines.append("allocation:")
        for name in type(result.allocation).__slots__:
            lines.append(f"  {name}: {getattr(result.allocation, name)!r}")
    lines.append("changes:")
    lines += [f"  {c}" for c in result.changes]
    return "\n".join(lines) + "\n"


def outputs(result: Admission) -> dict[str, str]:
    if result.pod is None:
        return {"error.txt": result.error + "\n"}
    return {
        "expected.yaml": yaml.safe_dump(result.pod, sort_keys=True),
        "summary.txt": summary(result),
    }


def case_names() -> list[str]:
    return sorted(p.name for p in CASES.iterdir() if (p / "input.yaml").exists())


@pytest.mark.parametrize("name", case_names())
def test_golden(name: str) -> None:
    case = CASES / name
    result = admit(_load(case / "input.yaml"), context_for(case))
    produced = outputs(result)
    if UPDATE:
        for stale in ("expected.yaml", "summary.txt", "error.txt"):
            if stale not in produced:
                (case / stale).unlink(missing_ok=True)
        for file, text in produced.items():
            (case / file).write_text(text)
    for file, text in produced.items():
        assert (case / file).exists(), f"{name}: missing {file} (TFPOLICY_UPDATE_GOLDEN=1)"
        assert (case / file).read_text() == text, f"{name}: {file} differs"
    for other in {"expected.yaml", "summary.txt", "error.txt"} - produced.keys():
        assert not (case / other).exists(), f"{name}: unexpected {other}"


def test_there_are_cases() -> None:
    assert len(case_names()) >= 30
