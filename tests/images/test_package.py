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


def test_the_wheel_needs_only_what_tfpolicy_imports(dist: Path, installed: Path) -> None:
    """deepdiff is the tests' (tests/rewrite/test_properties.py), and it pulls a compiled
    wheel into every image: it is no dependency of the package."""
    (wheel,) = dist.glob("tfpolicy-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        (meta,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        requires = [line.split(":", 1)[1].strip() for line in
                    archive.read(meta).decode().splitlines() if line.startswith("Requires-Dist:")]
    runtime = {r.split(";")[0].split(">")[0].split("<")[0].split("=")[0].strip().lower()
               for r in requires if "extra ==" not in r}
    assert runtime == {"ruamel.yaml", "pyyaml", "rapidyaml", "jsonschema", "click"}
    listed = _run([str(installed.parent / "pip"), "list", "--format=freeze"], installed.parent)
    names = {line.split("==")[0].lower() for line in listed.stdout.splitlines()}
    assert not names & {"deepdiff", "cachebox", "orderly-set"}, names


def _action_install(venv: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """action.yml's install step, run by bash as GitHub runs it, its python3 a fresh venv's."""
    import yaml

    action = yaml.safe_load((ROOT / "action.yml").read_text())
    (step,) = [s for s in action["runs"]["steps"] if s.get("name") == "Install tfpolicy"]
    done = _run([sys.executable, "-m", "venv", str(venv)], venv.parent)
    assert done.returncode == 0, done.stderr
    path = f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"
    return subprocess.run(["bash", "-e", "-c", step["run"]], cwd=venv.parent, text=True,
                          capture_output=True, timeout=900, check=False,
                          env={**os.environ, **env, "PATH": path})


def test_the_action_installs_a_wheel_only_against_its_digest(dist: Path, tmp_path: Path) -> None:
    (wheel,) = dist.glob("tfpolicy-*.whl")
    digest = __import__("hashlib").sha256(wheel.read_bytes()).hexdigest()
    for given, installs in (("", False), ("0" * 64, False), (digest, True)):
        venv = tmp_path / f"venv-{len(given)}-{given[:1]}"
        done = _action_install(venv, {"TFPOLICY_SOURCE": str(ROOT), "TFPOLICY_WHEEL": str(wheel),
                                      "TFPOLICY_WHEEL_SHA256": given})
        assert (done.returncode == 0) == installs, done.stdout + done.stderr
        assert (venv / "bin" / "tfpolicy").exists() == installs


def test_the_action_installs_its_own_checkout(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    with one_build_at_a_time():  # pip builds this tree in place (treebuild.py)
        done = _action_install(venv, {"TFPOLICY_SOURCE": str(ROOT), "TFPOLICY_WHEEL": "",
                                      "TFPOLICY_WHEEL_SHA256": ""})
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    version = _run([str(venv / "bin" / "tfpolicy"), "--version"], tmp_path)
    assert version.stdout.startswith(f"tfpolicy, version {__version__} ")
