"""Unit tests: selectors, scope rules, Helm values, enabled-replicas, traps."""

from __future__ import annotations

import pytest

from tfpolicy.admission import (
    AdmissionContext,
    AutoMigration,
    Decision,
    Rules,
    Scope,
    admit,
    auto_migration,
    over_cap,
    should_auto_migrate,
    taken_over,
    webhook_config,
    webhook_traps,
)
from tfpolicy.admission.selector import SelectorError, matches
from tfpolicy.errors import TfpolicyError

A = "tensor-fusion.ai/"


def template(labels=None, annotations=None, limits=None, name="main"):
    container = {"name": name, "image": "img"}
    if limits is not None:
        container["resources"] = {"limits": limits}
    return {"metadata": {"labels": labels or {}, "annotations": annotations or {}},
            "spec": {"containers": [container]}}


# --- selectors (k8s LabelSelector semantics) ---

def test_empty_selector_matches_everything() -> None:
    assert matches({}, {}) and matches({"matchLabels": {}}, {"a": "b"})


@pytest.mark.parametrize(("expr", "labels", "expected"), [
    ({"key": "t", "operator": "In", "values": ["a", "b"]}, {"t": "b"}, True),
    ({"key": "t", "operator": "In", "values": ["a"]}, {}, False),
    ({"key": "t", "operator": "NotIn", "values": ["a"]}, {}, True),
    ({"key": "t", "operator": "NotIn", "values": ["a"]}, {"t": "a"}, False),
    ({"key": "t", "operator": "Exists"}, {"t": ""}, True),
    ({"key": "t", "operator": "DoesNotExist"}, {"t": "x"}, False),
])
def test_match_expressions(expr, labels, expected) -> None:
    assert matches({"matchExpressions": [expr]}, labels) is expected


def test_match_labels_and_expressions_are_anded() -> None:
    selector = {"matchLabels": {"a": "1"}, "matchExpressions": [{"key": "b", "operator": "Exists"}]}
    assert matches(selector, {"a": "1", "b": "x"})
    assert not matches(selector, {"a": "1"})


@pytest.mark.parametrize("expr", [
    {"key": "t", "operator": "In"},
    {"key": "t", "operator": "Exists", "values": ["x"]},
    {"key": "t", "operator": "Gt", "values": ["1"]},
    {"operator": "Exists"},
])
def test_malformed_selector_is_an_error(expr) -> None:
    with pytest.raises(SelectorError):
        matches({"matchExpressions": [expr]}, {"t": "1"})


# --- auto-migration scope (reference §3.2) ---

def verdict(config, labels=None, namespace="ml", ns_labels=None):
    return should_auto_migrate(config, namespace, labels or {}, ns_labels or {}).migrate


def test_opt_out_beats_everything() -> None:
    assert not verdict(AutoMigration(True), {A + "enabled": "false"})


def test_disabled_and_no_scope() -> None:
    assert not verdict(AutoMigration(False))
    assert verdict(AutoMigration(True))


def test_excludes_win_over_includes() -> None:
    rules = Rules(namespace_names=("ml",))
    assert not verdict(AutoMigration(True, Scope(includes=rules, excludes=rules)))


def test_present_but_empty_includes_matches_nothing() -> None:
    assert not verdict(AutoMigration(True, Scope(includes=Rules())))
    assert verdict(AutoMigration(True, Scope(excludes=Rules())))


def test_rule_fields_are_ored() -> None:
    rules = Rules(namespace_names=("other",), pod_selector={"matchLabels": {"tier": "gpu"}})
    assert verdict(AutoMigration(True, Scope(includes=rules)), {"tier": "gpu"})
    assert not verdict(AutoMigration(True, Scope(includes=rules)), {"tier": "cpu"})


def test_namespace_selector_sees_the_metadata_name_label() -> None:
    rules = Rules(namespace_selector={"matchLabels": {"kubernetes.io/metadata.name": "ml"}})
    assert verdict(AutoMigration(True, Scope(includes=rules)))


# --- Helm values ---

def test_values_scope_presence_and_case_insensitive_fields() -> None:
    config = auto_migration({"Enable": True, "scope": {"includes": {}, "excludes": None}})
    assert config == AutoMigration(True, Scope(includes=Rules(), excludes=None))


def test_values_defaults_are_the_chart_defaults() -> None:
    config = webhook_config(None)
    assert not config.progressive_migration and not config.auto_migration.enable
    assert [p.name for p in config.pools] == ["tensor-fusion-shared"]
    assert config.pools[0].is_default and config.pools[0].default_using_local_gpu is None


@pytest.mark.parametrize("values", [
    {"dynamicConfig": {"autoMigration": {"enable": "true"}}},
    {"dynamicConfig": {"autoMigration": {
        "enable": True, "scope": {"includes": {"namespaceNames": "ml"}}}}},
    {"controller": []},
])
def test_bad_values_are_input_errors(values) -> None:
    with pytest.raises(TfpolicyError):
        webhook_config(values)


# --- enabled-replicas (reference §2.3) ---

@pytest.mark.parametrize(("replicas", "cap", "hashed", "expected"), [
    (10, 3, True, 3), (2, 3, True, 2), (10, None, True, 10),
    (10, 3, False, 10), (10, 0, True, 0), (10, 0, False, 0), (10, -1, False, 0),
])
def test_taken_over(replicas, cap, hashed, expected) -> None:
    assert taken_over(replicas, cap, pod_template_hash=hashed) == expected


def test_over_cap_ignores_the_counter_without_pod_template_hash() -> None:
    assert over_cap(3, 3, pod_template_hash=True)
    assert not over_cap(3, 3, pod_template_hash=False)
    assert over_cap(0, 0, pod_template_hash=False)


def test_over_cap_pod_keeps_its_native_gpu_and_labels() -> None:
    tpl = template({A + "enabled": "true"}, {A + "enabled-replicas": "1"}, {"nvidia.com/gpu": 1})
    result = admit(tpl, AdmissionContext("ml", "app", taken_over=1))
    assert result.decision is Decision.OVER_CAP and not result.changes
    resources = result.pod["spec"]["containers"][0]["resources"]
    assert resources == {"limits": {"nvidia.com/gpu": 1}, "requests": {"nvidia.com/gpu": 1}}


# --- surprising facts pinned (reference §9) ---

def test_labelled_native_pod_reserves_no_vram() -> None:
    tpl = template({A + "enabled": "true"}, None, {"nvidia.com/gpu": 2})
    request = admit(tpl, AdmissionContext("ml", "app")).allocation
    assert request is not None
    assert (request.isolation, request.compute_milli_percent_request, request.vram_request) == (
        "soft", 100_000, 0)


def test_a_count_is_read_from_the_text_the_api_server_serves() -> None:
    """The webhook Atoi's the served text: "1000m" is served as "1" (a count), "1k" as is."""
    tpl = template({A + "enabled": "true"}, {A + "tflops-limit": "10"}, {"nvidia.com/gpu": "1000m"})
    result = admit(tpl, AdmissionContext("ml", "app"))
    assert result.allocation is not None and result.allocation.gpu_count == 1
    assert result.pod["metadata"]["annotations"][A + "container-gpu-count"] == '{"main":1}'
    tpl = template({A + "enabled": "true"}, {A + "tflops-limit": "10"}, {"nvidia.com/gpu": "1k"})
    result = admit(tpl, AdmissionContext("ml", "app"))
    assert A + "container-gpu-count" not in result.pod["metadata"]["annotations"]


def test_limit_only_gpu_counts_as_a_request_and_is_defaulted() -> None:
    tpl = template({}, None, {"nvidia.com/gpu": 1})
    result = admit(tpl, AdmissionContext("ml", "app", webhook=webhook_config(
        {"dynamicConfig": {"autoMigration": {"enable": True}}})))
    assert result.decision is Decision.MIGRATED


def test_requests_without_limits_still_count_as_gpu_pod() -> None:
    tpl = {"metadata": {}, "spec": {"containers": [
        {"name": "m", "resources": {"requests": {"nvidia.com/gpu": 1}}}]}}
    config = webhook_config({"dynamicConfig": {"autoMigration": {"enable": True}}})
    result = admit(tpl, AdmissionContext("ml", "app", webhook=config))
    # Detected as a GPU pod, but only limits are scanned for the count.
    assert result.decision is Decision.MIGRATED
    assert result.pod["metadata"]["annotations"][A + "gpu-count"] == "1"


def test_bare_pod_keeps_its_name_in_error_messages() -> None:
    tpl = template({A + "enabled": "true"}, {A + "gpu-indices": "x"})
    result = admit(tpl, AdmissionContext("ml", "trainer", owner_kind="Pod"))
    assert result.error.endswith("is not valid for Pod trainer")


# --- traps (reference §9) ---

def rules_of(traps):
    return [t.rule for t in traps]


def test_trap_soft_without_vram() -> None:
    traps = webhook_traps(template({A + "enabled": "true"}, None, {"nvidia.com/gpu": 1}),
                          "Deployment")
    assert rules_of(traps) == ["soft-no-vram"]
    assert traps[0].path == 'metadata.labels["tensor-fusion.ai/enabled"]'
    assert "no VRAM reserved" in traps[0].message


def test_no_soft_trap_when_isolation_or_vram_given() -> None:
    for extra in ({A + "isolation": "shared"}, {A + "vram-limit": "8Gi"}):
        tpl = template({A + "enabled": "true"}, extra, {"nvidia.com/gpu": 1})
        assert "soft-no-vram" not in rules_of(webhook_traps(tpl, "Deployment"))


def test_trap_shared_ignores_sizing() -> None:
    tpl = template({A + "enabled": "true"}, {A + "isolation": "shared", A + "tflops-limit": "10",
                                             A + "vram-limit": "4Gi"})
    traps = webhook_traps(tpl, "Deployment")
    assert rules_of(traps) == ["shared-ignores-resources"] * 2
    assert traps[0].path == 'metadata.annotations["tensor-fusion.ai/tflops-limit"]'


def test_trap_fractional_step_relying_on_auto_migration() -> None:
    tpl = template({}, {A + "tflops-limit": "10"}, {"nvidia.com/gpu": 1})
    traps = webhook_traps(tpl, "Deployment")
    assert rules_of(traps) == ["automigration-reapplies-shared"]
    assert traps[0].path == 'spec.containers[0].resources.limits["nvidia.com/gpu"]'


@pytest.mark.parametrize(("kind", "rule"), [
    ("StatefulSet", "enabled-replicas-not-enforced"),
    ("DaemonSet", "enabled-replicas-not-enforced"),
    ("Job", "enabled-replicas-not-enforced"),
    ("Pod", "enabled-replicas-no-owner"),
])
def test_trap_enabled_replicas(kind, rule) -> None:
    tpl = template({A + "enabled": "true"}, {A + "enabled-replicas": "2", A + "vram-limit": "1Gi"})
    assert rules_of(webhook_traps(tpl, kind)) == [rule]


def test_no_enabled_replicas_trap_on_deployment() -> None:
    tpl = template({A + "enabled": "true"}, {A + "enabled-replicas": "2", A + "vram-limit": "1Gi"})
    assert webhook_traps(tpl, "Deployment") == []


@pytest.mark.parametrize(("old", "current"), [
    ("auto-resources", "tensor-fusion.ai/autoscale"),
    ("auto-scale-target-resource", "tensor-fusion.ai/autoscale-target"),
    ("auto-replicas", "removed"),
    ("compute-isolation", "tensor-fusion.ai/isolation"),
    ("standalone-worker-mode", "tensor-fusion.ai/is-local-gpu"),
    ("workload", "writes"),
])
def test_trap_obsolete_keys(old, current) -> None:
    traps = webhook_traps(template({}, {A + old: "true"}), "Deployment")
    assert rules_of(traps) == ["obsolete-key"]
    assert current in traps[0].message


def test_trap_dedicated_without_model() -> None:
    traps = webhook_traps(template({}, {A + "dedicated-gpu": "true"}), "Deployment")
    assert rules_of(traps) == ["dedicated-gpu-without-model"]
    tpl = template({}, {A + "dedicated-gpu": "true", A + "gpu-model": "NVIDIA A100-SXM4-80GB"})
    assert webhook_traps(tpl, "Deployment") == []


def test_traps_are_sorted_by_path() -> None:
    tpl = template({}, {A + "workload": "x", A + "auto-resources": "true"})
    paths = [t.path for t in webhook_traps(tpl, "Deployment")]
    assert paths == sorted(paths)
