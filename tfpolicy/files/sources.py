"""Reading at the edge: manifest files and folders, policies (by path or built-in name).

Nothing here writes; writing lives in ``tfpolicy.files.output``.
"""

from __future__ import annotations

import errno
import os
import stat
import struct
import sys
from pathlib import Path

from tfpolicy import yamlio
from tfpolicy.digest import sha256
from tfpolicy.errors import TfpolicyError
from tfpolicy.findings import Finding
from tfpolicy.policy.model import Policy, PolicyInvalidError, build_policy, check_policy
from tfpolicy.records import Record
from tfpolicy.rewrite.engine import PolicySet
from tfpolicy.suggest import closest

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
MAX_FILE_BYTES = 1 << 30
STDIN = "-"
STDIN_NAME = "<stdin>"  # how findings and errors name stdin


def shown_name(file: str) -> str:
    """A file as findings and errors name it: stdin as ``<stdin>``."""
    return STDIN_NAME if file == STDIN else file


def read_text(path: str) -> str:
    """A file's (or stdin's) text, strictly UTF-8 and within the size limit."""
    if path == STDIN:
        return yamlio.decode(_limited(sys.stdin.buffer.read(MAX_FILE_BYTES + 1), path), STDIN_NAME)
    return yamlio.decode(read_bytes(path), path)


def read_bytes(path: str) -> bytes:
    """A regular file's bytes, within the size limit; anything else is bad input."""
    return read_stat(path)[0]


# Opened without waiting: a FIFO's open would wait for a writer, a terminal's for a
# carrier; on a regular file the flag changes nothing (open(2), O_NONBLOCK).
_READ_FLAGS = os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK


def open_regular(path: str) -> tuple[int, os.stat_result]:
    """A descriptor reading ``path``, which must be a regular file (a link to one is), and
    its ``fstat``.

    A FIFO, a device or a socket named as a manifest, a policy or an operator
    configuration (by a repository's ``.tfpolicy.yaml`` too) would block a read
    forever or never end; the type is taken from the open descriptor, so a
    file swapped for a FIFO after a check cannot slip through. Only a stream the
    shell handed down by its descriptor's name (``/dev/stdin``, ``/dev/fd/N``) is read.
    """
    fd = os.open(path, _READ_FLAGS)
    try:
        info = os.fstat(fd)
    except OSError:
        os.close(fd)
        raise
    if not stat.S_ISREG(info.st_mode) and path.startswith(_HANDED_DOWN):
        os.set_blocking(fd, True)  # a stream the shell handed down: the user's to give
        return fd, info
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        if stat.S_ISDIR(info.st_mode):  # what reading it would have said
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
        kind = _KINDS.get(stat.S_IFMT(info.st_mode), "a special file")
        raise TfpolicyError(f"not a regular file ({kind}): only regular files are read",
                            file=path)
    return fd, info


# A descriptor the shell hands down, spelt as the user typed it (``--values /dev/stdin``,
# ``<(helm get values …)``): never a file a repository holds or a link in it leads to.
_HANDED_DOWN = ("/dev/stdin", "/dev/fd/", "/proc/self/fd/")
_KINDS = {stat.S_IFIFO: "a FIFO", stat.S_IFCHR: "a character device",
          stat.S_IFBLK: "a block device", stat.S_IFSOCK: "a socket"}


class Seen(Record):
    """A file as it was read: ``fix`` replaces it only while it is still exactly this.

    Its size and mtime, then the SHA-256 of its bytes, packed in one byte string:
    ``fix`` holds one for each file it rewrites until the commit, tens of thousands
    in a big repository (docs/speed.md, "Figures behind the code").
    """

    key: bytes

    @classmethod
    def of(cls, info: os.stat_result, data: bytes) -> Seen:
        return cls(_stamp(info) + sha256(data))

    def stamped(self, info: os.stat_result) -> bool:
        """Whether ``info`` has the size and mtime this was read with."""
        return self.key[:_STAMP.size] == _stamp(info)


_STAMP = struct.Struct("<qq")  # size, mtime in ns (before 1970: negative)


def _stamp(info: os.stat_result) -> bytes:
    return _STAMP.pack(info.st_size, info.st_mtime_ns)


def read_seen(path: str) -> tuple[bytes, Seen]:
    """A file's bytes (within the size limit) and what it was when they were read."""
    data, info = read_stat(path)
    return data, Seen.of(info, data)


def read_stat(path: str) -> tuple[bytes, os.stat_result]:
    """A regular file's bytes (within the size limit) and its ``fstat`` as they were read:
    ``Seen.of`` both once the file is to be replaced, so that only the files fix rewrites
    are hashed, not every file it reads.

    Plain descriptors, read to the size ``fstat`` gives: ``open()``'s buffered
    reader adds system calls per file and maps a buffer of the whole size limit for
    each read, and fix reads every file it is given.
    """
    try:
        fd, info = open_regular(path)
        try:
            return _limited(_read_to_end(fd, info.st_size), path), info
        finally:
            os.close(fd)
    except OSError as exc:
        raise TfpolicyError(f"cannot read: {exc.strerror}", file=path) from None


def unchanged(path: str, seen: Seen) -> bool:
    """Whether ``path`` is still exactly what was read: same size and mtime, then same bytes.

    Size and mtime are taken from the open descriptor whose bytes are then
    hashed (no separate ``stat`` of the path, which another save could follow).
    Gone, unreadable, no longer a regular file or over the limit counts as changed.
    """
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError:
        return False
    try:
        return unchanged_fd(fd, seen)
    finally:
        os.close(fd)


def unchanged_fd(fd: int, seen: Seen) -> bool:
    """``unchanged`` of a file already open, read from its start; unreadable is changed."""
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or not seen.stamped(info):
            return False
        data = _read_to_end(fd, info.st_size)
    except OSError:
        return False
    return len(data) <= MAX_FILE_BYTES and Seen.of(info, data) == seen


def _read_to_end(fd: int, size: int) -> bytes:
    """Every byte up to end of file, or the first ``MAX_FILE_BYTES + 1`` (then refused)."""
    chunks: list[bytes] = []
    total = 0
    while total <= MAX_FILE_BYTES:
        chunk = os.read(fd, min(max(size + 1 - total, 1 << 16), MAX_FILE_BYTES + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _limited(data: bytes, path: str) -> bytes:
    if len(data) > MAX_FILE_BYTES:
        raise TfpolicyError(f"larger than {MAX_FILE_BYTES >> 20} MiB", file=path)
    return data


# The built-in policies, package data beside the code (pyproject's package-data); a path
# rather than importlib.resources, whose import (tempfile, shutil, zipfile) is longer
# than a small run's own work.
BUILTIN = Path(__file__).resolve().parent.parent / "policies"


def builtin_policies() -> list[str]:
    return sorted(name.removesuffix(".yaml") for name in os.listdir(BUILTIN)
                  if name.endswith(".yaml"))


def policy_source(ref: str, base: Path) -> tuple[str, str]:
    """(display name, text) of a policy given by path or built-in name."""
    candidate = base / ref  # an absolute ref stays itself
    if _is_path(ref, base):
        return _shown(ref, candidate), read_text(str(candidate))
    known = builtin_policies()
    if ref in known:
        text = (BUILTIN / f"{ref}.yaml").read_text(encoding="utf-8")
        return f"builtin:{ref}", text
    close = closest(ref, known)
    hint = f"did you mean {close}? " if close else ""
    raise TfpolicyError(
        f"no policy file or built-in policy named {ref!r} ({hint}built-in: {', '.join(known)})")


def _is_path(ref: str, base: Path) -> bool:
    """A file, not a built-in name: it exists, or it looks like a path."""
    return "/" in ref or ref.endswith((".yaml", ".yml")) or (base / ref).exists()


def confine_refs(refs: tuple[str, ...], base: Path, root: Path, origin: str) -> None:
    """Refuse policy paths (from a config, env or functionConfig) that resolve outside ``root``.

    Symlinks are resolved first, so a link inside the repository cannot
    point tfpolicy at a file outside it (docs/design.md, "Rules across every
command and host"). Only an
    explicit ``-p`` on the command line may name any file.
    """
    top = root.resolve()
    for ref in refs:
        if _is_path(ref, base) and not inside(base / ref, top):
            raise TfpolicyError(f"policy path {ref!r} leaves the repository ({top}); policy "
                                "files named here must be inside it", file=origin)


def inside(path: Path, top: Path) -> bool:
    """Whether ``path``, every symlink resolved, is ``top`` or under it."""
    try:
        return path.resolve().is_relative_to(top)
    except (OSError, RuntimeError, ValueError):  # a link loop, a NUL byte: not a usable path
        return False


def _shown(ref: str, path: Path) -> str:
    """How findings name a policy file: as given, or relative to the working directory."""
    if Path(ref).is_absolute() or not path.is_absolute():
        return ref if path == Path(ref) else str(path)
    return os.path.relpath(path)


def check_policy_files(
    refs: list[str], base: Path = Path(".")
) -> tuple[list[Policy], list[Finding]]:
    """Policies from files or built-in names, and every schema violation found on the way."""
    policies: list[Policy] = []
    findings: list[Finding] = []
    for ref in refs:
        file, text = policy_source(ref, base)
        for raw in yamlio.split_documents(text):
            parsed = yamlio.parse_document(raw.text, file=file, line=raw.line)
            if parsed.node is None:
                continue
            def locate(path: tuple[str | int, ...], node: object = parsed.node,
                       offset: int = raw.line) -> tuple[int, int]:
                line, column = yamlio.locate(node, path)  # type: ignore[arg-type]
                return offset + line, column
            problems = check_policy(parsed.data, file, locate)
            findings.extend(problems)
            if not problems:
                line, column = locate(())
                policies.append(build_policy(parsed.data, file, line + 1, column + 1))
    return policies, findings


def load_policy_set(refs: list[str], base: Path = Path(".")) -> PolicySet:
    """The policies to run; any schema violation stops everything (exit 2)."""
    if not refs:
        raise TfpolicyError("no policy given: use -p POLICY or a .tfpolicy.yaml")
    policies, findings = check_policy_files(refs, base)
    if findings:
        raise PolicyInvalidError(findings)
    if not policies:
        raise TfpolicyError(f"no MigrationPolicy documents in {', '.join(refs)}")
    return PolicySet.of(policies)
