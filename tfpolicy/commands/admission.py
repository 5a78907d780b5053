"""``tfpolicy admission``: what the TensorFusion webhook does to every pod template.

Prints, per workload, the decision and the changes (``--format text|json``);
``-o DIR`` writes the admitted ``kind: Pod`` per pod template, ``-o -``
prints them as a stream (the report then goes to stderr). Exit 1 when any
pod would be rejected; 2 on bad input, and then nothing is written.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from tfpolicy import yamlio
from tfpolicy.commands.options import (
    POLICY_HAMI,
    command,
    format_option,
    operator_options,
    paths_argument,
    policy_option,
    resolve_flags,
)
from tfpolicy.errors import ExitCode
from tfpolicy.files.documents import locating, read_documents
from tfpolicy.files.inputs import Cluster, cluster_webhook
from tfpolicy.files.outdir import write_admitted
from tfpolicy.files.sources import load_policy_set
from tfpolicy.plan.admission_report import Admitted, admit_all
from tfpolicy.plan.admission_text import admitted_dict, admitted_text
from tfpolicy.plan.webhook_inputs import with_hami
from tfpolicy.policy.model import Policy
from tfpolicy.render import visible


@command("admission")
@policy_option(POLICY_HAMI)
@operator_options
@click.option("-o", "--output-dir", "output", default=None, metavar="DIR|-",
              help="Write the admitted Pod of each pod template to DIR, or - for stdout.")
@click.option("--output", "old_output", default=None, hidden=True)  # --output-dir's old name
@format_option(["text", "json"])
@paths_argument()
def admission(policies: tuple[str, ...], values: str | None, namespaces: str | None,
              operator: tuple[str, ...], namespace: str | None, output: str | None,
              old_output: str | None, fmt: str, paths: tuple[str, ...]) -> int:
    """The webhook simulated over the manifests: read everything, admit every pod template,
    print the report (and the admitted pods); bad input exits 2 before anything is written."""
    output = output or old_output
    decided = resolve_flags(policies, namespace, operator)
    hami = _policies(decided.policies, decided.base)
    cluster = Cluster(values, namespaces, decided.operator, decided.namespace)
    kept: dict[str, str] = {}
    docs = read_documents(paths, kept)
    webhook = with_hami(cluster_webhook(cluster, docs), hami)
    with locating(kept):
        items = admit_all(docs, webhook, cluster.namespace)
    report = (json.dumps({"workloads": [admitted_dict(i) for i in items],
                          "rejected": _rejected(items)}, indent=2) + "\n"
              if fmt == "json" else visible(admitted_text(items), lines=True))
    if output is not None and output != "-":
        write_admitted(Path(output), items)
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
