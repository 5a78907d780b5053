"""The fenced blocks of README.md and docs/*.md, and what each declares about itself.

A shell block (```sh, ```console …) is preceded by one HTML comment, invisible on GitHub:

    <!-- run: cwd=examples exit=0,1 contains="would set" setup=git -->
    <!-- needs: cluster -->

``run`` blocks are executed by ``test_docs_examples.py``; ``needs`` blocks are counted,
not run (tests/docs/README.md lists what each key means). In a ``console`` block a line
starting with ``$ `` is a command (a trailing ``\\`` continues it) and the lines under it
are output that must appear: consecutive shown lines are consecutive in the output,
``...`` stands for any number of lines, ``…`` inside a line for any text.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from tests.conftest import ROOT
from tfpolicy.records import Record

SHELL = frozenset({"sh", "bash", "shell", "console", "shell-session"})
_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
_MARKER = re.compile(r"^<!--\s*(run|needs):(.*?)-->\s*$")
_RUN_KEYS = frozenset({"cwd", "exit", "contains", "setup", "given"})


class Block(Record):
    page: str  # relative to the repository root
    line: int  # of the opening fence, 1-based
    info: str  # the fence's language ("" when it names none)
    body: tuple[str, ...]
    marker: str  # "run", "needs" or ""
    args: str  # what follows "run:" or "needs:"

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


class Run(Record):
    cwd: str
    exits: tuple[int, ...]
    contains: tuple[str, ...]
    setups: tuple[str, ...]
    given: tuple[tuple[str, str], ...]  # (path from cwd, file of the checkout)


class Command(Record):
    text: str
    shown: tuple[str, ...]  # console: the output lines printed under it


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def blocks(path: Path) -> list[Block]:
    """Every fenced block of ``path`` with the marker on the last non-blank line above it."""
    lines = path.read_text(encoding="utf-8").split("\n")
    found, i = [], 0
    while i < len(lines):
        opened = _FENCE.match(lines[i])
        if not opened:
            i += 1
            continue
        fence = opened.group(2)
        end = next((j for j in range(i + 1, len(lines))
                    if lines[j].strip().startswith(fence[0] * len(fence))), len(lines))
        marker, args = _marker_above(lines, i)
        indent = len(opened.group(1))
        body = tuple(line[indent:] for line in lines[i + 1:end])
        found.append(Block(path.relative_to(ROOT).as_posix(), i + 1,
                           opened.group(3).strip().split(" ")[0], body, marker, args))
        i = end + 1
    return found


def _marker_above(lines: list[str], i: int) -> tuple[str, str]:
    above = next((lines[j].strip() for j in range(i - 1, -1, -1) if lines[j].strip()), "")
    matched = _MARKER.match(above)
    return (matched.group(1), matched.group(2).strip()) if matched else ("", "")


def parse_run(block: Block) -> Run:
    """The ``run:`` marker's settings; a malformed one raises ValueError naming the block."""
    fields: dict[str, list[str]] = {}
    for token in shlex.split(block.args):
        key, sep, value = token.partition("=")
        if not sep or key not in _RUN_KEYS:
            raise ValueError(f"{block.where}: run marker: {token!r} is not one of "
                             f"{', '.join(sorted(_RUN_KEYS))} as key=value")
        fields.setdefault(key, []).append(value)
    if "exit" not in fields:
        raise ValueError(f"{block.where}: run marker: exit=N[,N…] is missing")
    given = []
    for value in fields.get("given", []):
        path, sep, source = value.partition("=")
        if not sep:
            raise ValueError(f"{block.where}: run marker: given=PATH=CHECKOUT_FILE")
        given.append((path, source))
    setups = tuple(s for value in fields.get("setup", []) for s in value.split(","))
    return Run(fields.get("cwd", ["."])[-1], tuple(int(c) for c in fields["exit"][-1].split(",")),
               tuple(fields.get("contains", [])), setups, tuple(given))


def needs(block: Block) -> tuple[str, ...]:
    return tuple(n.strip() for n in block.args.split(",") if n.strip())


def commands(block: Block) -> list[Command]:
    """The block's commands: console lines after ``$ ``, else every line that is not blank
    or a comment; a line ending in ``\\`` continues on the next."""
    if block.info == "console":
        return _console(block.body)
    found: list[Command] = []
    for line in _joined(block.body):
        if line.strip() and not line.lstrip().startswith("#"):
            found.append(Command(line, ()))
    return found


def _joined(lines: tuple[str, ...]) -> list[str]:
    """Lines joined into commands: after a trailing ``\\``, and while a ``case``, ``if``
    or loop is open (``case $? in`` … ``esac`` is one command)."""
    out: list[str] = []
    depth = 0
    for line in lines:
        if out and (out[-1].endswith("\\") or depth > 0):
            out[-1] += "\n" + line
        else:
            out.append(line)
        depth += _opens(line)
    return out


_OPEN = {"case": 1, "if": 1, "do": 1, "esac": -1, "fi": -1, "done": -1}


def _opens(line: str) -> int:
    """How many compound commands ``line`` opens less those it closes (quotes and
    comments left out); a line shlex cannot read counts as neither."""
    lexer = shlex.shlex(line, posix=False, punctuation_chars=True)  # quotes kept
    try:
        return sum(_OPEN.get(token, 0) for token in lexer)
    except ValueError:
        return 0


def _console(lines: tuple[str, ...]) -> list[Command]:
    found: list[Command] = []
    for line in _joined(lines):
        if line.startswith("$ "):
            found.append(Command(line[2:], ()))
        elif found:
            found[-1] = Command(found[-1].text, (*found[-1].shown, line))
    return [Command(c.text, _trimmed(c.shown)) for c in found]


def _trimmed(shown: tuple[str, ...]) -> tuple[str, ...]:
    end = len(shown)
    while end and not shown[end - 1].strip():
        end -= 1
    return shown[:end]


def missing(shown: tuple[str, ...], output: str) -> str:
    """The first shown line the output lacks (in its place), or "" when every one is there."""
    actual = [line.rstrip() for line in output.split("\n")]
    at = 0
    for run in _runs(shown):
        found = _find(run, actual, at)
        if found < 0:
            return next((line for k, line in enumerate(run) if _find(run[:k + 1], actual, at) < 0),
                        run[0])
        at = found + len(run)
    return ""


def _runs(shown: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The shown lines cut at each ``...`` line: runs that must each be contiguous."""
    runs: list[tuple[str, ...]] = [()]
    for line in shown:
        if line.strip() in ("...", "…"):
            runs.append(())
        else:
            runs[-1] = (*runs[-1], line.rstrip())
    return [r for r in runs if r]


def _find(run: tuple[str, ...], actual: list[str], start: int) -> int:
    patterns = [re.compile(".*".join(map(re.escape, line.split("…")))) for line in run]
    for i in range(start, len(actual) - len(run) + 1):
        if all(p.fullmatch(actual[i + k]) for k, p in enumerate(patterns)):
            return i
    return -1
