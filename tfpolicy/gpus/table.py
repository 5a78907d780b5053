"""GPU model tables (NexusGPU/tensor-fusion charts/tensor-fusion/values.yaml:222, the
ProviderConfig's ``hardwareMetadata``; charts/tensor-fusion/templates/gpu-public-gpu-info.yaml),
pure data and one lookup.

Table B (ProviderConfig `hardwareMetadata`) is what TensorFusion uses at
runtime to fill `GPU.status.capacity.tflops`, so it wins; Table A (the older
public gpu-info sheet) is the fallback for models B does not list. Neither
carries VRAM: that comes from the vendors' nominal sizes (docs/plan.md; None where unknown or
ambiguous, e.g. V100 ships with 16 or 32 GiB). Lookup matches `model` or
`fullModelName`, case-insensitively, with or without the vendor prefix,
as the hypervisor does (a GPU object's `status.capacity`, docs/plan.md).
"""

from __future__ import annotations

import re
from decimal import Decimal
from functools import cache

from tfpolicy.records import Record


class GpuInfo(Record):
    """One GPU model: TFLOPS and cost as the table's decimal strings, VRAM in GiB."""

    model: str
    full_name: str
    vendor: str
    fp16_tflops: str
    vram_gib: int | None
    cost_per_hour: str
    table: str

    @property
    def milli_tflops(self) -> int:
        return int(Decimal(self.fp16_tflops) * 1000)

    @property
    def vram_mib(self) -> int | None:
        return None if self.vram_gib is None else self.vram_gib * 1024

    @property
    def cost_micro_usd(self) -> int:
        """Cost per hour in micro-USD (the scheduler's integer unit)."""
        return int(Decimal(self.cost_per_hour) * 1_000_000)


# Table B (ProviderConfig hardwareMetadata, runtime): model, fullModelName, fp16TFlops, cost/h
_TABLE_B: tuple[tuple[str, str, str, str], ...] = (
    ("A100_SXM_80G", "NVIDIA A100-SXM4-80GB", "312", "1.89"),
    ("A100_PCIe_80G", "NVIDIA A100 80GB PCIe", "312", "1.79"),
    ("A800_SXM_80G", "NVIDIA A800-SXM4-80GB", "312", "1.89"),
    ("A800_PCIe_80G", "NVIDIA A800-PCIE-80GB", "312", "1.79"),
    ("H100_SXM", "NVIDIA H100 80GB HBM3", "989", "2.99"),
    ("H100_PCIe_80G", "NVIDIA H100 PCIe", "756", "2.79"),
    ("H800_SXM", "NVIDIA H800 80GB HBM3", "989", "2.99"),
    ("H800_PCIe", "NVIDIA H800 PCIe", "756", "2.79"),
    ("H200", "NVIDIA H200", "989", "3.99"),
    ("H200_NVL", "NVIDIA H200 NVL", "835", "3.99"),
    ("A100_SXM_40G", "NVIDIA A100-SXM4-40GB", "312", "1.49"),
    ("A100_PCIe_40G", "NVIDIA A100-PCIE-40GB", "312", "1.39"),
    ("A800_SXM_40G", "NVIDIA A800-SXM4-40GB", "312", "1.49"),
    ("A800_PCIe_40G", "NVIDIA A800-PCIE-40GB", "312", "1.39"),
    ("A30", "NVIDIA A30", "165", "0.45"),
    ("A10", "NVIDIA A10", "125", "0.60"),
    ("A10G", "NVIDIA A10G", "125", "0.80"),
    ("A40", "NVIDIA A40-PCIE-48GB", "149.7", "1.10"),
    ("L4", "NVIDIA L4", "121", "0.55"),
    ("L40", "NVIDIA L40", "362", "1.20"),
    ("L40S", "NVIDIA L40S", "366", "1.40"),
    ("T4", "Tesla T4", "65", "0.35"),
    ("RTX3090", "NVIDIA GeForce RTX 3090", "71.2", "0.25"),
    ("RTX4090", "NVIDIA GeForce RTX 4090", "165.16", "0.30"),
)
# Table A (public gpu-info, legacy): model, fullModelName, vendor, fp16TFlops, cost/h
_TABLE_A: tuple[tuple[str, str, str, str, str], ...] = (
    ("T4", "Tesla T4", "NVIDIA", "65", "0.3"),
    ("A100_SXM_80G", "NVIDIA A100-SXM4-80GB", "NVIDIA", "312", "1.89"),
    ("A100_PCIe_80G", "NVIDIA A100 80GB PCIe", "NVIDIA", "312", "1.64"),
    ("A100_PCIe_40GB", "NVIDIA A100-PCIE-40GB", "NVIDIA", "312", "1.64"),
    ("A100_PCIe_80GB", "NVIDIA A100-PCIE-80GB", "NVIDIA", "312", "1.64"),
    ("A100_SXM_40G", "NVIDIA A100-SXM4-40GB", "NVIDIA", "312", "1.4"),
    ("A100_PCIe_40G", "NVIDIA A100 40GB PCIe", "NVIDIA", "312", "1.2"),
    ("A800_SXM_40G", "NVIDIA A800-SXM4-40GB", "NVIDIA", "312", "1.89"),
    ("A800_SXM_80G", "NVIDIA A800-SXM4-80GB", "NVIDIA", "312", "1.89"),
    ("A800_PCIe_80G", "NVIDIA A800-PCIE-80GB", "NVIDIA", "312", "1.64"),
    ("A800_PCIe_40G", "NVIDIA A800-PCIE-40GB", "NVIDIA", "312", "1.64"),
    ("A10", "NVIDIA A10", "NVIDIA", "125", "0.7"),
    ("A10G", "NVIDIA A10G", "NVIDIA", "125", "0.8"),
    ("A40", "NVIDIA A40-PCIE-48GB", "NVIDIA", "149.7", "0.4"),
    ("A6000", "NVIDIA RTX A6000", "NVIDIA", "38.71", "0.49"),
    ("A6000Ada", "NVIDIA RTX 6000 Ada Generation", "NVIDIA", "323", "0.77"),
    ("RTX2060", "NVIDIA GeForce RTX 2060", "NVIDIA", "12.9", "0.05"),
    ("RTX2060S", "NVIDIA GeForce RTX 2060 SUPER", "NVIDIA", "14.4", "0.06"),
    ("RTX2070", "NVIDIA GeForce RTX 2070", "NVIDIA", "14.93", "0.06"),
    ("RTX2070S", "NVIDIA GeForce RTX 2070 SUPER", "NVIDIA", "18.12", "0.07"),
    ("RTX2080", "NVIDIA GeForce RTX 2080", "NVIDIA", "20.14", "0.08"),
    ("RTX2080S", "NVIDIA GeForce RTX 2080 SUPER", "NVIDIA", "22.30", "0.09"),
    ("RTX2080Ti", "NVIDIA GeForce RTX 2080 Ti", "NVIDIA", "26.9", "0.1"),
    ("TITANRTX", "NVIDIA TITAN RTX", "NVIDIA", "32.62", "0.12"),
    ("RTX3050", "NVIDIA GeForce RTX 3050", "NVIDIA", "18.22", "0.05"),
    ("RTX3060", "NVIDIA GeForce RTX 3060", "NVIDIA", "26.0", "0.07"),
    ("RTX3060Ti", "NVIDIA GeForce RTX 3060 Ti", "NVIDIA", "32.4", "0.08"),
    ("RTX3070", "NVIDIA GeForce RTX 3070", "NVIDIA", "40.6", "0.1"),
    ("RTX3070Ti", "NVIDIA GeForce RTX 3070 Ti", "NVIDIA", "43.6", "0.1"),
    ("RTX3080", "NVIDIA GeForce RTX 3080 (10 GB)", "NVIDIA", "59.6", "0.18"),
    ("RTX3080_12GB", "NVIDIA GeForce RTX 3080 (12 GB)", "NVIDIA", "61.2", "0.2"),
    ("RTX3080Ti", "NVIDIA GeForce RTX 3080 Ti", "NVIDIA", "68.2", "0.18"),
    ("RTX3090", "NVIDIA GeForce RTX 3090", "NVIDIA", "71.2", "0.25"),
    ("RTX3090Ti", "NVIDIA GeForce RTX 3090 Ti", "NVIDIA", "80.0", "0.21"),
    ("L4", "NVIDIA L4", "NVIDIA", "121", "0.43"),
    ("L40", "NVIDIA L40", "NVIDIA", "181", "0.7"),
    ("L40S", "NVIDIA L40S", "NVIDIA", "365", "1.4"),
    ("RTX4060", "NVIDIA GeForce RTX 4060", "NVIDIA", "44.0", "0.1"),
    ("RTX4060Ti", "NVIDIA GeForce RTX 4060 Ti", "NVIDIA", "44.0", "0.11"),
    ("RTX4060Ti_16GB", "NVIDIA GeForce RTX 4060 Ti 16GB", "NVIDIA", "44.0", "0.12"),
    ("RTX4070", "NVIDIA GeForce RTX 4070", "NVIDIA", "58.0", "0.15"),
    ("RTX4070S", "NVIDIA GeForce RTX 4070 SUPER", "NVIDIA", "60.0", "0.18"),
    ("RTX4070Ti", "NVIDIA GeForce RTX 4070 Ti", "NVIDIA", "78.86", "0.2"),
    ("RTX4070TiS", "NVIDIA GeForce RTX 4070 Ti SUPER", "NVIDIA", "80.0", "0.22"),
    ("RTX4080", "NVIDIA GeForce RTX 4080", "NVIDIA", "97.48", "0.23"),
    ("RTX4080S", "NVIDIA GeForce RTX 4080 SUPER", "NVIDIA", "104.0", "0.25"),
    ("RTX4090", "NVIDIA GeForce RTX 4090", "NVIDIA", "165.16", "0.3"),
    ("H100_SXM", "NVIDIA H100 80GB HBM3", "NVIDIA", "989", "2.99"),
    ("H100_PCIe", "NVIDIA H100 PCIe", "NVIDIA", "835", "2.39"),
    ("H800_SXM", "NVIDIA H800 80GB HBM3", "NVIDIA", "989", "2.99"),
    ("H800_NVL", "NVIDIA H800 NVL", "NVIDIA", "835", "2.79"),
    ("H20", "NVIDIA H20", "NVIDIA", "148", "1.00"),
    ("V100", "NVIDIA V100", "NVIDIA", "125", "0.7"),
    ("V100S", "NVIDIA V100S", "NVIDIA", "130", "0.8"),
    ("H200", "NVIDIA H200", "NVIDIA", "989", "3.99"),
    ("H200_NVL", "NVIDIA H200 NVL", "NVIDIA", "835", "3.99"),
    ("H800_PCIe", "NVIDIA H800 PCIe", "NVIDIA", "835", "2.39"),
    ("H100_NVL", "NVIDIA H100 NVL", "NVIDIA", "989", "2.99"),
    ("B200_SXM", "NVIDIA B200 SXM", "NVIDIA", "2250", "6.39"),
    ("RTX_5090", "NVIDIA GeForce RTX 5090", "NVIDIA", "419.2", "0.89"),
    ("RTX_5090D", "NVIDIA GeForceRTX 5090D", "NVIDIA", "380", "0.65"),
    ("RTX_5080", "NVIDIA GeForce RTX 5080", "NVIDIA", "225", "0.9"),
    ("RTX_5070Ti", "NVIDIA GeForce RTX 5070 Ti", "NVIDIA", "177.4", "0.5"),
    ("RTX_5070", "NVIDIA GeForce RTX 5070", "NVIDIA", "124", "0.3"),
    ("RTX_5060Ti", "NVIDIA GeForce RTX 5060 Ti", "NVIDIA", "51", "0.2"),
    ("RTX_5060", "NVIDIA GeForce RTX 5060", "NVIDIA", "42", "0.18"),
    ("RTXA2000", "NVIDIA RTX A2000", "NVIDIA", "32", "0.1"),
    ("RTXA4000", "NVIDIA RTX A4000", "NVIDIA", "76.5", "0.24"),
    ("RTXA4500", "NVIDIA RTX A4500", "NVIDIA", "94.5", "0.23"),
    ("RTXA5000", "NVIDIA RTX A5000", "NVIDIA", "111", "0.26"),
    ("RTX4000AdaGen", "NVIDIA RTX 4000 Ada Generation", "NVIDIA", "163", "0.26"),
    ("RTX2000Ada", "NVIDIA RTX 2000 Ada Generation", "NVIDIA", "46", "0.23"),
    ("GTX1050Ti", "NVIDIA GeForce GTX 1050 Ti", "NVIDIA", "4.0", "0.03"),
    ("GTX1070", "NVIDIA GeForce GTX 1070", "NVIDIA", "0.101", "0.04"),
    ("GTX1080", "NVIDIA GeForce GTX 1080", "NVIDIA", "0.138", "0.05"),
    ("GTX1080Ti", "NVIDIA GeForce GTX 1080 Ti", "NVIDIA", "0.177", "0.06"),
    ("GTX1660Ti", "NVIDIA GeForce GTX 1660 Ti", "NVIDIA", "9.6", "0.04"),
    ("M1", "Apple M1", "Apple", "4.58", "0.1"),
    ("M1Pro", "Apple M1 Pro", "Apple", "10.60", "0.15"),
    ("M1Max", "Apple M1 Max", "Apple", "21.20", "0.2"),
    ("M1Ultra", "Apple M1 Ultra", "Apple", "42.40", "0.3"),
    ("M2", "Apple M2", "Apple", "7.10", "0.12"),
    ("M2Pro", "Apple M2 Pro", "Apple", "11.36", "0.18"),
    ("M2Max", "Apple M2 Max", "Apple", "26.98", "0.25"),
    ("M2Ultra", "Apple M2 Ultra", "Apple", "53.96", "0.35"),
    ("M3", "Apple M3", "Apple", "7.10", "0.14"),
    ("M3Pro", "Apple M3 Pro", "Apple", "9.94", "0.2"),
    ("M3Max", "Apple M3 Max", "Apple", "28.40", "0.28"),
    ("M3Ultra", "Apple M3 Ultra", "Apple", "108.52", "0.4"),
    ("M4", "Apple M4", "Apple", "8.52", "0.16"),
    ("M4Pro", "Apple M4 Pro", "Apple", "11.44", "0.22"),
    ("M4Max", "Apple M4 Max", "Apple", "36.07", "0.3"),
    ("A13Bionic", "Apple A13 Bionic", "Apple", "1.38", "0.05"),
    ("A14Bionic", "Apple A14 Bionic", "Apple", "1.50", "0.06"),
    ("A15Bionic", "Apple A15 Bionic", "Apple", "2.74", "0.07"),
    ("A16Bionic", "Apple A16 Bionic", "Apple", "3.58", "0.08"),
    ("A17Pro", "Apple A17 Pro", "Apple", "4.30", "0.09"),
    ("RX6400", "AMD Radeon RX 6400", "AMD", "7.14", "0.04"),
    ("RX6500XT", "AMD Radeon RX 6500 XT", "AMD", "11.54", "0.05"),
    ("RX6600", "AMD Radeon RX 6600", "AMD", "17.86", "0.06"),
    ("RX6600XT", "AMD Radeon RX 6600 XT", "AMD", "21.2", "0.07"),
    ("RX6700", "AMD Radeon RX 6700", "AMD", "22.8", "0.08"),
    ("RX6700XT", "AMD Radeon RX 6700 XT", "AMD", "26.42", "0.09"),
    ("RX6800", "AMD Radeon RX 6800", "AMD", "32.34", "0.11"),
    ("RX6800XT", "AMD Radeon RX 6800 XT", "AMD", "41.48", "0.13"),
    ("RX6900XT", "AMD Radeon RX 6900 XT", "AMD", "46.08", "0.15"),
    ("RX7500", "AMD Radeon RX 7500", "AMD", "32.4", "0.06"),
    ("RX7600", "AMD Radeon RX 7600", "AMD", "43.0", "0.08"),
    ("RX7700XT", "AMD Radeon RX 7700 XT", "AMD", "68.4", "0.12"),
    ("RX7800XT", "AMD Radeon RX 7800 XT", "AMD", "85.2", "0.15"),
    ("RX7900XT", "AMD Radeon RX 7900 XT", "AMD", "106.8", "0.18"),
    ("RX7900XTX", "AMD Radeon RX 7900 XTX", "AMD", "122.8", "0.2"),
)

_VRAM_GIB: dict[str, int] = {  # the vendors' nominal sizes, by table model name
    "T4": 16, "A10": 24, "A10G": 24, "A30": 24, "L4": 24,
    "A40": 48, "L40": 48, "L40S": 48, "A6000": 48, "A6000Ada": 48,
    "A100_SXM_40G": 40, "A100_PCIe_40G": 40, "A100_PCIe_40GB": 40,
    "A800_SXM_40G": 40, "A800_PCIe_40G": 40,
    "A100_SXM_80G": 80, "A100_PCIe_80G": 80, "A100_PCIe_80GB": 80,
    "A800_SXM_80G": 80, "A800_PCIe_80G": 80,
    "H100_SXM": 80, "H100_PCIe": 80, "H100_PCIe_80G": 80, "H800_SXM": 80, "H800_PCIe": 80,
    "H100_NVL": 94, "H20": 96, "H200": 141, "H200_NVL": 141, "B200_SXM": 180,
    "RTX3090": 24, "RTX4090": 24, "RTX_5090": 32,
}
_VENDOR_PREFIXES = ("nvidia", "amd", "apple")


def _keys(name: str) -> list[str]:
    """The lookup keys of a name: lower-cased, and without a leading vendor word."""
    key = " ".join(name.lower().split())
    first, _, rest = key.partition(" ")
    return [key, rest] if first in _VENDOR_PREFIXES and rest else [key]


@cache
def _index() -> dict[str, GpuInfo]:
    """Every lookup key's row, built on first use: most commands never look a model up."""
    index: dict[str, GpuInfo] = {}
    rows = [GpuInfo(m, f, "NVIDIA", t, _VRAM_GIB.get(m), c, "B") for m, f, t, c in _TABLE_B]
    rows += [GpuInfo(m, f, v, t, _VRAM_GIB.get(m), c, "A") for m, f, v, t, c in _TABLE_A]
    for info in rows:  # B first: setdefault keeps its rows where A repeats a name
        # An A row naming a device B knows (A's H100_PCIe is B's "NVIDIA H100 PCIe")
        # resolves to B's row: the hypervisor matches the device name against B.
        target = index.get(_keys(info.full_name)[0], info)
        for name in (info.model, info.full_name):
            for key in _keys(name):
                index.setdefault(key, target)
    return index



def lookup(name: str) -> GpuInfo | None:
    """The table row for a `model` or `fullModelName` (any case, vendor prefix optional)."""
    index = _index()
    for key in _keys(name):
        if key in index:
            return index[key]
    return None


def known_models() -> tuple[str, ...]:
    """Every model name of both tables, sorted (for error messages)."""
    return tuple(sorted({info.model for info in _index().values()}))


def models_containing(text: str) -> tuple[GpuInfo, ...]:
    """The rows whose full name contains ``text`` (any case), one per device, sorted: how
    HAMi matches its ``use-gputype`` entries against the card type (NVML name)."""
    wanted = text.strip().upper()
    found = {info.full_name: info for info in _index().values()
             if wanted and wanted in info.full_name.upper()}
    return tuple(found[name] for name in sorted(found))


def rows() -> tuple[GpuInfo, ...]:
    """One row per model name of both tables, sorted by name (``tfpolicy gpus``)."""
    found = {info.model: info for info in _index().values()}
    return tuple(found[name] for name in sorted(found, key=str.lower))


def nearest(name: str, count: int = 3) -> tuple[str, ...]:
    """The model names closest to ``name``, which may be a model name or a device's full name
    (``Tesla T4``, ``NVIDIA H100 80GB HBM3``): those of the same chip first (``H100`` for
    ``H100_SXM_80G``, not ``A100_SXM_80G``, which differs by one letter), then by likeness to
    the model or full name; separators, case and a leading vendor word do not count."""
    from difflib import SequenceMatcher  # here: only an unknown model needs it

    wanted = _keys(name)[-1]
    plain, chip = _plain(wanted), _chip(wanted)
    scored = []
    for info in rows():
        names = (info.model.lower(), *_keys(info.full_name))
        same = chip != "" and chip in {_chip(n) for n in names}
        like = max(SequenceMatcher(None, plain, _plain(n)).ratio() for n in names)
        scored.append((not same, -like, info.model))
    scored.sort()
    return tuple(m for other, minus, m in scored[:count] if not other or -minus >= 0.6)


def _plain(name: str) -> str:
    return re.sub(r"[\s_-]+", "", name.lower())


def _chip(name: str) -> str:
    """The chip a name is of: the letters and digits leading its first word with a digit
    (``h100`` of ``h100_sxm_80g`` and of ``h100 80gb hbm3``, ``t4`` of ``tesla t4``)."""
    for word in re.split(r"[\s_-]+", name.lower()):
        found = re.match(r"[a-z]*\d+", word)
        if found:
            return found.group(0)
    return ""


def unknown_model(given: str, path: str) -> str:
    """The error for a model no table lists: the nearest names, and where the list is."""
    near = nearest(given)
    hint = f"; did you mean {' or '.join(near)}?" if near else ""
    return (f"unknown GPU model {given!r}{hint} (`tfpolicy gpus` lists the models; or give "
            f"tflops and vram) ({path}.model)")
