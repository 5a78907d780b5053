"""Unrendered templates are not manifests: a GPU count such as ``$GPU_PER_NODE`` is refused.

The API server would refuse such a pod, and a simulation that read it as some
count would be wrong; the stages refuse it the same way
(``invalid-quantity``), so ``admission`` and ``plan`` do too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from tfpolicy.edits import Path, format_path
from tfpolicy.errors import TfpolicyError
from tfpolicy.gpus.resources import GpuResources

# envsubst/shell (`$GPUS`, `${GPUS}`) or Go template (`{{ .gpus }}`) syntax left unrendered.
_PLACEHOLDER = re.compile(r"\$\{?[A-Za-z_]|\{\{")


class PlaceholderError(TfpolicyError):
    """A GPU quantity that is a placeholder: ``path`` (from the root of the file's
    ``document``-th document) is where it is, so the command, which holds the text, gives
    its line and column."""

    def __init__(self, message: str, file: str, document: int, path: Path) -> None:
        super().__init__(message, file=file)
        self.document = document
        self.path = path


def refuse_placeholders(template: Any, gpus: GpuResources, real: Callable[[Path], Path],
                        where: tuple[str, int], workload: str) -> None:
    """Raise :class:`PlaceholderError` at the first GPU quantity of ``template`` (a pod
    template; ``real`` maps its paths to the document's) that is a placeholder; ``where``:
    the file and the document's index in it."""
    for path, value in _gpu_values(template, gpus):
        if isinstance(value, str) and _PLACEHOLDER.search(value):
            full = real(path)
            shown = value if len(value) <= 32 else value[:29] + "..."
            raise PlaceholderError(
                f"{workload}: {format_path(full)}: {shown!r} is a placeholder, not a quantity: "
                "render the manifest first (envsubst, helm template, ...)", *where, full)


def _gpu_values(template: Any, gpus: GpuResources) -> Iterator[tuple[Path, Any]]:
    spec = template.get("spec") if isinstance(template, Mapping) else None
    for field in ("initContainers", "containers"):
        items = spec.get(field) if isinstance(spec, Mapping) else None
        for index, container in enumerate(items if isinstance(items, list) else []):
            resources = container.get("resources") if isinstance(container, Mapping) else None
            for section in ("limits", "requests"):
                entries = resources.get(section) if isinstance(resources, Mapping) else None
                for name, value in entries.items() if isinstance(entries, Mapping) else ():
                    if name in gpus:
                        yield ("spec", field, index, "resources", section, name), value
