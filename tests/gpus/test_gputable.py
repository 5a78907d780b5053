"""GPU table lookups pinned to reference/tensor-fusion.md §6 and §10."""

from __future__ import annotations

import pytest

from tfpolicy.gpus.table import known_models, lookup


@pytest.mark.parametrize("name", [
    "A100_SXM_80G", "a100_sxm_80g", "NVIDIA A100-SXM4-80GB", "nvidia a100-sxm4-80gb",
    "A100-SXM4-80GB",
])
def test_a100_sxm_80g_by_any_name(name: str) -> None:
    info = lookup(name)
    assert info is not None
    assert (info.model, info.fp16_tflops, info.cost_per_hour) == ("A100_SXM_80G", "312", "1.89")
    assert (info.milli_tflops, info.vram_mib, info.cost_micro_usd) == (312_000, 81_920, 1_890_000)


def test_table_b_wins_where_tables_disagree() -> None:
    # §6: H100 PCIe 835 (A) vs 756 (B); L40 181 vs 362; T4 cost 0.3 vs 0.35; A40 0.4 vs 1.10.
    assert lookup("NVIDIA H100 PCIe").fp16_tflops == "756"  # type: ignore[union-attr]
    assert lookup("L40").fp16_tflops == "362"  # type: ignore[union-attr]
    assert lookup("Tesla T4").cost_per_hour == "0.35"  # type: ignore[union-attr]
    assert lookup("A40").cost_per_hour == "1.10"  # type: ignore[union-attr]


def test_table_a_model_name_resolves_to_the_device_row_of_b() -> None:
    # A calls it H100_PCIe; the device name is B's "NVIDIA H100 PCIe", which the runtime uses.
    info = lookup("H100_PCIe")
    assert info is not None and (info.table, info.fp16_tflops) == ("B", "756")


def test_table_a_is_the_fallback() -> None:
    info = lookup("H100_NVL")
    assert info is not None
    assert (info.table, info.fp16_tflops, info.vram_gib) == ("A", "989", 94)
    assert info.cost_per_hour == "2.99"
    amd = lookup("Radeon RX 7900 XTX")
    assert amd is not None
    assert (amd.vendor, amd.milli_tflops, amd.vram_gib) == ("AMD", 122_800, None)


def test_fractional_tflops_are_exact() -> None:
    assert lookup("NVIDIA A40-PCIE-48GB").milli_tflops == 149_700  # type: ignore[union-attr]
    assert lookup("RTX4090").milli_tflops == 165_160  # type: ignore[union-attr]


def test_vram_unknown_or_ambiguous_is_none() -> None:
    assert lookup("V100").vram_mib is None  # type: ignore[union-attr]  # 16 or 32 GiB (§10)
    assert lookup("L4").vram_mib == 24 * 1024  # type: ignore[union-attr]
    assert lookup("H200").vram_gib == 141  # type: ignore[union-attr]


def test_unknown_model() -> None:
    assert lookup("NVIDIA Imaginary 9000") is None
    assert "A100_SXM_80G" in known_models() and "T4" in known_models()
