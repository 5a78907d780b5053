"""What a rewrite may do to a file's lines: add the planned keys, remove the planned
GPU resources, and nothing else; each comment line stays once, against its line.

A comment line is written against a line next to it, as kyaml reads it: one
indented deeper than the next line that is not a comment ends the block above
it (its line is the one before, unless that line opens a block the new lines
go into); any other heads the line after it.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
FILES = sorted(HERE.glob("*.yaml"))
# The keys a stage writes: the template's metadata maps and TensorFusion's and tfpolicy's own.
_NEW_KEY = re.compile(r"^ *(?:metadata|labels|annotations|tensor-fusion\.ai/[a-z-]+|"
                      r"tfpolicy\.dev/original):(?: \S.*)?$")
GPU_LINE = re.compile(r"^ *nvidia\.com/gpu: .*$")


def read(path: Path) -> str:
    with path.open(encoding="utf-8", newline="") as handle:
        return handle.read()


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _is_comment(line: str) -> bool:
    return line.lstrip(" ").startswith("#")


def _anchor(lines: list[str], i: int) -> int | None:
    """The index of the line comment line ``i`` is written against (``None``: the end)."""
    after = next((k for k in range(i + 1, len(lines))
                  if lines[k].strip() and not _is_comment(lines[k])), None)
    following = 0 if after is None else _indent(lines[after])
    if _indent(lines[i]) > following:
        return i - 1 if i > 0 else None
    return i + 1 if i + 1 < len(lines) else None


def check_kept(old: str, new: str, *, removable: re.Pattern[str] | None = None,
               blank_ok: bool = False) -> list[str]:
    """Assert ``new`` is ``old`` with only planned lines added or removed; the added lines."""
    assert old.endswith(("\n", "\r")) == new.endswith(("\n", "\r")), "the last line break"
    a, b = old.splitlines(), new.splitlines()
    where: dict[int, int] = {}
    added: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            where.update({i1 + k: j1 + k for k in range(i2 - i1)})
            continue
        gone = [line for line in a[i1:i2] if line.strip()]  # with the blank lines above it
        assert all(removable and removable.match(line) for line in gone), gone
        assert gone or i1 == i2, f"blank lines {i1 + 1}-{i2} removed alone"
        added += b[j1:j2]
    _check_added(added, blank_ok)
    for i, line in enumerate(a):
        if _is_comment(line):
            _check_comment(a, b, where, i)
    return added


def _check_added(added: list[str], blank_ok: bool) -> None:
    """Key lines only (and the lines an emitter folds a long quoted value onto)."""
    quote = ""
    for line in added:
        if quote:  # inside a quoted value folded over lines (kustomize folds the record)
            quote = "" if line.rstrip().endswith(quote) else quote
            continue
        key = _NEW_KEY.match(line)
        assert key or (blank_ok and not line.strip()), f"added {line!r}"
        value = line.split(": ", 1)[1].strip() if key and ": " in line else ""
        if value[:1] in ("'", '"') and (len(value) == 1 or not value.endswith(value[0])):
            quote = value[0]


def _check_comment(a: list[str], b: list[str], where: dict[int, int], i: int) -> None:
    assert i in where, f"comment line {i + 1} lost: {a[i]!r}"
    j, k = where[i], _anchor(a, i)
    if k is None:  # a head comment on the last line stays last; a foot one on the first stays
        assert j == (len(b) - 1 if i else 0), f"comment line {i + 1} moved: {a[i]!r}"
    elif k in where and where[k] - j != k - i:  # its line may be a removed GPU resource
        between = b[min(j, where[k]) + 1:max(j, where[k])]
        assert k < i and _opens(a[k], between), f"comment line {i + 1} left its line: {a[i]!r}"


def _opens(key: str, added: list[str]) -> bool:
    """``key: `` opens a block and ``added`` went into it: a comment that ended the block
    still does (``annotations:`` left empty, then filled)."""
    return key.rstrip().endswith(":") and all(_indent(line) > _indent(key) for line in added)
