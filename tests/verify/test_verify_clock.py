"""The snapshot's time is bounded: one object with a clock in 2099 does not make
five-minute-old pods soaked for decades (files: by the median object time; live: by the
wall clock), and the times set aside are said."""

from __future__ import annotations

import copy
import json
import os
from datetime import datetime
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from tests.promote.promote_repo import Repo, at_hour, capped, young
from tests.verify.test_verify_cli import OPERATOR, SNAPSHOTS, _run, _stand_in, _verify
from tfpolicy.verify.clock import BOUND_DAYS, snapshot_clock

FUTURE = "2099-01-01T00:00:00Z"
WAIT = 75


@pytest.mark.parametrize(("times", "wall", "time", "outliers"), [
    ([], "", "", 0),
    (["2026-11-30T09:20:00Z"], "", "2026-11-30T09:20:00Z", 0),
    (["2026-11-30T09:00:00Z", "2026-11-30T09:20:00Z", FUTURE], "", "2026-11-30T09:20:00Z", 1),
    (["2025-12-01T09:00:00Z", "2026-11-30T09:20:00Z"], "", "2026-11-30T09:20:00Z", 0),
    (["2026-11-30T09:00:00Z", "2026-13-45T00:00:00Z"], "", "2026-11-30T09:00:00Z", 0),
    (["2026-11-30T09:00:00Z", "9999-12-31T23:59:59Z", "9999-12-31T23:59:59Z",
      "9999-12-31T23:59:59Z"], "", "9999-12-31T23:59:59Z", 0),  # a majority is the clock
    (["2026-11-30T09:20:00Z", FUTURE], "2026-11-30T09:25:00Z", "2026-11-30T09:20:00Z", 1),
    (["2026-11-30T09:27:00Z"], "2026-11-30T09:25:00Z", "2026-11-30T09:25:00Z", 0),  # skew
    ([], "2026-11-30T09:25:00Z", "2026-11-30T09:25:00Z", 0),
])
def test_the_clock_table(times: list[str], wall: str, time: str, outliers: int) -> None:
    clock = snapshot_clock([(f"Pod p{i}", t) for i, t in enumerate(times)], wall)
    assert (clock.time, len(clock.outliers)) == (time, outliers)
    assert bool(clock.rule) == bool(outliers)


def _times(low: int, high: int) -> st.SearchStrategy[str]:
    return st.datetimes(datetime(low, 1, 1), datetime(high, 12, 31)).map(
        lambda d: d.strftime("%Y-%m-%dT%H:%M:%SZ"))


@given(st.lists(_times(2026, 2026), min_size=1, max_size=30),
       st.lists(_times(2028, 9999), max_size=29))
def test_a_minority_of_wrong_clocks_is_set_aside(honest: list[str], wrong: list[str]) -> None:
    """Honest times within a year of each other, fewer clocks years ahead: the time is the
    honest latest, and every wrong clock is said."""
    wrong = wrong[:(len(honest) - 1) // 2]
    clock = snapshot_clock([(f"Pod {i}", t) for i, t in enumerate(honest + wrong)])
    assert clock.time == max(honest)
    assert len(clock.outliers) == len(wrong)


def _with_future_gpu(items: list[dict]) -> list[dict]:
    items = copy.deepcopy(items)
    gpu = next(i for i in items if i["kind"] == "GPU")
    gpu["metadata"]["annotations"]["tensor-fusion.ai/last-sync"] = FUTURE
    return items


def test_a_gpu_from_2099_does_not_soak_young_pods(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    repo = Repo(tmp_path / "repo", monkeypatch)
    head = repo.head()
    snapshot = at_hour(_with_future_gpu(young(capped())), 9, tmp_path, "skewed")
    assert repo.promote("--cluster", snapshot, "--commit", hour=9) == WAIT
    out = capsys.readouterr().out
    assert "its latest object time 2026-11-30T09:20:00Z" in out
    assert (f"1 object times set aside, more than {BOUND_DAYS} days after the median object "
            "time") in out
    assert f"at {FUTURE}" in out
    assert repo.head() == head


def test_live_the_wall_clock_bounds_the_time(tmp_path: Path) -> None:
    _stand_in(tmp_path)
    docs = yaml.safe_load((SNAPSHOTS / "partial.yaml").read_text(encoding="utf-8"))
    operator = [i for i in docs["items"] if i["kind"] in OPERATOR]
    operator[0].setdefault("status", {})["lastSyncTime"] = FUTURE
    (tmp_path / "operator.yaml").write_text(yaml.safe_dump(
        {"apiVersion": "v1", "kind": "List", "items": operator}))
    done = _run(*_verify("--live", "--format", "json"),
                path=f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    snapshot = json.loads(done.stdout)["snapshot"]
    assert snapshot["latest"] == "2026-11-30T09:20:00Z"
    assert len(snapshot["outlierTimes"]) == 1 and FUTURE in snapshot["outlierTimes"][0]
    assert snapshot["outlierRule"].startswith("later than the wall clock ")
