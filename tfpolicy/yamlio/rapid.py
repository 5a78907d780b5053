"""rapidyaml's Python module, imported once for the fast reader's modules.

Its wrapper imports the ``deprecation`` package only to decorate six functions
tfpolicy never calls (``parse``, ``emit`` and the like), and ``deprecation``
imports ``packaging``: about 7 ms of a small run's start. While the wrapper is
imported, a stand-in whose decorator leaves those functions as they are takes
that name, and it is taken away at once, so any later ``import deprecation``
gets the real package.
"""

from __future__ import annotations

import sys
import types
from typing import Any


def _leave(*_: object, **__: object) -> Any:
    return lambda function: function


def _load() -> Any:
    stand_in = None
    if "deprecation" not in sys.modules:
        stand_in = types.ModuleType("deprecation")
        stand_in.deprecated = _leave  # type: ignore[attr-defined]
        sys.modules["deprecation"] = stand_in
    try:
        import ryml  # type: ignore[import-untyped]

        return ryml
    finally:
        if stand_in is not None and sys.modules.get("deprecation") is stand_in:
            del sys.modules["deprecation"]


ryml: Any = _load()
