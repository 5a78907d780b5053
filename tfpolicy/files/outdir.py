"""``-o DIR``: files written into a folder, every one known before the first is written.

``apply -o DIR`` writes one output file per input file, as Kyverno's ``apply
--output`` does: a named file goes to ``DIR/<its name>``, a file found in a
named folder to ``DIR/<its path under that folder>``; two inputs that would
land on one output, an output that is an input, and a symlink in the way are
refused. ``admission -o DIR`` writes the admitted Pod of each pod template to
``DIR/<its file name>``, and nothing outside DIR. Bad input writes nothing
(exit 2). ``plan --emit-policies DIR`` writes each step's policy file.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tfpolicy import yamlio
from tfpolicy.errors import TfpolicyError
from tfpolicy.files.install import install_file
from tfpolicy.files.listing import manifest_files
from tfpolicy.files.sources import STDIN

if TYPE_CHECKING:  # what apply -o loads stays as small as apply
    from collections.abc import Mapping
    from typing import Any

    from tfpolicy.plan import Rung
    from tfpolicy.plan.admission_report import Admitted


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
            make_folders(target.parent)
        except OSError as exc:
            raise TfpolicyError(f"cannot create folder: {exc.strerror}",
                                file=str(target.parent)) from None
        install_file(target, data, 0o644)


def make_folders(folder: Path) -> None:
    """``folder`` and every missing folder above it, the highest first: ``mkdir -p`` in
    a loop (``Path.mkdir(parents=True)`` recurses once per missing folder, and a tree
    nested a thousand deep would end in RecursionError)."""
    missing = []
    while not folder.is_dir() and folder.parent != folder:
        missing.append(folder)
        folder = folder.parent
    for each in reversed(missing):
        try:
            each.mkdir()
        except FileExistsError:
            if not each.is_dir():
                raise


def write_admitted(folder: Path, items: list[Admitted]) -> None:
    """Each admitted Pod in its own file; every target is checked before any is written,
    and none may land outside ``folder``."""
    if folder.exists() and not folder.is_dir():
        raise TfpolicyError("-o: not a directory", file=str(folder))
    writes = {_admitted_target(folder, item): yamlio.dump_documents([item.admission.pod])
              for item in items if item.admission.pod is not None}
    make_folders(folder)
    for path, text in writes.items():
        path.write_text(text, encoding="utf-8")


def _admitted_target(folder: Path, item: Admitted) -> Path:
    """``DIR/<file name>``, refused unless it stays directly inside DIR."""
    path = folder / item.file_name
    root = folder.resolve()
    if path.is_symlink() or path.resolve().parent != root or path.name in ("", ".", ".."):
        raise TfpolicyError(f"-o: {item.key}: the file {item.file_name} would not stay in the "
                            "output folder", file=item.file)
    return path


def write_step_policies(folder: Path, docs: list[Mapping[str, Any]],
                        ladder: tuple[Rung, ...]) -> None:
    """Each plan step's policy file, ``NN-<step>.yaml``: the GitOps commit of that step."""
    from tfpolicy.plan import plan_steps, step_documents  # here: only the plan writes them

    if folder.exists() and not folder.is_dir():
        raise TfpolicyError("--emit-policies: not a directory", file=str(folder))
    make_folders(folder)
    for step in plan_steps(docs, ladder):
        header = (f"# tfpolicy plan, step {step.number:02d} ({step.name}): commit this file "
                  "as the migration policy once the previous step is rolled out.\n")
        text = header + yamlio.dump_documents(step_documents(docs, step))
        (folder / f"{step.number:02d}-{step.name}.yaml").write_text(text, encoding="utf-8")
