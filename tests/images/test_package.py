"""The package people install: ``python -m build`` makes the sdist and the wheel, the wheel
goes into a clean venv, and the README's first commands run from it exactly as they run
from this checkout."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from treebuild import one_build_at_a_time

from tfpolicy import __version__, git_commit

pytestmark = [pytest.mark.package]

ROOT = Path(__file__).resolve().parents[2]
CHECKOUT = Path(sys.executable).parent / "tfpolicy"


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run(args, cwd=cwd, env=env, text=True, capture_output=True, timeout=900,
                          check=False)


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    with one_build_at_a_time():  # the sdist writes this tree's egg-info (treebuild.py)
        done = _run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)], ROOT)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    return out


@pytest.fixture(scope="module")
def installed(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``tfpolicy`` of a fresh venv holding only the wheel and its dependencies."""
    venv = tmp_path_factory.mktemp("venv")
    done = _run([sys.executable, "-m", "venv", str(venv)], venv)
    assert done.returncode == 0, done.stderr
    (wheel,) = dist.glob("tfpolicy-*.whl")
    done = _run([str(venv / "bin" / "pip"), "install", "--quiet", str(wheel)], venv)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    return venv / "bin" / "tfpolicy"


def test_the_wheel_carries_schemas_built_in_policies_and_its_commit(dist: Path) -> None:
    (wheel,) = dist.glob(f"tfpolicy-{__version__}-py3-none-any.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    schemas = {f"tfpolicy/schemas/{p.name}" for p in (ROOT / "tfpolicy" / "schemas").glob("*.json")}
    policies = {f"tfpolicy/policies/{p.name}"
                for p in (ROOT / "tfpolicy" / "policies").glob("*.yaml")}
    assert schemas and policies and schemas | policies | {"tfpolicy/py.typed"} <= names
    assert "tfpolicy/_build.py" in names
    build = zipfile.ZipFile(wheel).read("tfpolicy/_build.py").decode()
    assert f"COMMIT = {git_commit(ROOT)!r}" in build
    (sdist,) = dist.glob(f"tfpolicy-{__version__}.tar.gz")
    with tarfile.open(sdist) as archive:
        member = archive.extractfile(f"tfpolicy-{__version__}/tfpolicy/_build.py")
        assert member is not None and member.read().decode() == build


def test_the_readme_first_commands_run_from_the_installed_wheel(installed: Path,
                                                                 tmp_path: Path) -> None:
    # Outside the checkout, so nothing can come from its source tree.
    shutil.copytree(ROOT / "examples" / "manifests", tmp_path / "examples" / "manifests")
    where = _run([str(installed.parent / "python"), "-c", "import tfpolicy; print(tfpolicy.__file__)"],
                 tmp_path)
    assert Path(where.stdout.strip()).is_relative_to(installed.parent.parent)
    version = _run([str(installed), "--version"], tmp_path)
    assert version.returncode == 0, version.stderr
    assert version.stdout == f"tfpolicy, version {__version__} (commit {git_commit(ROOT)})\n"
    for command in (["apply", "-p", "takeover", "examples/manifests"],
                    ["check", "-p", "rightsize-example", "examples/manifests"],
                    ["validate", "examples/manifests"]):
        wheel = _run([str(installed), *command], tmp_path)
        here = _run([str(CHECKOUT), *command], tmp_path)
        assert (wheel.returncode, wheel.stdout, wheel.stderr) == (
            here.returncode, here.stdout, here.stderr), command
    assert "tensor-fusion.ai/enabled" in _run([str(installed), "apply", "-p", "takeover",
                                               "examples/manifests"], tmp_path).stdout


def test_the_installed_wheel_knows_its_built_in_policies(installed: Path, tmp_path: Path) -> None:
    """A run of built-in policies skips jsonschema from the wheel too (docs/speed.md): the
    schema the fingerprints cover is found in the installed package."""
    shutil.copytree(ROOT / "examples" / "manifests", tmp_path / "manifests")
    code = ("import contextlib, io, sys\nfrom tfpolicy.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    main(['check', '-p', 'takeover', 'manifests'])\n"
            "print('jsonschema' in sys.modules)")
    done = _run([str(installed.parent / "python"), "-c", code], tmp_path)
    assert (done.returncode, done.stdout) == (0, "False\n"), done.stderr
