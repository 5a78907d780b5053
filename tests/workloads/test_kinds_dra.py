"""GPUs through Dynamic Resource Allocation (docs/kinds.md, "GPUs through DRA"): a pod's
``resourceClaims`` resolved to the claims and claim templates of an input, their device
requests read in every API version (resource.k8s.io v1alpha2, v1alpha3, v1beta1: the class
on the request; v1beta2, v1: under ``exactly``, or ``firstAvailable``), GPU classes known
from the drivers (NVIDIA's gpu/mig/vfio classes, AMD's, Intel's) or from a DeviceClass
selecting a GPU driver. Nothing of DRA is migrated: every claim of a GPU class is reported,
with its claim, class and count, and ``apply`` leaves the documents as they are."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT
from tfpolicy.cli import main
from tfpolicy.findings import Severity
from tfpolicy.workloads import dra, finder

V1_TEMPLATE = {
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
    "metadata": {"name": "two-gpus", "namespace": "ml"},
    "spec": {"spec": {"devices": {"requests": [
        {"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com", "count": 2}}]}}}}
V1BETA1_CLAIM = {
    "apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaim",
    "metadata": {"name": "migs"},
    "spec": {"devices": {"requests": [
        {"name": "mig", "deviceClassName": "mig.nvidia.com", "allocationMode": "All",
         "selectors": [{"cel": {"expression": "device.attributes['gpu.nvidia.com'].profile "
                                              "== '1g.10gb'"}}]}]}}}
V1BETA2_ALTERNATIVES = {
    "apiVersion": "resource.k8s.io/v1beta2", "kind": "ResourceClaimTemplate",
    "metadata": {"name": "any"},
    "spec": {"spec": {"devices": {"requests": [
        {"name": "one", "firstAvailable": [
            {"name": "big", "deviceClassName": "gpu.nvidia.com"},
            {"name": "small", "deviceClassName": "mig.nvidia.com", "count": 2}]},
        {"name": "channel", "exactly": {
            "deviceClassName": "compute-domain-default-channel.nvidia.com"}}],
        "config": [{"requests": ["one"], "opaque": {"driver": "gpu.nvidia.com", "parameters": {
            "apiVersion": "resource.nvidia.com/v1beta1", "kind": "GpuConfig",
            "sharing": {"strategy": "MPS"}}}}]}}}}
V1ALPHA2_CLAIM = {
    "apiVersion": "resource.k8s.io/v1alpha2", "kind": "ResourceClaim",
    "metadata": {"name": "old"}, "spec": {"resourceClassName": "gpu.nvidia.com"}}
DEVICE_CLASS = {
    "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "fast"},
    "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.amd.com"'}}]}}


def _pod(*entries: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "app", "namespace": "ml"},
            "spec": {"template": {"spec": {
                "containers": [{"name": "main", "resources": {"claims": [{"name": "gpu"}]}}],
                "resourceClaims": list(entries)}}}}


@pytest.mark.parametrize(("obj", "asks"), [
    (V1_TEMPLATE, [("gpu", "gpu.nvidia.com", 2, False)]),
    (V1BETA1_CLAIM, [("mig", "mig.nvidia.com", None, False)]),
    (V1BETA2_ALTERNATIVES, [("one/big", "gpu.nvidia.com", 1, True),
                            ("one/small", "mig.nvidia.com", 2, True),
                            ("channel", "compute-domain-default-channel.nvidia.com", 1, False)]),
    (V1ALPHA2_CLAIM, [("", "gpu.nvidia.com", None, False)]),
])
def test_every_api_version_is_read(obj: dict[str, Any], asks: list[Any]) -> None:
    claim = dra.claim_of(obj)
    assert claim is not None
    assert [(a.request, a.device_class, a.count, a.alternative) for a in claim.asks] == asks


def test_a_pod_names_claims_both_ways_and_in_the_old_shape() -> None:
    pod = _pod({"name": "gpu", "resourceClaimTemplateName": "two-gpus"},
               {"name": "shared", "resourceClaimName": "migs"},
               {"name": "old", "source": {"resourceClaimName": "old"}}, "not an entry")
    found = [(c.name, c.kind, c.claim, c.path) for c in dra.pod_claims(pod)]
    base = ("spec", "template", "spec", "resourceClaims")
    assert found == [("gpu", "ResourceClaimTemplate", "two-gpus", (*base, 0)),
                     ("shared", "ResourceClaim", "migs", (*base, 1)),
                     ("old", "ResourceClaim", "old", (*base, 2))]


def test_gpu_classes_come_from_the_drivers_and_the_inputs_device_classes() -> None:
    claims = dra.index([DEVICE_CLASS])
    for name, vendor in (("gpu.nvidia.com", "NVIDIA"), ("mig.nvidia.com", "NVIDIA"),
                         ("vfio.gpu.nvidia.com", "NVIDIA"), ("gpu.amd.com", "AMD"),
                         ("gpu.intel.com", "Intel"), ("fast", "AMD")):
        found = dra.gpu_class(name, claims)
        assert found is not None and found.vendor == vendor and not found.guessed, name
    guess = dra.gpu_class("gpu.example.com")
    assert guess is not None and guess.guessed
    # an IMEX channel, a NIC, and "fast" without its DeviceClass: nothing says GPU
    for name in ("compute-domain-default-channel.nvidia.com", "rdma-net", "fast"):
        assert dra.gpu_class(name) is None, name


def test_gpu_devices_resolves_a_pod_over_the_input() -> None:
    """What ``plan`` and ``verify`` count: the GPUs each claim of the pod holds, a claim of
    other devices left out, a claim the input lacks kept (it may hold GPUs)."""
    pod = _pod({"name": "gpu", "resourceClaimTemplateName": "two-gpus"},
               {"name": "chan", "resourceClaimTemplateName": "any"},
               {"name": "gone", "resourceClaimName": "elsewhere"})
    claims = dra.index([V1_TEMPLATE, {**V1BETA2_ALTERNATIVES, "metadata": {
        "name": "any", "namespace": "ml"}}, DEVICE_CLASS], "default")
    held = dra.gpu_devices(pod["spec"]["template"], "ml", claims)
    assert [(h.entry.claim, h.claim is not None, [(a.device_class, a.count) for a, _ in h.asks])
            for h in held] == [
        ("two-gpus", True, [("gpu.nvidia.com", 2)]),
        ("any", True, [("gpu.nvidia.com", 1), ("mig.nvidia.com", 2)]),
        ("elsewhere", False, [])]
    assert dra.gpu_devices(pod["spec"]["template"], "other", claims)[0].claim is None
    assert [(h.devices, h.per_pod) for h in held] == [(2, True), (1, True), (None, False)]
    migs = dra.gpu_devices(_pod({"name": "m", "resourceClaimName": "migs"}), "default",
                           dra.index([V1BETA1_CLAIM]))
    assert [(h.devices, h.per_pod) for h in migs] == [(None, False)]  # allocationMode All


def _unmigrated(obj: dict[str, Any], claims: dra.ClaimIndex | None) -> list[finder.Unmigrated]:
    requests = finder.find_requests(obj, lambda name: name == "nvidia.com/gpu")
    known = finder.Known(True, (), lambda name: name == "nvidia.com/gpu", claims)
    return finder.unmigrated(obj, requests, known)


def test_a_claim_of_a_gpu_class_is_a_warning_naming_claim_class_and_count() -> None:
    found = _unmigrated(V1_TEMPLATE, None)
    assert [(u.rule, u.severity, u.path) for u in found] == [
        ("gpu-dra-claim", Severity.WARNING, ("spec", "spec", "devices", "requests", 0))]
    assert "'two-gpus'" in found[0].message and "2 devices of class gpu.nvidia.com" in \
        found[0].message and "nvidia.com/gpu: N" in found[0].message
    alternatives = _unmigrated(V1BETA2_ALTERNATIVES, None)
    assert [u.rule for u in alternatives] == ["gpu-dra-claim"]  # the channel is no GPU
    assert "the first available of: 1 device of class gpu.nvidia.com or 2 devices" in \
        alternatives[0].message


def test_a_pods_claims_resolved_over_the_input_or_not() -> None:
    pod = _pod({"name": "gpu", "resourceClaimTemplateName": "two-gpus"},
               {"name": "net", "resourceClaimName": "nic"})
    nic = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
           "metadata": {"name": "nic", "namespace": "ml"},
           "spec": {"devices": {"requests": [{"name": "n", "exactly": {
               "deviceClassName": "rdma-net"}}]}}}
    alone = _unmigrated(pod, None)
    assert [(u.rule, u.severity) for u in alone] == [("gpu-dra-claim-missing", Severity.INFO)] * 2
    assert "which this document does not hold" in alone[0].message
    resolved = _unmigrated(pod, dra.index([V1_TEMPLATE, nic]))
    assert [(u.rule, u.severity) for u in resolved] == [("gpu-dra-claim", Severity.WARNING)]
    assert "holds 2 devices of class gpu.nvidia.com through ResourceClaimTemplate 'two-gpus'" \
        in resolved[0].message
    missing = _unmigrated(pod, dra.index([nic]))
    assert [u.rule for u in missing] == ["gpu-dra-claim-missing"]
    assert "which this input does not hold" in missing[0].message


STREAM = "---\n".join(yaml.safe_dump(o, sort_keys=False) for o in (
    V1_TEMPLATE, V1BETA1_CLAIM, V1BETA2_ALTERNATIVES, V1ALPHA2_CLAIM, DEVICE_CLASS,
    _pod({"name": "gpu", "resourceClaimTemplateName": "two-gpus"})))


def test_check_reports_and_counts_every_gpu_claim(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "dra.yaml"
    path.write_text(STREAM)
    code = main(["check", "-p", "takeover", "--format", "json", str(path)])
    out, _ = capsys.readouterr()
    rules = sorted((f["tags"]["rule"], f["severity"]) for f in json.loads(out))
    assert code == 0
    assert rules == [("gpu-dra-claim", "warning")] * 5  # the pod's claim is in the input
    code = main(["check", "-p", "takeover", str(path)])
    assert code == 0 and "5 GPU requests not migrated (5 gpu-dra-claim)" in capsys.readouterr()[1]
    assert main(["check", "-p", "takeover", "--fail-on", "warning", str(path)]) == 1


def test_apply_leaves_dra_documents_as_they_are(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "dra.yaml"
    path.write_text(STREAM)
    assert main(["apply", "-p", "takeover", str(path)]) == 0
    out, err = capsys.readouterr()
    assert out == STREAM and "gpu-dra-claim" in err


def test_plan_counts_them_among_the_gpu_requests_not_migrated(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inventory = ROOT / "tests" / "cases" / "plan-rollout" / "daemonset-surge-fits" / "inventory.yaml"
    path = tmp_path / "dra.yaml"
    path.write_text(STREAM)
    main(["plan", "-p", "takeover", "--inventory", str(inventory), str(path)])
    assert "GPU requests not migrated: 5 (5 gpu-dra-claim)" in capsys.readouterr()[0]
