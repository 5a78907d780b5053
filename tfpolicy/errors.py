"""The one error class and every exit code, decided in one place (docs/exit-codes.md).

Violations are data (findings); an exception means "could not evaluate".
``tfpolicy.commands.outcome`` is the one handler that turns an exception into its line
on stderr and its exit code, whether click read the command line or not.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """Every code a command exits with; docs/exit-codes.md tells each one's meaning."""

    OK = 0  # clean; verify: ready; promote: advanced
    FINDINGS = 1  # findings or changes; verify and promote: stop
    INVALID = 2  # usage or input: nothing written
    INTERNAL = 3  # a bug
    REFUSED = 4  # promote: the repository is not in a state to promote from; nothing changed
    DONE = 5  # promote: the last rung is ready; nothing changed
    IO_ERROR = 74  # sysexits' EX_IOERR: a write failed (disk full, I/O error); nothing is whole
    WAIT = 75  # sysexits' EX_TEMPFAIL, "try again later": a rollout in progress, not a stop
    INTERRUPTED = 130
    BROKEN_PIPE = 141  # 128 + SIGPIPE: what a shell reports for a reader that went away


class TfpolicyError(Exception):
    """Bad input or usage: one line with its location, and exit code 2."""

    exit_code: ExitCode = ExitCode.INVALID
    speaker = "tfpolicy"  # who says it, on a line with no file: ``tfpolicy: error: …``
    verdict = "error"  # what the line calls it: ``file:line:col: error: …``

    def __init__(
        self, message: str, *, file: str | None = None, line: int | None = None,
        column: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.column = column

    def __reduce__(self) -> tuple[object, ...]:
        """Rebuilt without calling ``__init__``, whose arguments differ from subclass to
        subclass: an error crosses from a worker process to its parent as it is."""
        return _rebuilt, (type(self), self.args, self.__dict__)

    def located(self, file: str) -> TfpolicyError:
        """The same error, attributed to ``file`` when it has no file yet."""
        if self.file is None:
            self.file = file
        return self

    def __str__(self) -> str:
        where = [str(p) for p in (self.file, self.line, self.column) if p is not None]
        prefix = ":".join(where)
        text = " ".join(self.message.split())
        return f"{prefix}: {text}" if prefix else text


def _rebuilt(cls: type[TfpolicyError], args: tuple[object, ...],
             state: dict[str, object]) -> TfpolicyError:
    error = cls.__new__(cls)
    error.args = args
    error.__dict__.update(state)
    return error
