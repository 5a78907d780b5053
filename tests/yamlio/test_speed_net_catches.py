"""The read back still refuses a wrong rewrite: a splice that writes other data than
the edits intend is caught by libyaml's reading, and ``apply`` exits 2 naming the file.

The splice is made wrong on purpose through its module (the seam ``faithful`` calls),
and the round trip is turned off, so no other writer can save the document.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tfpolicy.cli import main
from tfpolicy.yamlio import faithful, splice

WORKLOAD = (
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: w\nspec:\n  template:\n"
    "    metadata:\n      labels:\n        app: w\n"
    "    spec:\n      containers:\n      - name: c\n        image: r/i:1\n"
    "        resources:\n          limits:\n            nvidia.com/gpu: 1\n"
)
WRONGS: dict[str, Callable[[str], str]] = {
    "a value respelled": lambda text: text.replace("image: r/i:1", "image: r/i:2"),
    "a value retyped": lambda text: text.replace("image: r/i:1", "image: 12"),
    "a line moved out of its mapping": lambda text: text.replace("\n  name: w", "\nname: w"),
    "a key dropped": lambda text: text.replace("        app: w\n", ""),
    "a key doubled": lambda text: text.replace("        app: w\n", "        app: w\n" * 2),
    "an item added": lambda text: text.replace("      - name: c\n",
                                               "      - name: d\n      - name: c\n"),
    "a second document": lambda text: text + "---\nkind: X\n",
}


def _apply(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    path = tmp_path / "w.yaml"
    path.write_text(WORKLOAD)
    code = main(["apply", "-p", "takeover", "--jobs", "1", str(path)])
    out = capsys.readouterr()
    return code, out.out, out.err


def _splice_made_wrong(monkeypatch: pytest.MonkeyPatch, wrong: Callable[[str], str]) -> None:
    real = splice.splice

    def spliced(*args: Any, **kwargs: Any) -> str | None:
        text = real(*args, **kwargs)
        return None if text is None else wrong(text)

    def no_round_trip(*_: object) -> str | None:
        return None

    monkeypatch.setattr(splice, "splice", spliced)
    monkeypatch.setattr(faithful, "_round_trip", no_round_trip)


def test_the_right_splice_is_taken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    _splice_made_wrong(monkeypatch, lambda text: text)
    code, out, _ = _apply(tmp_path, capsys)
    assert code == 0
    assert "tensor-fusion.ai/enabled" in out and "image: r/i:1\n" in out


@pytest.mark.parametrize("name", sorted(WRONGS))
def test_a_wrong_splice_is_refused(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    _splice_made_wrong(monkeypatch, WRONGS[name])
    code, out, err = _apply(tmp_path, capsys)
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{tmp_path / 'w.yaml'}:")
    assert "cannot rewrite this document" in lines[0]
