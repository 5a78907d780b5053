"""JSON manifests stay JSON (tfpolicy/yamlio/jsondoc.py), kubectl the judge of what they read as.

kubectl reads a file that opens with ``{`` as JSON. A JSON number such as
``1e+2``, a string holding U+0085 (a line break to YAML 1.1) or U+007F (not
printable to libyaml), written raw or escaped, a surrogate pair escape: every
stage writes JSON that kubectl reads as the input plus the edits, and rollback
gives the input back byte for byte, compact, spaced or indented, LF or CRLF.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.hosts.hostlib import need

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
STAGES = ["takeover", "takeover-25", "rightsize-example", "autoscale"]
MANIFEST: dict[str, Any] = {
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "j", "annotations": {"note": "a\u0085b\u007fc\u2028d \U0001F600"}},
    "spec": {"replicas": 2, "template": {
        "metadata": {"labels": {"app": "j"}},
        "spec": {"containers": [
            {"resources": {"limits": {"nvidia.com/gpu": 1}}, "name": "main", "image": "x",
             "env": [{"name": "RATIO", "value": "1e+2"}]},
            {"name": "side", "image": "y"}]}}},
    "x-extra": {"n": 100.0},
}


def _layouts() -> dict[str, str]:
    """The manifest written as JSON tools write it: ``1e+2`` where a number was written so."""
    def spell(text: str) -> str:
        return text.replace("100.0", "1e+2")

    return {
        "compact": spell(json.dumps(MANIFEST, separators=(",", ":"), ensure_ascii=False)) + "\n",
        "spaced": spell(json.dumps(MANIFEST, ensure_ascii=False)) + "\n",
        "indented": spell(json.dumps(MANIFEST, indent=2)) + "\n",  # \u escapes, as kubectl
        "four-crlf": spell(json.dumps(MANIFEST, indent=4, ensure_ascii=False)
                           ).replace("\n", "\r\n") + "\r\n",
        "unterminated": spell(json.dumps(MANIFEST, indent=2, ensure_ascii=False)),
    }


def _apply(policy: str, text: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([TFPOLICY, "apply", "-p", policy, "-"], input=text.encode(),
                          capture_output=True, timeout=120, check=False)


def _kubectl(text: str, tmp: Path) -> Any:
    path = tmp / "o.json"
    path.write_bytes(text.encode())
    done = subprocess.run([need("kubectl"), "label", "--local", "-f", str(path), "x=y", "-o",
                           "json"], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    read = json.loads(done.stdout)
    read["metadata"]["labels"].pop("x")
    if not read["metadata"]["labels"]:
        del read["metadata"]["labels"]
    return read


@pytest.mark.parametrize("layout", sorted(_layouts()))
@pytest.mark.parametrize("stage", STAGES)
def test_every_stage_writes_json_kubectl_reads_and_rollback_gives_the_bytes(
        layout: str, stage: str, tmp_path: Path) -> None:
    text = _layouts()[layout]
    staged = _apply(stage, text)
    assert staged.returncode == 0, staged.stderr
    out = staged.stdout.decode()
    assert out.lstrip().startswith("{") and json.loads(out)  # JSON, never YAML flow
    template = json.loads(out)["spec"]["template"]
    assert template["metadata"]["labels"]["tensor-fusion.ai/enabled"] == "true"
    read = _kubectl(out, tmp_path)
    assert read["metadata"]["annotations"] == MANIFEST["metadata"]["annotations"]
    assert read["spec"]["template"]["metadata"]["labels"]["tensor-fusion.ai/enabled"] == "true"
    back = _apply("rollback", out)
    assert back.returncode == 0, back.stderr
    assert back.stdout.decode() == text


@pytest.mark.parametrize("layout", sorted(_layouts()))
@pytest.mark.parametrize("chain", [("rightsize-example", "takeover"), ("takeover-25", "autoscale")])
def test_rollback_after_a_chain_of_stages_gives_the_bytes(layout: str,
                                                          chain: tuple[str, str]) -> None:
    text = staged = _layouts()[layout]
    for stage in chain:
        done = _apply(stage, staged)
        assert done.returncode == 0, done.stderr
        staged = done.stdout.decode()
        assert json.loads(staged)
    assert _apply("rollback", staged).stdout.decode() == text


def test_json_that_libyaml_reads_otherwise_is_read_as_json(tmp_path: Path) -> None:
    """The data the engine plans on is JSON's: NEL stays NEL, 1e+2 is a number."""
    from tfpolicy.yamlio.load import parse_document

    text = _layouts()["compact"]
    data = parse_document(text, file="d.json").data
    assert data["metadata"]["annotations"]["note"] == MANIFEST["metadata"]["annotations"]["note"]
    assert data["x-extra"] == {"n": 100.0}
