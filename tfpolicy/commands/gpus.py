"""``tfpolicy gpus``: the GPU models an inventory may name, with what the tables give them.

An inventory's ``model`` is looked up by model name or full (NVML) name, any
case, vendor word optional; a model not listed needs its ``tflops`` and
``vram`` written out. Table B (ProviderConfig hardware metadata, what
TensorFusion reads at runtime) wins over table A (the older public sheet).
"""

from __future__ import annotations

import json
import sys

import click

from tfpolicy.commands.options import (
    command,
    format_option,
)
from tfpolicy.errors import ExitCode
from tfpolicy.gpus.table import GpuInfo, rows


@command("gpus")
@format_option(["text", "json"])
@click.argument("contains", required=False, default="")
def gpus(fmt: str, contains: str) -> int:
    """The GPU table, filtered by name: what an inventory's ``model`` may say."""
    wanted = contains.lower()
    found = [r for r in rows() if wanted in r.model.lower() or wanted in r.full_name.lower()]
    sys.stdout.write(as_json(found) if fmt == "json" else as_text(found))
    return ExitCode.OK


def as_text(found: list[GpuInfo]) -> str:
    table = [("model", "full name (GPU status.gpuModel)", "vendor", "FP16 TFLOPS", "VRAM GiB",
              "USD/h", "table")]
    table += [(r.model, r.full_name, r.vendor, r.fp16_tflops,
               "?" if r.vram_gib is None else str(r.vram_gib), r.cost_per_hour, r.table)
              for r in found]
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
             for row in table]
    lines.append(f"{len(found)} models; VRAM '?': not known from the name, give vram")
    return "\n".join(lines) + "\n"


def as_json(found: list[GpuInfo]) -> str:
    return json.dumps([{"model": r.model, "fullName": r.full_name, "vendor": r.vendor,
                        "fp16Tflops": r.fp16_tflops, "vramGiB": r.vram_gib,
                        "costPerHour": r.cost_per_hour, "table": r.table} for r in found],
                      indent=2) + "\n"
