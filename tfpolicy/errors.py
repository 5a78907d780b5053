"""The one error class and the exit codes, decided in one place (DESIGN §3).

Violations are data (findings); an exception means "could not evaluate".
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    FINDINGS = 1
    INVALID = 2
    INTERNAL = 3
    IO_ERROR = 74  # sysexits' EX_IOERR: a write failed (disk full, I/O error); nothing is whole
    INTERRUPTED = 130
    BROKEN_PIPE = 141  # 128 + SIGPIPE: what a shell reports for a reader that went away


class TfpolicyError(Exception):
    """Bad input or usage: one line with its location, and exit code 2."""

    exit_code: ExitCode = ExitCode.INVALID

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
