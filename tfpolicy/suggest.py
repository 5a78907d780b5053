"""The known name a mistyped one is closest to, for the "did you mean" of an error.

One rule for every such hint (policy keys, stage names, host parameters, built-in
policies); difflib is imported only when an error asks for one.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable


def closest(word: str, known: Iterable[str], cutoff: float = 0.7) -> str | None:
    """The name in ``known`` most like ``word`` when it is at least ``cutoff`` alike."""
    import difflib

    match = difflib.get_close_matches(word, list(known), n=1, cutoff=cutoff)
    return match[0] if match else None
