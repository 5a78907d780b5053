"""``verify`` expects HAMi's card under the share names a policy renames, as ``plan`` does.

Before its migration step, a Deployment asking HAMi only for a share by
renamed names runs on the card HAMi's webhook gives each of its pods: the
step's expectations count them as native GPU pods.
"""

from __future__ import annotations

from pathlib import Path

from tests.plan.test_hami_plan_renamed import FLEET, INVENTORY, POLICY, RENAMED
from tfpolicy.files.documents import read_documents
from tfpolicy.files.inputs import Cluster, plan_input, policy_documents, read_inventory
from tfpolicy.plan import DEFAULT_LADDER
from tfpolicy.verify.expect import expect


def _native(tmp_path: Path, hami: str) -> dict[str, int]:
    (tmp_path / "fleet.yaml").write_text(FLEET)
    (tmp_path / "policy.yaml").write_text(POLICY.format(hami=hami))
    docs = read_documents((str(tmp_path / "fleet.yaml"),))
    fleet = read_inventory(str(INVENTORY))
    chosen = policy_documents((str(tmp_path / "policy.yaml"),))
    given = plan_input(docs, chosen, fleet, Cluster(None, None, (), "default"), DEFAULT_LADDER)
    return {w.name: w.native for w in expect(given, 1).workloads}


def test_the_first_step_expects_the_renamed_shares_on_hamis_cards(tmp_path: Path) -> None:
    native = _native(tmp_path, RENAMED)
    assert native["renamed"] == 2  # two replicas, one card each
    assert native["priority-only"] == 0  # HAMi gives it none
    assert "in-requests" not in native  # a share in requests alone: the API server refuses it


def test_without_the_declaration_the_renamed_names_are_no_gpu(tmp_path: Path) -> None:
    assert "renamed" not in _native(tmp_path, "")
