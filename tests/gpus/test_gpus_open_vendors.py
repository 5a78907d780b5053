"""The open vendor rule (docs/kinds.md): a name the table lacks under a known accelerator
vendor's domain, in any case, is that vendor's; a name under any other domain whose words
say GPU, NPU, MLU, DCU, GCU or XPU is a guess; nothing else is an accelerator. Names written
from the vendors' public device plugins and schedulers (Volcano's Ascend 910B name, a
partitioning scheme's NVIDIA name, Koordinator's, HAMi's, Tencent's and Intel's)."""

from __future__ import annotations

import pytest

from tfpolicy.gpus.vendors import Accelerator, accelerator, markers, provider_text


@pytest.mark.parametrize(("name", "vendor"), [
    ("huawei.com/ascend-1980", "Ascend"),  # Volcano's Ascend 910B name
    ("huawei.com/Ascend910B", "Ascend"), ("huawei.com/npu-core", "Ascend"),  # Koordinator's
    ("nvidia.com/gpu-10gb", "NVIDIA"), ("NVIDIA.COM/GPU", "NVIDIA"), ("Nvidia.com/Gpu", "NVIDIA"),
    ("dcu.com/gpu", "Hygon"), ("koordinator.sh/gpu-core", "Koordinator"),
    ("koordinator.sh/gpu-memory-ratio", "Koordinator"), ("volcano.sh/vgpu-number", "Volcano"),
    ("tencent.com/vcuda-core", "Tencent"), ("tke.cloud.tencent.com/qgpu-memory", "Tencent"),
    ("npu.intel.com/accel", "Intel"), ("gpu.intel.com/xe", "Intel"),
    ("iluvatar.ai/BI-V150-vgpu", "Iluvatar"), ("enflame.com/drs-gcu", "Enflame"),
    ("kunlunxin.com/vxpu", "Kunlunxin"), ("aws.amazon.com/neuroncore", "AWSNeuron"),
    ("google.com/tpu", "Google"), ("hami.io/vgpu", "HAMi"), ("amd.com/gpu-mem", "AMD"),
])
def test_a_known_vendors_name_is_that_vendors(name: str, vendor: str) -> None:
    found = accelerator(name)
    assert found is not None and found.vendor == vendor and not found.guessed


@pytest.mark.parametrize("name", [
    "example.com/gpu", "acme.io/My-NPU", "foo.dev/vgpu-memory", "x.y/mlu", "corp.net/gcu_count",
])
def test_a_name_that_says_gpu_under_another_domain_is_a_guess(name: str) -> None:
    found = accelerator(name)
    assert found is not None and found.guessed and found.vendor == ""


@pytest.mark.parametrize("name", [
    "cpu", "memory", "ephemeral-storage", "hugepages-2Mi", "example.com/foo",
    "foo.io/input",  # "npu" inside a word is no NPU
    "tke.cloud.tencent.com/eni-ip", "koordinator.sh/rdma", "aws.amazon.com/efa",
    "kubernetes.io/gpu", "requests.nvidia.com/gpu", "nvidia.com/", "/gpu", 7, None,
])
def test_other_names_are_no_accelerator(name: object) -> None:
    assert accelerator(name) is None


def test_the_table_comes_before_the_open_rule() -> None:
    found = accelerator("huawei.com/Ascend910")
    assert isinstance(found, Accelerator) and found.prefix and found.name == "huawei.com/Ascend"


@pytest.mark.parametrize(("vendor", "says"), [
    ("NVIDIA", "inUseResourceNames"), ("Ascend", "provider-ascend.yaml"),
    ("MooreThreads", "provider-mthreads.yaml"), ("PPU", "provider-ppu.yaml"),
    ("AMD", "ships no AMD provider"), ("Hygon", "ships no Hygon provider"),
    ("Volcano", "stays with that scheduler"), ("Cambricon", "ships no provider for Cambricon"),
])
def test_each_vendor_is_told_whether_a_provider_takes_it(vendor: str, says: str) -> None:
    assert says in provider_text(vendor)


def test_every_vendor_domain_is_a_marker() -> None:
    """A document naming a vendor's resource (its domain in lower case, as Kubernetes
    requires) is read, whatever the name after the domain."""
    found = markers()
    for name in ("huawei.com/ascend-1980", "koordinator.sh/gpu-core", "google.com/tpu",
                 "tencent.com/vcuda-core", "example.com/my-npu", "x.y/MLU"):
        assert any(m in name for m in found), name
