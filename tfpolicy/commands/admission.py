"""``tfpolicy admission``: what the TensorFusion webhook does to every pod template (DESIGN §3).

Prints, per workload, the decision and the changes (``--format text|json``);
``-o DIR`` writes the admitted ``kind: Pod`` per pod template, ``-o -``
prints them as a stream (the report then goes to stderr). Exit 1 when any
pod would be rejected; 2 on bad input, and then nothing is written.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from tfpolicy import yamlio
from tfpolicy.admission import Pool as WebhookPool
from tfpolicy.admission import WebhookConfig, webhook_config
from tfpolicy.errors import ExitCode, TfpolicyError
from tfpolicy.plan.admission_report import Admitted, admit_all, namespace_labels
from tfpolicy.plan.admission_text import admitted_dict, admitted_text
from tfpolicy.plan.units import Document
from tfpolicy.sources import manifest_files, read_text


def read_documents(paths: tuple[str, ...]) -> list[Document]:
    """Every document of the manifests (files, folders, ``-``), parsed."""
    docs = []
    for file in manifest_files(paths):
        shown = "<stdin>" if file == "-" else file
        for index, data in enumerate(yamlio.load_all(read_text(file), file=shown)):
            docs.append(Document(shown, index, data))
    return docs


def read_mapping(path: str | None, what: str) -> dict[str, Any]:
    if path is None:
        return {}
    docs = yamlio.load_all(read_text(path), file=path)
    if len(docs) > 1 or (docs and not isinstance(docs[0], Mapping)):
        raise TfpolicyError(f"{what} must be one YAML mapping", file=path)
    return dict(docs[0]) if docs else {}


def cluster_webhook(values: str | None, namespaces: str | None, docs: list[Document],
                    pools: tuple[WebhookPool, ...] | None = None) -> WebhookConfig:
    """The webhook from Helm values, with namespace labels from the input and ``--namespaces``."""
    labels = namespace_labels(docs)
    if namespaces is not None:
        labels.update(namespace_labels(read_documents((namespaces,))))
    return webhook_config(read_mapping(values, "--values"), pools=pools, namespace_labels=labels)


@click.command()
@click.option("--values", type=click.Path(dir_okay=False), help="Helm values of the chart.")
@click.option("--namespaces", type=click.Path(dir_okay=False),
              help="Namespace objects whose labels namespaceSelector reads.")
@click.option("-n", "--namespace", default="default", show_default=True,
              help="Namespace for manifests that name none.")
@click.option("-o", "--output", default=None, metavar="DIR|-",
              help="Write the admitted Pod of each pod template to DIR, or - for stdout.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@click.argument("paths", nargs=-1, type=click.Path())
def admission(values: str | None, namespaces: str | None, namespace: str, output: str | None,
              fmt: str, paths: tuple[str, ...]) -> int:
    """Simulate the TensorFusion webhook on every pod template; exit 1 if any pod is rejected."""
    docs = read_documents(paths)
    items = admit_all(docs, cluster_webhook(values, namespaces, docs), namespace)
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


def _rejected(items: list[Admitted]) -> int:
    return sum(i.admission.rejected for i in items)


def _write_pods(folder: Path, items: list[Admitted]) -> None:
    if folder.exists() and not folder.is_dir():
        raise TfpolicyError("-o: not a directory", file=str(folder))
    folder.mkdir(parents=True, exist_ok=True)
    for item in items:
        if item.admission.pod is not None:
            pod = yamlio.dump_documents([item.admission.pod])
            (folder / item.file_name).write_text(pod, encoding="utf-8")
