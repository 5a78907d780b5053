"""Comment lines anywhere around a pod template's metadata: every stage adds its keys
without taking, moving or copying one, and rollback gives the bytes back.

Drawn Deployments have or lack the template's ``metadata``, ``labels`` and
``annotations``, or leave them empty; comment lines at any indentation go between any two of the
template's lines and at the end (blank lines too), which may lack its line break
(LF, CRLF or CR). Each comment
must stay once, in order, against the line it was written against
(tests/comments/keep.py).
A last entry without a line break that a stage removes takes the blank lines
right above it along (they would end the file with a line break), and rollback
writes them again.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.comments.keep import GPU_LINE, check_kept
from tests.conftest import policy_set, run

STAGES = ["takeover-25", "takeover", "rightsize-example"]
SETS = {name: policy_set(name) for name in [*STAGES, "rollback"]}
_HEAD = ["apiVersion: apps/v1", "kind: Deployment", "metadata:", "  name: web", "spec:",
         "  replicas: 2", "  template:"]
_SPEC = ["    spec:", "      containers:", "      - name: main", "        image: img",
         "        resources:", "          limits:", "            cpu: \"1\"",
         "            nvidia.com/gpu: 1"]


@st.composite
def _templates(draw: st.DrawFn) -> list[str]:
    labels = draw(st.integers(-1, 3))  # -1: the key left empty (Helm renders that)
    annotations = draw(st.integers(-1, 2))
    lines = list(_HEAD)
    if labels or annotations or draw(st.booleans()):
        lines.append("    metadata:")
        if labels:
            lines += ["      labels:", *[f"        k{i}: v{i}" for i in range(labels)]]
        if annotations:
            lines += ["      annotations:", *[f'        a{i}: "x"' for i in range(annotations)]]
        if not labels and not annotations:
            lines.append("      name: pod")
    return lines + _SPEC


@st.composite
def _documents(draw: st.DrawFn) -> str:
    lines = draw(_templates())
    places = draw(st.lists(st.integers(len(_HEAD), len(lines)), max_size=5))
    for n, at in enumerate(sorted(places, reverse=True)):
        indent = draw(st.sampled_from([0, 2, 4, 6, 8, 10]))
        lines.insert(at, " " * indent + f"# c{n}" if draw(st.integers(0, 3)) else "")
    newline = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    return newline.join(lines) + draw(st.sampled_from([newline, ""]))


@given(_documents(), st.sampled_from(STAGES))
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_new_keys_take_no_comment_and_rollback_gives_the_bytes_back(text: str,
                                                                     stage: str) -> None:
    staged = run(text, SETS[stage]).text
    removes = GPU_LINE if stage == "rightsize-example" else None
    assert check_kept(text, staged, removable=removes)
    assert run(staged, SETS["rollback"]).text == text
