"""Findings as text, JSON, GitHub annotations, SARIF or JUnit XML: pure functions returning
strings (a registry), and ``visible``, how every text a person reads shows a name.

Names come from the files read (a file's name, an object's name or namespace), so a
report shows them without letting them act on what displays it: no terminal escape, no
line of their own, no workflow command, nothing an XML reader refuses.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Collection, Sequence
from typing import Any

from tfpolicy import __version__
from tfpolicy.findings import Finding, Severity, sorted_findings

# What a terminal, a CI log or an XML reader acts on rather than shows: the C0 controls
# (ESC opens the sequences that retitle a window or clear the screen, CR overwrites a line,
# LF starts a line of the name's choosing), DEL, the C1 controls (U+009B is a terminal's
# CSI on its own), lone surrogates (a file name's byte that is not UTF-8), the line and
# paragraph separators, the bidirectional embeddings, overrides and isolates that reorder
# what follows them (CVE-2021-42574), and U+FFFE and U+FFFF, which XML 1.0 refuses.
_UNSHOWN = (r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
            r"\ud800-\udfff\ufffe\uffff")
IN_A_NAME = f"[{_UNSHOWN}\t\n\r]"
IN_LINES = f"[{_UNSHOWN}]|\r(?!\n)"  # a report's own line ends stay
_SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def visible(text: str, *, lines: bool = False) -> str:
    """``text`` with every character above written as Python writes it in a string literal
    (``\\x1b``, ``\\n``, ``\\u202e``, ``\\udcff``), for a person to read; the rest as it
    is. ``lines``: a whole report, whose tabs, line feeds and CRLF line ends are its own.

    Each of those characters is one ``str.isprintable`` refuses (a control, a format
    character, a surrogate, a separator other than the space, a non-character), so a
    printable text, nearly every one, is returned as it is and the patterns are compiled
    only for a text that needs them."""
    if text.isprintable():
        return text
    return _pattern(IN_LINES if lines else IN_A_NAME).sub(_escaped, text)


@functools.cache
def _pattern(source: str) -> re.Pattern[str]:
    return re.compile(source)


def _escaped(found: re.Match[str]) -> str:
    char = found.group()
    if char in _SHORT:
        return _SHORT[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _where(f: Finding) -> str:
    parts = [f.file or "-", str(f.line or 1), str(f.column or 1)]
    return ":".join(parts)


def text(findings: list[Finding]) -> str:
    """``file:line:col: [severity] message (policy)``, one per line."""
    lines = []
    for f in sorted_findings(findings):
        subject = f" {f.resource}:" if f.resource else ""
        lines.append(visible(f"{_where(f)}: [{f.severity.label}]{subject} {f.message} "
                             f"({f.policy or f.rule})"))
    return "".join(line + "\n" for line in lines)


def as_result(f: Finding) -> dict[str, Any]:
    """A KRM function ``Result`` (docs/hosts.md, "KRM function"), severity always set."""
    result: dict[str, Any] = {"message": f.message, "severity": f.severity.label}
    made: dict[str, str] = {}
    if f.resource:
        # ResourceRef takes apiVersion, kind, name and namespace only, name required: an
        # object without a name carries the name messages show, its prefix in a tag.
        ref = {"apiVersion": f.resource.apiVersion, "kind": f.resource.kind,
               "name": f.resource.shown_name}
        if f.resource.namespace:
            ref["namespace"] = f.resource.namespace
        result["resourceRef"] = ref
        if f.field:
            result["field"] = {"path": f.field}
        if not f.resource.name and f.resource.generateName:
            made = {"generateName": f.resource.generateName}
    if f.file:
        result["file"] = {"path": f.file, "index": f.index}
    result["tags"] = {"rule": f.rule, **({"policy": f.policy} if f.policy else {}),
                      "line": str(f.line), "column": str(f.column), **made}
    return result


def json_(findings: list[Finding]) -> str:
    return json.dumps([as_result(f) for f in sorted_findings(findings)], indent=2) + "\n"


def github(findings: list[Finding]) -> str:
    """GitHub Actions workflow commands, so findings show on the pull request's lines.

    Each value escaped as the runner unescapes it (actions/toolkit
    packages/core/src/command.ts:103 ``escapeData``, :110 ``escapeProperty``): a
    name cannot end the command, add a property or start a command of its own. The
    file stays the file's name, for the annotation to land on it; the title and the
    message are for a person and show their control characters (``visible``).
    """
    level = {"error": "error", "warning": "warning", "info": "notice"}
    lines = []
    for f in sorted_findings(findings):
        title = _property(visible(f"tfpolicy {f.policy or f.rule}"))
        lines.append(f"::{level[f.severity.label]} file={_property(f.file)},"
                     f"line={f.line or 1},col={f.column or 1},title={title}::"
                     f"{_data(visible(f.message))}")
    return "".join(line + "\n" for line in lines)


def _data(value: str) -> str:
    """A workflow command's message: ``%``, CR and LF escaped (``escapeData``)."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(value: str) -> str:
    """A workflow command's property: as a message, and ``:``, ``,`` (``escapeProperty``)."""
    return _data(value).replace(":", "%3A").replace(",", "%2C")


# SARIF 2.1.0, the format code-scanning uploads take: one run, one result per finding.
_SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def sarif(findings: list[Finding]) -> str:
    ordered = sorted_findings(findings)
    rules = sorted({f.rule for f in ordered})
    driver = {"name": "tfpolicy", "version": __version__,
              "rules": [_sarif_rule(r) for r in rules]}
    run = {"tool": {"driver": driver}, "results": [_sarif_result(f) for f in ordered]}
    log = {"$schema": _SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2) + "\n"


# Code scanning shows a rule's name, short description and help, not only its id; the
# help points at where each finding kind is explained.
_RULE_HELP = "tfpolicy finding {id}: see docs/commands.md and docs/stages.md of tfpolicy."


def _sarif_rule(rule: str) -> dict[str, Any]:
    words = rule.replace("-", " ")
    return {"id": rule, "name": "".join(w.capitalize() for w in rule.split("-")),
            "shortDescription": {"text": words[:1].upper() + words[1:]},
            "help": {"text": _RULE_HELP.format(id=rule)}}


# What RFC 3986 (§3.3) lets a path segment hold as it is, besides the unreserved
# characters: the sub-delimiters and "@". ":" is left out, since a first segment
# holding one would read as a scheme (§4.2).
_IN_A_SEGMENT = "/!$&'()*+,;=@"


def _uri(path: str) -> str:
    """A file's name as a URI reference (SARIF 2.1.0 §3.10.2): its bytes (UTF-8, or the
    byte a name that is not UTF-8 holds) percent-encoded as RFC 3986 §2.1 says wherever a
    path may not hold them as they are; ``dir #1/a b%41.yaml`` is
    ``dir%20%231/a%20b%2541.yaml``, never a fragment, a query nor an ``A``."""
    import os  # here: only SARIF encodes names
    from urllib.parse import quote_from_bytes

    try:
        data = os.fsencode(path)
    except UnicodeEncodeError:  # a lone surrogate no file name's bytes give
        data = path.encode("utf-8", "surrogatepass")
    if data.startswith(b"//"):  # would read as an authority (§3.3): "/." names the same
        data = b"/." + data      # path once its dot segments are removed (§5.2.4)
    return quote_from_bytes(data, safe=_IN_A_SEGMENT)


def _sarif_result(f: Finding) -> dict[str, Any]:
    region = {"startLine": f.line or 1, "startColumn": f.column or 1}
    artifact: dict[str, Any] = {"uri": _uri(f.file) if f.file else "-"}
    if f.file and not f.file.startswith("/"):  # relative to the checkout code scanning reads
        artifact["uriBaseId"] = "%SRCROOT%"
    location = {"physicalLocation": {"artifactLocation": artifact, "region": region}}
    subject = f"{f.resource}: " if f.resource else ""
    result: dict[str, Any] = {"ruleId": f.rule, "level": _SARIF_LEVEL[f.severity],
                              "message": {"text": subject + f.message},
                              "locations": [location]}
    if f.policy:
        result["properties"] = {"policy": f.policy}
    return result


def junit(findings: list[Finding], files: Sequence[str] | None = None,
          fail_on: Severity = Severity.ERROR, rewritten: Collection[str] = ()) -> str:
    """JUnit XML for CI test reports: one test case per checked file, so the count does
    not move with the findings.

    A file's case fails when ``fix`` would change it, or has (``rewritten``: the files
    ``fix`` changed, which make it exit 1), or a finding there is as severe as
    ``fail_on`` (exactly what makes ``check`` exit 1); its other findings are the case's
    output. ``files`` are the files checked; without it, the files findings name. Findings
    tied to no file get a case of their own.
    """
    by_file: dict[str, list[Finding]] = {}
    for f in sorted_findings(findings):
        by_file.setdefault(f.file or "", []).append(f)
    for name in rewritten:
        by_file.setdefault(name, []).insert(0, _rewritten(name))
    names = sorted(set(files or ()) | {name for name in by_file if name})
    grouped = [(name, by_file.get(name, [])) for name in names]
    if "" in by_file:
        grouped.append(("", by_file[""]))
    cases = [_junit_case(name, found, fail_on) for name, found in grouped] or [
        '    <testcase classname="tfpolicy" name="no files checked"/>\n']
    failed = sum(any(_fails(f, fail_on) for f in found) for _, found in grouped)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n'
            f'  <testsuite name="tfpolicy" tests="{len(cases)}" failures="{failed}" '
            'errors="0">\n' + "".join(cases) + "  </testsuite>\n</testsuites>\n")


def _junit_case(file: str, findings: list[Finding], fail_on: Severity) -> str:
    # Imported here: xml.sax.saxutils pulls in urllib and http.client, a sixth of the
    # start-up of every command, for the one format that needs it.
    from xml.sax.saxutils import escape, quoteattr

    # XML 1.0 has no way to write most control characters, even as references: a name
    # shows them as every text report does (``visible``), so the report stays well-formed.
    head = f'    <testcase classname="tfpolicy" name={quoteattr(visible(file) or "(no file)")}'
    failing = [f for f in findings if _fails(f, fail_on)]
    rest = [f for f in findings if not _fails(f, fail_on)]
    if not findings:
        return head + "/>\n"
    body = ""
    if failing:
        what = f"{len(failing)} finding{'s' if len(failing) > 1 else ''}"
        body += (f"      <failure type={quoteattr(failing[0].rule)} message={quoteattr(what)}>"
                 f"{escape(_junit_lines(failing))}</failure>\n")
    if rest:
        body += f"      <system-out>{escape(_junit_lines(rest))}</system-out>\n"
    return f"{head}>\n{body}    </testcase>\n"


def _rewritten(file: str) -> Finding:
    """A file ``fix`` changed, as its case's failure (the report's own line, never printed
    in another format: there the "Fixing" line on stdout says it)."""
    return Finding(Severity.INFO, "rewritten in place by fix", "fixed", file=file)


def _fails(f: Finding, fail_on: Severity) -> bool:
    """Whether ``f`` fails its file's case: as it makes ``check`` or ``fix`` exit 1."""
    return f.rule in ("would-change", "fixed") or f.severity >= fail_on


def _junit_lines(findings: list[Finding]) -> str:
    return text(findings).rstrip("\n")


FORMATS: dict[str, Callable[[list[Finding]], str]] = {
    "text": text, "json": json_, "github": github, "sarif": sarif, "junit": junit,
}
# Formats a program reads: nothing else may share their stream (``check --diff``).
MACHINE = ("json", "sarif", "junit")
