"""What a start loads: ``--version`` and ``--help`` no command line library, a command only
its own module, a run of built-in policies no jsonschema; each saving gives the same bytes
as the work it skips (docs/speed.md)."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path

import click
import pytest

from tests.conftest import ROOT
from tfpolicy import yamlio
from tfpolicy.cli import COMMANDS, HELP, SUMMARIES, cli
from tfpolicy.command_table import SECTIONS
from tfpolicy.files.sources import builtin_policies
from tfpolicy.policy import known, schema

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
LLM = ROOT / "examples" / "manifests" / "llm-server.yaml"


def _in_child(code: str, env: dict[str, str] | None = None) -> list[str]:
    """Run ``code`` in a fresh interpreter; the lines it prints."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, env=env, check=True)
    return done.stdout.splitlines()


def _loaded_after(args: list[str], env: dict[str, str] | None = None) -> set[str]:
    """The modules a fresh ``tfpolicy ARGS`` (``main`` in process) has imported when done."""
    code = ("import contextlib, io, sys\nfrom tfpolicy.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()), "
            "contextlib.redirect_stderr(io.StringIO()):\n"
            f"    main({args!r})\nprint('\\n'.join(sorted(sys.modules)))")
    return set(_in_child(code, env))


def _console(*args: str, **env: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([TFPOLICY, *args], capture_output=True, cwd=ROOT,
                          env={**os.environ, **env}, check=False)


def _click_renders(*args: str, **env: str) -> subprocess.CompletedProcess[bytes]:
    """``tfpolicy ARGS`` through the click group alone, never the entry point's shortcuts."""
    code = "import sys; from tfpolicy.commands.group import run; sys.exit(run(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, cwd=ROOT,
                          env={**os.environ, **env}, check=False)


# --- --version and --help ------------------------------------------------------------------

def test_version_is_the_groups_line_without_click() -> None:
    fast, among_options = _console("--version"), _console("--traceback", "--version")
    assert fast.returncode == among_options.returncode == 0
    assert fast.stdout == among_options.stdout and fast.stdout.startswith(b"tfpolicy, version ")
    assert "click" not in _loaded_after(["--version"])


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_is_clicks_own_bytes_without_click(flag: str) -> None:
    fast, rendered = _console(flag), _click_renders(flag)
    assert (fast.returncode, rendered.returncode) == (0, 0)
    assert fast.stdout == rendered.stdout == HELP.encode()
    assert "click" not in _loaded_after([flag])


@pytest.mark.parametrize("columns", ["50", "64", "79"])
def test_a_narrower_terminal_gets_clicks_wrapping(columns: str) -> None:
    narrow, rendered = _console("--help", COLUMNS=columns), _click_renders("--help",
                                                                          COLUMNS=columns)
    assert narrow.returncode == 0 and narrow.stdout == rendered.stdout != HELP.encode()


def test_help_imports_no_command() -> None:
    loaded = _loaded_after(["--help"], {**os.environ, "COLUMNS": "60"})
    assert "click" in loaded
    assert not {m for m in loaded if m.startswith("tfpolicy.commands.")} - {
        "tfpolicy.commands.group", "tfpolicy.commands.outcome"}


def test_a_command_imports_no_other_command() -> None:
    loaded = _loaded_after(["gpus"])
    commands = {m.rpartition(".")[2] for m in loaded if m.startswith("tfpolicy.commands.")}
    others = {module for module, _ in COMMANDS.values()} - {"gpus"}
    assert "gpus" in commands and not commands & others


@pytest.mark.parametrize("width", [50, 60, 78, 100, 140])
def test_the_listing_of_summaries_is_the_one_the_commands_give(width: int) -> None:
    """The listing, written from the summaries, shortens each as the command's own help
    would be shortened (imported here), in the sections' order."""
    ctx = click.Context(cli, info_name="tfpolicy")
    formatter = click.HelpFormatter(width=width)
    cli.format_commands(ctx, formatter)
    limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
    expected = click.HelpFormatter(width=width)
    for title, names in SECTIONS:
        rows = []
        for name in names:
            command = cli.get_command(ctx, name)  # imports it
            assert command is not None
            rows.append((name, command.get_short_help_str(limit)))
        with expected.section(title):
            expected.write_dl(rows)
    assert formatter.getvalue() == expected.getvalue()
    assert set(SUMMARIES) == set(COMMANDS)


# --- built-in policies: validated when tested, not at each start ---------------------------

def _builtin_documents() -> list[tuple[str, object]]:
    found = []
    for name in builtin_policies():
        text = resources.files("tfpolicy").joinpath("policies", f"{name}.yaml").read_text()
        for raw in yamlio.split_documents(text):
            parsed = yamlio.parse_document(raw.text, file=name, line=raw.line)
            if parsed.node is not None:
                found.append((name, parsed.data))
    return found


def test_every_builtin_policy_satisfies_the_schema_and_its_fingerprint_is_recorded() -> None:
    documents = _builtin_documents()
    for name, data in documents:  # by jsonschema itself, never the record
        assert list(schema._validator("policy").iter_errors(data)) == [], name
    prints = {known.fingerprint(data, "policy"): name for name, data in documents}
    recorded = "".join(f'    "{p}",  # {n}\n' for p, n in sorted(prints.items(),
                                                           key=lambda item: item[1]))
    assert set(prints) == known.VALIDATED, (
        "a built-in policy or the policy schema changed: once it validates, record in "
        f"tfpolicy/policy/known.py\nVALIDATED: frozenset[str] = frozenset({{\n{recorded}}})")


def test_a_run_of_builtin_policies_never_loads_jsonschema_and_a_users_policy_does(
        tmp_path: Path) -> None:
    assert "jsonschema" not in _loaded_after(["check", "-p", "takeover", str(LLM)])
    same = str(ROOT / "policies" / "takeover.yaml")  # the same document, as a file
    assert "jsonschema" not in _loaded_after(["check", "-p", same, str(LLM)])
    user = tmp_path / "mine.yaml"
    user.write_text((ROOT / "policies" / "takeover.yaml").read_text().replace(
        "name: takeover", "name: mine"))
    assert "jsonschema" in _loaded_after(["check", "-p", str(user), str(LLM)])


def _takeover() -> dict[str, object]:
    data = dict(_builtin_documents())["takeover"]
    assert isinstance(data, dict)
    return data


def _changed(path: tuple[str, ...], value: object) -> dict[str, object]:
    data = copy.deepcopy(_takeover())
    place = data
    for key in path[:-1]:
        place = place[key]
    place[path[-1]] = value
    return data


@pytest.mark.parametrize("data", [
    _changed(("spec", "stage"), "takover"),
    _changed(("metadata", "name"), "other"),
    _changed(("spec", "extra"), True),
    json.loads(json.dumps(_takeover()).replace('"takeover"', '"rightsize"')),
], ids=["bad-stage", "renamed", "extra-field", "restaged"])
def test_a_document_unlike_any_builtin_is_validated(data: dict[str, object]) -> None:
    assert not known.known_valid(data, "policy")


def test_only_exact_json_data_has_a_fingerprint() -> None:
    data = _takeover()
    assert known.known_valid(data, "policy")
    assert known.fingerprint({**data, 1: "x"}, "policy") is None  # not a JSON key
    assert known.fingerprint({**data, "x": (1,)}, "policy") is None  # a tuple is no list
    assert known.fingerprint({**data, "x": float("nan")}, "policy") is None
    assert known.fingerprint({**data, "x": "\udc80"}, "policy") is None
    assert not known.known_valid(data, "config")  # another schema
    assert known.fingerprint(True, "policy") != known.fingerprint(1, "policy")


@pytest.mark.parametrize("columns", [None, "", "abc", "0", "-5", "79", "80", "200"])
def test_the_width_is_the_one_click_reads(monkeypatch: pytest.MonkeyPatch,
                                          columns: str | None) -> None:
    import shutil

    from tfpolicy import cli as entry

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert entry._columns() == shutil.get_terminal_size().columns


def test_apply_and_check_load_the_webhook_simulation_only_when_asked(tmp_path: Path) -> None:
    """Without an operator configuration a run never imports the webhook's package; check
    its traps only (admission.traps), and a ProviderConfig given reads the providers."""
    applied = _loaded_after(["apply", "-p", "takeover", str(LLM)])
    assert not {m for m in applied if m.startswith("tfpolicy.admission")}
    checked = _loaded_after(["check", "-p", "takeover", str(LLM)])
    assert "tfpolicy.admission.config" not in checked
    provider = tmp_path / "provider.yaml"
    provider.write_text("apiVersion: tensor-fusion.ai/v1\nkind: ProviderConfig\n"
                        "metadata: {name: amd}\nspec: {vendor: AMD}\n")
    given = _loaded_after(["apply", "-p", "takeover", "--operator-config", str(provider),
                           str(LLM)])
    assert "tfpolicy.admission.objects" in given


def test_a_small_check_loads_no_pool_no_framework_table_and_no_webhook_diff() -> None:
    """One Deployment without a vram-limit: no worker pool, no git, no frameworks' tables
    (only their check, which finds no limit), no change records of the webhook's diff;
    every request migrates, so no reason for one that does not is worded, and no
    ``copy`` (parsed data is copied by ``edits.clone``)."""
    checked = _loaded_after(["check", "-p", "takeover", str(LLM)])
    assert not {m for m in checked if m.startswith(("multiprocessing", "subprocess"))}
    assert "tfpolicy.frameworks.traps" in checked
    assert not {"tfpolicy.frameworks.detect", "tfpolicy.frameworks.sizing",
                "tfpolicy.frameworks.framework_table", "tfpolicy.admission.diff",
                "tfpolicy.admission.admission_records", "tfpolicy.workloads.reasons",
                "tfpolicy.workloads.declare", "copy"} & checked
    applied = _loaded_after(["apply", "-p", "takeover", str(LLM)])
    assert not {m for m in applied if m.startswith(("multiprocessing", "subprocess"))}


def test_argocd_on_a_plain_app_starts_no_renderer(tmp_path: Path) -> None:
    """A folder of manifests is read, not rendered: no subprocess, no worker pool."""
    (tmp_path / "all.yaml").write_text(LLM.read_text())
    code = ("import contextlib, io, os, sys\nfrom tfpolicy.cli import main\n"
            f"os.chdir({str(tmp_path)!r})\n"
            "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
            "    code = main(['argocd', 'generate'])\n"
            "assert code in (0, None) and 'tensor-fusion' in out.getvalue(), code\n"
            "print('\\n'.join(sorted(sys.modules)))")
    loaded = set(_in_child(code, {**os.environ, "ARGOCD_ENV_TFPOLICY_POLICIES": "takeover"}))
    assert "tfpolicy.hosts.appsource" in loaded
    assert not {m for m in loaded if m.startswith(("multiprocessing", "subprocess"))}


def test_a_small_check_loads_no_openssl_no_resources_reader_and_no_packaging() -> None:
    """The built-in policies are read by path, a small input hashed by CPython's own
    SHA-256, and rapidyaml imported without the deprecation package it decorates with."""
    checked = _loaded_after(["check", "-p", "takeover", str(LLM)])
    assert "ryml" in checked and "tfpolicy.digest" in checked
    assert not {"hashlib", "_hashlib", "importlib.resources", "deprecation",
                "packaging"} & checked


def test_difflib_waits_for_a_diff_or_a_hint() -> None:
    """difflib serves --diff and did-you-mean hints only: a check or apply with findings
    and long options, as the hooks and the hosts run them, never loads it. (A short
    option does: click matches ``-p`` as a long one first, and its error for the miss
    imports difflib to suggest names, then the short match succeeds.)"""
    for command in ("check", "apply"):
        assert "difflib" not in _loaded_after([command, "--policy", "takeover", str(LLM)])
    assert "difflib" in _loaded_after(["check", "--diff", "--policy", "takeover", str(LLM)])


def test_after_rapidyaml_the_real_deprecation_package_imports() -> None:
    code = ("import tfpolicy.yamlio.fast, sys\nassert 'deprecation' not in sys.modules\n"
            "import deprecation\nprint(deprecation.__file__)")
    assert _in_child(code)[0].endswith(("deprecation.py", "__init__.py"))


def test_the_digest_is_sha256_whichever_implementation_gives_it() -> None:
    code = ("import os, sys\nfrom tfpolicy import digest\n"
            "data = [os.urandom(n) for n in (0, 1, 100, digest.SMALL - 1, digest.SMALL, 1 << 20)]\n"
            "before = [digest.sha256(d).hex() for d in data]\n"
            "import hashlib\n"
            "after = [digest.sha256(d).hex() for d in data]\n"
            "print(before == after == [hashlib.sha256(d).hexdigest() for d in data])")
    assert _in_child(code) == ["True"]


def test_the_help_lists_every_command_once_by_the_order_of_the_work() -> None:
    from tfpolicy import command_table

    listed = [name for _, names in command_table.SECTIONS for name in names]
    assert sorted(listed) == sorted(command_table.COMMANDS)
    assert listed[0] == "init" and listed[-3:] == ["krm", "kustomize", "argocd"]


def test_the_console_script_freezes_what_its_start_made_and_a_caller_keeps_its_collector(
        ) -> None:
    """tfpolicy's own process leaves what its imports made out of later collections and
    collects again after them; ``main`` called with a command line touches neither."""
    code = ("import gc, sys, contextlib, io\nfrom tfpolicy.cli import main\n"
            f"sys.argv = ['tfpolicy', 'check', '--policy', 'takeover', {str(LLM)!r}]\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    main()\n"
            "print(gc.get_freeze_count() > 1000, gc.isenabled())\n"
            "gc.unfreeze()\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    main(['check', '--policy', 'takeover', {str(LLM)!r}])\n"
            "print(gc.get_freeze_count(), gc.isenabled())")
    assert _in_child(code) == ["True True", "0 True"]
