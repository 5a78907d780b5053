"""``fix`` never loses anyone's work (issue 8 §3): concurrent edits, partial failures, links,
owners, temp files, and a kill -9 loop."""

from __future__ import annotations

import contextlib
import errno
import os
import random
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tfpolicy import cli
from tfpolicy.files import in_place as fix_command
from tfpolicy.files.output import SUFFIX

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
EXAMPLE = ROOT / "examples" / "manifests" / "llm-server.yaml"
NOBODY = 65534


def _fixed(text: str) -> str:
    """What ``fix -p takeover`` makes of ``text``, computed by a separate ``apply`` run."""
    done = subprocess.run([TFPOLICY, "apply", "-p", "takeover", "-"], input=text, text=True,
                          capture_output=True, timeout=120, check=True)
    return done.stdout


def _repo(path: Path, *names: str) -> Path:
    (path / ".git").mkdir(parents=True)
    for name in names:
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(EXAMPLE, path / name)
    return path


def _fix(*args: str, cwd: Path, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TFPOLICY, "fix", "-p", "takeover", *args], cwd=cwd, text=True,
                          capture_output=True, timeout=120, check=False, **kwargs)  # type: ignore[call-overload]


def _temps(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.name.endswith(SUFFIX))


def test_an_edit_made_while_fix_runs_is_kept_and_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    repo = _repo(tmp_path, "a.yaml", "b.yaml")
    edit = EXAMPLE.read_text() + "# the user's edit, saved while fix ran\n"
    real_clean = fix_command.clean_stale

    def clean_then_edit(*args: object, **kwargs: object) -> None:
        real_clean(*args, **kwargs)  # type: ignore[arg-type]
        (repo / "b.yaml").write_text(edit)  # lands after fix read b.yaml, before it renames

    monkeypatch.setattr(fix_command, "clean_stale", clean_then_edit)
    monkeypatch.chdir(repo)
    code = cli.main(["fix", "-p", "takeover", "a.yaml", "b.yaml"])
    out, err = capsys.readouterr()
    assert code == 1
    assert out == "Fixing a.yaml\n"
    assert "b.yaml:1:1: [error] changed while fix ran: left as it is (run fix again)" in err
    assert (repo / "b.yaml").read_text() == edit
    assert (repo / "a.yaml").read_text() == _fixed(EXAMPLE.read_text())
    assert _temps(repo) == []


def test_a_failed_write_leaves_every_file_as_it_was(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    repo = _repo(tmp_path, "a.yaml", "b.yaml")
    real_open = os.open

    def full_disk(path: str, flags: int, *args: int, **kwargs: object) -> int:
        if flags & os.O_CREAT and os.path.basename(path).startswith(".b.yaml."):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_open(path, flags, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", full_disk)
    monkeypatch.chdir(repo)
    code = cli.main(["fix", "-p", "takeover", "a.yaml", "b.yaml"])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err == "b.yaml: error: cannot write: No space left on device (nothing was written)\n"
    for name in ("a.yaml", "b.yaml"):
        assert (repo / name).read_bytes() == EXAMPLE.read_bytes()
    assert _temps(repo) == []


def _fix_unprivileged(repo: Path, *names: str) -> tuple[int, str]:
    """``fix`` through ``cli.main`` in a forked child that cannot write everywhere.

    Root may write into a read-only folder, so when the tests run as root the
    child drops to ``nobody`` first (a fork, because the interpreter itself may
    live where ``nobody`` cannot read). The policy is handed over as a file in
    the repository for the same reason: the built-in one lives in the package,
    which may sit in a folder ``nobody`` cannot enter. Returns the exit code and
    stderr.
    """
    errors = repo / "stderr.txt"
    policy = repo / "takeover.yaml"
    policy.write_text(resources.files("tfpolicy").joinpath("policies", "takeover.yaml").read_text())
    policy.chmod(0o644)
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 3
        try:
            if os.geteuid() == 0:
                os.setgroups([])
                os.setgid(NOBODY)
                os.setuid(NOBODY)
            os.chdir(repo)
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - the child exits right after
            sys.stderr = open(errors, "w")  # noqa: SIM115
            code = cli.main(["fix", "-p", policy.name, *names])
            sys.stderr.flush()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), errors.read_text()


def test_an_unwritable_target_stops_fix_before_any_write(tmp_path: Path) -> None:
    repo = Path(tempfile.mkdtemp(prefix="tfpolicy-ro-"))  # a path an unprivileged user can reach
    try:
        _repo(repo, "open/a.yaml", "locked/b.yaml")
        (repo / "stderr.txt").touch(mode=0o666)
        for path in (repo, repo / ".git", repo / "open", repo / "locked"):
            path.chmod(0o777)
        for path in (repo / "open" / "a.yaml", repo / "locked" / "b.yaml", repo / "stderr.txt"):
            path.chmod(0o666)
        (repo / "locked").chmod(0o555)
        cli.main(["apply", "-p", "takeover", str(EXAMPLE)])  # every module loaded before the fork
        code, err = _fix_unprivileged(repo, "open/a.yaml", "locked/b.yaml")
        assert code == 2, err
        assert err == "locked/b.yaml: error: not writable (nothing was written)\n"
        assert (repo / "open" / "a.yaml").read_bytes() == EXAMPLE.read_bytes()
        assert _temps(repo) == []
    finally:
        (repo / "locked").chmod(0o755)
        shutil.rmtree(repo)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_bad_file_outranks_a_refused_target_before_it_and_nothing_stays(
        tmp_path: Path, jobs: str) -> None:
    """Targets are planned and staged while later files are still read: a file refused
    there (hard-linked) is held back, so a malformed file after it is still the error
    reported, as when all the planning came after; every temp file already written goes."""
    names = [f"f{n:03d}.yaml" for n in range(80)]
    repo = _repo(tmp_path, *names)
    os.link(repo / names[5], repo / "second-name-of-f005")
    (repo / names[60]).write_text("kind: [unclosed\n")
    before = {p: p.read_bytes() for p in repo.iterdir() if p.is_file()}
    done = _fix("-j", jobs, *names, cwd=repo)
    assert done.returncode == 2
    assert done.stderr.startswith(f"{names[60]}:2:1: error: invalid YAML")
    assert {p: p.read_bytes() for p in repo.iterdir() if p.is_file()} == before
    assert _temps(repo) == []
    (repo / names[60]).write_bytes(EXAMPLE.read_bytes())
    done = _fix("-j", jobs, *names, cwd=repo)  # now the hard link is the error
    assert done.returncode == 2 and done.stderr.startswith(f"{names[5]}: error: has 2 hard links")
    assert _temps(repo) == [] and (repo / names[0]).read_bytes() == EXAMPLE.read_bytes()


def test_mode_owner_and_group_are_kept(tmp_path: Path) -> None:
    repo = _repo(tmp_path, "a.yaml")
    target = repo / "a.yaml"
    target.chmod(0o640)
    owner = (1234, 5678) if os.geteuid() == 0 else (os.geteuid(), os.getegid())
    if os.geteuid() == 0:
        os.chown(target, *owner)
    done = _fix("a.yaml", cwd=repo)
    assert done.returncode == 1, done.stderr
    info = target.stat()
    assert stat.S_IMODE(info.st_mode) == 0o640
    assert (info.st_uid, info.st_gid) == owner
    assert target.read_text() == _fixed(EXAMPLE.read_text())


def test_a_symlink_inside_the_repository_is_written_through(tmp_path: Path) -> None:
    repo = _repo(tmp_path, "base/deploy.yaml")
    link = repo / "app" / "deploy.yaml"
    link.parent.mkdir()
    link.symlink_to(Path("..", "base", "deploy.yaml"))
    done = _fix("app/deploy.yaml", cwd=repo)
    assert (done.returncode, done.stdout) == (1, "Fixing app/deploy.yaml\n"), done.stderr
    assert link.is_symlink() and os.readlink(link) == str(Path("..", "base", "deploy.yaml"))
    assert (repo / "base" / "deploy.yaml").read_text() == _fixed(EXAMPLE.read_text())
    assert _temps(repo) == []


def test_a_file_named_twice_through_a_link_is_written_once(tmp_path: Path) -> None:
    repo = _repo(tmp_path, "base/deploy.yaml")
    (repo / "deploy.yaml").symlink_to(Path("base", "deploy.yaml"))
    done = _fix("deploy.yaml", "base/deploy.yaml", cwd=repo)
    assert (done.returncode, done.stdout, done.stderr) == (1, "Fixing deploy.yaml\n", "")
    assert (repo / "base" / "deploy.yaml").read_text() == _fixed(EXAMPLE.read_text())


def test_a_symlink_leaving_the_repository_is_refused_before_any_write(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.yaml"
    shutil.copyfile(EXAMPLE, outside)
    repo = _repo(tmp_path / "repo", "a.yaml")
    (repo / "z.yaml").symlink_to(outside)
    done = _fix("a.yaml", "z.yaml", cwd=repo)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (f"z.yaml: error: a symlink to {outside.resolve()}, outside the "
                           "repository: fix writes only inside it (nothing was written)\n")
    assert outside.read_bytes() == (repo / "a.yaml").read_bytes() == EXAMPLE.read_bytes()
    assert (repo / "z.yaml").is_symlink()


def test_a_hard_linked_file_is_refused(tmp_path: Path) -> None:
    repo = _repo(tmp_path, "a.yaml")
    os.link(repo / "a.yaml", repo / "twin.yaml")
    done = _fix("a.yaml", cwd=repo)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("a.yaml: error: has 2 hard links: replacing it would split")
    assert os.path.samefile(repo / "a.yaml", repo / "twin.yaml")
    assert (repo / "a.yaml").read_bytes() == EXAMPLE.read_bytes()


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_stale_temp_files_of_a_killed_run_are_removed(tmp_path: Path) -> None:
    repo = _repo(tmp_path, "a.yaml")
    stale = repo / f".a.yaml.{_dead_pid()}.k3x9_q2a{SUFFIX}"
    live = repo / f".a.yaml.{os.getpid()}.p0q1r2s3{SUFFIX}"  # this test's process: alive
    mine = repo / "notes.tfpolicy"  # not of tfpolicy's naming
    for path in (stale, live, mine):
        path.write_text("half a file")
    done = _fix("a.yaml", cwd=repo)
    assert done.returncode == 1, done.stderr
    assert not stale.exists()
    assert live.exists() and mine.exists()


def test_install_plugin_leaves_a_symlinks_target_alone(tmp_path: Path) -> None:
    home = tmp_path / "plugins"
    target = home / "tfpolicy.dev" / "v1alpha1" / "migrationpolicy" / "MigrationPolicy"
    target.parent.mkdir(parents=True)
    precious = tmp_path / "precious.sh"
    precious.write_text("#!/bin/sh\necho mine\n")
    precious.chmod(0o600)
    target.symlink_to(precious)
    done = subprocess.run([TFPOLICY, "kustomize", "install-plugin", "--plugin-home", str(home)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stdout) == (2, "")
    assert f"{target}: error: is a symlink to {precious}" in done.stderr
    assert precious.read_text() == "#!/bin/sh\necho mine\n"
    assert stat.S_IMODE(precious.stat().st_mode) == 0o600
    target.unlink()
    done = subprocess.run([TFPOLICY, "kustomize", "install-plugin", "--plugin-home", str(home)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stdout) == (0, f"{target}\n")
    assert stat.S_IMODE(target.stat().st_mode) == 0o755 and not target.is_symlink()
    assert _temps(home) == []


FILES = 24
TRIALS = 16


def _outliving(folder: Path, patience: float = 5.0) -> list[int]:
    """Live processes still working in ``folder`` after ``patience`` seconds."""
    deadline = time.monotonic() + patience
    while True:
        alive = []
        for entry in Path("/proc").iterdir():
            with contextlib.suppress(OSError):
                if entry.name.isdigit() and Path(entry, "cwd").resolve() == folder.resolve() \
                        and (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                    alive.append(int(entry.name))
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.05)


def test_kill_9_at_any_point_leaves_every_file_old_or_new(tmp_path: Path) -> None:
    """SIGKILL fix at random points; every file is exactly old or new, the next run cleans up.

    The kill times spread over one measured run, half of them over its last
    part, where the files are being written.
    """
    names = [f"m{i:02d}.yaml" for i in range(FILES)]
    old = EXAMPLE.read_bytes()
    new = _fixed(old.decode()).encode()
    assert new != old
    repo = _repo(tmp_path / "timing", *names)
    began = time.monotonic()
    assert _fix(*names, cwd=repo).returncode == 1
    spent = time.monotonic() - began
    chance = random.Random(8)  # fixed: the same kill points every run
    for trial in range(TRIALS):
        repo = _repo(tmp_path / f"trial{trial}", *names)
        child = subprocess.Popen([TFPOLICY, "fix", "-p", "takeover", *names], cwd=repo,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        low = 0.0 if trial % 2 else 0.6
        time.sleep(spent * chance.uniform(low, 1.0))
        child.send_signal(signal.SIGKILL)
        child.wait()
        assert _outliving(repo) == [], trial  # its worker processes went with it
        for name in names:
            assert (repo / name).read_bytes() in (old, new), (trial, name)
        done = _fix(*names, cwd=repo)
        assert done.returncode in (0, 1), done.stderr
        assert _temps(repo) == [], trial
        assert all((repo / name).read_bytes() == new for name in names)
