"""Line arithmetic on a document's text, for every YAML line break (``\\n``, ``\\r\\n``, ``\\r``).

libyaml counts a lone ``\\r`` as a line break too, so a CR-only file must be
measured with the same rule or new lines land in the middle of old ones.
"""

from __future__ import annotations

import yaml


def eol(text: str, index: int) -> int:
    """Where the line after the one holding ``index`` begins (the text's end if none)."""
    cr, lf = text.find("\r", index), text.find("\n", index)
    breaks = [i for i in (cr, lf) if i >= 0]
    if not breaks:
        return len(text)
    at = min(breaks)
    return at + 2 if text.startswith("\r\n", at) else at + 1


def line_start(text: str, index: int) -> int:
    """Where the line holding ``index`` begins."""
    return max(text.rfind("\n", 0, index), text.rfind("\r", 0, index)) + 1


def line_above(text: str, start: int) -> int:
    """Where the line before the one beginning at ``start`` begins (a CRLF is one break)."""
    end = start - 2 if text.startswith("\r\n", start - 2) else start - 1
    return line_start(text, end)


def entry_indent(text: str, key: yaml.Node) -> int:
    """The column a mapping entry starts at: its key's, or its ``?`` for an explicit key."""
    start = line_start(text, key.start_mark.index)
    before = text[start:key.start_mark.index]
    if before.strip(" ") == "?":
        return len(before) - len(before.lstrip(" "))
    return int(key.start_mark.column)


def after(text: str, node: yaml.Node) -> int:
    """Where the line after a scalar or flow ``node``'s last character begins.

    A block scalar's end mark already sits at the start of the next line.
    """
    mark = node.end_mark
    if mark.column == 0 and mark.index > node.start_mark.index:
        return int(mark.index)
    return eol(text, int(mark.index))


def unterminated(text: str) -> str:
    """``text`` without its last line break: a file that ended without one still does."""
    if text.endswith("\r\n"):
        return text[:-2]
    return text[:-1] if text.endswith(("\n", "\r")) else text
