"""``tfpolicy krm``: the KRM function (kpt ``fn eval/render --exec``, kustomize ``--enable-exec``).

stdout carries the ResourceList only, written before the exit code says
whether any result is an error (reference/hosts.md §1.2).
"""

from __future__ import annotations

import sys
from pathlib import Path

from tfpolicy import yamlio
from tfpolicy.commands.options import (
    command,
)
from tfpolicy.errors import ExitCode, TfpolicyError
from tfpolicy.files.stdout import write_out
from tfpolicy.hosts import krm_function as function


@command("krm")
def krm() -> int:
    """The KRM function: a ResourceList in, a ResourceList out, even for bad input
    (docs/hosts.md)."""
    try:
        output = function.run(yamlio.decode(sys.stdin.buffer.read(), "<stdin>"), Path.cwd())
    except TfpolicyError as exc:  # still answer with a ResourceList (hosts.md §7.1)
        output = function.failure(exc)
    write_out(output.text)  # all of it, or exit 141: kpt must not take part of a list
    return ExitCode.FINDINGS if output.failed else ExitCode.OK
