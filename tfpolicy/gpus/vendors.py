"""Device-plugin resource names of accelerators, by vendor: what a "GPU request" is when it
is not one the configured TensorFusion providers list (DESIGN §4a, issue 25).

TensorFusion migrates only the names its loaded ProviderConfigs list
(:mod:`tfpolicy.gpus.resources`); a container asking for any name below still asks
for an accelerator, so a manifest holding one is either migrated (its vendor's
provider is configured, or the policy's ``gpuResources`` names it) or reported,
never passed in silence. Each entry cites where its vendor's device plugin (or the
HAMi scheduler, which registers several vendors' sharing resources) defines it.
An entry marked ``prefix`` covers every name that starts with it (Intel's
``gpu.intel.com/*``, Ascend's ``huawei.com/Ascend*`` models).
"""

from __future__ import annotations

from tfpolicy.records import Record


class Accelerator(Record):
    name: str  # a resource name, or the start of several when ``prefix``
    vendor: str
    source: str
    prefix: bool = False


_HAMI = "Project-HAMi/HAMi@4707fb02 charts/hami/values.yaml:25-61"
_HAMI_DEVICES = "Project-HAMi/HAMi@4707fb02 charts/hami/templates/scheduler/device-configmap.yaml"
_NVIDIA_PLUGIN = "NVIDIA/k8s-device-plugin README.md (sharing: renameByDefault, mig-strategy)"

ACCELERATORS: tuple[Accelerator, ...] = (
    # NVIDIA: the whole GPU, MIG instances (mig-strategy mixed) and time-sliced replicas
    # renamed with renameByDefault ("<name>.shared").
    Accelerator("nvidia.com/gpu", "NVIDIA", _NVIDIA_PLUGIN),
    Accelerator("nvidia.com/mig-", "NVIDIA", _NVIDIA_PLUGIN, prefix=True),
    Accelerator("nvidia.com/gpu.shared", "NVIDIA", _NVIDIA_PLUGIN),
    # AMD: ROCm/k8s-device-plugin README.md ("amd.com/gpu"); HAMi's AMD sharing names.
    Accelerator("amd.com/gpu", "AMD", "ROCm/k8s-device-plugin README.md; " + _HAMI_DEVICES),
    Accelerator("amd.com/gpucores", "AMD", _HAMI_DEVICES),
    Accelerator("amd.com/gpumem", "AMD", _HAMI_DEVICES),
    # Intel: intel/intel-device-plugins-for-kubernetes cmd/gpu_plugin/README.md, the
    # resource table (i915, xe, and their monitoring and millicores resources).
    Accelerator("gpu.intel.com/", "Intel",
                "intel/intel-device-plugins-for-kubernetes cmd/gpu_plugin/README.md",
                prefix=True),
    # Habana Gaudi: HabanaAI/habanalabs-k8s-device-plugin README.md ("habana.ai/gaudi").
    Accelerator("habana.ai/gaudi", "Habana", "HabanaAI/habanalabs-k8s-device-plugin README.md"),
    # Huawei Ascend: Ascend/ascend-device-plugin README.md (huawei.com/Ascend910,
    # Ascend310, Ascend310P and their virtual "-Nc" instances); HAMi's vNPU names
    # (huawei.com/Ascend910B2, ...-memory, ...-core); TensorFusion's Ascend provider sample
    # (config/samples/provider-ascend.yaml: Ascend310, Ascend310P, npu; reference §2.2).
    Accelerator("huawei.com/Ascend", "Ascend",
                "Ascend/ascend-device-plugin README.md; " + _HAMI_DEVICES, prefix=True),
    Accelerator("huawei.com/npu", "Ascend", "TensorFusion config/samples/provider-ascend.yaml"),
    # Cambricon MLU: Project-HAMi/HAMi pkg/device/cambricon/device.go:79-81 and the chart.
    Accelerator("cambricon.com/", "Cambricon",
                "Project-HAMi/HAMi@4707fb02 pkg/device/cambricon/device.go:79-81; " + _HAMI,
                prefix=True),
    # MetaX: HAMi's device-configmap.yaml:64 (metax-tech.com/gpu) and chart (sgpu, vcore,
    # vmemory).
    Accelerator("metax-tech.com/", "MetaX", _HAMI_DEVICES + "; " + _HAMI, prefix=True),
    # Moore Threads: HAMi pkg/device/mthreads/device.go:89-91 (vgpu, sgpu-memory, sgpu-core);
    # its own device plugin registers mthreads.com/gpu.
    Accelerator("mthreads.com/", "MooreThreads",
                "Project-HAMi/HAMi@4707fb02 pkg/device/mthreads/device.go:89-91", prefix=True),
    # Hygon DCU: HAMi pkg/device/hygon/device.go:89-91 (dcunum, dcumem, dcucores).
    Accelerator("hygon.com/", "Hygon",
                "Project-HAMi/HAMi@4707fb02 pkg/device/hygon/device.go:89-91", prefix=True),
    # Enflame GCU, Kunlunxin XPU, Vastai, Biren, Iluvatar: HAMi's chart and device config.
    Accelerator("enflame.com/", "Enflame", _HAMI, prefix=True),
    Accelerator("kunlunxin.com/", "Kunlunxin", _HAMI, prefix=True),
    Accelerator("vastaitech.com/", "Vastai", _HAMI, prefix=True),
    Accelerator("birentech.com/", "Biren", _HAMI, prefix=True),
    Accelerator("iluvatar.ai/", "Iluvatar", _HAMI_DEVICES, prefix=True),
    # AWS Neuron (Inferentia, Trainium): HAMi's device-configmap.yaml:104-105.
    Accelerator("aws.amazon.com/neuron", "AWSNeuron", _HAMI_DEVICES, prefix=True),
    # Aliyun: GPU sharing (AliyunContainerService/gpushare-scheduler-extender pkg/utils/
    # const.go: aliyun.com/gpu-mem, aliyun.com/gpu-count) and PPU (TensorFusion
    # config/samples/provider-ppu.yaml: aliyun.com/ppu; reference §2.2).
    Accelerator("aliyun.com/gpu-mem", "Aliyun",
                "AliyunContainerService/gpushare-scheduler-extender pkg/utils/const.go"),
    Accelerator("aliyun.com/gpu-count", "Aliyun",
                "AliyunContainerService/gpushare-scheduler-extender pkg/utils/const.go"),
    Accelerator("aliyun.com/ppu", "PPU", "TensorFusion config/samples/provider-ppu.yaml"),
)

_EXACT = {a.name: a for a in ACCELERATORS if not a.prefix}
_PREFIXES = tuple(a for a in ACCELERATORS if a.prefix)


def accelerator(name: object) -> Accelerator | None:
    """The table's entry for a resource name, or ``None`` when it names no accelerator."""
    if not isinstance(name, str):
        return None
    found = _EXACT.get(name)
    if found is not None:
        return found
    return next((a for a in _PREFIXES if name.startswith(a.name) and name != a.name), None)


def markers() -> tuple[str, ...]:
    """Substrings one of which a document asking for any of these must contain."""
    return tuple(sorted({a.name for a in ACCELERATORS}))
