"""``tfpolicy krm``: the KRM function (kpt ``fn eval/render --exec``, kustomize ``--enable-exec``).

stdout carries the ResourceList only, written before the exit code says
whether any result is an error, as kustomize's own functions do
(kubernetes-sigs/kustomize kyaml/fn/framework/result.go, ``ExitCode``).
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
    except TfpolicyError as exc:  # still a ResourceList (docs/hosts.md)
        output = function.failure(exc)
    write_out(output.text)  # all of it, or exit 141: kpt must not take part of a list
    return ExitCode.FINDINGS if output.failed else ExitCode.OK
