"""A GPU count is read as Kubernetes reads it: the API server decodes a container's resource
from the JSON it is sent (``Quantity.UnmarshalJSON``: quotes off, white space trimmed, then
``ParseQuantity``), and refuses a negative or fractional extended resource.

The oracle is kubectl itself: ``kubectl set resources --local -o json`` decodes the manifest
into a typed Pod with no server, so each spelling's value (or refusal) is kubectl's; tfpolicy
must agree directly (on the JSON value kubectl hands the decoder) and through ``apply``
(``rightsize`` writes ``tensor-fusion.ai/gpu-count`` from the count, or refuses it).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml

from tfpolicy import yamlio
from tfpolicy.cli import main
from tfpolicy.gpus.quantity import (
    QuantityError,
    parse_quantity,
    resource_problem,
    resource_quantity,
    served,
)

POD = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: q}}
spec:
  selector: {{matchLabels: {{app: q}}}}
  template:
    metadata: {{labels: {{app: q}}}}
    spec:
      containers:
        - name: main
          image: x
          resources:
            limits:
              nvidia.com/gpu: {value}
"""
POLICY = """\
apiVersion: tfpolicy.dev/v1alpha1
kind: MigrationPolicy
metadata: {name: share}
spec:
  stage: rightsize
  resources:
    vram: {request: 8Gi, limit: 8Gi}
"""
# Each spelling as a YAML value, and the count kubectl reads (None: it refuses the value, or
# the API server's validation does: negative, fractional).
SPELLINGS: list[tuple[str, int | None]] = [
    ('" 1"', 1), ('"2 "', 2), ('" 3 "', 3), ('"\\u00a04"', 4), ('"\\u30005"', 5),
    ("0o2", 2), ("0X2", 2), ("0_8", 8), ("1:30", None), ('"1:30"', None),
    ('"\\t3"', None), ('"\\u20285"', None), ('"\\x1c6"', None),
    ("-1", None), ("0.5", None), ('"1000m"', 1), ('"+1"', 1), ("1e0", 1), ("2.0", 2),
]


def _kubectl() -> str:
    found = shutil.which("kubectl")
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail("kubectl is not installed")
        pytest.skip("kubectl is not installed")
    return found


def _kubectl_reading(path: Path) -> tuple[Any, Fraction | None]:
    """The raw JSON value kubectl's reader hands the decoder, and the typed value (or
    ``None`` when the typed decode refuses it)."""
    kubectl = _kubectl()
    raw = subprocess.run([kubectl, "label", "--local", "-f", str(path), "x=y", "-o", "json"],
                         capture_output=True, text=True, check=True)
    value = json.loads(raw.stdout)["spec"]["template"]["spec"]["containers"][0]["resources"][
        "limits"]["nvidia.com/gpu"]
    typed = subprocess.run([kubectl, "set", "resources", "--local", "-f", str(path), "-c", "main",
                            "--limits=cpu=1", "-o", "json"], capture_output=True, text=True,
                           check=False)
    if typed.returncode != 0:
        assert "quantities must match" in typed.stderr, typed.stderr
        return value, None
    container = json.loads(typed.stdout)["spec"]["template"]["spec"]["containers"][0]
    return value, parse_quantity(container["resources"]["limits"]["nvidia.com/gpu"])


def _same(handed: Any, raw: Any) -> bool:
    """The same JSON value: a string as it is, a number as the number it is (2.0 is 2)."""
    def number(v: Any) -> bool:
        return isinstance(v, int | float) and not isinstance(v, bool)
    if number(handed) and number(raw):
        return bool(handed == raw)
    return type(handed) is type(raw) and handed == raw


def _count(amount: Fraction | None) -> int | None:
    """What the API server takes as a GPU count: a non-negative whole number."""
    if amount is None or amount < 0 or amount.denominator != 1:
        return None
    return int(amount)


@pytest.mark.parametrize(("spelling", "count"), SPELLINGS, ids=[s for s, _ in SPELLINGS])
def test_a_resource_value_reads_as_kubectl_reads_it(spelling: str, count: int | None,
                                                   tmp_path: Path) -> None:
    path = tmp_path / "pod.yaml"
    path.write_text(POD.format(value=spelling))
    value, typed = _kubectl_reading(path)
    assert _count(typed) == count  # the table says what kubectl says
    try:
        ours: Fraction | None = resource_quantity(value)
    except QuantityError:
        ours = None
    assert ours == typed
    assert (resource_problem(value) == "") == (count is not None)


@pytest.mark.parametrize(("spelling", "count"), SPELLINGS, ids=[s for s, _ in SPELLINGS])
def test_rightsize_writes_the_count_kubectl_reads(spelling: str, count: int | None,
                                                  tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "pod.yaml"
    path.write_text(POD.format(value=spelling))
    (tmp_path / "policy.yaml").write_text(POLICY)
    raw, _ = _kubectl_reading(path)
    handed = yamlio.parse_document(path.read_text(), file=str(path)).data["spec"]["template"]["spec"][
        "containers"][0]["resources"]["limits"]["nvidia.com/gpu"]
    assert _same(handed, raw), f"yamlio hands over {handed!r} where kubectl reads {raw!r}"
    code = main(["apply", "-p", str(tmp_path / "policy.yaml"), str(path)])
    out, err = capsys.readouterr()
    if count is None:
        assert code == 1 and "[error]" in err and "nvidia.com/gpu" in err, err
    else:
        assert code == 0, err
        annotations = yaml.safe_load(out)["spec"]["template"]["metadata"]["annotations"]
        assert annotations["tensor-fusion.ai/gpu-count"] == str(count)


SERVED = ["01", "1000", "1E3", "+1", "100", "1000m", "0.5", "1.5Gi", "5Gi", "7Ki", "1.0",
          "12000", "0010", "1.500", "2e3", "3m", " 2 ", "8Gi", "64Mi"]


@pytest.mark.parametrize("text", SERVED)
def test_the_text_served_for_a_quantity_is_kubectls(text: str, tmp_path: Path) -> None:
    """The webhook reads a GPU count with strconv.Atoi from the text the API server serves
    (NexusGPU/tensor-fusion internal/webhook/v1/tf_parser.go:454): the string parsed when
    ParseQuantity keeps it, else the canonical form."""
    path = tmp_path / "pod.yaml"
    path.write_text(POD.format(value=json.dumps(text)))
    kubectl = _kubectl()
    typed = subprocess.run([kubectl, "set", "resources", "--local", "-f", str(path), "-c", "main",
                            "--limits=cpu=1", "-o", "json"], capture_output=True, text=True,
                           check=True)
    container = json.loads(typed.stdout)["spec"]["template"]["spec"]["containers"][0]
    assert served(text) == container["resources"]["limits"]["nvidia.com/gpu"]


def test_an_annotation_quantity_stays_untrimmed() -> None:
    """The webhook parses annotations with ``ParseQuantity`` itself, untrimmed
    (NexusGPU/tensor-fusion internal/webhook/v1/tf_parser.go:607-617)."""
    with pytest.raises(QuantityError):
        parse_quantity(" 30")
    assert resource_quantity(" 30") == 30
