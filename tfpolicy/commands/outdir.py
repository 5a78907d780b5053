"""``apply -o DIR``: one output file per input file, as Kyverno's ``apply --output`` does.

A named file goes to ``DIR/<its name>``, a file found in a named folder to
``DIR/<its path under that folder>``. Every output is known before the first
is written, so bad input writes nothing (exit 2); two inputs that would land
on one output, an output that is an input, and a symlink in the way are refused.
"""

from __future__ import annotations

from pathlib import Path

from tfpolicy.errors import TfpolicyError
from tfpolicy.files.install import install_file
from tfpolicy.files.sources import STDIN, manifest_files


def destinations(paths: tuple[str, ...], folder: Path) -> list[tuple[str, Path]]:
    """(input file, output file) for every file the paths name, in reading order."""
    pairs: list[tuple[str, Path]] = []
    for named in paths:
        if named == STDIN:
            raise TfpolicyError("-o writes one file per input file, and stdin is none: "
                                "redirect stdout instead")
        base = Path(named)
        for file in manifest_files((named,)):
            relative = Path(file).relative_to(base) if base.is_dir() else Path(base.name)
            pairs.append((file, folder / relative))
    _refuse_clashes(pairs)
    return pairs


def _refuse_clashes(pairs: list[tuple[str, Path]]) -> None:
    inputs = {Path(file).resolve() for file, _ in pairs}
    seen: dict[Path, str] = {}
    for file, target in pairs:
        if target in seen:
            raise TfpolicyError(f"{file} and {seen[target]} would both be written to {target}")
        if target.resolve() in inputs:
            raise TfpolicyError(f"would overwrite the input {target}; use `tfpolicy fix` to "
                                "rewrite in place")
        if target.is_symlink():
            raise TfpolicyError("is a symlink: not overwriting what it points at",
                                file=str(target))
        seen[target] = file


def write_outputs(outputs: list[tuple[Path, bytes]]) -> None:
    for target, data in outputs:
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise TfpolicyError(f"cannot create folder: {exc.strerror}",
                                file=str(target.parent)) from None
        install_file(target, data, 0o644)
