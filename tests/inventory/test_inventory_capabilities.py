"""A GPU object's capability annotation and allocated partitions, as the inventory reads them.

Upstream (NexusGPU/tensor-fusion at 3e0a4901): the hypervisor writes the
device's capabilities as JSON into `tensor-fusion.ai/virtualization-capabilities`
(`pkg/hypervisor/backend/kubernetes/kubernetes_backend.go:383-392`); the
allocator decodes it with Go's `encoding/json` and treats a decoding error,
an empty or a missing annotation as "no metadata", which allows every mode
(`internal/gpuallocator/filter/virtualization_capabilities.go:23-37`,
`gpu_isolation_mode_filter.go:56-76`).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tfpolicy.errors import TfpolicyError
from tfpolicy.inventory import load_inventory
from tfpolicy.scheduler import GPU, Isolation

KEY = "tensor-fusion.ai/virtualization-capabilities"
SOFT, HARD, PART = Isolation.SOFT, Isolation.HARD, Isolation.PARTITIONED
# What the Go struct marshals to (every field, `virtualization_capabilities.go:10-21`).
FULL = {"SupportsPartitioning": False, "SupportsSoftIsolation": True,
        "SupportsHardIsolation": True, "SupportsSnapshot": False, "SupportsMetrics": True,
        "SupportsRemoting": False, "MaxPartitions": 0, "MaxWorkersPerDevice": 16}


def _gpu_object(annotation: Any = None, partitions: Any = None) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": "g0", "labels": {"tensor-fusion.ai/gpupool": "p"}}
    if annotation is not None:
        metadata["annotations"] = {KEY: annotation}
    status: dict[str, Any] = {"phase": "Running", "gpuModel": "NVIDIA L4",
                              "nodeSelector": {"kubernetes.io/hostname": "n0"},
                              "capacity": {"tflops": "121", "vram": "24Gi"}}
    if partitions is not None:
        status["allocatedPartitions"] = partitions
    return {"apiVersion": "tensor-fusion.ai/v1", "kind": "GPU", "metadata": metadata,
            "status": status}


def _read(annotation: Any = None, partitions: Any = None) -> GPU:
    (gpu,) = load_inventory([_gpu_object(annotation, partitions)]).gpus
    return gpu


@pytest.mark.parametrize(("annotation", "expected"), [
    # gpu_isolation_mode_filter_test.go:15-17: only SupportsHardIsolation set
    (json.dumps({**dict.fromkeys(FULL, False), "MaxPartitions": 0, "MaxWorkersPerDevice": 0,
                 "SupportsHardIsolation": True}), {HARD}),
    # :18-20: only SupportsPartitioning set
    (json.dumps({"SupportsPartitioning": True}), {PART}),
    # :80: the zero struct, everything explicitly unsupported
    (json.dumps(dict.fromkeys(FULL, False) | {"MaxPartitions": 0, "MaxWorkersPerDevice": 0}),
     set()),
    (json.dumps(FULL), {SOFT, HARD}),
    # Go's decoder matches keys without ASCII case; the last duplicate wins
    ('{"supportssoftisolation": true, "SUPPORTSHARDISOLATION": true}', {SOFT, HARD}),
    ('{"SupportsHardIsolation": true, "supportsHardIsolation": false}', set()),
    # unknown keys are ignored, null leaves a field unset, `null` itself is the zero struct
    ('{"SupportsSoftIsolation": true, "FutureFlag": "x", "SupportsHardIsolation": null}',
     {SOFT}),
    ("null", set()),
    ("{}", set()),
])
def test_capability_annotation_gives_the_allowed_modes(annotation: str,
                                                       expected: set[Isolation]) -> None:
    """`virtualization_capabilities.go:31-36`: a cleanly decoded value is metadata, and a
    flag it does not set is false."""
    assert _read(annotation).isolations == frozenset(expected)


@pytest.mark.parametrize("annotation", [
    None,  # no annotation: gpu_isolation_mode_filter_test.go:59 (legacy GPU)
    "",  # virtualization_capabilities.go:28-30
    "not json", "[]", "true", "3", '"SupportsHardIsolation"', "{",
    '{"SupportsHardIsolation": "true"}',  # a string where Go wants a bool
    '{"SupportsHardIsolation": 1}',
    '{"SupportsHardIsolation": true, "MaxPartitions": -1}',  # uint32 fields
    '{"SupportsHardIsolation": true, "MaxPartitions": 1.0}',
    '{"SupportsHardIsolation": true, "MaxPartitions": 1e2}',
    '{"SupportsHardIsolation": true, "MaxPartitions": 4294967296}',
    '{"SupportsHardIsolation": true, "MaxWorkersPerDevice": {}}',
    '{"SupportsHardIsolation": true, "MaxPartitions": NaN}',
    '{"SupportsHardIsolation": true} trailing',
])
def test_undecodable_annotation_means_no_metadata(annotation: str | None) -> None:
    """`virtualization_capabilities.go:24-34`: any decoding error keeps the legacy
    behaviour, every mode allowed (`gpu_isolation_mode_filter.go:61-64`)."""
    assert _read(annotation).isolations is None


def test_a_count_that_fits_uint32_is_metadata() -> None:
    gpu = _read('{"SupportsSoftIsolation": true, "MaxPartitions": 4294967295}')
    assert gpu.isolations == frozenset({SOFT})


@pytest.mark.parametrize(("annotation", "message"), [
    ({"SupportsHardIsolation": True}, "must be a string (GPU g0 metadata.annotations)"),
    ('{"SupportsHardIſolation": true}', "not ASCII"),  # Go would fold the long s onto s
    ("x" * 70_000, "over 65536 characters"),
])
def test_annotations_the_simulation_cannot_read_are_refused(annotation: Any,
                                                             message: str) -> None:
    with pytest.raises(TfpolicyError, match=re.escape(message)):
        _read(annotation)


@pytest.mark.parametrize(("partitions", "count"), [
    (None, 0), ({}, 0),
    ({"uid-a": {"templateId": "nv-80g-3g-40gb", "podUid": "uid-a"}}, 1),
    ({"uid-a": {"podUid": "uid-a"}, "uid-b": {"podUid": "uid-b"}}, 2),
])
def test_allocated_partitions_are_counted(partitions: Any, count: int) -> None:
    """`status.allocatedPartitions` maps a pod UID to its partition (`api/v1/gpu_types.go`);
    `shared_whole_gpu_filter.go:28` only asks whether it has entries."""
    assert _read(partitions=partitions).partitions == count


def test_allocated_partitions_must_be_a_mapping() -> None:
    with pytest.raises(TfpolicyError, match=r"GPU g0 status.allocatedPartitions"):
        _read(partitions=["uid-a"])


def test_gpus_without_the_new_fields_read_as_before() -> None:
    gpu = _read()
    assert (gpu.isolations, gpu.partitions) == (None, 0)
