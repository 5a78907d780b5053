"""Whose keys: the pod-template keys each stage owns, and nothing else.

A stage owns exactly the keys it may write (docs/stages.md, "Whose keys"). Every
other key is the user's and is never touched, whatever its prefix: the
webhook reads many ``tensor-fusion.ai/*`` keys no stage writes
(``is-local-gpu``, ``sidecar-worker``, ``gpu-indices``, ``workload-profile``,
``gang-*``, ``disable-features``, ``dedicated-gpu``, ``require-gpu-topology``,
…; NexusGPU/tensor-fusion ``internal/webhook/v1/tf_parser.go:77-209``).

- takeover: label ``enabled``; annotations ``isolation``, ``enabled-replicas``,
  ``gpupool``, ``qos``, ``gpu-model``;
- rightsize: takeover's keys, plus ``tflops-*``, ``compute-percent-*``,
  ``vram-*``, ``gpu-count``, ``inject-container``, ``vendor``, ``autoscale``,
  ``autoscale-target``;
- rollback: none (it only undoes).

Every stage that writes also writes tfpolicy's record (``tfpolicy.dev/original``,
see :mod:`tfpolicy.stages.record`), which says which of these keys it wrote
and what the user had there before.
"""

from __future__ import annotations

TF = "tensor-fusion.ai/"
OWN = "tfpolicy.dev/"

ENABLED = TF + "enabled"
ISOLATION = TF + "isolation"
ENABLED_REPLICAS = TF + "enabled-replicas"
GPUPOOL = TF + "gpupool"
QOS = TF + "qos"
GPU_MODEL = TF + "gpu-model"
GPU_COUNT = TF + "gpu-count"
GPU_INDICES = TF + "gpu-indices"  # the user's: read by conflict checks, never written
INJECT_CONTAINER = TF + "inject-container"
VENDOR = TF + "vendor"
AUTOSCALE = TF + "autoscale"
AUTOSCALE_TARGET = TF + "autoscale-target"
TFLOPS = (TF + "tflops-request", TF + "tflops-limit")
PERCENT = (TF + "compute-percent-request", TF + "compute-percent-limit")
VRAM = (TF + "vram-request", TF + "vram-limit")

TAKEOVER_LABELS = frozenset({ENABLED})
TAKEOVER_ANNOTATIONS = frozenset({ISOLATION, ENABLED_REPLICAS, GPUPOOL, QOS, GPU_MODEL})
RIGHTSIZE_LABELS = TAKEOVER_LABELS
RIGHTSIZE_ANNOTATIONS = TAKEOVER_ANNOTATIONS | frozenset({
    *TFLOPS, *PERCENT, *VRAM, GPU_COUNT, INJECT_CONTAINER, VENDOR, AUTOSCALE, AUTOSCALE_TARGET,
})

# Every key some stage may write: a legacy record (below) vouches for these only.
OWNED_LABELS = TAKEOVER_LABELS | RIGHTSIZE_LABELS
OWNED_ANNOTATIONS = TAKEOVER_ANNOTATIONS | RIGHTSIZE_ANNOTATIONS

RECORD = OWN + "original"
# The record as rightsize wrote it before the keys were recorded too: only the
# removed GPU resources, as ``container -> limits|requests -> resource -> value``.
LEGACY_RECORD = OWN + "original-gpu-resources"
RECORDS = (RECORD, LEGACY_RECORD)
