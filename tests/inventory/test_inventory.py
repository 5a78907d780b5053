"""Inventory parsing, both forms, and the compact form's schema."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
import yaml

from tests.conftest import ROOT
from tfpolicy.errors import TfpolicyError
from tfpolicy.inventory import load_inventory, settings_from_values
from tfpolicy.scheduler import (
    Choice,
    FastAllocator,
    Isolation,
    IsolationPolicy,
    Ledger,
    Placement,
    PodRequest,
    SchedulerSettings,
    Unschedulable,
)

SCHEMA = json.loads((ROOT / "schemas" / "inventory.schema.json").read_text())


def _docs(name: str) -> list[Any]:
    return list(yaml.safe_load_all((ROOT / "examples" / name).read_text()))


def _compact(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "tfpolicy.dev/v1alpha1", "kind": "Inventory", "spec": spec}


def test_compact_example_nodes_and_gpus() -> None:
    inv = load_inventory(_docs("inventory.yaml"))
    assert inv.default_pool == "tensor-fusion-shared"
    assert [n.name for n in inv.nodes][:2] == ["a100-000", "a100-001"]
    assert len(inv.gpus) == 4 * 8 + 2 * 4 + 2 * 4
    a100 = inv.gpus[0]
    assert (a100.name, a100.model, a100.tflops, a100.vram, a100.cost) == (
        "a100-000-gpu0", "NVIDIA A100-SXM4-80GB", 312_000, 81_920, 1_890_000)
    t4 = [g for g in inv.gpus if g.node == "t4-legacy-000"]
    assert {g.pool for g in t4} == {None} and t4[0].model == "Tesla T4"
    pool = inv.pools[0]
    assert (pool.tflops_oversell, pool.vram_expand_to_host_disk) == (2000, 60)
    assert inv.nodes[0].ram == 1024 * 1024


def test_compact_example_is_valid_against_the_schema() -> None:
    jsonschema.Draft202012Validator(SCHEMA).validate(_docs("inventory.yaml")[0])


def test_schema_rejects_a_typo() -> None:
    doc = _compact(pools=[{"name": "p", "nodeGroups": [{"name": "g", "model": "T4", "cout": 2}]}])
    errors = list(jsonschema.Draft202012Validator(SCHEMA).iter_errors(doc))
    assert errors and "cout" in errors[0].message


def test_explicit_values_override_the_table() -> None:
    group = {"name": "x", "model": "Imaginary 9000", "tflops": "149.7", "vram": "20Gi",
             "costPerHour": "0.25", "gpusPerNode": 2, "count": 3}
    inv = load_inventory(_compact(pools=[{"name": "p", "nodeGroups": [group]}]))
    gpu = inv.gpus[-1]
    assert (gpu.name, gpu.model, gpu.tflops, gpu.vram, gpu.cost) == (
        "x-002-gpu1", "Imaginary 9000", 149_700, 20_480, 250_000)


@pytest.mark.parametrize(("group", "message"), [
    ({"name": "x", "model": "Imaginary 9000"}, "unknown GPU model"),
    ({"name": "x", "model": "V100"}, "VRAM of GPU model 'V100' is not known"),
    ({"name": "x", "model": "T4", "cout": 2}, "unknown field 'cout'"),
    ({"name": "x", "model": "T4", "vram": "lots"}, "not a quantity"),
])
def test_bad_groups_raise(group: dict[str, Any], message: str) -> None:
    with pytest.raises(TfpolicyError, match=message):
        load_inventory(_compact(pools=[{"name": "p", "nodeGroups": [group]}]))


def test_bad_pool_settings_raise() -> None:
    with pytest.raises(TfpolicyError, match=r"\$\.spec\.pools\[0\]\.placement"):
        load_inventory(_compact(pools=[{"name": "p", "placement": "Compact"}]))
    with pytest.raises(TfpolicyError, match="defaultPool"):
        load_inventory(_compact(defaultPool="nope", pools=[{"name": "p"}]))
    with pytest.raises(TfpolicyError, match="duplicate node"):
        load_inventory(_compact(pools=[{"name": "p", "nodeGroups": [
            {"name": "g", "model": "T4"}, {"name": "g", "model": "L4"}]}]))


def test_kubectl_example() -> None:
    inv = load_inventory(_docs("inventory-kubectl.yaml"))
    assert inv.default_pool == "tensor-fusion-shared"
    assert [n.name for n in inv.nodes] == ["a100-000", "l4-000"]
    pool = inv.pools[0]
    assert pool.placement is Placement.NODE_COMPACT_GPU_LOW_LOAD
    assert pool.isolation_policy is IsolationPolicy.DYNAMIC
    assert (pool.tflops_oversell, pool.vram_expand_to_host_mem) == (2000, 50)
    l4 = [g for g in inv.gpus if g.node == "l4-000"]
    assert [(g.tflops, g.vram, g.cost) for g in l4] == [(121_000, 23_034, 550_000)] * 2
    # capacity − available is an allocation committed outside the plan
    assert sorted((g.external_tflops, g.external_vram) for g in l4) == [(0, 0), (30_000, 8_192)]


def test_kubectl_objects_as_separate_documents_with_a_template() -> None:
    gpu = {"kind": "GPU", "metadata": {"name": "gpu-1", "labels": {
        "tensor-fusion.ai/gpupool": "p"}}, "status": {
        "gpuModel": "Tesla T4", "phase": "Pending", "usedBy": "nvidia-device-plugin",
        "nodeSelector": {"kubernetes.io/hostname": "n1"},
        "capacity": {"tflops": "65", "vram": "15360Mi"}, "isolationPolicy": "Static"}}
    pool = {"kind": "GPUPool", "metadata": {"name": "p"},
            "spec": {"schedulingConfigTemplate": "t",
                     "capacityConfig": {"oversubscription": {"tflopsOversellRatio": 300}}}}
    template = {"kind": "SchedulingConfigTemplate", "metadata": {"name": "t"},
                "spec": {"placement": {"mode": "LowLoadFirst"}}}
    node = {"kind": "GPUNode", "metadata": {"name": "n1"},
            "spec": {"costPerHour": "2"}, "status": {"totalGPUs": 1}}
    inv = load_inventory([gpu, pool, template, node])
    p = inv.pools[0]
    assert (p.placement, p.isolation_policy) == (Placement.LOW_LOAD_FIRST, IsolationPolicy.STATIC)
    # CRD defaults fill the oversubscription fields the object leaves out
    assert (p.tflops_oversell, p.vram_expand_to_host_mem, p.vram_expand_to_host_disk) == (
        300, 50, 70)
    g = inv.gpus[0]
    assert (g.phase.value, g.used_by, g.cost, inv.default_pool) == (
        "Pending", "nvidia-device-plugin", 2_000_000, None)


def test_kubectl_without_gpus_raises() -> None:
    with pytest.raises(TfpolicyError, match="no GPU objects"):
        load_inventory({"apiVersion": "v1", "kind": "List", "items": []})


def test_kubectl_dynamic_isolation_state_and_policy() -> None:
    def gpu(name: str, **status: object) -> dict[str, object]:
        return {"kind": "GPU", "metadata": {"name": name, "labels": {
            "tensor-fusion.ai/gpupool": "p"}}, "status": {
            "gpuModel": "NVIDIA L4", "phase": "Running", "isolationPolicy": "Dynamic",
            "nodeSelector": {"kubernetes.io/hostname": "n1"},
            "capacity": {"tflops": "121", "vram": "23034Mi"}, **status}}
    inv = load_inventory([gpu("a", activeIsolationMode="hard",
                              available={"tflops": "100", "vram": "20000Mi"}),
                          gpu("b", dynamicIsolationConflict=True), gpu("c")])
    assert inv.pools[0].isolation_policy is IsolationPolicy.DYNAMIC
    a, b, c = inv.gpus
    assert (a.active_isolation, a.isolation_conflict) == (Isolation.HARD, False)
    assert (b.active_isolation, b.isolation_conflict) == (None, True)
    assert (c.active_isolation, c.isolation_conflict) == (None, False)
    ledger = Ledger(inv)
    soft = FastAllocator(ledger).choose(PodRequest("s", pool="p", tflops_request=1_000))
    assert soft == Choice("n1", ("c",))  # a is locked to hard, b is in conflict
    hard = PodRequest("h", pool="p", tflops_request=1_000, isolation=Isolation.HARD)
    assert FastAllocator(ledger).choose(hard) == Choice("n1", ("c",))  # c: most available
    ledger.reserve(hard, ("a",))
    ledger.release(hard.key)
    assert ledger.gpus["a"].active is Isolation.HARD  # the external allocation keeps its lock


def test_compact_scheduler_settings() -> None:
    inv = load_inventory(_compact(scheduler={
        "isolationModePolicy": " Static ", "progressiveMigration": True,
        "vramWeight": 0.5, "tflopsWeight": "0.25"}, pools=[{"name": "p"}]))
    assert inv.settings == SchedulerSettings(IsolationPolicy.STATIC, True, 500, 250)
    assert inv.pools[0].isolation_policy is None  # follows the scheduler's policy
    assert load_inventory(_compact(pools=[{"name": "p"}])).settings is None


def test_settings_from_helm_values() -> None:
    assert settings_from_values({}) == SchedulerSettings()  # `helm get values` of a default
    values = {
        "controller": {"isolationModePolicy": "static", "nvidiaOperatorProgressiveMigration": True},
        "schedulerConfig": {"profiles": [{"schedulerName": "tensor-fusion-scheduler",
                                          "pluginConfig": [
            {"name": "GPUNetworkTopologyAware", "args": {"mode": "soft"}},
            {"name": "GPUResourcesFit", "args": {"maxWorkerPerNode": 64, "vramWeight": 0.5,
                                                 "tflopsWeight": 0.5}}]}]}}
    assert settings_from_values(values) == SchedulerSettings(
        IsolationPolicy.STATIC, True, 500, 500, 64)


@pytest.mark.parametrize(("values", "where"), [
    ({"controller": {"isolationModePolicy": "strict"}}, "$.controller.isolationModePolicy"),
    ({"controller": {"nvidiaOperatorProgressiveMigration": "true"}},
     "$.controller.nvidiaOperatorProgressiveMigration"),
    ({"schedulerConfig": {"profiles": [{"pluginConfig": [
        {"name": "GPUResourcesFit", "args": {"vramWeight": float("nan")}}]}]}},
     "$.schedulerConfig.profiles[0].pluginConfig[0].args.vramWeight"),
    ({"schedulerConfig": {"profiles": [{"pluginConfig": [
        {"name": "GPUResourcesFit", "args": {"maxWorkerPerNode": 10**9}}]}]}},
     "$.schedulerConfig.profiles[0].pluginConfig[0].args.maxWorkerPerNode"),
])
def test_bad_helm_values_name_their_path(values: dict[str, Any], where: str) -> None:
    with pytest.raises(TfpolicyError) as caught:
        settings_from_values(values)
    assert where in str(caught.value)


def test_scheduler_max_workers_overrides_the_pools() -> None:
    inv = load_inventory(_compact(scheduler={"maxWorkerPerNode": 1}, defaultPool="p", pools=[
        {"name": "p", "maxWorkersPerNode": 5, "nodeGroups": [
            {"name": "g", "model": "T4", "count": 1, "gpusPerNode": 2}]}]))
    alloc = FastAllocator(Ledger(inv))
    first = PodRequest("a", tflops_request=1_000)
    ledger = alloc.ledger
    ledger.reserve(first, ("g-000-gpu0",))
    assert isinstance(alloc.choose(PodRequest("b", tflops_request=1_000)), Unschedulable)


def test_gpu_indices_come_from_the_inventory() -> None:
    inv = load_inventory(_compact(pools=[{"name": "p", "nodeGroups": [
        {"name": "g", "model": "T4", "count": 1, "gpusPerNode": 3}]}]))
    assert [g.index for g in inv.gpus] == [0, 1, 2]
    gpu = {"kind": "GPU", "metadata": {"name": "x"}, "status": {
        "gpuModel": "NVIDIA L4", "index": 5, "nodeSelector": {"kubernetes.io/hostname": "n"},
        "capacity": {"tflops": "121", "vram": "23034Mi"}}}
    assert load_inventory([gpu]).gpus[0].index == 5
    gpu["status"]["index"] = -1  # type: ignore[index]
    with pytest.raises(TfpolicyError, match=r"GPU x status.index"):
        load_inventory([gpu])
