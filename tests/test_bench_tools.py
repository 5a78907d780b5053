"""The bench's own helpers: what it counts in an output must not depend on how it reads it."""

from __future__ import annotations

import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from run import count_in

NEEDLE = b'tensor-fusion.ai/enabled: "true"'
PIECES = st.sampled_from([NEEDLE, b"x", b"tensor", b"\n", b'"true"', NEEDLE[:-1]])


@settings(max_examples=200, deadline=None)
@given(parts=st.lists(PIECES, max_size=200), chunk=st.integers(min_value=1, max_value=80))
def test_count_in_matches_bytes_count_whatever_the_chunk_size(tmp_path_factory, parts, chunk):
    data = b"".join(parts)
    path = tmp_path_factory.mktemp("count") / "out.yaml"
    path.write_bytes(data)
    assert count_in(path, NEEDLE, chunk) == data.count(NEEDLE)
