"""Project config ``.tfpolicy.yaml``: policies and defaults shared by every host (DESIGN §2).

Looked up from the working directory upwards, stopping at a repository
root; paths in it are relative to the file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tfpolicy import yamlio
from tfpolicy.errors import TfpolicyError
from tfpolicy.schema import validate

FILENAME = ".tfpolicy.yaml"


@dataclass(frozen=True, slots=True)
class ProjectConfig:
    path: Path
    policies: tuple[str, ...]
    namespace: str | None = None
    format: str | None = None

    @property
    def base(self) -> Path:
        return self.path.parent


def find_config(start: Path) -> ProjectConfig | None:
    """The nearest ``.tfpolicy.yaml`` at or above ``start``, not past a repository root."""
    for folder in (start.resolve(), *start.resolve().parents):
        candidate = folder / FILENAME
        if candidate.is_file():
            return load_config(candidate)
        if (folder / ".git").exists():
            return None
    return None


def load_config(path: Path) -> ProjectConfig:
    text = yamlio.decode(path.read_bytes(), str(path))
    docs = yamlio.load_all(text, file=str(path))
    data = docs[0] if docs else {}
    for violation in validate(data, "config"):
        raise TfpolicyError(f"{violation.message} ({violation.json_path})", file=str(path))
    return ProjectConfig(path, tuple(data.get("policies", [])), data.get("namespace"),
                         data.get("format"))
