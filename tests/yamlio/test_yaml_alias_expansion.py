"""What aliases add is counted, not how large a document is (tfpolicy/yamlio/load.py).

A document with a ``*`` somewhere (a cron string ``*/5 * * * *``, a glob in a
description) and more than 100,000 nodes was refused as an alias bomb with no
alias in it: a ``kubectl get -A -o yaml`` snapshot, a large CRD. Aliases that
expand to more nodes than written, past 100,000, are still refused; up to it,
read.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tfpolicy.errors import TfpolicyError
from tfpolicy.yamlio.load import MAX_ALIAS_NODES, parse_with_libyaml

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))


def _large_list(pods: int) -> str:
    """A ``kind: List`` of ``pods`` pods (about 80 nodes each) and one CronJob's schedule."""
    item = ("- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p{i}\n    namespace: ml\n"
            "    labels: {{app: a, tier: t, i: '{i}'}}\n  spec:\n    containers:\n"
            "    - name: c\n      image: x\n      args: [a, b, c, d, e, f, g, h]\n"
            "      env:\n" + "".join(f"      - {{{{name: E{k}, value: v{k}}}}}\n" for k in range(12)))
    cron = ("- apiVersion: batch/v1\n  kind: CronJob\n  metadata: {name: c}\n  spec:\n"
            "    schedule: '*/5 * * * *'\n")
    return "apiVersion: v1\nkind: List\nitems:\n" + cron + "".join(
        item.format(i=i) for i in range(pods))


def test_a_large_document_with_a_star_and_no_alias_is_read() -> None:
    text = _large_list(1_700)
    assert text.count("*") > 0 and "&" not in text
    data = parse_with_libyaml(text, file="big.yaml").data
    assert len(data["items"]) == 1_701
    done = subprocess.run([TFPOLICY, "apply", "-p", "takeover", "-"], input=text,
                          capture_output=True, text=True, timeout=300, check=False)
    assert (done.returncode, done.stdout) == (0, text), done.stderr[:300]


def _expanding(copies: int) -> str:
    """An anchored list of 99 scalars (100 nodes) and ``copies`` aliases to it: each alias
    adds 100 nodes."""
    anchor = "base: &b [" + ", ".join("x" for _ in range(99)) + "]\n"
    return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n" + anchor + \
        "uses:\n" + "".join("- *b\n" for _ in range(copies))


def test_aliases_up_to_the_limit_are_read_and_past_it_refused() -> None:
    under = MAX_ALIAS_NODES // 100
    data = parse_with_libyaml(_expanding(under), file="a.yaml").data
    assert len(data["uses"]) == under and data["uses"][0] is not data["uses"][1]
    with pytest.raises(TfpolicyError, match=r"a\.yaml:\d+:\d+: invalid YAML: aliases expand"):
        parse_with_libyaml(_expanding(under + 1), file="a.yaml")


def test_a_billion_laughs_is_still_refused_fast() -> None:
    done = subprocess.run([TFPOLICY, "check", "-p", "takeover",
                           "tests/corpus/bad/billion-laughs.yaml"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2 and "aliases expand" in done.stderr
