"""Parsed inventory YAML → scheduler records (no file I/O here: ``tfpolicy.files.inputs``
reads the file).

Modules: `compact` (the compact form), `kubectl` (the objects), `settings`
(the operator's scheduling configuration, from an inventory or Helm values:
`settings_from_values`), `fields` (typed field readers and the size limits).

Two forms are read:

* the compact ``apiVersion: tfpolicy.dev/v1alpha1, kind: Inventory``
  (`schemas/inventory.schema.json`): pools of node groups (``count`` ×
  ``gpusPerNode`` of a ``model`` looked up in the GPU tables, optional
  ``tflops``/``vram``/``costPerHour`` overrides), plus ``devicePluginOnly``
  node groups outside every pool. Nodes are named ``<group>-000`` and GPUs
  ``<node>-gpu<i>``; a GPU's model is the table's full name, which is what
  `GPU.status.gpuModel` holds and `tensor-fusion.ai/gpu-model` must equal;
* what ``kubectl get gpupool,gpunode,gpu -o yaml`` prints (a ``v1 List``, or the
  objects as separate documents), optionally with SchedulingConfigTemplates
  for the pools' placement mode (NexusGPU/tensor-fusion
  api/v1/schedulingconfigtemplate_types.go:55).

Costs are per GPU: the table's, the group's ``costPerHour``, or a GPUNode's
``spec.costPerHour`` split evenly over its GPUs.

Sizes are bounded so a typo cannot hang the plan or exhaust memory: at most
10,000 nodes and 100,000 GPUs in all, 100,000 TFLOPS and 16 TiB of VRAM per
GPU, 1 PiB of host RAM or disk per node, $10,000 per GPU per hour; numbers
must be finite, with at most 30 digits and a 3-digit exponent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfpolicy.errors import TfpolicyError
from tfpolicy.inventory.compact import API_VERSION, from_compact
from tfpolicy.inventory.fields import MAX_GPUS, MAX_NODES
from tfpolicy.inventory.kubectl import from_kubectl
from tfpolicy.inventory.settings import from_values as settings_from_values
from tfpolicy.policy.schema import validate
from tfpolicy.scheduler.model import Inventory

__all__ = ["API_VERSION", "MAX_GPUS", "MAX_NODES", "checked_inventory", "from_compact",
           "from_kubectl", "load_inventory", "settings_from_values"]


def checked_inventory(documents: list[Any], file: str) -> Inventory:
    """The inventory an inventory file's documents give, every error at ``file``: a compact
    Inventory is held to its schema first (``schemas/inventory.schema.json``), so that its
    first violation is said with its JSON path rather than as whatever reading it trips on."""
    if len(documents) == 1 and _is_compact(documents[0]):
        problems = validate(documents[0], "inventory")
        if problems:
            first = problems[0]
            raise TfpolicyError(f"{first.message} ({first.json_path})", file=file)
    try:
        return load_inventory(documents)
    except TfpolicyError as exc:
        raise exc.located(file) from None


def load_inventory(documents: Any) -> Inventory:
    """An Inventory from one parsed document or a list of them (multi-document YAML)."""
    docs = [d for d in (documents if isinstance(documents, list) else [documents]) if d]
    if len(docs) == 1 and _is_compact(docs[0]):
        return from_compact(docs[0])
    if any(_is_compact(d) for d in docs):
        raise TfpolicyError("a compact Inventory must be the only document")
    return from_kubectl(docs)


def _is_compact(doc: Any) -> bool:
    return isinstance(doc, Mapping) and doc.get("kind") == "Inventory"
