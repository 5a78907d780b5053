"""``tfpolicy admission``: what the TensorFusion webhook does to every pod template (DESIGN §3).

Prints, per workload, the decision and the changes (``--format text|json``);
``-o DIR`` writes the admitted ``kind: Pod`` per pod template, ``-o -``
prints them as a stream (the report then goes to stderr). Exit 1 when any
pod would be rejected; 2 on bad input, and then nothing is written.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import click

from tfpolicy import yamlio
from tfpolicy.admission import Found, ModelCapacity, WebhookConfig, operator_objects, webhook_config
from tfpolicy.admission import Pool as WebhookPool
from tfpolicy.admission.objects import is_operator_object
from tfpolicy.admission.placeholders import PlaceholderError
from tfpolicy.commands.options import OPERATOR_HELP, command, decide
from tfpolicy.edits import Path as EditPath
from tfpolicy.errors import ExitCode, TfpolicyError
from tfpolicy.files.operator import operator_found
from tfpolicy.files.sources import load_policy_set, manifest_files, read_text
from tfpolicy.plan.admission_report import Admitted, admit_all, namespace_labels
from tfpolicy.plan.admission_text import admitted_dict, admitted_text
from tfpolicy.plan.units import Document
from tfpolicy.plan.webhook import with_hami
from tfpolicy.policy.model import Policy
from tfpolicy.records import replace
from tfpolicy.rewrite.engine import objects

F = TypeVar("F", bound=Callable[..., Any])


def operator_options(func: F) -> F:
    """The operator's configuration, as admission, plan and verify all take it."""
    options = [
        click.option("--values", type=click.Path(dir_okay=False),
                     help="Helm values of the chart."),
        click.option("--namespaces", type=click.Path(dir_okay=False),
                     help="Namespace objects whose labels namespaceSelector reads."),
        click.option("--operator-config", "operator", multiple=True,
                     type=click.Path(dir_okay=False), metavar="FILE",
                     help=OPERATOR_HELP + " Default: operatorConfig of .tfpolicy.yaml."),
        click.option("-n", "--namespace", default=None,
                     help="Namespace for manifests that name none [default: namespace of "
                          ".tfpolicy.yaml, else default]."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def read_documents(paths: tuple[str, ...], kept: dict[str, str] | None = None) -> list[Document]:
    """Every document of the manifests (files, folders, ``-``), parsed. ``kept`` receives
    stdin's text, which cannot be read twice, so that an error found later is located."""
    docs = []
    for file in manifest_files(paths):
        shown = "<stdin>" if file == "-" else file
        text = read_text(file)
        if kept is not None and file == "-":
            kept[shown] = text
        for index, data in enumerate(yamlio.load_all(text, file=shown)):
            docs.append(Document(shown, index, data))
    return docs


def located(error: TfpolicyError, file: str, index: int, path: EditPath,
            kept: Mapping[str, str]) -> TfpolicyError:
    """``error`` at the line and column of ``path`` in the ``index``-th document of
    ``file`` (counted as ``read_documents`` counts them); the file is read again, stdin's
    text comes from ``kept``, and without it the error stays at its file."""
    text = kept.get(file)
    if text is None and file == "<stdin>":
        return error
    found = [(raw.line, node) for raw in yamlio.split_documents(text or read_text(file))
             for node in [yamlio.parse_document(raw.text, file=file, line=raw.line).node]
             if node is not None]
    if index < len(found):
        first, node = found[index]
        line, column = yamlio.locate(node, path)  # within the document's own text
        error.file, error.line, error.column = file, first + line + 1, column + 1
    return error


def line_of(file: str, index: int, path: EditPath, kept: Mapping[str, str]) -> str:
    """``file:line`` of ``path`` in the ``index``-th document of ``file`` (as ``located``)."""
    return str(located(TfpolicyError(""), file, index, path, kept)).rstrip(": ")


def read_mapping(path: str | None, what: str) -> dict[str, Any]:
    if path is None:
        return {}
    docs = yamlio.load_all(read_text(path), file=path)
    if len(docs) > 1 or (docs and not isinstance(docs[0], Mapping)):
        raise TfpolicyError(f"{what} must be one YAML mapping", file=path)
    return dict(docs[0]) if docs else {}


def cluster_webhook(values: str | None, namespaces: str | None, docs: list[Document],
                    operator: tuple[str, ...] = (), namespace: str = "default",
                    pools: tuple[WebhookPool, ...] | None = None,
                    gpu_models: Mapping[str, ModelCapacity] | None = None,
                    raw: Mapping[str, Any] | None = None) -> WebhookConfig:
    """The webhook as configured: Helm values, the operator's objects, namespace labels.

    Operator objects come from ``--operator-config`` files and from the
    manifests themselves. GPUPool objects give the pools (``pools``, the
    plan's inventory pools, keep their names and default; the objects add
    their settings); GPU objects add model capacities over ``gpu_models``.
    ``raw``: the values file already read (a pipe reads once), else it is read here.
    """
    labels = namespace_labels(docs)
    if namespaces is not None:
        labels.update(namespace_labels(read_documents((namespaces,))))
    given = operator_found(operator) if operator else []  # no paths would mean stdin
    found = operator_objects([*_operator_found(docs), *given], namespace)
    if raw is None:
        raw = read_mapping(values, "--values")
    try:
        return webhook_config(
            raw, pools=_pools(found.pools, pools), namespace_labels=labels,
            gpu_models={**(gpu_models or {}), **found.gpu_models}, quotas=found.quotas,
            providers=found.providers, profiles=found.profiles)
    except TfpolicyError as exc:
        raise exc.located(values or "--values") from None


def _operator_found(docs: list[Document]) -> list[Found]:
    return [Found(doc.file, obj) for doc in docs for _, obj in objects(doc.data)
            if is_operator_object(obj)]


def _pools(given: tuple[WebhookPool, ...],
           inventory: tuple[WebhookPool, ...] | None) -> tuple[WebhookPool, ...] | None:
    if inventory is None:
        return given or None  # None: the chart's default pool
    settings = {p.name: p for p in given}
    return tuple(replace(settings[p.name], is_default=p.is_default) if p.name in settings else p
                 for p in inventory)


@command("admission")
@click.option("-p", "--policy", "policies", multiple=True, metavar="POLICY",
              help="Policy file or built-in name (repeatable) whose `spec.hami` names the "
                   "cluster's HAMi resources; default: .tfpolicy.yaml, if there is one.")
@operator_options
@click.option("-o", "--output", default=None, metavar="DIR|-",
              help="Write the admitted Pod of each pod template to DIR, or - for stdout.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@click.argument("paths", nargs=-1, type=click.Path())
def admission(policies: tuple[str, ...], values: str | None, namespaces: str | None,
              operator: tuple[str, ...], namespace: str | None, output: str | None, fmt: str,
              paths: tuple[str, ...]) -> int:
    """The webhook simulated over the manifests: read everything, admit every pod template,
    print the report (and the admitted pods); bad input exits 2 before anything is written."""
    decided = decide(policies, namespace, operator)
    loaded = _policies(decided.policies, decided.base)
    operator, namespace = decided.operator, decided.namespace
    kept: dict[str, str] = {}
    docs = read_documents(paths, kept)
    webhook = with_hami(cluster_webhook(values, namespaces, docs, operator, namespace), loaded)
    try:
        items = admit_all(docs, webhook, namespace)
    except PlaceholderError as exc:
        raise located(exc, exc.file or "", exc.document, exc.path, kept) from None
    report = (json.dumps({"workloads": [admitted_dict(i) for i in items],
                          "rejected": _rejected(items)}, indent=2) + "\n"
              if fmt == "json" else admitted_text(items))
    if output is not None and output != "-":
        _write_pods(Path(output), items)
    stream = sys.stderr if output == "-" else sys.stdout
    stream.write(report)
    if output == "-":
        sys.stdout.write(yamlio.dump_documents([i.admission.pod for i in items
                                                if i.admission.pod is not None]))
    return ExitCode.FINDINGS if _rejected(items) else ExitCode.OK


def _policies(refs: tuple[str, ...], base: Path) -> tuple[Policy, ...]:
    """The policies decided, else none: admission reads only their ``spec.hami`` (the
    cluster's HAMi names); an invalid one exits 2."""
    return load_policy_set(list(refs), base).policies if refs else ()


def _rejected(items: list[Admitted]) -> int:
    return sum(i.admission.rejected for i in items)


def _write_pods(folder: Path, items: list[Admitted]) -> None:
    """Every target is checked before any is written (issue 8 §4: nothing outside DIR)."""
    if folder.exists() and not folder.is_dir():
        raise TfpolicyError("-o: not a directory", file=str(folder))
    writes = {_target(folder, item): yamlio.dump_documents([item.admission.pod])
              for item in items if item.admission.pod is not None}
    folder.mkdir(parents=True, exist_ok=True)
    for path, text in writes.items():
        path.write_text(text, encoding="utf-8")


def _target(folder: Path, item: Admitted) -> Path:
    """``DIR/<file name>``, refused unless it stays directly inside DIR."""
    path = folder / item.file_name
    root = folder.resolve()
    if path.is_symlink() or path.resolve().parent != root or path.name in ("", ".", ".."):
        raise TfpolicyError(f"-o: {item.key}: the file {item.file_name} would not stay in the "
                            "output folder", file=item.file)
    return path
