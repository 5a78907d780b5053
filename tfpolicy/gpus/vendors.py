"""Device-plugin resource names of accelerators, by vendor: what a "GPU request" is when it
is not one the configured TensorFusion providers list (docs/kinds.md, "No GPU request
passes in silence").

TensorFusion migrates only the names its loaded ProviderConfigs list
(:mod:`tfpolicy.gpus.resources`); a container asking for any name below still asks
for an accelerator, so a manifest holding one is either migrated (its vendor's
provider is configured, or the policy's ``gpuResources`` names it) or reported,
never passed in silence. Three rules, tried in order:

- the table (:data:`ACCELERATORS`): names each vendor's device plugin defines, each
  cited; an entry marked ``prefix`` covers every name that starts with it;
- the open rule (:data:`DOMAINS`): any name under a known accelerator vendor's domain,
  in any case (the next spelling of a vendor, ``huawei.com/ascend-1980``, is reported
  like the known ones); a domain that also names other devices (Tencent's network
  interfaces) counts only the names of its accelerators;
- the net: a name under any other domain that says GPU, NPU, MLU, DCU, GCU or XPU is
  *guessed* an accelerator, reported as a question, not a fact.
"""

from __future__ import annotations

import re

from tfpolicy.records import Record


class Accelerator(Record):
    name: str  # a resource name, or the start of several when ``prefix``
    vendor: str
    source: str
    prefix: bool = False
    guessed: bool = False  # named like an accelerator under no known vendor's domain


_HAMI = "Project-HAMi/HAMi@4707fb02 charts/hami/values.yaml:25-61"
_HAMI_DEVICES = "Project-HAMi/HAMi@4707fb02 charts/hami/templates/scheduler/device-configmap.yaml"
_NVIDIA_PLUGIN = "NVIDIA/k8s-device-plugin README.md (sharing: renameByDefault, mig-strategy)"
_KOORD = "koordinator-sh/koordinator@a7a1b76b apis/extension/device_share.go:44-59"

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
    # (NexusGPU/tensor-fusion config/samples/provider-ascend.yaml:57-61).
    Accelerator("huawei.com/Ascend", "Ascend",
                "Ascend/ascend-device-plugin README.md; " + _HAMI_DEVICES, prefix=True),
    Accelerator("huawei.com/npu", "Ascend",
                "NexusGPU/tensor-fusion config/samples/provider-ascend.yaml:57-61"),
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
    # Hygon DCU: HAMi pkg/device/hygon/device.go:89-91 (dcunum, dcumem, dcucores);
    # Koordinator's dcu.com/gpu.
    Accelerator("hygon.com/", "Hygon",
                "Project-HAMi/HAMi@4707fb02 pkg/device/hygon/device.go:89-91", prefix=True),
    Accelerator("dcu.com/gpu", "Hygon", _KOORD),
    # Enflame GCU, Kunlunxin XPU, Vastai, Biren, Iluvatar: HAMi's chart and device config.
    Accelerator("enflame.com/", "Enflame", _HAMI, prefix=True),
    Accelerator("kunlunxin.com/", "Kunlunxin", _HAMI, prefix=True),
    Accelerator("vastaitech.com/", "Vastai", _HAMI, prefix=True),
    Accelerator("birentech.com/", "Biren", _HAMI, prefix=True),
    Accelerator("iluvatar.ai/", "Iluvatar", _HAMI_DEVICES, prefix=True),
    # AWS Neuron (Inferentia, Trainium): HAMi's device-configmap.yaml:104-105.
    Accelerator("aws.amazon.com/neuron", "AWSNeuron", _HAMI_DEVICES, prefix=True),
    # Aliyun: GPU sharing (AliyunContainerService/gpushare-scheduler-extender pkg/utils/
    # const.go: aliyun.com/gpu-mem, aliyun.com/gpu-count) and PPU (NexusGPU/tensor-fusion
    # config/samples/provider-ppu.yaml:62-63: aliyun.com/ppu).
    Accelerator("aliyun.com/gpu-mem", "Aliyun",
                "AliyunContainerService/gpushare-scheduler-extender pkg/utils/const.go"),
    Accelerator("aliyun.com/gpu-count", "Aliyun",
                "AliyunContainerService/gpushare-scheduler-extender pkg/utils/const.go"),
    Accelerator("aliyun.com/ppu", "PPU",
                "NexusGPU/tensor-fusion config/samples/provider-ppu.yaml:62-63"),
    # Koordinator's GPU sharing and FPGA resources.
    Accelerator("koordinator.sh/gpu", "Koordinator", _KOORD, prefix=True),
    Accelerator("koordinator.sh/fpga", "Koordinator", _KOORD),
)


class Domain(Record):
    """A vendor's domain: every resource name under it (in any case) is an accelerator's,
    or only those starting with one of ``names`` (lower case) where the domain names other
    devices too."""

    domain: str
    vendor: str
    source: str
    names: tuple[str, ...] = ()


DOMAINS: tuple[Domain, ...] = (
    Domain("nvidia.com", "NVIDIA", _NVIDIA_PLUGIN),
    Domain("amd.com", "AMD", "ROCm/k8s-device-plugin README.md; " + _HAMI_DEVICES),
    Domain("gpu.intel.com", "Intel",
           "intel/intel-device-plugins-for-kubernetes cmd/gpu_plugin/README.md"),
    Domain("npu.intel.com", "Intel",
           "intel/intel-device-plugins-for-kubernetes cmd/npu_plugin/README.md"),
    Domain("habana.ai", "Habana", "HabanaAI/habanalabs-k8s-device-plugin README.md"),
    Domain("huawei.com", "Ascend", "Ascend/ascend-device-plugin README.md; " + _KOORD),
    Domain("cambricon.com", "Cambricon", _HAMI),
    Domain("hygon.com", "Hygon", _HAMI),
    Domain("dcu.com", "Hygon", _KOORD),
    Domain("metax-tech.com", "MetaX", _HAMI),
    Domain("iluvatar.ai", "Iluvatar", _HAMI_DEVICES),
    Domain("enflame.com", "Enflame", _HAMI),
    Domain("mthreads.com", "MooreThreads", _HAMI_DEVICES),
    Domain("kunlunxin.com", "Kunlunxin", _HAMI),
    Domain("baidu.com", "Kunlunxin", "Project-HAMi/HAMi@4707fb02 pkg/device/kunlun",
           ("xpu", "kunlun", "gpu")),
    Domain("vastaitech.com", "Vastai", _HAMI),
    Domain("birentech.com", "Biren", _HAMI),
    Domain("aws.amazon.com", "AWSNeuron", _HAMI_DEVICES, ("neuron",)),
    Domain("google.com", "Google", "GKE TPUs (google.com/tpu)", ("tpu",)),
    Domain("aliyun.com", "Aliyun",
           "AliyunContainerService/gpushare-scheduler-extender pkg/utils/const.go",
           ("gpu", "ppu", "npu")),
    # Tencent: tkestack/gpu-manager (tencent.com/vcuda-core, vcuda-memory) and TKE qGPU
    # (tke.cloud.tencent.com/qgpu-core, qgpu-memory); the same domains name ENIs too.
    Domain("tencent.com", "Tencent", "tkestack/gpu-manager README.md", ("vcuda",)),
    Domain("tke.cloud.tencent.com", "Tencent", "TKE qGPU documentation", ("qgpu",)),
    Domain("koordinator.sh", "Koordinator", _KOORD, ("gpu", "fpga")),
    # Volcano's vGPU device plugin (volcano-sh/devices README.md: volcano.sh/vgpu-number,
    # vgpu-memory, vgpu-cores) and its older gpu-share (volcano.sh/gpu-memory, gpu-number).
    Domain("volcano.sh", "Volcano", "volcano-sh/devices README.md", ("vgpu", "gpu")),
    Domain("hami.io", "HAMi", "Project-HAMi/HAMi@4707fb02 pkg/device", ("gpu", "vgpu")),
)

# The net's words, in a resource name's part after the domain, in any case, each opening
# a word of it (``vgpu``, ``my-npu``, ``gpu-memory``; not the ``npu`` of ``input``).
_WORDS = ("gpu", "npu", "mlu", "dcu", "gcu", "xpu")
_GUESS = re.compile(f"(?:^|[^a-z0-9])v?(?:{'|'.join(_WORDS)})", re.IGNORECASE)
# Resource names of Kubernetes itself: never an accelerator's.
_NATIVE = ("kubernetes.io", "k8s.io")
GUESSED_SOURCE = "docs/kinds.md (the open vendor rule)"

_EXACT = {a.name: a for a in ACCELERATORS if not a.prefix}
_PREFIXES = tuple(a for a in ACCELERATORS if a.prefix)
_DOMAINS = {d.domain: d for d in DOMAINS}


def accelerator(name: object) -> Accelerator | None:
    """The entry for a resource name: the table's, else the open rule's, else a guess from
    its words; ``None`` when it names no accelerator."""
    if not isinstance(name, str):
        return None
    found = _EXACT.get(name)
    if found is not None:
        return found
    found = next((a for a in _PREFIXES if name.startswith(a.name) and name != a.name), None)
    return found if found is not None else _open(name)


def _open(name: str) -> Accelerator | None:
    """A name under a known vendor's domain, in any case; else one whose words say it is an
    accelerator's, under a domain that is not Kubernetes' own."""
    domain, slash, rest = name.partition("/")
    if not slash or not rest or not domain:
        return None
    domain = domain.lower()
    known = _DOMAINS.get(domain)
    if known is not None and (not known.names or rest.lower().startswith(known.names)):
        return Accelerator(name, known.vendor, known.source)
    native = any(domain == n or domain.endswith("." + n) for n in _NATIVE)
    if native or domain.startswith("requests.") or not _GUESS.search(rest):
        return None
    return Accelerator(name, "", GUESSED_SOURCE, guessed=True)


def markers() -> tuple[str, ...]:
    """Substrings one of which a document asking for any of these must contain: the table's
    names, each vendor domain (as Kubernetes spells it, lower case), and the net's words
    (``npu`` only after ``/`` or ``-``, since ``input`` holds it; each marker is one more
    search of every document's text, so the rarer words are not spelled every way)."""
    words = ("gpu", "GPU", "Gpu", "/npu", "-npu", "NPU", *_WORDS[2:],
             *(w.upper() for w in _WORDS[2:]))
    return tuple(sorted({*(a.name for a in ACCELERATORS), *(d.domain + "/" for d in DOMAINS),
                         *words}))


_TF = "NexusGPU/tensor-fusion"
# Whether a TensorFusion ProviderConfig can take a vendor's devices, as the operator ships
# them (its providers and pkg/constants/vendors.go, where soft isolation is per vendor).
_WAYS = "configure its ProviderConfig (operatorConfig), or name it in the policy's gpuResources"
_OWN = ("configure its ProviderConfig, one of your own (operatorConfig), or name it in the "
        "policy's gpuResources")
_PROVIDERS = {
    "NVIDIA": f"TensorFusion's NVIDIA provider ({_TF} charts/tensor-fusion/values.yaml:155-204) "
              f"takes it once its inUseResourceNames lists it: {_WAYS}",
    "Ascend": f"TensorFusion's Ascend provider ({_TF} config/samples/provider-ascend.yaml:57-61) "
              f"takes it once its inUseResourceNames lists it: {_WAYS}",
    "MooreThreads": f"TensorFusion's Moore Threads provider ({_TF} config/samples/"
                    f"provider-mthreads.yaml) takes it once its inUseResourceNames lists it: "
                    f"{_WAYS}",
    "PPU": f"TensorFusion's PPU provider ({_TF} config/samples/provider-ppu.yaml:62-63) takes "
           f"it: {_WAYS}",
}
_UNFINISHED = ("AMD", "Hygon", "MetaX")  # pkg/constants/vendors.go:73-92: soft isolation WIP
_SHARES = ("Aliyun", "Tencent", "Koordinator", "Volcano", "HAMi")


def provider_text(vendor: str) -> str:
    """Whether a TensorFusion ProviderConfig can take this vendor's devices, and how."""
    if vendor in _PROVIDERS:
        return _PROVIDERS[vendor]
    if vendor in _UNFINISHED:
        return (f"TensorFusion ships no {vendor} provider (its {vendor} isolation is "
                f"unfinished: {_TF} pkg/constants/vendors.go:73-92): to migrate it, {_OWN}")
    if vendor in _SHARES:
        return (f"it is a share of a GPU that {vendor}'s scheduler hands out, which no "
                "TensorFusion provider counts: it stays with that scheduler")
    return (f"TensorFusion ships no provider for {vendor} devices: it stays with its device "
            f"plugin unless you {_OWN}")
