"""The engine verbs' command line read without click: it reads a line as click reads it,
or declines it and click reads it; the verbs the hooks and hosts run most never load click
(docs/speed.md)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import ROOT
from tfpolicy.commands import apply as apply_module
from tfpolicy.commands import check as check_module
from tfpolicy.commands import fix as fix_module
from tfpolicy.commands.engine_line import FLAG, MANY, VERBS, EngineLine, read_line
from tfpolicy.commands.options import engine_line
from tfpolicy.findings import Severity

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
LLM = ROOT / "examples" / "manifests" / "llm-server.yaml"
MODULES = {"check": check_module, "apply": apply_module, "fix": fix_module}


def _click_command(verb: str) -> click.Command:
    command = getattr(MODULES[verb], verb)
    assert isinstance(command, click.Command)
    return command


@pytest.mark.parametrize("verb", sorted(VERBS))
def test_the_reader_knows_each_option_click_declares_and_no_other(verb: str) -> None:
    options, _ = VERBS[verb]
    declared: dict[str, tuple[str, str, tuple[str, ...] | None]] = {}
    for param in _click_command(verb).params:
        if not isinstance(param, click.Option):
            continue
        how = FLAG if param.is_flag else MANY if param.multiple else "value"
        choices = tuple(param.type.choices) if isinstance(param.type, click.Choice) else None
        for name in (*param.opts, *param.secondary_opts):
            declared[name] = (param.name or "", how, choices)
    assert set(options) == set(declared)
    for name, (field, how, accept) in options.items():
        # --operator-config is kept in the context under its own name, read as ``operator``
        clicks_field = {"operator_config": "operator"}.get(declared[name][0], declared[name][0])
        assert (field, how) == (clicks_field, declared[name][1]), name
        if declared[name][2] is not None:  # a choice: exactly click's values are taken
            assert accept is not None
            assert {c for c in declared[name][2] if accept(c) is not None} == set(
                declared[name][2]), name
            assert accept(declared[name][2][0].upper() + "x") is None


def _clicks_reading(verb: str, args: list[str]) -> EngineLine | None:
    """What click makes of ``args``, as the verb receives it; ``None`` when it refuses."""
    command = _click_command(verb)
    try:
        ctx = command.make_context(verb, list(args))
    except click.exceptions.Exit:  # --help
        return None
    except click.ClickException:
        return None
    with ctx:
        return engine_line(dict(ctx.params))


TOKENS = st.sampled_from([
    "-p", "--policy", "--policy=takeover", "takeover", "-n", "--namespace=ns", "ns",
    "--format", "--format=json", "json", "JSON", "sarif", "--operator-config", "op.yaml",
    "--explain", "--explain=1", "-q", "--quiet", "--fail-on", "--fail-on=warning", "warning",
    "error", "-j", "--jobs", "--jobs=2", "2", "0", "x", "-1", "--skip-unconfigured", "--hook",
    "--diff", "-o", "--output-dir", "--output", "out", "file.yaml", "present.yaml", "a b.yaml",
    "-", "--", "-h", "--help", "-pX", "--polic", "-qj", "--unknown", "",
])


@settings(max_examples=600, deadline=None)
@given(verb=st.sampled_from(sorted(VERBS)), args=st.lists(TOKENS, max_size=9),
       jobs=st.sampled_from([None, "", "3", "x", " 3", "-1"]))
def test_a_line_read_without_click_is_read_as_click_reads_it(
        tmp_path_factory: pytest.TempPathFactory, verb: str, args: list[str],
        jobs: str | None) -> None:
    """Whatever the line, the reader either declines it or gives what click gives."""
    folder = tmp_path_factory.mktemp("line")
    (folder / "present.yaml").write_text("a: 1\n")
    (folder / "out").mkdir()
    before = Path.cwd()
    saved = os.environ.pop("TFPOLICY_JOBS", None)
    try:
        os.chdir(folder)
        if jobs is not None:
            os.environ["TFPOLICY_JOBS"] = jobs
        mine = read_line(verb, args, os.environ)
        if mine is not None:
            assert mine == _clicks_reading(verb, args)
    finally:
        os.chdir(before)
        os.environ.pop("TFPOLICY_JOBS", None)
        if saved is not None:
            os.environ["TFPOLICY_JOBS"] = saved


def test_the_lines_the_hooks_and_the_bench_run_are_read_without_click() -> None:
    assert read_line("check", ["--hook", "--", "-p", "takeover", "--", "a.yaml"], {}) == \
        EngineLine(policies=("takeover",), hook=True, jobs=0, paths=("a.yaml",))
    assert read_line("apply", ["-p", "takeover", "-"], {"TFPOLICY_JOBS": "1"}) == \
        EngineLine(policies=("takeover",), jobs=1, paths=("-",))
    assert read_line("fix", ["-p", "takeover", "--fail-on", "warning", "x.yaml"], {}) == \
        EngineLine(policies=("takeover",), jobs=0, fail_on=Severity.WARNING, paths=("x.yaml",))
    assert read_line("check", ["-h"], {}) is None
    assert read_line("apply", ["--hook", "a.yaml"], {}) is None  # not apply's: click says so


# --- the same bytes through the console script as through click alone ----------------------

def _run(argv: list[str], cwd: Path, through_click: bool) -> tuple[int, bytes, bytes]:
    if through_click:
        code = "import sys; from tfpolicy.commands.group import run; sys.exit(run(sys.argv[1:]))"
        argv = [sys.executable, "-c", code, *argv]
    else:
        argv = [TFPOLICY, *argv]
    done = subprocess.run(argv, cwd=cwd, capture_output=True, check=False,
                          env={k: v for k, v in os.environ.items() if k != "TFPOLICY_JOBS"})
    return done.returncode, done.stdout, done.stderr


LINES = [
    ["check", "--policy", "takeover", "llm.yaml"],
    ["check", "-p", "takeover", "--format", "json", "--diff", "llm.yaml"],
    ["check", "-p", "takeover", "--fail-on", "warning", "-j", "1", "--explain", "llm.yaml"],
    ["check", "--hook", "--", "-p", "takeover", "--", "llm.yaml"],
    ["check", "-p", "takeover", "missing.yaml"],
    ["check", "-p", "no-such-policy", "llm.yaml"],
    ["apply", "-p", "takeover", "llm.yaml"],
    ["apply", "-p", "takeover", "--format=github", "-o", "out", "llm.yaml"],
    ["apply", "-p", "takeover", "-"],
    ["apply", "-p", "takeover"],
    ["fix", "-p", "takeover", "-q", "llm.yaml"],
]


@pytest.mark.parametrize("args", LINES, ids=[" ".join(a) for a in LINES])
def test_the_console_script_gives_the_bytes_click_gives(tmp_path: Path, args: list[str]
                                                        ) -> None:
    outcomes = []
    for through_click in (False, True):
        work = tmp_path / ("click" if through_click else "plain")
        work.mkdir()
        shutil.copy(LLM, work / "llm.yaml")
        done = _run(args, work, through_click)
        written = {p.relative_to(work).as_posix(): p.read_bytes()
                   for p in sorted(work.rglob("*")) if p.is_file()}
        outcomes.append((done, written))
    assert outcomes[0] == outcomes[1]


# --- what the commonest verbs load -----------------------------------------------------------

def _loaded_after(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> set[str]:
    code = ("import contextlib, io, sys\nfrom tfpolicy.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()), "
            "contextlib.redirect_stderr(io.StringIO()):\n"
            f"    code = main({args!r})\nprint(code)\nprint('\\n'.join(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=cwd, env=env, check=True)
    return set(done.stdout.splitlines())


# Modules a one-file run of these verbs never uses: the command line library, a worker
# pool, a diff, a user's policy's schema check, ruamel; and for check, which writes nothing,
# what only a spooled stream (apply), a report file or fix's renames in threads need.
NEVER = {"click", "multiprocessing", "subprocess", "difflib", "jsonschema", "ruamel"}
NOT_FOR = {"check": NEVER | {"tempfile", "shutil", "pickle", "concurrent"},
           "apply": NEVER, "fix": NEVER}


@pytest.mark.parametrize("verb", ["check", "apply", "fix"])
def test_a_one_file_run_of_the_hooks_verbs_loads_no_command_line_library(
        tmp_path: Path, verb: str) -> None:
    shutil.copy(LLM, tmp_path / "llm.yaml")
    loaded = _loaded_after([verb, "--policy", "takeover", "llm.yaml"], tmp_path)
    assert {"1", "0"} & loaded  # it ran: exit 1 (changed) or 0
    assert not NOT_FOR[verb] & {m.split(".")[0] for m in loaded}
    assert f"tfpolicy.commands.{verb}" in loaded
    # nor what judges a rung (the configuration's gates need their spec only), nor
    # inspect, which a dataclass brings in
    assert not {"tfpolicy.gates.run", "tfpolicy.gates.judge", "inspect"} & loaded


def test_argocd_generate_loads_no_command_line_library(tmp_path: Path) -> None:
    shutil.copy(LLM, tmp_path / "all.yaml")
    loaded = _loaded_after(["argocd", "generate"], tmp_path,
                           {**os.environ, "ARGOCD_ENV_TFPOLICY_POLICIES": "takeover"})
    assert "0" in loaded and "click" not in loaded


def test_a_line_the_reader_declines_is_clicks_to_read(tmp_path: Path) -> None:
    """A misspelled option gets click's own message; an unusual line still runs, by click."""
    shutil.copy(LLM, tmp_path / "llm.yaml")
    code, _, err = _run(["check", "--polcy", "takeover", "llm.yaml"], tmp_path, False)
    assert code == 2 and b"No such option '--polcy'. Did you mean '--policy'?" in err
    loaded = _loaded_after(["check", "-ptakeover", "llm.yaml"], tmp_path)
    assert "click" in loaded and "1" in loaded
