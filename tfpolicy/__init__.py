"""tfpolicy: move GPU workloads from device-plugin resources to TensorFusion GPU pooling."""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing's own, without importing typing at every start
if TYPE_CHECKING:
    from pathlib import Path

__version__ = "0.1.0"


def build_commit() -> str:
    """The commit this copy of tfpolicy was built from.

    A built package (wheel, sdist) carries it in ``tfpolicy/_build.py``, which setup.py
    writes at build time; a checkout asks git each time, so it never goes stale; anything
    else says ``unknown``. Only ``--version`` calls it, so no run pays for git.
    """
    try:
        built = importlib.import_module("tfpolicy._build")
    except ImportError:
        from pathlib import Path  # here: a built package never needs it

        return git_commit(Path(__file__).resolve().parent.parent) or "unknown"
    return str(built.COMMIT)


def git_commit(top: Path) -> str | None:
    """HEAD of the git checkout whose top folder is ``top``, ``+modified`` when tracked files
    differ from it; None when ``top`` is not such a checkout or git is missing.

    Only a checkout rooted exactly at ``top`` counts: an unpacked sdist inside some other
    repository must not claim that repository's commit.
    """
    import subprocess  # here: --version is the only caller
    from pathlib import Path

    def git(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", "-C", str(top), *args], capture_output=True, text=True,
                              check=False)

    try:
        found = git("rev-parse", "--show-toplevel", "HEAD")
        if found.returncode != 0:
            return None
        toplevel, head = found.stdout.split()
        if Path(toplevel).resolve() != top.resolve():
            return None
        clean = git("diff", "--quiet", "HEAD", "--").returncode == 0
    except (OSError, ValueError):
        return None
    return head if clean else f"{head}+modified"


def version_line() -> str:
    """What ``tfpolicy --version`` prints."""
    return f"tfpolicy, version {__version__} (commit {build_commit()})"
