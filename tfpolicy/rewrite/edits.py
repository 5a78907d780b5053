"""The vocabulary of edits, kept importable here: it lives on the ground floor,
``tfpolicy/edits.py``, which every layer imports (docs/layout.md)."""

from tfpolicy.edits import (
    ENTRY,
    SHARED,
    Edit,
    Layout,
    Op,
    Path,
    PathItem,
    apply_edits,
    clone,
    diff,
    edited,
    format_path,
    get_path,
    same,
)

__all__ = ["ENTRY", "SHARED", "Edit", "Layout", "Op", "Path", "PathItem", "apply_edits",
           "clone", "diff", "edited", "format_path", "get_path", "same"]
