"""The examples of docs/commands.md (the README's Commands section before) run as shown,
on the files shipped under examples/."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

BIN = Path(sys.executable).parent


def _console_block() -> list[str]:
    text = (ROOT / "docs" / "commands.md").read_text()
    section = text[text.index("# Commands"):]
    start = section.index("```console\n") + len("```console\n")
    return section[start:section.index("\n```", start)].splitlines()


def _examples() -> list[tuple[str, list[str]]]:
    """Each ``$ command`` (its comment dropped) with the lines the README shows after it."""
    found: list[tuple[str, list[str]]] = []
    for line in _console_block():
        if line.startswith("$ "):
            found.append((re.sub(r"\s+#.*$", "", line[2:]), []))
        elif line and found:
            found[-1][1].append(line)
    return found


def _shown_in(expected: list[str], actual: list[str]) -> bool:
    """Exact, or where the README elides (``...`` lines, ``…`` cuts), in order as prefixes."""
    if not any(line == "..." or "…" in line for line in expected):
        return expected == actual
    rest = iter(actual)
    wanted = [line.split("…")[0] for line in expected if line != "..."]
    return all(any(got.startswith(want) for got in rest) for want in wanted)


def test_readme_commands_run_as_shown(tmp_path: Path) -> None:
    for name in ("vllm.yaml", "broken.yaml"):
        shutil.copyfile(ROOT / "examples" / name, tmp_path / name)
    examples = _examples()
    assert len(examples) >= 6
    for command, expected in examples:
        argv = command.split()
        assert argv[0] == "tfpolicy"
        done = subprocess.run([str(BIN / "tfpolicy"), *argv[1:]], cwd=tmp_path, text=True,
                              capture_output=True, timeout=60, check=False)
        shown = (done.stdout + done.stderr).splitlines()
        assert _shown_in(expected, shown), (command, shown)
