"""Which container resources are GPUs: the one rule the rewrite and the webhook share.

The operator learns GPU resource names from its loaded ProviderConfigs
(``spec.inUseResourceNames``, one vendor each). The Helm chart ships one
provider, NVIDIA, with ``nvidia.com/gpu`` and an explicit list of 23 MIG
names (``charts/tensor-fusion/values.yaml:155-204``); that is the default
here. A MIG name outside the list is not a GPU to the operator, so not to
tfpolicy either. Only when no provider is loaded at all does the webhook's
GPU check fall back to ``nvidia.com/gpu`` and ``amd.com/gpu``
(``internal/utils/reconcile.go:265-285``); the native-limit scan and the
limit removal then find nothing, since both read the providers' names
(``tf_parser.go`` ``GetGPUResourceNames``). A policy's ``spec.gpuResources``
adds names on top, for the rewrite and the webhook alike.

HAMi's GPU-sharing resources are known here too, once: they are not GPUs to
the operator (no ProviderConfig lists them, so its webhook neither counts nor
strips them), but a container asking for them asks HAMi for a GPU share.
"""

from __future__ import annotations

from collections.abc import Iterable

from tfpolicy.records import Record

MIG_PREFIX = "nvidia.com/mig-"

CHART_MIG_RESOURCES: tuple[str, ...] = tuple(f"nvidia.com/mig-{p}" for p in (
    # 80 GB family (A100/H100/A800/H800)
    "1g.10gb", "1g.10gb.me", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb",
    # H200 141 GB family
    "1g.18gb", "1g.18gb.me", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb",
    # 40 GB family (A100/A800)
    "1g.5gb", "1g.5gb.me", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb",
    # A30
    "1g.6gb", "2g.12gb", "4g.24gb",
))
FALLBACK_GPU_RESOURCES: tuple[str, ...] = ("nvidia.com/gpu", "amd.com/gpu")


class Provider(Record):
    """One ProviderConfig as the webhook reads it: its vendor and in-use resource names."""

    name: str
    vendor: str
    resources: tuple[str, ...]


CHART_PROVIDER = Provider("nvidia-provider", "NVIDIA", ("nvidia.com/gpu", *CHART_MIG_RESOURCES))

# Before ProviderConfigs, tfpolicy guessed these; kept for `vendor_of` on policy extras.
_VENDOR_BY_DOMAIN = {
    "nvidia.com": "NVIDIA", "amd.com": "AMD", "huawei.com": "Ascend", "aliyun.com": "PPU",
}


class GpuResources:
    """The recognised GPU resource names: the providers' names plus a policy's extras.

    ``providers=None`` means the chart default; ``()`` means no provider is
    loaded (the webhook's fallback names are then GPUs for detection only).
    """

    __slots__ = ("_extra", "_names", "_providers", "_vendors")

    def __init__(self, extra: Iterable[str] = (),
                 providers: tuple[Provider, ...] | None = None) -> None:
        self._providers = (CHART_PROVIDER,) if providers is None else tuple(providers)
        self._extra = frozenset(extra)
        self._vendors = {r: p.vendor for p in reversed(self._providers) for r in p.resources}
        base = frozenset(self._vendors) if self._providers else frozenset(FALLBACK_GPU_RESOURCES)
        self._names = base | self._extra

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._names

    @property
    def name_set(self) -> frozenset[str]:
        """Every name ``in`` holds, as a set (a key that is not a string is in none)."""
        return self._names

    @property
    def providers(self) -> tuple[Provider, ...]:
        return self._providers

    def in_use(self) -> GpuResources:
        """The names the webhook scans and strips: none of the fallback ones (module doc)."""
        if self._providers:
            return self
        return GpuResources(self._extra, (Provider("", "", ()),))

    def with_extra(self, extra: Iterable[str]) -> GpuResources:
        return GpuResources(self._extra | frozenset(extra), self._providers)

    def vendor(self, resource: str) -> str:
        """The provider's vendor for a resource name; ``""`` (any vendor) when unknown."""
        return self._vendors.get(resource, "")

    def names(self) -> tuple[str, ...]:
        return tuple(sorted(self._names))

    def markers(self) -> tuple[str, ...]:
        """Substrings one of which any document using these resources must contain."""
        return self.names()


# HAMi (Project-HAMi/HAMi at 4707fb02), its chart defaults; a cluster may rename them.
# pkg/scheduler/config/config.go:301-305: the NVIDIA resource names.
HAMI_MEMORY = "nvidia.com/gpumem"  # MiB per GPU (× memoryFactor, default 1)
HAMI_MEMORY_PERCENT = "nvidia.com/gpumem-percentage"  # % of the card's memory, 0-100
HAMI_CORES = "nvidia.com/gpucores"  # % of the card's SMs
HAMI_PRIORITY = "nvidia.com/priority"  # task priority, 0 high or 1 low
HAMI_RESOURCES: tuple[str, ...] = (HAMI_MEMORY, HAMI_MEMORY_PERCENT, HAMI_CORES, HAMI_PRIORITY)
# A container with one of these and no nvidia.com/gpu gets one GPU from HAMi's webhook
# (pkg/device/nvidia/device.go:398-415, defaultGPUNum 1).
HAMI_DEFAULT_GPUS = 1
# HAMi's pod annotations: pkg/device/nvidia/device.go:45-53, pkg/util/types.go:87-91.
HAMI_USE_TYPE = "nvidia.com/use-gputype"  # comma list, each a substring of the card type
HAMI_ANNOTATIONS: tuple[str, ...] = (
    HAMI_USE_TYPE, "nvidia.com/nouse-gputype", "nvidia.com/use-gpuuuid",
    "nvidia.com/nouse-gpuuuid", "nvidia.com/vgpu-mode", "nvidia.com/numa-bind",
    "hami.io/gpu-scheduler-policy", "hami.io/node-scheduler-policy",
    "hami.io/device-scoring-weights",
)


def is_hami(resource: str) -> bool:
    """A HAMi sharing resource: not a GPU count, a share of one GPU."""
    return resource in HAMI_RESOURCES


class Hami(Record):
    """HAMi's NVIDIA device configuration, as far as tfpolicy reads it; the defaults are its
    chart's. Operators rename the resources through the chart values ``resourceMem``,
    ``resourceMemPercentage``, ``resourceCores``, ``resourcePriority`` (charts/hami/
    values.yaml:26-29), which become the device config's ``resourceMemoryName`` ... keys
    (templates/scheduler/device-configmap.yaml), and may scale memory with its
    ``memoryFactor``: a ``gpumem`` value times the factor is the MiB HAMi reserves
    (pkg/device/nvidia/device.go:535-548, at most int32 after scaling)."""

    memory: str = HAMI_MEMORY
    memory_percent: str = HAMI_MEMORY_PERCENT
    cores: str = HAMI_CORES
    priority: str = HAMI_PRIORITY
    memory_factor: int = 1

    @property
    def resources(self) -> tuple[str, ...]:
        return (self.memory, self.memory_percent, self.cores, self.priority)


HAMI = Hami()


def vendor_of(resource: str) -> str:
    """A vendor string guessed from a resource name's domain, or ``""`` (any vendor)."""
    return _VENDOR_BY_DOMAIN.get(resource.split("/", 1)[0], "")
