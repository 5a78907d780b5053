"""``apply``'s output waits in memory while it is small and in a temporary file past
``IN_MEMORY``: the same bytes reach stdout either way, and the first pass's spool of the
input moves to disk alike."""

from __future__ import annotations

import pytest

from tests.conftest import ROOT
from tfpolicy.cli import main
from tfpolicy.files import streamed
from tfpolicy.rewrite import spool

MANIFESTS = ROOT / "examples" / "manifests"


def _applied(capfd: pytest.CaptureFixture[str]) -> str:
    code = main(["apply", "--policy", "takeover", str(MANIFESTS)])
    assert code in (0, 1, None)
    return capfd.readouterr().out


def test_the_same_bytes_whether_the_spools_stay_in_memory_or_move_to_disk(
        monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> None:
    in_memory = _applied(capfd)
    moves: list[str] = []
    to_disk = streamed.OneStream._to_disk

    def counted(self: streamed.OneStream) -> None:
        moves.append("output")
        to_disk(self)

    monkeypatch.setattr(streamed, "IN_MEMORY", 100)
    monkeypatch.setattr(spool, "IN_MEMORY", 100)
    monkeypatch.setattr(streamed.OneStream, "_to_disk", counted)
    on_disk = _applied(capfd)
    assert moves == ["output"] and on_disk == in_memory and "tensor-fusion" in on_disk
