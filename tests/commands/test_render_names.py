"""Names the reports copy from the files read (a file's name, an object's name or
namespace) never command what reads the report: GitHub's runner finds one workflow command
per finding with the file it names, an XML reader takes every JUnit report, a SARIF ``uri``
decodes to the file's bytes, and a text line holds no control character. Property tests
over any name, then the same through ``tfpolicy check`` with hostile file names."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import unicodedata
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import unquote_to_bytes, urlsplit

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import ROOT
from tfpolicy import render
from tfpolicy.findings import Finding, ResourceRef, Severity
from tfpolicy.render import github, junit, sarif, text, visible

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
LLM = ROOT / "examples" / "manifests" / "llm-server.yaml"

# Any character, lone surrogates too (a file name's byte that is not UTF-8).
NAMES = st.text(st.characters(codec=None, exclude_categories=()), max_size=40)
# The characters no text report may hold as they are (render.py says why each).
UNSHOWN = {chr(c) for c in (*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029,
                            *range(0x202A, 0x202F), *range(0x2066, 0x206A),
                            *range(0xD800, 0xE000), 0xFFFE, 0xFFFF)}
HOSTILE = ["a\nb,c:d%.yaml", "t\x1b]0;PWNED\x07\x1b[2J.yaml", "x\r::add-mask::y.yaml",
           "dir #1/a b%41.yaml", "::warning file=README.md::z.yaml", "c1\x9b31m\x7f.yaml"]


def _finding(name: str) -> Finding:
    ref = ResourceRef("apps/v1", "Deployment", name, name)
    return Finding(Severity.WARNING, f"container {name}: odd", "odd-rule", policy=name,
                   resource=ref, file=name, line=3, column=5)


# --- text: one function shows every name --------------------------------------------------

@settings(max_examples=400, deadline=None)
@given(NAMES)
def test_visible_leaves_no_control_character_and_keeps_the_rest(name: str) -> None:
    shown = visible(name)
    assert not set(shown) & UNSHOWN, repr(shown)
    assert shown.encode("utf-8").decode("utf-8") == shown  # strict: no lone surrogate left
    assert visible(shown) == shown  # what it writes is itself shown as it is
    if not set(name) & UNSHOWN:
        assert shown == name
    lines = visible(name, lines=True)
    assert not set(lines) & UNSHOWN - {"\t", "\n", "\r"}
    assert "\r" not in lines.replace("\r\n", "")


def test_visible_writes_controls_as_python_writes_them() -> None:
    assert visible("a\x1b]0;t\x07\x1b[2J\t\n\r\x7f\x9b\u202e\udcff") == (
        "a\\x1b]0;t\\x07\\x1b[2J\\t\\n\\r\\x7f\\x9b\\u202e\\udcff")
    assert visible("one\r\ntwo\n\tthree\rfour\x1b", lines=True) == (
        "one\r\ntwo\n\tthree\\rfour\\x1b")


@settings(max_examples=200, deadline=None)
@given(NAMES)
def test_a_text_finding_is_one_line_of_shown_characters(name: str) -> None:
    out = text([_finding(name)])
    assert out.count("\n") == 1 and out.endswith("\n")
    assert not set(out[:-1]) & UNSHOWN
    assert visible(name) in out


# --- GitHub: as the runner reads a workflow command ---------------------------------------
# actions/runner src/Runner.Common/ActionCommand.cs:51 (TryParseV2) and :227, :243 (the
# property and data unescaping), and the runner reads its output line by line on CR or LF.

_PROPERTY_UNESCAPES = (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%"))
_DATA_UNESCAPES = (("%0D", "\r"), ("%0A", "\n"), ("%25", "%"))


def _unescape(value: str, mapping: tuple[tuple[str, str], ...]) -> str:
    for escaped, char in mapping:
        value = value.replace(escaped, char)
    return value


def _runner_reads(line: str) -> tuple[str, dict[str, str], str]:
    """(command, properties, data) as ``ActionCommand.TryParseV2`` parses ``line``."""
    line = line.lstrip()
    assert line.startswith("::")
    end = line.index("::", 2)
    name, _, props = line[2:end].partition(" ")
    properties = {}
    for pair in filter(None, props.strip().split(",")):
        key, sep, value = pair.partition("=")
        if sep and key and value:
            properties[key] = _unescape(value, _PROPERTY_UNESCAPES)
    return name, properties, _unescape(line[end + 2:], _DATA_UNESCAPES)


def _runner_lines(out: str) -> list[str]:
    return [line for line in out.replace("\r\n", "\n").replace("\r", "\n").split("\n") if line]


@settings(max_examples=400, deadline=None)
@given(st.lists(NAMES.filter(bool), min_size=1, max_size=3))
def test_github_gives_the_runner_one_command_per_finding_naming_its_file(
        names: list[str]) -> None:
    findings = [_finding(name) for name in names]
    lines = _runner_lines(github(findings))
    assert len(lines) == len(set(findings))
    read = [_runner_reads(line) for line in lines]
    assert all(command == "warning" for command, _, _ in read)
    assert sorted(props["file"] for _, props, _ in read) == sorted(
        {f.file for f in findings})
    for _, props, data in read:
        assert set(props) == {"file", "line", "col", "title"}
        assert (props["line"], props["col"]) == ("3", "5")
        assert props["title"] == visible(f"tfpolicy {props['file']}").rstrip()  # .NET Trim()
        assert data == visible(f"container {props['file']}: odd")


def test_check_github_escapes_hostile_file_names(tmp_path: Path) -> None:
    for name in HOSTILE:
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_bytes(LLM.read_bytes())
    done = subprocess.run([TFPOLICY, "check", "-p", "takeover", "--format", "github",
                           *HOSTILE], cwd=tmp_path, capture_output=True, check=False)
    assert done.returncode == 1, done.stderr
    lines = _runner_lines(done.stdout.decode("utf-8", "surrogateescape"))
    read = [_runner_reads(line) for line in lines]
    assert {command for command, _, _ in read} == {"warning"}
    assert sorted({props["file"] for _, props, _ in read}) == sorted(HOSTILE)


# --- JUnit: well-formed whatever the names -----------------------------------------------

@settings(max_examples=300, deadline=None)
@given(st.lists(NAMES.filter(bool), min_size=1, max_size=3))
def test_junit_parses_and_names_each_file_as_text_shows_it(names: list[str]) -> None:
    report = junit([_finding(name) for name in names], files=names)
    suite = ET.fromstring(report.encode("utf-8")).find("testsuite")  # strict UTF-8, then XML
    assert suite is not None
    cases = [case.get("name") for case in suite.findall("testcase")]
    assert sorted(cases) == sorted({visible(name) for name in names})


# --- SARIF: a URI reference that decodes to the file's bytes ------------------------------

@settings(max_examples=400, deadline=None)
@given(NAMES.filter(bool))
def test_sarif_uri_is_the_file_percent_encoded(name: str) -> None:
    log = json.loads(sarif([_finding(name)]))
    uri = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"][
        "artifactLocation"]["uri"]
    try:
        data = os.fsencode(name)
    except UnicodeEncodeError:  # a surrogate no file name holds: its UTF-16 half, as such
        data = name.encode("utf-8", "surrogatepass")
    if data.startswith(b"//"):  # "/." first: the same path, never an authority
        data = b"/." + data
    assert unquote_to_bytes(uri) == data
    parts = urlsplit(uri)
    assert (parts.scheme, parts.netloc, parts.query, parts.fragment) == ("", "", "", "")
    allowed = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~%/"
                  "!$&'()*+,;=@")
    assert set(uri) <= allowed, uri  # RFC 3986 §3.3 pchar and "/", nothing else


def test_a_name_opening_with_two_slashes_is_a_path_not_an_authority() -> None:
    log = json.loads(sarif([_finding("//0/a.yaml")]))
    uri = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"][
        "artifactLocation"]["uri"]
    assert uri == "/.//0/a.yaml" and urlsplit(uri).netloc == ""


def test_check_sarif_names_a_spaced_hashed_percent_file(tmp_path: Path) -> None:
    name = "dir #1/a b%41.yaml"
    (tmp_path / "dir #1").mkdir()
    (tmp_path / name).write_bytes(LLM.read_bytes())
    done = subprocess.run([TFPOLICY, "check", "-p", "takeover", "--format", "sarif", name],
                          cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.returncode == 1, done.stderr
    location = json.loads(done.stdout)["runs"][0]["results"][0]["locations"][0]
    assert location["physicalLocation"]["artifactLocation"] == {
        "uri": "dir%20%231/a%20b%2541.yaml", "uriBaseId": "%SRCROOT%"}


@pytest.mark.parametrize("fmt", ["text", "junit"])
def test_check_reports_hostile_names_without_control_characters(tmp_path: Path,
                                                                  fmt: str) -> None:
    names = [*HOSTILE, os.fsdecode(b"latin-\xe9.yaml")]
    for name in names:
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_bytes(LLM.read_bytes())
    done = subprocess.run([TFPOLICY, "check", "-p", "takeover", "--format", fmt, *names],
                          cwd=tmp_path, capture_output=True, check=False)
    assert done.returncode == 1, done.stderr
    out = done.stdout.decode("utf-8")  # strict: every byte UTF-8
    assert not {c for c in out if unicodedata.category(c) == "Cc"} - {"\n"}
    if fmt == "junit":
        suite = ET.fromstring(done.stdout).find("testsuite")
        assert suite is not None
        assert sorted(c.get("name") for c in suite.findall("testcase")) == sorted(
            visible(name) for name in names)
    else:
        lines = out.splitlines()
        assert len(lines) == len(names)
        assert all(any(line.startswith(f"{visible(name)}:") for line in lines)
                   for name in names)


def test_a_printable_text_holds_no_character_visible_escapes() -> None:
    """``visible`` returns a text ``str.isprintable`` accepts as it is, without its
    patterns: exact only while every code point either pattern matches is one Python calls
    unprintable. Every code point is tried, and a text of each printable one with each
    pattern's own characters around it is still escaped."""
    name, lines = re.compile(render.IN_A_NAME), re.compile(render.IN_LINES)
    for code in range(0x110000):
        char = chr(code)
        if char.isprintable():
            assert not name.match(char) and not lines.match(char), hex(code)
    assert render.visible("a\u202eb") == "a\\u202eb"
    assert render.visible("a\r\nb", lines=True) == "a\r\nb"
    assert render.visible("a\rb", lines=True) == "a\\rb"
