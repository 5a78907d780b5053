"""A wrongly typed field of a snapshot is one located error, exit 2, through verify and
promote alike: never an internal error (exit 3) where the field is later read."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from tests.promote.promote_repo import Repo, at_hour, capped
from tests.verify.test_verify_cli import MANIFESTS, _run
from tfpolicy.verify.snapshot_shape import BY_KIND, COMMON


def _pod(items: list[dict[str, Any]]) -> dict[str, Any]:
    return next(i for i in items if i["kind"] == "Pod")


def _of(kind: str):
    return lambda items: next(i for i in items if i["kind"] == kind)


# (what is wrong, which object, the path to it, the wrong value, what the error names)
CASES = [
    ("a container state that is a string", _pod, ("status", "containerStatuses", 0, "state"),
     "running", "status.containerStatuses.0.state: expected a mapping, found a string"),
    ("a container state's reason holder that is a list", _pod,
     ("status", "containerStatuses", 0, "state"), {"waiting": ["x"]},
     "state.waiting: expected a mapping, found a list"),
    ("containerStatuses a mapping", _pod, ("status", "containerStatuses"), {"a": 1},
     "status.containerStatuses: expected a list of mappings, found a mapping"),
    ("a container status that is a number", _pod, ("status", "containerStatuses", 0), 5,
     "status.containerStatuses: expected a list of mappings, found a list holding a number"),
    ("a kind that is a list", _pod, ("kind",), ["Pod"],
     "an object's kind: expected a string, found a list"),
    ("a kind that is a mapping", _of("GPU"), ("kind",), {"a": 1},
     "an object's kind: expected a string, found a mapping"),
    ("conditions a number", _pod, ("status", "conditions"), 3,
     "status.conditions: expected a list of mappings, found a number"),
    ("ownerReferences a number", _pod, ("metadata", "ownerReferences"), 3,
     "metadata.ownerReferences: expected a list of mappings, found a number"),
    ("labels a list", _of("GPU"), ("metadata", "labels"), ["a"],
     "metadata.labels: expected a mapping, found a list"),
    ("a label value that is a number", _of("GPU"),
     ("metadata", "labels", "tensor-fusion.ai/gpupool"), 7,
     "metadata.labels.tensor-fusion.ai/gpupool: expected a string, found a number"),
    ("a GPU's nodeSelector a string", _of("GPU"), ("status", "nodeSelector"), "node-a",
     "status.nodeSelector: expected a mapping, found a string"),
    ("a GPUNode's nodeInfo a list", _of("GPUNode"), ("status", "nodeInfo"), [1],
     "status.nodeInfo: expected a mapping, found a list"),
    ("a ReplicaSet's ownerReferences a number", _of("ReplicaSet"),
     ("metadata", "ownerReferences"), 1,
     "metadata.ownerReferences: expected a list of mappings, found a number"),
    ("an annotation that is a mapping", _pod, ("metadata", "annotations", "x"), {"a": 1},
     "metadata.annotations.x: expected a string, found a mapping"),
]


def _broken(items: list[dict[str, Any]], pick: Any, path: tuple[Any, ...],
            value: Any) -> list[dict[str, Any]]:
    items = copy.deepcopy(items)
    node = pick(items)
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return items


@pytest.mark.parametrize(("why", "pick", "path", "value", "said"), CASES,
                         ids=[c[0] for c in CASES])
def test_verify_names_the_file_and_the_field(tmp_path: Path, why: str, pick: Any,
                                             path: tuple[Any, ...], value: Any,
                                             said: str) -> None:
    snapshot = at_hour(_broken(capped(), pick, path, value), 9, tmp_path, "bad")
    done = _run("verify", "-p", "takeover", MANIFESTS, "--cluster", snapshot)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    line, = done.stderr.splitlines()
    assert line.startswith(f"{snapshot}: ") and said in line


@pytest.mark.parametrize(("why", "pick", "path", "value", "said"), CASES[:5],
                         ids=[c[0] for c in CASES[:5]])
def test_promote_refuses_the_same_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str], why: str, pick: Any,
                                      path: tuple[Any, ...], value: Any, said: str) -> None:
    repo = Repo(tmp_path / "repo", monkeypatch)
    snapshot = at_hour(_broken(capped(), pick, path, value), 9, tmp_path, "bad")
    assert repo.promote("--cluster", snapshot, "--commit", hour=9) == 2
    assert said in capsys.readouterr().err


def test_every_kind_of_the_table_is_a_kind_the_snapshot_reads() -> None:
    from tfpolicy.verify.cluster_snapshot import KINDS

    assert set(BY_KIND) <= set(KINDS)
    assert ("kind",) in COMMON
