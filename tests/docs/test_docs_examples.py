"""Every shell example of README.md and docs/*.md runs as written, or says why it cannot.

Each ``run`` block runs in one bash, command by command, in a scratch copy of the
examples (tests/docs/scratch.py) through this checkout's installed ``tfpolicy``; each
command's exit code is the marker's, the output a console block shows under a command is
in that command's output, and every ``contains=`` text is in the block's. A shell block
with no marker fails its page's test, so a new example declares itself.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.docs.docblocks import (
    SHELL,
    Block,
    Command,
    blocks,
    commands,
    missing,
    needs,
    pages,
    parse_run,
)
from tests.docs.scratch import NEEDS, SETUPS, env, scratch

ALL = [block for page in pages() for block in blocks(page)]
RUNNABLE = [block for block in ALL if block.marker == "run"]


@pytest.mark.parametrize("block", RUNNABLE, ids=[b.where for b in RUNNABLE])
def test_doc_example_runs(block: Block, tmp_path: Path) -> None:
    marked, steps = parse_run(block), commands(block)
    root = scratch(tmp_path)
    cwd, environ = root / marked.cwd, env(root)
    cwd.mkdir(parents=True, exist_ok=True)
    for path, source in marked.given:  # what a step not run here would have written
        if (ROOT / source).is_dir():
            shutil.copytree(ROOT / source, cwd / path)
        else:
            shutil.copy(ROOT / source, cwd / path)
    for name in marked.setups:
        SETUPS[name](cwd, environ)
    outs = _run(steps, cwd, environ, tmp_path / "runs")
    got = [code for code, _ in outs]
    assert got == list(marked.exits), _told(block, steps, outs)
    for step, (_, output) in zip(steps, outs, strict=True):
        lost = missing(step.shown, output)
        assert not lost, f"{block.where}: `{step.text}` did not print {lost!r}:\n{output[-3000:]}"
    everything = "".join(output for _, output in outs)
    for text in marked.contains:
        assert text in everything, f"{block.where}: no {text!r} in:\n{everything[-3000:]}"


def _run(steps: list[Command], cwd: Path, environ: dict[str, str],
         runs: Path) -> list[tuple[int, str]]:
    """The commands in one bash, as a reader pastes them (``export`` and ``cd`` carry over),
    each one's stdout, stderr and exit code kept apart, outside the scratch."""
    runs.mkdir()
    script = "".join(f"{{ {step.text}\n}} >{runs}/{i}.out 2>{runs}/{i}.err\n"
                     f"code=$?; echo $code >{runs}/{i}.code; (exit $code)\n"
                     for i, step in enumerate(steps))  # the next command's $? is this one's
    subprocess.run(["bash", "-c", script], cwd=cwd, env=environ, timeout=300, check=False)
    return [(int((runs / f"{i}.code").read_text()) if (runs / f"{i}.code").exists() else -1,
             (runs / f"{i}.out").read_text() + (runs / f"{i}.err").read_text())
            for i in range(len(steps))]


def _told(block: Block, steps: list[Command], outs: list[tuple[int, str]]) -> str:
    return f"{block.where}: exit codes differ\n" + "\n".join(
        f"$ {step.text}  -> {code}\n{output[-1500:]}"
        for step, (code, output) in zip(steps, outs, strict=True))


@pytest.mark.parametrize("page", [p.relative_to(ROOT).as_posix() for p in pages()])
def test_every_block_of_a_page_declares_itself(page: str) -> None:
    """Every fenced block names its language; every shell block runs or names what it
    needs; a run marker is well formed, one exit code per command, known setups."""
    problems = [problem for block in ALL if block.page == page for problem in _problems(block)]
    assert not problems, "\n".join(problems)


def _problems(block: Block) -> list[str]:
    if not block.info:
        return [f"{block.where}: a fenced block names its language (text for output)"]
    if block.info in SHELL and not block.marker:
        return [f"{block.where}: a shell block is marked <!-- run: … --> or <!-- needs: … -->"]
    if block.marker == "needs":
        unknown = [n for n in needs(block) if n not in NEEDS] or ([] if needs(block) else [""])
        return [f"{block.where}: needs {n!r}: not one of {', '.join(NEEDS)}" for n in unknown]
    if block.marker == "run":
        return _run_problems(block)
    return []


def _run_problems(block: Block) -> list[str]:
    try:
        marked = parse_run(block)
    except ValueError as err:
        return [str(err)]
    count = len(commands(block))
    problems = [f"{block.where}: {len(marked.exits)} exit codes for {count} commands"
                for _ in [0] if len(marked.exits) != count]
    return problems + [f"{block.where}: unknown setup {name!r}"
                       for name in marked.setups if name not in SETUPS]


def test_the_readme_starts_with_its_two_set_up_commands() -> None:
    first = blocks(ROOT / "README.md")[0]
    assert [line.split("#")[0].strip() for line in first.body] == ["make demo", "make test"]
