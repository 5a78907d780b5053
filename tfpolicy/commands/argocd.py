"""``tfpolicy argocd generate``: the ArgoCD config-management-plugin ``generate`` command.

stdout carries the manifest stream only, written once everything passed;
findings go to stderr; any failure exits non-zero with a one-line reason,
so ArgoCD never receives an empty render with exit 0 (reference/hosts.md
§3.3, §7.1), nor a cut-off one: a reader gone part-way is exit 141.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import click

from tfpolicy import yamlio
from tfpolicy.command_table import HELP
from tfpolicy.commands.printing import emit_findings
from tfpolicy.errors import ExitCode, TfpolicyError
from tfpolicy.files.foreign import not_kubernetes
from tfpolicy.files.operator import loaded_policies
from tfpolicy.files.stream import write_out
from tfpolicy.findings import Finding, has_errors
from tfpolicy.hosts.appsource import Source, check_links, dependencies, render
from tfpolicy.hosts.argocd import settings
from tfpolicy.hosts.policies import with_stage
from tfpolicy.rewrite.engine import PolicySet
from tfpolicy.rewrite.pipeline import DocOutcome, Options, transform_documents

_CONTENT = re.compile(r"^(?!#|---|\.\.\.)\S", re.MULTILINE)
_OWN_GROUP = "tfpolicy.dev/"


@click.group(help=HELP["argocd"])
def argocd() -> None:
    """The host\'s subcommands, each one call of the host\'s protocol."""


@argocd.command()
def init() -> int:
    """Fetch a chart's dependencies (helm dependency build), as ArgoCD does for Helm apps."""
    dependencies(Path.cwd())
    return ExitCode.OK


@argocd.command()
@click.option("--explain", is_flag=True,
              help="Say which files of a plain-folder app were skipped, and why.")
def generate(explain: bool) -> int:
    """Render the app folder and apply its policies; print the manifests.

    A file holding no Kubernetes object (a compose file, any YAML without
    apiVersion and kind) is skipped, as the pre-commit hooks skip it."""
    cwd = Path.cwd()
    run = settings(os.environ, cwd)
    check_links(cwd, run.root)
    policies = loaded_policies(run.decided)
    if run.stage:
        policies = with_stage(policies, run.stage)
    chunks, findings = _migrate(render(cwd, os.environ, run.render), policies,
                                Options(run.namespace, explain))
    emit_findings(findings, "text", err=True)
    if has_errors(findings):
        return ExitCode.FINDINGS
    if not any(_CONTENT.search(chunk) for chunk in chunks):
        raise TfpolicyError("the app folder rendered no Kubernetes objects")
    write_out("".join(chunks))  # all of it, or exit 141 (tfpolicy.files.stream)
    return ExitCode.OK


def _migrate(sources: list[Source], policies: PolicySet,
             options: Options) -> tuple[list[str], list[Finding]]:
    chunks: list[str] = []
    findings: list[Finding] = []
    for number, source in enumerate(sources):
        reason = _foreign(source)
        if reason:
            if options.explain:
                click.echo(f"tfpolicy: skipped {source.name}: {reason}", err=True)
            continue
        docs = [d for d in yamlio.split_documents(source.text) if not _own(d, source.name)]
        text = "".join(_texts(transform_documents(docs, policies, source.name, options),
                              findings))
        if text.strip():
            chunks.append(_separated(text, number > 0 and bool(chunks)))
    return chunks, findings


# An object's two keys at the top of a document (or quoted, in JSON): a file naming both
# is read as a manifest without a second parse; any other is asked whether it is one.
_OBJECT_KEYS = (re.compile(r'^(?:apiVersion|"apiVersion")\s*:|"apiVersion"\s*:', re.MULTILINE),
                re.compile(r'^(?:kind|"kind")\s*:|"kind"\s*:', re.MULTILINE))


def _foreign(source: Source) -> str:
    """Why a plain-folder file is not a manifest (empty: it is one, or it is broken)."""
    if all(key.search(source.text) for key in _OBJECT_KEYS):
        return ""
    return not_kubernetes(source.text.encode("utf-8"), source.name)


def _texts(outcomes: Iterator[DocOutcome], findings: list[Finding]) -> Iterator[str]:
    for outcome in outcomes:
        findings.extend(outcome.findings)
        yield outcome.text


def _own(doc: yamlio.RawDoc, file: str) -> bool:
    """tfpolicy's own configuration (a MigrationPolicy) is never a manifest to deploy."""
    if _OWN_GROUP not in doc.text:
        return False
    data = yamlio.parse_document(doc.text, file=file, line=doc.line).data
    return isinstance(data, dict) and str(data.get("apiVersion", "")).startswith(_OWN_GROUP)


def _separated(text: str, later: bool) -> str:
    """A file's documents, ending in a newline and, after the first file, after a ``---``."""
    text = text if text.endswith("\n") else text + "\n"
    return "---\n" + text if later else text
