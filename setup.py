"""Build hooks: every wheel and sdist carries the commit it was built from.

The commit goes into ``tfpolicy/_build.py`` of the built tree only, never into the
checkout, so ``tfpolicy --version`` of an installed package names the commit of its
source, and a checkout (an editable install included) keeps asking git instead.
"""

from __future__ import annotations

import runpy
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

TOP = Path(__file__).resolve().parent
MODULE = Path("tfpolicy") / "_build.py"


def _write_commit(tree: Path) -> None:
    """Write the checkout's commit into ``tree``; outside a checkout (building a wheel from
    an unpacked sdist) keep the module the sdist brought."""
    git_commit = runpy.run_path(str(TOP / "tfpolicy" / "__init__.py"))["git_commit"]
    commit = git_commit(TOP)
    if commit is None:
        if not (tree / MODULE).exists():
            raise SystemExit("setup.py: no git checkout here and no tfpolicy/_build.py: "
                             "build from a clone or from an sdist")
        return
    (tree / MODULE).write_text(
        '"""The commit this package was built from (written by setup.py)."""\n\n'
        f"COMMIT = {commit!r}\n")


class BuildPy(build_py):
    def run(self) -> None:
        super().run()
        if not getattr(self, "editable_mode", False):  # editable: the checkout asks git
            _write_commit(Path(self.build_lib))


class Sdist(sdist):
    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        super().make_release_tree(base_dir, files)
        _write_commit(Path(base_dir))


setup(cmdclass={"build_py": BuildPy, "sdist": Sdist})
