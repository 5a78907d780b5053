"""``rung:`` in ``.tfpolicy.yaml`` (tfpolicy/policy/rung.py): what ``fix`` applies at a rung
is what ``plan`` simulates for that step, and a rung the policies cannot reach is refused
at its line and column."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tfpolicy.plan import DEFAULT_LADDER, plan_steps, step_documents
from tfpolicy.policy.model import build_policy
from tfpolicy.policy.rung import RUNG_NAMES, Where, at_rung
from tfpolicy.records import replace

MANIFESTS = Path(__file__).resolve().parents[1] / "verify" / "manifests.yaml"
HERE = Where("config", 1, 1)
TFPOLICY = str(Path(sys.executable).parent / "tfpolicy")


def _doc(name: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "tfpolicy.dev/v1alpha1", "kind": "MigrationPolicy",
            "metadata": {"name": name}, "spec": spec}


POLICIES = [
    _doc("serving", {"stage": "rightsize", "match": {"namespaces": ["ml-serving"]},
                     "pool": "shared", "isolation": "soft", "autoscale": {"target": "all"},
                     "resources": {"tflops": {"request": "30", "limit": "60"},
                                   "vram": {"request": "8Gi", "limit": "16Gi"}},
                     "workloads": [{"match": {"names": ["a"]}, "enabledReplicas": 2},
                                   {"match": {"names": ["b"]},
                                    "resources": {"vram": {"limit": "20Gi"}}},
                                   {"match": {"names": ["c"]}, "autoscale": False}]}),
    _doc("capped", {"stage": "rightsize", "enabledReplicas": 3,
                    "resources": {"vram": {"limit": "4Gi"}}}),
    _doc("training", {"stage": "takeover", "match": {"namespaces": ["ml-training"]},
                      "qos": "high"}),
    _doc("legacy", {"stage": "rollback", "match": {"namespaces": ["old"]}}),
]


def _unplaced(policies: Any) -> list[Any]:
    return [replace(p, file="", line=0, column=0) for p in policies]


@pytest.mark.parametrize("number", range(1, len(RUNG_NAMES) + 1))
def test_a_rung_is_the_plans_step_of_the_same_number(number: int) -> None:
    steps = plan_steps(POLICIES, DEFAULT_LADDER)
    assert [s.name for s in steps] == list(RUNG_NAMES)
    step = steps[number - 1]
    planned = [build_policy(d, "", 0, 0) for d in step_documents(POLICIES, step)]
    given = [build_policy(d, "", 0, 0) for d in POLICIES]
    assert _unplaced(at_rung(given, step.name, HERE)) == _unplaced(planned)


def test_no_rung_leaves_the_policies_be() -> None:
    given = [build_policy(d, "", 0, 0) for d in POLICIES]
    assert at_rung(given, None, HERE) == tuple(given)


def _check(tmp_path: Path, config: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / ".git").mkdir(exist_ok=True)
    (tmp_path / "m.yaml").write_bytes(MANIFESTS.read_bytes())
    (tmp_path / ".tfpolicy.yaml").write_text(config, encoding="utf-8")
    return subprocess.run([TFPOLICY, "check", "m.yaml"], cwd=tmp_path,
                          capture_output=True, text=True, check=False)


@pytest.mark.parametrize(("config", "said"), [
    ("policies: [takeover]\nrung: rightsize-5\n",
     ".tfpolicy.yaml:2:7: error: 'rightsize-5' is not one of: takeover-1, takeover-25, "
     "takeover-50, takeover-100, rightsize-1, rightsize-25, rightsize-50, rightsize-100, "
     "autoscale, rollback (did you mean rightsize-50?) ($.rung)"),
    ("policies: [takeover-25]\nrung: takeover-50\n",
     ".tfpolicy.yaml:2:7: error: rung: the policies name the built-in rung 'takeover-25' "
     "already: with rung:, name the policy the ladder climbs (takeover, or a rightsize "
     "policy)"),
    ("policies: [takeover]\n\nrung: rightsize-25\n",
     ".tfpolicy.yaml:3:7: error: rung 'rightsize-25' needs a rightsize policy among the "
     "policies (takeover)"),
    ("policies: [rightsize-example]\nrung: autoscale\n",
     ".tfpolicy.yaml:2:7: error: rung 'autoscale' needs a rightsize policy that sets "
     "autoscale among the policies (rightsize-example)"),
    ("policies: [rollback]\nrung: takeover-1\n",
     ".tfpolicy.yaml:2:7: error: rung 'takeover-1' needs a takeover or rightsize policy "
     "among the policies (rollback)"),
])
def test_a_rung_off_the_policies_is_refused_at_its_place(tmp_path: Path, config: str,
                                                         said: str) -> None:
    done = _check(tmp_path, config)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr.strip().splitlines() == [f"{tmp_path}/{said}"]


def test_check_at_a_rung_wants_the_rungs_template(tmp_path: Path) -> None:
    """``check`` under ``rung: rightsize-25`` would write the share with the cap, and keep
    the native GPU limit of the replicas over it (docs/stages.md)."""
    done = _check(tmp_path, "policies: [rightsize-example]\nrung: rightsize-25\n")
    assert done.returncode == 1, done.stderr
    fixed = subprocess.run([TFPOLICY, "apply", "m.yaml"], cwd=tmp_path,
                           capture_output=True, text=True, check=True).stdout
    vllm = fixed.split("---")[0]
    assert 'tensor-fusion.ai/enabled-replicas: "1"' in vllm
    assert "tensor-fusion.ai/vram-limit: 16Gi" in vllm and "nvidia.com/gpu: 1" in vllm
