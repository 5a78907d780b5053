"""Which container resources are GPUs (reference/tensor-fusion.md §2.2).

A MIG resource counts as one whole GPU; every ``nvidia.com/mig-*`` name is
recognised, not only the Helm chart's list, so new MIG profiles work too.
"""

from __future__ import annotations

from collections.abc import Iterable

DEFAULT_GPU_RESOURCES: tuple[str, ...] = (
    "nvidia.com/gpu",
    "amd.com/gpu",
    "huawei.com/Ascend310",
    "huawei.com/Ascend310P",
    "huawei.com/npu",
    "aliyun.com/ppu",
)
MIG_PREFIX = "nvidia.com/mig-"

# ProviderConfig.spec.vendor per resource-name domain (reference §1.2 `vendor`).
_VENDOR_BY_DOMAIN = {
    "nvidia.com": "NVIDIA", "amd.com": "AMD", "huawei.com": "Ascend", "aliyun.com": "PPU",
}


class GpuResources:
    """The recognised GPU resource names: the defaults plus a policy's extras."""

    __slots__ = ("_names",)

    def __init__(self, extra: Iterable[str] = ()) -> None:
        self._names = frozenset(DEFAULT_GPU_RESOURCES) | frozenset(extra)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and (name in self._names or name.startswith(MIG_PREFIX))

    def markers(self) -> tuple[str, ...]:
        """Substrings one of which any document using these resources must contain."""
        return tuple(sorted(self._names | {MIG_PREFIX}))


def vendor_of(resource: str) -> str:
    """The TensorFusion vendor string for a native resource name, or ``""`` (any vendor)."""
    return _VENDOR_BY_DOMAIN.get(resource.split("/", 1)[0], "")
