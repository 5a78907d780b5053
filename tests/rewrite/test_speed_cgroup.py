"""How many workers a run forks: the CPUs it may really use, read as a container limits them.

A sidecar (ArgoCD's repo server, a CI job) often sees every CPU of its node
in its affinity mask and is held to one or two by a CPU quota instead; one
worker per CPU of the node would fork dozens of processes into its memory
limit. The cgroup files are written under a temporary root, laid out as
the kernel lays them out.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tfpolicy.rewrite import parallel


def _v1(tmp_path: Path, path: str, quotas: dict[str, str], mount: str = "cpu,cpuacct",
        ) -> tuple[Path, Path]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    proc = tmp_path / "cgroup"
    proc.write_text(f"12:pids:/\n4:{mount}:{path}\n3:memory:{path}\n0::/\n")
    root = tmp_path / "sys"
    for folder, quota in quotas.items():
        where = root / mount / folder.strip("/")
        where.mkdir(parents=True, exist_ok=True)
        (where / "cpu.cfs_quota_us").write_text(f"{quota}\n")
        (where / "cpu.cfs_period_us").write_text("100000\n")
    return proc, root


def _v2(tmp_path: Path, path: str, limits: dict[str, str]) -> tuple[Path, Path]:
    proc = tmp_path / "cgroup"
    proc.write_text(f"0::{path}\n")
    root = tmp_path / "sys"
    for folder, limit in limits.items():
        where = root / folder.strip("/")
        where.mkdir(parents=True, exist_ok=True)
        (where / "cpu.max").write_text(f"{limit}\n")
    return proc, root


def test_v2_quota_rounds_up_and_the_tightest_ancestor_wins(tmp_path: Path) -> None:
    proc, root = _v2(tmp_path, "/kubepods/pod1/app", {
        "/kubepods": "400000 100000", "/kubepods/pod1": "150000 100000",
        "/kubepods/pod1/app": "max 100000"})
    assert parallel.cgroup_cpus(proc, root) == 2  # 1.5 CPUs' worth: two may run


def test_v2_without_a_quota_is_no_limit(tmp_path: Path) -> None:
    proc, root = _v2(tmp_path, "/user.slice", {"/user.slice": "max 100000"})
    assert parallel.cgroup_cpus(proc, root) is None


def test_v2_in_a_container_reads_its_own_cgroup_at_the_mount_root(tmp_path: Path) -> None:
    proc, root = _v2(tmp_path, "/", {"/": "100000 100000"})
    assert parallel.cgroup_cpus(proc, root) == 1


def test_v1_quota_of_the_cpu_controller_and_minus_one_for_none(tmp_path: Path) -> None:
    proc, root = _v1(tmp_path, "/docker/abc", {"/docker/abc": "250000", "/docker": "-1"})
    assert parallel.cgroup_cpus(proc, root) == 3
    proc, root = _v1(tmp_path / "none", "/docker/abc", {"/docker/abc": "-1"})
    assert parallel.cgroup_cpus(proc, root) is None


def test_v1_named_by_the_host_path_inside_a_container(tmp_path: Path) -> None:
    """Without a cgroup namespace /proc names the host's path, but the container's own
    files are at the mount's root."""
    proc, root = _v1(tmp_path, "/kubepods/burstable/pod9/c1", {"/": "100000"}, mount="cpu")
    assert parallel.cgroup_cpus(proc, root) == 1


@pytest.mark.parametrize("text", ["", "garbage\n", "0::/gone\n", "4:cpu:/gone\n"])
def test_unreadable_or_missing_cgroups_are_no_limit(tmp_path: Path, text: str) -> None:
    proc = tmp_path / "cgroup"
    proc.write_text(text)
    assert parallel.cgroup_cpus(proc, tmp_path / "sys") is None
    assert parallel.cgroup_cpus(tmp_path / "absent", tmp_path / "sys") is None


def test_workers_follow_the_quota_and_stop_at_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel.os, "sched_getaffinity", lambda _: set(range(64)))
    monkeypatch.setattr(parallel, "cgroup_cpus", lambda: 2)
    assert parallel.usable_cpus() == 2
    assert parallel.workers(0) == 2
    monkeypatch.setattr(parallel, "cgroup_cpus", lambda: None)
    assert parallel.usable_cpus() == 64
    assert parallel.workers(0) == parallel.MOST_WORKERS  # a 64-CPU runner forks eight
    assert parallel.workers(12) == 12  # asked for: given


def test_this_machine_reads_without_error() -> None:
    """Whatever this host's layout (v1, v2, hybrid), the real files give a count."""
    quota = parallel.cgroup_cpus()
    assert quota is None or quota >= 1
    assert 1 <= parallel.workers(0) <= parallel.MOST_WORKERS
