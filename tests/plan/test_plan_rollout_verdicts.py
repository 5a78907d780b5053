"""The verdicts of the DaemonSet and canary-pause golden cases (tests/cases/plan-rollout/),
checked apart from the byte-for-byte comparison so a regenerated file cannot flip them."""

from __future__ import annotations

from tests.conftest import ROOT

CASES = ROOT / "tests" / "cases" / "plan-rollout"


def _text(case: str) -> str:
    return (CASES / case / "expected.txt").read_text()


def test_daemonset_surge_pod_starts_beside_the_old_one() -> None:
    assert _text("daemonset-surge-fits").splitlines()[0].endswith("every step fits")


def test_daemonset_surge_pod_needs_room_on_its_node() -> None:
    text = _text("daemonset-surge-no-room")
    assert text.splitlines()[0].endswith("a step does not fit")
    assert "1 node(s) didn't match Pod's node affinity/selector" in text
    assert (CASES / "daemonset-surge-no-room" / "exit.txt").read_text().strip() == "1"


def test_daemonset_without_surge_replaces_node_by_node() -> None:
    assert _text("daemonset-unavailable-per-node").splitlines()[0].endswith("every step fits")


def test_canary_pause_holds_the_step_at_its_weight() -> None:
    held = _text("rollout-canary-steps").split("step 01")[1].split("step 02")[0]
    assert "pods: 2 TensorFusion, 2 device plugin" in held
    assert "canary pause at weight 50%: the rollout waits there" in held
    timed = _text("rollout-canary-pause-duration").split("step 01")[1].split("step 02")[0]
    assert "pods: 1 TensorFusion, 3 device plugin" in timed
    assert "canary pause at weight 25%" in timed
