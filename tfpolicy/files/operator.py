"""A configuration's policies, knowing the GPU vendors its operator configuration lists.

The operator's ProviderConfigs (``operatorConfig:`` in ``.tfpolicy.yaml`` or
``--operator-config``) decide which accelerator resources are GPUs for every
command (docs/policy.md); read here, at the edge, for the commands and the
hosts alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfpolicy.files.sources import load_policy_set
from tfpolicy.gpus.resources import GpuResources
from tfpolicy.policy.project_config import Configuration
from tfpolicy.policy.rung import at_rung
from tfpolicy.records import replace
from tfpolicy.rewrite.engine import PolicySet

if TYPE_CHECKING:
    from tfpolicy.admission import Found
    from tfpolicy.gpus.resources import Provider


def loaded_policies(decided: Configuration) -> PolicySet:
    """The policies decided, at the configuration's ``rung:`` (``tfpolicy.policy.rung``),
    knowing the GPU vendors the operator's ProviderConfigs list."""
    loaded = load_policy_set(list(decided.policies), decided.base)
    if decided.rung is not None and decided.rung_at is not None:
        loaded = PolicySet.of(list(at_rung(loaded.policies, decided.rung, decided.rung_at)))
    return with_operator(loaded, decided)


def with_operator(policies: PolicySet, decided: Configuration) -> PolicySet:
    """``policies`` with the GPU vendors of the operator configuration decided (without
    one: the chart's default provider, NVIDIA)."""
    if not decided.operator:
        return policies
    providers = operator_providers(decided.operator, decided.namespace)
    extra = tuple(r for p in policies.policies for r in p.gpu_resources)
    return replace(policies, gpus=GpuResources(extra, providers))


def operator_providers(paths: tuple[str, ...], namespace: str) -> tuple[Provider, ...]:
    """The providers the webhook knows with the operator objects in ``paths`` loaded (the
    chart's NVIDIA provider unless one of them replaces it, as the webhook has them); a
    malformed object is bad input located at its file.

    The webhook's modules are imported here: a command given no operator configuration,
    most starts, needs none of them (docs/speed.md).
    """
    from tfpolicy.admission import operator_objects, webhook_config

    loaded = webhook_config({}, providers=operator_objects(operator_found(paths),
                                                           namespace).providers)
    return loaded.providers or ()


def operator_found(paths: tuple[str, ...]) -> list[Found]:
    """The operator's objects (ProviderConfig, GPUPool, …) in the files ``paths`` name,
    each with the file it came from (``<stdin>`` for ``-``)."""
    from tfpolicy import yamlio
    from tfpolicy.admission import Found
    from tfpolicy.admission.objects import is_operator_object
    from tfpolicy.files.listing import manifest_files
    from tfpolicy.files.sources import read_text, shown_name
    from tfpolicy.rewrite.engine import objects

    found = []
    for file in manifest_files(paths):
        shown = shown_name(file)
        for data in yamlio.load_all(read_text(file), file=shown):
            found += [Found(shown, obj) for _, obj in objects(data) if is_operator_object(obj)]
    return found
