"""The git commands promote runs: fixed argv, no user value before ``--``, run in the
repository's top folder; only ``git`` is started, and only these verbs.

A repository's git configuration can name programs git starts on its own: the
file-system monitor (``core.fsmonitor``) on ``git status`` and ``git diff``, the hooks
(under ``core.hooksPath``) on ``git commit``, text conversions (``diff.*.textconv``) in
a diff. A promotion run by CI must not run them, so every call pins
``core.fsmonitor=false`` and diffs pass ``--no-textconv``; the commit pins
``core.hooksPath=/dev/null`` and passes ``--no-verify``, unless ``hooks`` asks for the
repository's own hooks (``promote --run-hooks``, docs/promote.md).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from tfpolicy.errors import TfpolicyError
from tfpolicy.promote.rungs import RefusedError

_SECONDS = 60
_HEX = re.compile(r"[0-9a-f]{4,64}")  # a commit id, abbreviated or whole
_LISTED = 5  # dirty entries named in the refusal
_PINNED = ("-c", "core.fsmonitor=false")
_NO_HOOKS = ("-c", "core.hooksPath=/dev/null")


def top(folder: Path) -> Path:
    """The repository's top folder (the work tree ``folder`` is in); none is refused."""
    done = _run(folder, "rev-parse", "--show-toplevel", check=False)
    if done.returncode != 0:
        raise RefusedError(f"{folder} is not inside a git repository")
    return Path(done.stdout.decode("utf-8", "replace").strip())


def refuse_dirty(root: Path) -> None:
    """A change not committed (or a file not tracked) would be mixed into promote's commit."""
    lines = _text(_run(root, "status", "--porcelain", "--untracked-files=all")).splitlines()
    if lines:
        named = ", ".join(line[3:] for line in lines[:_LISTED])
        more = f" and {len(lines) - _LISTED} more" if len(lines) > _LISTED else ""
        raise RefusedError(f"the working tree has changes not committed ({named}{more}): commit "
                      "or discard them first")


def last_change(root: Path, file: Path) -> str:
    """When the commit that last changed ``file`` was made (RFC 3339), '' when none did."""
    return _text(_run(root, "log", "-1", "--format=%cI", "--", str(file))).strip()


def last_commit(root: Path, file: Path) -> str:
    """The commit that last changed ``file`` (its full id), '' when none did."""
    return _text(_run(root, "log", "-1", "--format=%H", "--", str(file))).strip()


def remote_urls(root: Path) -> tuple[str, ...]:
    """The addresses the repository's remotes fetch from (none: no remote)."""
    done = _run(root, "config", "--get-regexp", r"^remote\..*\.url$", check=False)
    return tuple(sorted({line.split(" ", 1)[1] for line in _text(done).splitlines()
                         if " " in line}))


def holds(root: Path, commit: str, revision: str) -> bool:
    """``revision`` is ``commit`` or comes after it; a revision this clone does not know
    holds nothing. Both come from the cluster or git, so only a hexadecimal id reaches git
    (tfpolicy.gitops reads no other; checked here again, where the argv is built)."""
    if not (_HEX.fullmatch(commit) and _HEX.fullmatch(revision)):
        return False
    return _run(root, "merge-base", "--is-ancestor", commit, revision,
                check=False).returncode == 0


def stat(root: Path) -> str:
    return _text(_run(root, "diff", "--stat", "--no-color", "--no-ext-diff", "--no-textconv"))


def diff(root: Path) -> str:
    return _text(_run(root, "diff", "--no-color", "--no-ext-diff", "--no-textconv",
                      "--binary"))


def commit(root: Path, message: str, hooks: bool = False) -> str:
    """Every change to tracked files, committed as one; returns the commit's short id.
    ``hooks``: run the repository's commit hooks (else none runs)."""
    _run(root, "add", "--update", "--", ".")
    if hooks:
        _run(root, "commit", "--quiet", "--file=-", stdin=message.encode())
    else:
        _run(root, *_NO_HOOKS, "commit", "--quiet", "--no-verify", "--file=-",
             stdin=message.encode())
    return _text(_run(root, "rev-parse", "--short", "HEAD")).strip()


def _run(root: Path, *args: str, check: bool = True,
         stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    program = shutil.which("git")
    if program is None:
        raise TfpolicyError("promote: git is not on PATH")
    try:
        done = subprocess.run([program, *_PINNED, *args], cwd=root, input=stdin,
                              capture_output=True, timeout=_SECONDS, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise TfpolicyError(f"promote: git {_verb(args)} did not run: {exc}") from None
    if check and done.returncode != 0:
        error = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise TfpolicyError(f"promote: git {_verb(args)} failed ({done.returncode}): "
                            f"{error[-1][:200] if error else 'no message'}")
    return done


def _verb(args: tuple[str, ...]) -> str:
    return next(a for i, a in enumerate(args) if a != "-c" and (i == 0 or args[i - 1] != "-c"))


def _text(done: subprocess.CompletedProcess[bytes]) -> str:
    return done.stdout.decode("utf-8", "replace")
