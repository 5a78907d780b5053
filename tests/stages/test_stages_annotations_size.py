"""A stage never pushes a pod template's annotations past what the API server takes
(tfpolicy/stages/ownership.py): 262,144 bytes of keys and values together
(kubernetes/apimachinery pkg/api/validation/objectmeta.go:61-67).

At the boundary, through the CLI: a template whose annotations the stage's keys
and record bring to exactly the limit is written; one byte more is refused
with the sizes, located, nothing written. The record's layout (rollback's
bytes) is left out rather than passing the limit: the values still come back.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
LIMIT = 256 * 1024
FILLER = "example.com/notes"


def _deployment(filler: int, value: str = "x") -> str:
    return ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n"
            "    metadata:\n      annotations:\n"
            f"        {FILLER}: {value * filler}\n"
            "    spec:\n      containers:\n      - name: a\n        image: x\n"
            "        resources:\n          limits:\n            nvidia.com/gpu: 1\n")


def _size(annotations: dict[str, Any]) -> int:
    return sum(len(k.encode()) + len(str(v).encode()) for k, v in annotations.items())


def _apply(policy: str, text: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TFPOLICY, "apply", "-p", policy, "-"], input=text,
                          capture_output=True, text=True, timeout=120, check=False)


def _annotations(text: str) -> dict[str, Any]:
    return yaml.safe_load(text)["spec"]["template"]["metadata"]["annotations"]  # type: ignore[no-any-return]


def _bare(record_text: str) -> str:
    """The record as tfpolicy writes it without its layout."""
    record = json.loads(record_text)
    record.pop("layout", None)
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False)


@pytest.mark.parametrize("policy", ["takeover", "rightsize-example"])
def test_annotations_up_to_the_limit_are_written_and_one_byte_more_refused(policy: str) -> None:
    small = _apply(policy, _deployment(10))
    assert small.returncode == 0, small.stderr
    record = _annotations(small.stdout)["tfpolicy.dev/original"]
    added = _size(_annotations(small.stdout)) - _size(_annotations(_deployment(10)))
    bare = added - (len(record) - len(_bare(record)))  # what the stage adds at the least
    for fill, layout in ((LIMIT - added - len(FILLER), True),
                         (LIMIT - bare - len(FILLER), bare == added)):
        at_limit = _apply(policy, _deployment(fill))
        assert at_limit.returncode == 0, at_limit.stderr
        annotations = _annotations(at_limit.stdout)
        assert _size(annotations) == LIMIT
        assert ("layout" in json.loads(annotations["tfpolicy.dev/original"])) == (
            layout and bare != added)
    over = _apply(policy, _deployment(LIMIT - bare - len(FILLER) + 1))
    assert over.returncode == 1 and over.stdout == _deployment(LIMIT - bare - len(FILLER) + 1)
    assert re.match(r"<stdin>:\d+:\d+: \[error\] Deployment/d: .* would take "
                    rf"{LIMIT + 1:,} bytes \(.*\), over the {LIMIT:,} Kubernetes allows",
                    over.stderr), over.stderr


def test_rollback_without_the_layout_still_gives_the_values_back() -> None:
    """With no room for the layout, the record is written without it; rollback gives the
    values back (written the usual way)."""
    small = _apply("rightsize-example", _deployment(10))
    record = _annotations(small.stdout)["tfpolicy.dev/original"]
    bare = _size(_annotations(small.stdout)) - _size(_annotations(_deployment(10))) \
        - (len(record) - len(_bare(record)))
    text = _deployment(LIMIT - bare - len(FILLER))
    done = _apply("rightsize-example", text)
    assert done.returncode == 0, done.stderr
    assert "layout" not in json.loads(_annotations(done.stdout)["tfpolicy.dev/original"])
    back = _apply("rollback", done.stdout)
    assert back.returncode == 0 and yaml.safe_load(back.stdout) == yaml.safe_load(text)
