"""The ``.tfpolicy.yaml`` lookup outside a repository reads no folder another user could
have put the file in (the pattern git closed after CVE-2022-24765): it stops at a folder
every user can write (``/tmp``) and, above the folder it starts in, at one owned by neither
the user, root nor the starting folder's owner, and says so under ``--explain`` and in the
"no policy" error. A folder with the sticky bit still gives a file of the user's."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tfpolicy.files.project import distrusted

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
LLM = ROOT / "examples" / "manifests" / "llm-server.yaml"
ME, OTHER, OWNER = 1000, 4242, 2000  # the user, another user, the starting folder's owner
OWNERS = frozenset({ME, 0, OWNER})


def _stat(mode: int, uid: int) -> os.stat_result:
    return os.stat_result((mode, 1, 1, 1, uid, uid, 0, 0, 0, 0))


FOLDER, FILE = stat.S_IFDIR, stat.S_IFREG
STICKY_TMP = FOLDER | 0o1777
# (folder mode, folder owner, config: None or (mode, owner)) -> read (True) or stop (False)
TABLE = [
    (FOLDER | 0o755, ME, None, True),
    (FOLDER | 0o755, 0, (FILE | 0o644, OTHER), True),  # root's folder: root let it be there
    (FOLDER | 0o755, OWNER, None, True),  # the starting folder's owner (a CI checkout)
    (FOLDER | 0o755, OTHER, None, False),
    (FOLDER | 0o700, OTHER, (FILE | 0o644, ME), False),
    (FOLDER | 0o777, ME, None, False),  # every user can write it: anyone's file
    (FOLDER | 0o777, ME, (FILE | 0o644, ME), False),  # and replace the user's own
    (FOLDER | 0o757, 0, (FILE | 0o644, 0), False),
    (STICKY_TMP, 0, None, False),  # /tmp: nothing above it is read
    (STICKY_TMP, 0, (FILE | 0o644, ME), True),  # the user's file: only they replace it
    (STICKY_TMP, 0, (FILE | 0o644, 0), True),  # the folder owner's
    (STICKY_TMP, 0, (FILE | 0o644, OTHER), False),
    (STICKY_TMP, 0, (stat.S_IFLNK | 0o777, ME), False),  # a link: read as its target
    (STICKY_TMP, OTHER, (FILE | 0o644, OTHER), True),  # its owner's file in its folder
]


@pytest.mark.parametrize(("mode", "owner", "config", "read"), TABLE)
def test_which_folders_the_lookup_reads(mode: int, owner: int,
                                        config: tuple[int, int] | None, read: bool) -> None:
    found = None if config is None else _stat(*config)
    reason = distrusted(_stat(mode, owner), found, OWNERS)
    assert (reason == "") is read, reason


def _project(top: Path) -> Path:
    project = top / "shared" / "project"
    project.mkdir(parents=True)
    (project / "app.yaml").write_bytes(LLM.read_bytes())
    return project


def _check(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(project.parent.parent / "home")}
    return subprocess.run([TFPOLICY, "check", *args, "app.yaml"], cwd=project, env=env,
                          capture_output=True, text=True, timeout=60, check=False)


def test_a_config_in_a_folder_every_user_can_write_is_not_read(tmp_path: Path) -> None:
    project = _project(tmp_path)
    shared = project.parent
    (shared / ".tfpolicy.yaml").write_text("policies: [takeover]\n")
    shared.chmod(0o777)
    done = _check(project)
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert done.stderr == (
        "tfpolicy: error: no policy given: use -p POLICY or a .tfpolicy.yaml (none governs "
        f"the files named; for app.yaml: no .tfpolicy.yaml found; the lookup stopped at "
        f"{shared} (a folder every user can write, without the sticky bit: not read, nor "
        "anything above it))\n")
    shared.chmod(0o755)  # the user's own folder again: its config is theirs
    assert _check(project).returncode == 1


def test_a_sticky_folder_every_user_can_write_stops_the_climb(tmp_path: Path) -> None:
    """As ``/tmp``: the config of the folder above it is not read."""
    project = _project(tmp_path)
    (tmp_path / ".tfpolicy.yaml").write_text("policies: [takeover]\n")
    project.parent.chmod(0o1777)
    done = _check(project, "--explain")
    assert done.returncode == 2
    assert (f"the lookup stopped at {project.parent} (a folder every user can write: nothing "
            "above it is read)") in done.stderr
    (project.parent / ".tfpolicy.yaml").write_text("policies: [takeover]\n")  # the user's
    done = _check(project)
    assert done.returncode == 1, done.stderr


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a folder to another user")
def test_a_folder_of_another_user_above_the_start_is_not_read(tmp_path: Path) -> None:
    project = _project(tmp_path)
    (project.parent / ".tfpolicy.yaml").write_text("policies: [takeover]\n")
    os.chown(project.parent, OTHER, OTHER)
    done = _check(project, "--explain")
    assert done.returncode == 2
    assert (f"the lookup stopped at {project.parent} (a folder owned by another user (uid "
            f"{OTHER}): not read, nor anything above it)") in done.stderr
    os.chown(project, OTHER, OTHER)  # started in: the user chose it, and its owner's folders
    assert _check(project).returncode == 1
    sticky = _project(tmp_path / "t")
    os.chown(sticky.parent, 0, 0)
    sticky.parent.chmod(0o1777)
    (sticky.parent / ".tfpolicy.yaml").write_text("policies: [takeover]\n")
    os.chown(sticky.parent / ".tfpolicy.yaml", OTHER, OTHER)  # another user's file in /tmp
    assert "the lookup stopped at" in _check(sticky, "--explain").stderr
