"""Plain scalars read and written as kubectl reads them (docs/yaml.md), kubectl itself the oracle.

``kubectl label --local -f FILE x=y -o json`` runs the client's YAML reader
(sigs.k8s.io/yaml over go-yaml v2) with no server. Held here:

- what tfpolicy writes as a string, kubectl (and YAML 1.1 and 1.2 readers)
  reads as that string: ``y``, ``n``, ``0X1F``, ``0O17``, ``1e3_`` are quoted;
- what tfpolicy reads from a plain scalar is what kubectl reads: ``1:30`` is
  the string "1:30", ``0o2``, ``0X2``, ``0_8`` are 2, 2, 8, ``y`` is true;
- ``=`` and ``<<`` as values are strings, and keys ``1`` and ``true`` are two
  keys (``1`` and ``"1"`` one, refused as repeated).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from tests.hosts.hostlib import need
from tfpolicy.errors import TfpolicyError
from tfpolicy.yamlio import scalar
from tfpolicy.yamlio.load import parse_document, parse_with_libyaml

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
HEAD = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"


def kubectl_reads(body: str, tmp: Path) -> dict[str, Any]:
    """The object kubectl reads from ``HEAD + body``: its JSON, as kubectl prints it."""
    path = tmp / "k.yaml"
    path.write_text(HEAD + body, encoding="utf-8")
    done = subprocess.run([need("kubectl"), "label", "--local", "-f", str(path), "x=y",
                           "-o", "json"], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


# -- writing --------------------------------------------------------------------------------

TYPED = ["y", "n", "Y", "N", "0X1F", "0B11", "0O17", "1e3_", "0o17", "1e3", "09", "-.5",
         "1:30", "yes", "on", "~", "null", "=", "<<", "0x_1", "1_000", ".inf", "0b-1", "1__0"]
TOKENS = st.text(alphabet="0123456789.-+eE_:xXoObBaAfF~yYnN", min_size=1, max_size=7)
WORDS = st.sampled_from(["true", "True", "false", "off", "Off", "NO", "null", "Null", "inf",
                         ".nan", "8Gi", "100m", "v1", "a b", "shared", "soft"])


def _ruamel_reads(text: str) -> Any:
    return YAML(typ="safe", pure=True).load(text)


def _written_read_back(values: list[str], tmp: Path) -> None:
    body = "  annotations:\n" + "".join(f"    k{i}: {scalar(v)}\n" for i, v in enumerate(values))
    read = kubectl_reads(body, tmp)["metadata"]["annotations"]
    libyaml = yaml.load(HEAD + body, Loader=yaml.CSafeLoader)["metadata"]["annotations"]
    ruamel = _ruamel_reads(HEAD + body)["metadata"]["annotations"]
    for i, value in enumerate(values):
        assert read[f"k{i}"] == value, (value, scalar(value))  # kubectl: go-yaml v2
        assert libyaml[f"k{i}"] == value, (value, scalar(value))  # YAML 1.1 (PyYAML)
        assert ruamel[f"k{i}"] == value, (value, scalar(value))  # YAML 1.2 (ruamel.yaml)


def test_the_strings_kubectl_would_type_are_quoted(tmp_path: Path) -> None:
    _written_read_back(TYPED, tmp_path)
    for value in ["y", "n", "Y", "N", "0X1F", "0B11", "0O17", "1e3_"]:
        assert scalar(value).startswith('"'), value


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.lists(TOKENS | WORDS | st.sampled_from(TYPED) | st.text(max_size=12), min_size=1,
                max_size=60))
def test_every_string_written_reads_back_as_that_string(values: list[str]) -> None:
    import tempfile

    values = [v for v in values if v.isprintable()]  # annotation values a person writes
    with tempfile.TemporaryDirectory() as folder:
        _written_read_back(values or ["x"], Path(folder))


def test_names_the_policy_and_the_pod_give_are_written_as_strings(tmp_path: Path) -> None:
    """A pool ``y``, a GPU model ``0X1F`` and a container ``n`` (inject-container) reach the
    annotations as strings: the API server refuses any other type there."""
    policy = tmp_path / "p.yaml"
    policy.write_text("apiVersion: tfpolicy.dev/v1alpha1\nkind: MigrationPolicy\n"
                      "metadata: {name: p}\nspec:\n  stage: rightsize\n  pool: y\n"
                      "  gpuModel: 0X1F\n  resources: {tflops: {request: '1', limit: '1'}, "
                      "vram: {limit: 1Gi}}\n")
    manifest = tmp_path / "d.yaml"
    manifest.write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n"
                        "  template:\n    spec:\n      containers:\n      - name: \"n\"\n"
                        "        image: x\n        resources: {limits: {nvidia.com/gpu: 1}}\n"
                        "      - name: side\n        image: y\n")
    done = subprocess.run([TFPOLICY, "apply", "-p", str(policy), str(manifest)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    out = tmp_path / "out.yaml"
    out.write_text(done.stdout)
    read = subprocess.run([need("kubectl"), "label", "--local", "-f", str(out), "x=y", "-o",
                           "json"], capture_output=True, text=True, timeout=60, check=False)
    assert read.returncode == 0, read.stderr
    annotations = json.loads(read.stdout)["spec"]["template"]["metadata"]["annotations"]
    assert annotations["tensor-fusion.ai/gpupool"] == "y"
    assert annotations["tensor-fusion.ai/gpu-model"] == "0X1F"
    assert annotations["tensor-fusion.ai/inject-container"] == "n"
    assert all(isinstance(v, str) for v in annotations.values())


# -- reading --------------------------------------------------------------------------------

SPELLINGS = ["1:30", "1:30.5", "0o2", "0X2", "0_8", "09", "-09", "1e3", "1.0e3", "1e+2",
             "-.5", "+.5", ".5_0", "0B11", "0O17", "0X1F", "0x_1F", "0_x1F", "+_1", "1_e3",
             "1e3_", "0b-1", "-0b1", "y", "Y", "n", "N", "yes", "No", "on", "OFF", "True",
             "tRUE", "~", "Null", "nULL", "=", "<<", "2001-12-14", "0x", "0b", "0o", "_1",
             "1.", "0.", "-0", "07", "00", "0o_7", "1__0", "9223372036854775807",
             "-9223372036854775808", "18446744073709551615", "0xFFFFFFFFFFFFFFFF"]


def _same_as_kubectl(mine: Any, theirs: Any) -> bool:
    """Equal as kubectl's JSON says; from 2^63 on kubectl prints numbers as float64."""
    if not isinstance(mine, int | float) or isinstance(mine, bool) or isinstance(theirs, bool):
        return type(mine) is type(theirs) and mine == theirs
    return math.isclose(float(mine), float(theirs), rel_tol=1e-15)


def _read_both(body: str) -> list[Any]:
    text = HEAD + body
    return [parse_document(text, file="t").data, parse_with_libyaml(text, file="t").data]


def test_each_spelling_reads_as_kubectl_reads_it(tmp_path: Path) -> None:
    body = "data:\n" + "".join(f"  v{i}: {v}\n" for i, v in enumerate(SPELLINGS))
    theirs = kubectl_reads(body, tmp_path)["data"]
    for data in _read_both(body):
        for i, spelling in enumerate(SPELLINGS):
            assert _same_as_kubectl(data["data"][f"v{i}"], theirs[f"v{i}"]), spelling


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.lists(TOKENS.filter(lambda t: t[0] not in "-~?:" and not t.endswith(":")
                              and t.lower().lstrip("+") not in (".inf", ".nan")),
                min_size=1, max_size=60))  # kubectl refuses .inf and .nan: JSON has neither
def test_drawn_numbers_and_words_read_as_kubectl_reads_them(tokens: list[str]) -> None:
    import tempfile

    body = "data:\n" + "".join(f"  v{i}: {t}\n" for i, t in enumerate(tokens))
    with tempfile.TemporaryDirectory() as folder:
        theirs = kubectl_reads(body, Path(folder))["data"]
    mine = parse_with_libyaml(HEAD + body, file="t").data["data"]
    for i, token in enumerate(tokens):
        assert _same_as_kubectl(mine[f"v{i}"], theirs[f"v{i}"]), token


def test_a_number_too_large_for_go_is_text_and_one_past_4300_digits_refused(
        tmp_path: Path) -> None:
    theirs = kubectl_reads("data:\n  a: 1e400\n  b: 0x" + "f" * 20 + "\n", tmp_path)["data"]
    data = parse_document(HEAD + "data:\n  a: 1e400\n  b: 0x" + "f" * 20 + "\n", file="t")
    assert data.data["data"] == theirs == {"a": "1e400", "b": "0x" + "f" * 20}
    for value in ["9" * 4301, "0x" + "f" * 4400]:
        with pytest.raises(TfpolicyError, match="at most 4300 are read"):
            parse_with_libyaml(HEAD + f"data:\n  a: {value}\n", file="t")


def test_a_gpu_count_written_in_base_60_is_text_as_kubectl_reads_it() -> None:
    """``nvidia.com/gpu: 1:30`` is the string "1:30" to Kubernetes, not 90 GPUs."""
    text = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n"
            "    spec:\n      containers:\n      - name: a\n        image: x\n"
            "        resources:\n          limits:\n            nvidia.com/gpu: 1:30\n")
    done = subprocess.run([TFPOLICY, "apply", "-p", "rightsize-example", "-"], input=text,
                          capture_output=True, text=True, timeout=120, check=False)
    assert '"90"' not in done.stdout and "gpu-count" not in done.stdout
    assert "1:30" in done.stderr and done.returncode == 1, done.stderr


# -- "=", "<<", and keys --------------------------------------------------------------------

CONFIGMAP = HEAD + "data:\n  eq: =\n  merge: <<\n  m: !!merge x\n"
KEYS = HEAD + "data:\n  1: one\n  true: yes\n  1.5: a\n  n: b\n"


def test_equals_and_merge_signs_as_values_are_strings_in_a_whole_run(tmp_path: Path) -> None:
    gpu = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n"
           "    spec:\n      containers:\n      - name: a\n        image: x\n"
           "        resources: {limits: {nvidia.com/gpu: 1}}\n")
    stream = CONFIGMAP + "---\n" + KEYS + "---\n" + gpu
    done = subprocess.run([TFPOLICY, "apply", "-p", "takeover", "-"], input=stream,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(CONFIGMAP + "---\n" + KEYS + "---\n")
    theirs = kubectl_reads(CONFIGMAP[len(HEAD):], tmp_path)["data"]
    assert theirs == {"eq": "=", "merge": "<<", "m": "x"}
    assert parse_document(CONFIGMAP, file="t").data["data"] == theirs


def test_keys_are_spelled_as_kubectl_spells_them(tmp_path: Path) -> None:
    theirs = kubectl_reads(KEYS[len(HEAD):], tmp_path)["data"]
    assert parse_document(KEYS, file="t").data["data"] == theirs
    assert theirs == {"1": "one", "true": True, "1.5": "a", "false": "b"}


@pytest.mark.parametrize("keys", ["1: a\n  \"1\": b\n", "1: a\n  1.0: b\n", "y: a\n  on: b\n"])
def test_keys_kubectl_reads_as_one_are_refused_as_repeated(keys: str) -> None:
    """kubectl keeps one of them, which one the YAML does not say: refused, located."""
    with pytest.raises(TfpolicyError, match="duplicate key"):
        parse_document(HEAD + "data:\n  " + keys, file="t")


def test_tfpolicys_own_files_keep_their_names() -> None:
    """A node group named ``n`` in an inventory is a name: tfpolicy's own files are read as
    they always were (construct.py); only Kubernetes objects take kubectl's typing."""
    inventory = ("apiVersion: tfpolicy.dev/v1alpha1\nkind: Inventory\nmetadata: {name: i}\n"
                 "spec:\n  pools:\n  - name: y\n    nodeGroups: [{name: n, count: 1}]\n")
    pool = parse_document(inventory, file="t").data["spec"]["pools"][0]
    assert pool["name"] == "y" and pool["nodeGroups"][0]["name"] == "n"
    assert parse_document(HEAD + "data:\n  n: n\n", file="t").data["data"] == {"false": False}
