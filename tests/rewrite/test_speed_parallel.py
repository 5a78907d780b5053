"""Worker processes change nothing but the time: ``-j 2`` gives ``-j 1``'s bytes, findings,
skips and first error, for ``apply``, ``fix`` and ``check`` through the real command."""

from __future__ import annotations

import contextlib
import gc
import io
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tfpolicy import yamlio
from tfpolicy.files.sources import load_policy_set
from tfpolicy.rewrite import parallel
from tfpolicy.rewrite.pipeline import PIECE_BYTES, Options, transform_documents, transform_stream

sys.path.insert(0, str(ROOT / "bench"))
from gen_corpus import write

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
WORKLOADS = 300  # a stream of several batches, and more files than one batch holds
BROKEN = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: broken-%d\ndata: {}\n"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("corpus")
    stream, split = root / "stream.yaml", root / "split"
    write(WORKLOADS, 11, stream, split)
    assert stream.stat().st_size > 3 * PIECE_BYTES  # so the workers really take part
    return stream, split


def tfpolicy(*args: str, stdin: bytes = b"", cwd: Path | None = None,
             ) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if k != "TFPOLICY_JOBS"}
    return subprocess.run([TFPOLICY, *args], input=stdin, capture_output=True, cwd=cwd,
                          env=env, timeout=300, check=False)


def outcome(done: subprocess.CompletedProcess[bytes]) -> tuple[int, bytes, bytes]:
    return done.returncode, done.stdout, done.stderr


# --- the pool itself ----------------------------------------------------------------

def _pid_after(delay: float) -> tuple[float, int]:
    time.sleep(delay)
    return delay, os.getpid()


def test_results_come_in_order_from_other_processes() -> None:
    delays = [0.05, 0.0, 0.03, 0.0, 0.02, 0.0, 0.01, 0.0]  # later batches finish first
    results = list(parallel.ordered(_pid_after, delays, 2))
    assert [d for d, _ in results] == delays
    assert os.getpid() not in {pid for _, pid in results}


def _fails_at_three(n: int) -> int:
    if n == 3:
        raise ValueError(f"batch {n}")
    return n


def test_an_error_is_raised_at_its_turn_after_the_batches_before_it() -> None:
    seen: list[int] = []
    with pytest.raises(ValueError, match="batch 3"):
        for n in parallel.ordered(_fails_at_three, range(8), 2):
            seen.append(n)
    assert seen == [0, 1, 2]


def _batches_then_unreadable(count: int) -> Iterator[int]:
    yield from range(count)
    raise OSError("input went away")


@pytest.mark.parametrize("readable", [1, 2, 6])
def test_a_batch_error_comes_before_an_input_error_read_after_it(readable: int) -> None:
    seen: list[int] = []
    with pytest.raises(ValueError, match="batch 3") if readable > 3 else \
            pytest.raises(OSError, match="went away"):
        for n in parallel.ordered(_fails_at_three, _batches_then_unreadable(readable), 2):
            seen.append(n)
    assert seen == list(range(min(readable, 3)))


def test_one_batch_or_one_job_stays_in_this_process() -> None:
    assert [pid for _, pid in parallel.ordered(_pid_after, [0.0], 2)] == [os.getpid()]
    assert {pid for _, pid in parallel.ordered(_pid_after, [0.0] * 4, 1)} == {os.getpid()}
    assert parallel.workers(0) == parallel.usable_cpus()


_ran: list[str] = []  # what ran in this process; a forked worker has its own copy


def _shared() -> None:
    _ran.append(f"shared in {os.getpid()}")


def _in_worker() -> None:
    _ran.append("in worker")


def _setup_seen(_: int) -> tuple[int, list[str], int]:
    return os.getpid(), list(_ran), gc.get_freeze_count()


def test_shared_setup_runs_once_here_before_the_fork_and_workers_share_its_objects(
        ) -> None:
    """``shared`` runs in this process before the workers fork, so they start with what
    it made; ``in_worker`` runs in each worker only. While the workers live, the objects
    made before the fork are frozen out of garbage collection (its scans would copy the
    pages the workers share), and they are collected again afterwards."""
    _ran.clear()
    seen = list(parallel.ordered(_setup_seen, range(6), 2, shared=_shared,
                                 in_worker=_in_worker))
    here = f"shared in {os.getpid()}"
    assert _ran == [here]
    assert {pid for pid, _, _ in seen} - {os.getpid()}, "no batch ran in a worker"
    assert all(setup == [here, "in worker"] for _, setup, _ in seen)
    assert all(frozen > 0 for _, _, frozen in seen)
    assert gc.get_freeze_count() == 0
    _ran.clear()
    assert list(parallel.ordered(_setup_seen, [0], 2, shared=_shared, in_worker=_in_worker)) \
        == [(os.getpid(), [], 0)]  # one batch: no worker, and neither runs


def test_findings_count_documents_from_the_stream_start(corpus: tuple[Path, Path]) -> None:
    """A later batch's findings carry the document index one process gives them."""
    policies = load_policy_set(["takeover"], Path("."))
    text = corpus[0].read_text()
    pieces = (("s", p) for p in yamlio.read_pieces(io.BytesIO(corpus[0].read_bytes()),
                                                    PIECE_BYTES))

    def findings(stream: object) -> list[object]:
        return [f for o in stream for f in o.findings]  # type: ignore[attr-defined]

    one = findings(transform_documents(yamlio.split_documents(text), policies, "s", Options()))
    two = findings(d.outcome for d in transform_stream(pieces, policies, Options(), 2))
    assert two == one
    assert max(f.index for f in one) > 100  # type: ignore[attr-defined]


# --- through the command ------------------------------------------------------------

def test_apply_in_workers_writes_the_same_stream(corpus: tuple[Path, Path]) -> None:
    stream = corpus[0].read_bytes()
    one = tfpolicy("apply", "-j", "1", "-p", "takeover", "--format", "json", "-", stdin=stream)
    two = tfpolicy("apply", "-j", "2", "-p", "takeover", "--format", "json", "-", stdin=stream)
    assert one.returncode == 0, one.stderr.decode()
    assert one.stdout != stream and json.loads(one.stderr)
    assert outcome(two) == outcome(one)


def test_apply_over_many_small_files_in_workers_writes_the_same(
        corpus: tuple[Path, Path], tmp_path: Path) -> None:
    """Small files are gathered into one task; each keeps its own document count, and
    each later file still opens a new document of the joined stream."""
    folder = tmp_path / "many"
    shutil.copytree(corpus[1], folder)
    (folder / "000000-no-marker.yaml").write_text("kind: ConfigMap\napiVersion: v1\n")
    (folder / "000001-no-newline.yaml").write_text("kind: ConfigMap\napiVersion: v1")
    (folder / "000002-empty.yaml").write_text("")
    twice = sorted(folder.glob("*-deployment-*"))[0]  # named again: its documents twice
    named = [str(folder), str(twice)]
    runs = {jobs: outcome(tfpolicy("apply", "-j", jobs, "-p", "takeover", "--format", "json",
                                   *named)) for jobs in ("1", "2")}
    code, stdout, stderr = runs["1"]
    assert code == 0 and stdout.count(b"\n---\n") == len(list(folder.iterdir())) - 1
    assert max(f["file"]["index"] for f in json.loads(stderr)) == 0  # one document per file
    assert runs["2"] == runs["1"]
    out = tmp_path / "out"
    for jobs in ("1", "2"):
        done = tfpolicy("apply", "-j", jobs, "-p", "takeover", "-o", str(out / jobs), str(folder))
        assert done.returncode == 0, done.stderr
    assert _tree(out / "2") == _tree(out / "1") and len(_tree(out / "1")) == len(_tree(folder))


def test_apply_in_workers_stops_at_the_same_first_error(corpus: tuple[Path, Path]) -> None:
    docs = corpus[0].read_text().split("\n---\n")
    third, half = len(docs) // 3, len(docs) // 2
    docs[third:third] = [BROKEN % 1]
    docs[half:half] = [BROKEN % 2]  # a second one, in a later batch
    stream = "\n---\n".join(docs).encode()
    one = tfpolicy("apply", "-j", "1", "-p", "takeover", "-", stdin=stream)
    two = tfpolicy("apply", "-j", "2", "-p", "takeover", "-", stdin=stream)
    assert one.returncode == 2 and one.stdout == b""
    assert b"<stdin>:" in one.stderr and one.stderr.count(b"error") == 1
    assert outcome(two) == outcome(one)


def test_apply_in_workers_reports_a_bad_document_before_a_later_bad_byte(
        corpus: tuple[Path, Path]) -> None:
    """The stream is read ahead of the workers: a byte that is not UTF-8 further on must
    not outrank an error in a document before it."""
    docs = corpus[0].read_text().split("\n---\n")
    docs[len(docs) // 4:len(docs) // 4] = [BROKEN % 1]
    stream = "\n---\n".join(docs).encode() + b"\n---\nkind: \xff\n"
    one = tfpolicy("apply", "-j", "1", "-p", "takeover", "-", stdin=stream)
    two = tfpolicy("apply", "-j", "2", "-p", "takeover", "-", stdin=stream)
    assert one.returncode == 2 and b"UTF-8" not in one.stderr
    assert outcome(two) == outcome(one)


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


def _repository(split: Path, into: Path) -> Path:
    """The split corpus, with a file that holds no manifest and a chart's template."""
    shutil.copytree(split, into)
    (into / "zz-list.yaml").write_text("- not\n- a manifest\n")
    chart = into / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (chart / "templates" / "gpu.yaml").write_text(
        "kind: Pod\nspec: {containers: [{resources: {limits: {nvidia.com/gpu: 1}}}]}\n")
    return into


def test_fix_in_workers_rewrites_the_same_files(corpus: tuple[Path, Path],
                                                tmp_path: Path) -> None:
    runs = {}
    for jobs in ("1", "2"):  # in the same place: a skip names the chart by its full path
        repo = _repository(corpus[1], tmp_path / "repo")
        done = tfpolicy("fix", "-j", jobs, "--explain", "-p", "takeover", ".", cwd=repo)
        runs[jobs] = (outcome(done), _tree(repo))
        repo.rename(tmp_path / jobs)
    (code, stdout, stderr), tree = runs["1"]
    assert code == 1 and stdout.count(b"Fixing ") > 50
    assert b"skipped zz-list.yaml" in stderr and b"skipped chart/templates/gpu.yaml" in stderr
    assert tree != _tree(corpus[1])
    assert runs["2"] == runs["1"]


def test_fix_in_workers_writes_nothing_on_an_error(corpus: tuple[Path, Path],
                                                   tmp_path: Path) -> None:
    runs = {}
    for jobs in ("1", "2"):
        repo = _repository(corpus[1], tmp_path / jobs)
        names = sorted(p.name for p in repo.glob("*.yaml"))
        for n, name in enumerate((names[len(names) // 3], names[len(names) // 2])):
            (repo / name).write_text(BROKEN % n)
        before = _tree(repo)
        done = tfpolicy("fix", "-j", jobs, "-p", "takeover", ".", cwd=repo)
        assert done.returncode == 2 and done.stderr.count(b"error") == 1
        assert _tree(repo) == before
        runs[jobs] = outcome(done)
    assert runs["2"] == runs["1"]


def test_check_in_workers_reports_the_same(corpus: tuple[Path, Path], tmp_path: Path) -> None:
    repo = _repository(corpus[1], tmp_path / "repo")
    one = tfpolicy("check", "-j", "1", "--diff", "-p", "takeover", ".", cwd=repo)
    two = tfpolicy("check", "-j", "2", "--diff", "-p", "takeover", ".", cwd=repo)
    assert one.returncode == 1 and b"would " in one.stdout and b"+++ b/" in one.stdout
    assert outcome(two) == outcome(one)


def test_a_policy_error_found_in_a_worker_is_told_as_in_one_process(
        corpus: tuple[Path, Path], tmp_path: Path) -> None:
    """Without -p, each folder's config is loaded where its files are rewritten: in a
    worker. An invalid policy there must come back whole (its findings, file and line)."""
    runs = {}
    for jobs in ("1", "2"):
        repo = tmp_path / "repo"
        (repo / ".git").mkdir(parents=True)
        for folder in ("good", "bad"):
            shutil.copytree(corpus[1], repo / folder, ignore=_first(60))
        (repo / "good" / ".tfpolicy.yaml").write_text("policies: [takeover]\n")
        (repo / "bad" / ".tfpolicy.yaml").write_text("policies: [mine.yaml]\n")
        (repo / "bad" / "mine.yaml").write_text(
            "apiVersion: tfpolicy.dev/v1alpha1\nkind: MigrationPolicy\n"
            "metadata: {name: mine}\nspec: {stage: takeover, isolation: nonsense}\n")
        for fmt in ("text", "json"):
            done = tfpolicy("fix", "-j", jobs, "--format", fmt, "good", "bad", cwd=repo)
            runs[jobs, fmt] = outcome(done), _tree(repo)
        shutil.rmtree(repo)
    (code, _, stderr), _ = runs["1", "text"]
    assert code == 2 and stderr.startswith(b"bad/mine.yaml:4:") and b"nonsense" in stderr
    assert json.loads(runs["1", "json"][0][2])[0]["file"]
    for fmt in ("text", "json"):
        assert runs["2", fmt] == runs["1", fmt]


def _first(count: int) -> Callable[[str, list[str]], set[str]]:
    """A ``copytree`` filter keeping the first ``count`` files of a folder."""
    def ignore(folder: str, names: list[str]) -> set[str]:
        return set(sorted(names)[count:])
    return ignore


def test_every_error_class_crosses_a_pipe_whole() -> None:
    """Each subclass takes its own arguments; pickling must not call ``__init__``."""
    import pickle

    from tfpolicy.admission.placeholders import PlaceholderError
    from tfpolicy.errors import TfpolicyError
    from tfpolicy.plan.simulate import TooManyPodsError
    from tfpolicy.policy.model import PolicyInvalidError
    from tfpolicy.workloads.registry import NotCounted, ReplicasError

    for cls in (TfpolicyError, PolicyInvalidError, TooManyPodsError, NotCounted, ReplicasError,
                PlaceholderError):
        error = cls.__new__(cls)
        TfpolicyError.__init__(error, f"{cls.__name__} said so", file="f.yaml", line=3)
        error.findings = ["kept"]  # type: ignore[attr-defined]
        back = pickle.loads(pickle.dumps(error))
        assert type(back) is cls and str(back) == str(error) == f"f.yaml:3: {cls.__name__} said so"
        assert back.__dict__ == error.__dict__ and back.args == error.args


def test_ctrl_c_stops_apply_and_its_workers(corpus: tuple[Path, Path], tmp_path: Path) -> None:
    """SIGINT to the whole process group, as a terminal sends it: the workers leave it to
    their parent, which stops the pool, writes no manifest and exits 130."""
    import signal

    stream = tmp_path / "long.yaml"
    stream.write_bytes(corpus[0].read_bytes() * 8)
    with stream.open("rb") as stdin:
        child = subprocess.Popen([TFPOLICY, "apply", "-j", "2", "-p", "takeover", "-"],
                                 stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 cwd=tmp_path, start_new_session=True)
        workers: list[str] = []
        deadline = time.monotonic() + 30
        while len(workers) < 2 and time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                workers = Path(f"/proc/{child.pid}/task/{child.pid}/children").read_text().split()
            time.sleep(0.01)
        assert len(workers) == 2, "the pool never started"
        os.killpg(child.pid, signal.SIGINT)
        stdout, _ = child.communicate(timeout=60)
    assert child.returncode == 130 and stdout == b""
    for pid in workers:
        for _ in range(500):
            if not Path(f"/proc/{pid}").exists() or "Z" in _state(pid):
                break
            time.sleep(0.01)
        else:
            raise AssertionError(f"worker {pid} outlived the interrupted run")


def _state(pid: str) -> str:
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    return "gone"
