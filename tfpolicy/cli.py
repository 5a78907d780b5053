"""The command line's entry point: ``tfpolicy --version`` and ``--help`` answered here,
anything else run by the click group (``tfpolicy.commands.group``), which imports each
command only when it runs.

Hosts start tfpolicy once per file or render, so a start imports only what its command
uses: a process that applies a policy never loads the scheduler, the plan or the
recommender, and ``--version`` or ``--help`` load no command line library at all
(docs/speed.md).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

# ``tfpolicy --help`` as click writes it 78 columns wide (a terminal of 80 or more, or no
# terminal): tests/commands/test_startup.py holds the two the same.
HELP = (
    "Usage: tfpolicy [OPTIONS] COMMAND [ARGS]...\n"
    "\n"
    "  Migrate GPU workloads to TensorFusion GPU pooling, the GitOps way.\n"
    "\n"
    "Options:\n"
    "  --version    Show the version and the commit it was built from, and exit.\n"
    "  --traceback  Show the traceback of an internal error.\n"
    "  -h, --help   Show this message and exit.\n"
    "\n"
    "Commands:\n"
    "  admission  Simulate the TensorFusion webhook on every pod template;...\n"
    "  apply      Rewrite manifests from files, folders or stdin (-) to stdout.\n"
    "  argocd     Run as an ArgoCD config-management plugin...\n"
    "  check      Exit 1 when any file would change or any error is found...\n"
    "  fix        Rewrite manifest files in place; exit 1 when any file changed.\n"
    "  gpus       List the GPU models an inventory may name (those whose names...\n"
    "  init       Write a starter .tfpolicy.yaml and .pre-commit-config.yaml...\n"
    "  krm        KRM function: ResourceList on stdin, ResourceList with...\n"
    "  kustomize  Run as a kustomize legacy exec plugin (kubectl kustomize...\n"
    "  plan       Plan the migration step by step and prove each step fits the...\n"
    "  promote    Verify the rung .tfpolicy.yaml names and, when ready, write...\n"
    "  recommend  Right-size GPU workloads from their measured usage...\n"
    "  validate   Validate policy files (default: the policies of...\n"
    "  verify     Check that the last plan step took effect in the cluster:...\n"
)
_HELP_COLUMNS = 80


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None and len(sys.argv) > _LONG_COMMAND_LINE:
        _return_start_up_copies()
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--version"]:
        return _write(_version_line())
    if args in (["--help"], ["-h"]) and _columns() >= _HELP_COLUMNS:
        return _write(HELP)
    from tfpolicy.commands.group import run  # here: click and the group, for any command

    return run(args)


def _version_line() -> str:
    from tfpolicy import version_line

    return version_line() + "\n"


def _columns() -> int:
    """``shutil.get_terminal_size().columns``, by which click sizes its help, without the
    compression modules shutil imports."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


def _write(text: str) -> int:
    """What ``--version`` or ``--help`` print, without the command line library: the group
    prints the same for them among other options, or for a narrower terminal."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        from tfpolicy.commands.group import broken_pipe

        return broken_pipe()
    return 0


def __getattr__(name: str) -> object:
    """The click group (``cli``) and its tables of commands, loaded when first asked for."""
    if name in ("cli", "COMMANDS", "SUMMARIES"):
        from tfpolicy.commands import group

        return getattr(group, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_LONG_COMMAND_LINE = 1000  # arguments; a shorter one leaves little behind


def _return_start_up_copies() -> None:
    """Hand back to the system the C heap that CPython's start-up used and freed.

    Start-up decodes the command line into several copies and frees some of
    them, beneath memory still in use; glibc returns freed heap memory to the
    system only from the top of the heap. With a full command line (34,700
    file names, as ``xargs -s`` or a wildcard hands ``fix``) some 17 MB stayed
    resident for the whole run, and in every worker forked from this process.
    ``malloc_trim`` releases it; outside glibc there is none.
    """
    if sys.platform != "linux":
        return
    import contextlib
    import ctypes  # here: most runs have a short command line and need none of it

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).malloc_trim(0)


if __name__ == "__main__":
    sys.exit(main())
