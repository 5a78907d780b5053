"""The operator's configuration as records: GPU names, Helm values, objects, gang, names."""

from __future__ import annotations

from typing import Any

import pytest

from tfpolicy.admission import Found, operator_objects, webhook_config, webhook_traps
from tfpolicy.admission.admission_records import Rejection
from tfpolicy.admission.gang import gang_stamps
from tfpolicy.admission.resources import parse_indices
from tfpolicy.errors import TfpolicyError
from tfpolicy.gpus.resources import CHART_MIG_RESOURCES, GpuResources, Provider
from tfpolicy.inventory import settings_from_values
from tfpolicy.plan.admission_report import safe_file_name

A = "tensor-fusion.ai/"


def test_chart_default_gpu_names() -> None:
    gpus = GpuResources()
    assert len(CHART_MIG_RESOURCES) == 23  # values.yaml:155-204 lists 23, not 22
    assert "nvidia.com/gpu" in gpus and "nvidia.com/mig-3g.40gb" in gpus
    assert "amd.com/gpu" not in gpus and "nvidia.com/mig-9g.999gb" not in gpus
    assert gpus.vendor("nvidia.com/mig-1g.5gb") == "NVIDIA"
    assert "huawei.com/npu" in gpus.with_extra(["huawei.com/npu"])


def test_no_provider_falls_back_for_detection_only() -> None:
    gpus = GpuResources(providers=())
    assert "amd.com/gpu" in gpus and "nvidia.com/gpu" in gpus
    assert "amd.com/gpu" not in gpus.in_use() and gpus.vendor("amd.com/gpu") == ""
    assert "x.io/gpu" in GpuResources(["x.io/gpu"], providers=()).in_use()


def test_helm_values_read() -> None:
    values: dict[str, Any] = {
        "cluster": {"name": "prod", "pool": {"name": "a100"}},
        "controller": {"isolationModePolicy": "Static", "nvidiaOperatorProgressiveMigration": True,
                       "admissionWebhooks": {"failurePolicy": "Ignore"}},
        "providerConfigs": {"nvidia": {"inUseResourceNames": ["nvidia.com/gpu"]}},
        "schedulerConfig": {"profiles": [{"pluginConfig": [
            {"name": "GPUResourcesFit", "args": {"vramWeight": 0.5, "tflopsWeight": 0.5}}]}]},
    }
    config = webhook_config(values)
    assert [p.name for p in config.pools] == ["prod-a100"] and config.pools[0].is_default
    assert config.failure_policy == "Ignore" and config.progressive_migration
    # the scheduler's part of the same values is read on the scheduler's side, once
    settings = settings_from_values(values)
    assert (settings.isolation_policy.value, settings.vram_weight, settings.progressive_migration
            ) == ("Static", 500, True)
    assert "nvidia.com/mig-1g.5gb" not in config.resources
    assert webhook_config(None).pools[0].name == "tensor-fusion-shared"
    assert webhook_config({"cluster": {"enabled": False}}).pools == ()


@pytest.mark.parametrize("values", [
    {"controller": {"admissionWebhooks": {"failurePolicy": "Sometimes"}}},
    {"providerConfigs": {"nvidia": {"inUseResourceNames": "nvidia.com/gpu"}}},
    {"cluster": {"name": 7}},
])
def test_bad_helm_values(values: dict[str, object]) -> None:
    with pytest.raises(TfpolicyError):
        webhook_config(values)


def test_bad_scheduler_weight_in_helm_values() -> None:
    with pytest.raises(TfpolicyError):
        settings_from_values({"schedulerConfig": {"profiles": [{"pluginConfig": [
            {"name": "GPUResourcesFit", "args": {"vramWeight": float("nan")}}]}]}})


def test_objects_read_and_merged() -> None:
    objs = [
        {"kind": "GPUResourceQuota", "metadata": {"name": "b", "namespace": "ml"},
         "spec": {"single": {"defaultRequests": {"tflops": "5"}}}},
        {"kind": "GPUResourceQuota", "metadata": {"name": "a", "namespace": "ml"},
         "spec": {"single": {"defaultRequests": {"tflops": "7"}}}},
        {"kind": "GPUPool", "metadata": {"name": "p", "annotations": {
            A + "is-default-pool": "true"}}, "spec": {"defaultUsingLocalGPU": False,
                                                     "qosConfig": {"defaultQoS": "low"}}},
        {"kind": "ProviderConfig", "metadata": {"name": "nvidia-provider"},
         "spec": {"vendor": "NVIDIA", "inUseResourceNames": ["nvidia.com/gpu"]}},
    ]
    found = operator_objects([Found("f.yaml", o) for o in objs], "default")
    assert found.quotas["ml"].tflops_request == "7"  # first by name, as the API lists
    assert found.pools[0].default_using_local_gpu is False and found.pools[0].default_qos == "low"
    config = webhook_config(None, providers=found.providers)
    assert "nvidia.com/mig-1g.5gb" not in config.resources  # the object replaced the chart's


def test_bad_object_names_its_file() -> None:
    bad = {"kind": "WorkloadProfile", "metadata": {"name": "w"}, "spec": {"gpuCount": "two"}}
    with pytest.raises(TfpolicyError) as caught:
        operator_objects([Found("ops.yaml", bad)], "default")
    assert str(caught.value).startswith("ops.yaml: WorkloadProfile 'w'")


@pytest.mark.parametrize(("text", "expected"), [
    ("0,2, 3", (0, 2, 3)), ("", ()), ("²", None), ("-1", None), ("2147483648", None),
    ("1" * 5000, None), ("0" * 30 + "1", (1,)), ("a,1", None), ("1\n", (1,)),
])
def test_gpu_indices_as_upstream(text: str, expected: tuple[int, ...] | None) -> None:
    assert parse_indices(text) == expected


def test_gang_stamps_and_errors() -> None:
    on = {A + "gang-enabled": "true"}
    assert gang_stamps(on, None, None, 4, "ml/w") == {
        A + "gang-desired-members": "4", A + "gang-required-members": "4",
        A + "gang-group-key": "ml/w"}
    assert gang_stamps({**on, A + "gang-min-members": "3"}, None, None, None, "ml/w")[
        A + "gang-required-members"] == "3"
    assert gang_stamps({**on, A + "gang-timeout": "1h30m"}, None, 2, None, "k") != {}
    for bad in ({A + "gang-min-members": "-1"}, {A + "gang-timeout": "5"}):
        with pytest.raises(Rejection):
            gang_stamps({**on, **bad}, None, 3, None, "k")


def test_safe_file_names() -> None:
    assert safe_file_name("ml_Pod_ok") == "ml_Pod_ok"
    for hostile in ("../../x", "/etc/passwd", "a\0b", ".hidden", "x" * 400):
        name = safe_file_name(hostile)
        assert "/" not in name and "\0" not in name and not name.startswith(".")
        assert len(name) <= 120
    assert safe_file_name("a/b") != safe_file_name("a_b")


def test_enabled_replicas_trap_follows_the_label() -> None:
    template = {"metadata": {"annotations": {A + "enabled-replicas": "1"}}, "spec": {}}
    labelled = {"metadata": {**template["metadata"], "labels": {"pod-template-hash": "x"}},
                "spec": {}}
    assert [t.rule for t in webhook_traps(template, "StatefulSet")] == [
        "enabled-replicas-not-enforced"]
    assert webhook_traps(labelled, "StatefulSet") == []
    assert Provider("p", "V", ("a/b",)).resources == ("a/b",)
