"""Issue 8 §1, §2 (YAML layer) and §5 (YAML parts): each wrong rewrite, through the real CLI.

Every case runs ``tfpolicy apply`` (or ``fix``/``validate``/``plan``) in
process through ``tfpolicy.cli.main`` on a corpus file and checks what the
output means, key by key, against what the stage is documented to write.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT
from tfpolicy.cli import main
from tfpolicy.yamlio.faithful import reads_back

CORPUS = ROOT / "tests" / "corpus" / "roundtrip"
ENABLED = {"tensor-fusion.ai/enabled": "true"}
GPU = "nvidia.com/gpu"


class Cli:
    def __init__(self, capture: pytest.CaptureFixture[bytes]) -> None:
        self.capture = capture

    def __call__(self, *args: str) -> tuple[int, str, str]:
        self.capture.readouterr()
        code = main(list(args))
        out, err = self.capture.readouterr()
        return code, out.decode("utf-8"), err.decode("utf-8")


@pytest.fixture
def cli(capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch) -> Cli:
    monkeypatch.chdir(ROOT)
    return Cli(capsysbinary)


def _apply(cli: Cli, policy: str, path: Path, tmp_path: Path) -> tuple[str, dict[str, Any]]:
    """stdout of ``apply``, checked to be idempotent, and its one document as data."""
    code, out, err = cli("apply", "-p", policy, str(path))
    assert code == 0 and "[error]" not in err, err
    staged = tmp_path / path.name
    staged.write_bytes(out.encode("utf-8"))
    code, again, err = cli("apply", "-p", policy, str(staged))
    assert (code, again) == (0, out), "apply is not idempotent"
    return out, yaml.safe_load(out)


def _template(doc: dict[str, Any]) -> dict[str, Any]:
    return doc["spec"]["template"]  # type: ignore[no-any-return]


def _container(doc: dict[str, Any]) -> dict[str, Any]:
    return _template(doc)["spec"]["containers"][0]  # type: ignore[no-any-return]


@pytest.mark.parametrize("policy", ["takeover", "rightsize-example", "autoscale"])
@pytest.mark.parametrize("tf_annotation", [False, True])
def test_template_annotations_without_labels_get_both_maps(cli: Cli, policy: str, tmp_path: Path,
                                                           tf_annotation: bool) -> None:
    """Annotations were once written as labels when the template had no labels."""
    path = tmp_path / "in" / "deploy.yaml"
    path.parent.mkdir()
    text = (CORPUS / "template-annotations-without-labels.yaml").read_text()
    if tf_annotation:  # as the issue found it: only a TensorFusion annotation there
        text = text.replace('prometheus.io/scrape: "true"', 'tensor-fusion.ai/tflops-request: "10"')
    path.write_text(text)
    _, doc = _apply(cli, policy, path, tmp_path)
    metadata = _template(doc)["metadata"]
    assert metadata["labels"] == ENABLED
    assert "tensor-fusion.ai/tflops-limit" in metadata["annotations"] or policy == "takeover"
    if not tf_annotation:
        assert metadata["annotations"]["prometheus.io/scrape"] == "true"


@pytest.mark.parametrize("policy", ["takeover", "rightsize-example", "autoscale"])
def test_selector_anchor_keeps_its_labels(cli: Cli, policy: str, tmp_path: Path) -> None:
    out, doc = _apply(cli, policy, CORPUS / "selector-anchor-aliased-into-template.yaml",
                      tmp_path)
    assert doc["spec"]["selector"]["matchLabels"] == {"app": "whisper", "tier": "asr"}
    assert _template(doc)["metadata"]["labels"] == {"app": "whisper", "tier": "asr", **ENABLED}
    assert "tensor-fusion" not in out[:out.index("  template:")]


def test_anchor_defined_earlier_and_aliased_into_resources(cli: Cli, tmp_path: Path) -> None:
    out, doc = _apply(cli, "rightsize-example", CORPUS / "anchor-before-resources.yaml",
                      tmp_path)
    assert out.count("\nmetadata:") == 1 and out.count("\nspec:") == 1
    assert doc["x-gpu-resources"] == {"limits": {GPU: 2, "memory": "32Gi"}}
    assert _container(doc)["resources"] == {"limits": {"memory": "32Gi"}}


@pytest.mark.parametrize("name", ["gpu-count-anchor.yaml", "requests-alias-of-limits.yaml"])
def test_anchored_gpu_counts_leave_no_dangling_alias(cli: Cli, name: str,
                                                     tmp_path: Path) -> None:
    _, doc = _apply(cli, "rightsize-example", CORPUS / name, tmp_path)
    resources = _container(doc)["resources"]
    assert all(GPU not in section for section in resources.values())
    if name == "gpu-count-anchor.yaml":
        assert doc["spec"]["replicas"] == 1 and resources == {"requests": {"cpu": 1}}
    else:
        assert resources == {"limits": {"memory": "16Gi"}, "requests": {"memory": "16Gi"}}


def test_explicit_keys(cli: Cli, tmp_path: Path) -> None:
    out, doc = _apply(cli, "takeover", CORPUS / "explicit-keys.yaml", tmp_path)
    assert _template(doc)["metadata"]["labels"] == {"app": "tts", **ENABLED}
    assert "? app\n        : tts\n" in out


def test_cr_only_line_endings_stay_and_labels_land_in_the_template(cli: Cli,
                                                                   tmp_path: Path) -> None:
    out, doc = _apply(cli, "takeover", CORPUS / "cr-only-line-endings.yaml", tmp_path)
    assert "\n" not in out
    assert set(doc["spec"]) == {"selector", "template"}
    assert _template(doc)["metadata"]["labels"] == ENABLED


def test_keep_block_scalar_before_removed_keys_keeps_its_value(cli: Cli,
                                                               tmp_path: Path) -> None:
    out, doc = _apply(cli, "rightsize-example", CORPUS / "keep-block-scalar-before-resources.yaml",
                      tmp_path)
    container = _container(doc)
    assert container["command"] == "start-notebook.sh\n"
    assert container["args"] == ["--allow-root\n"]
    assert "resources" not in container and "command: |+\n" in out


@pytest.mark.parametrize("policy", ["takeover", "rightsize-example"])
def test_flow_document_on_the_start_line(cli: Cli, policy: str, tmp_path: Path) -> None:
    out, doc = _apply(cli, policy, CORPUS / "flow-document.yaml", tmp_path)
    assert out.startswith("--- {")
    assert _template(doc)["metadata"]["labels"] == {"app": "ocr", **ENABLED}


def test_escaped_gpu_key_is_seen(cli: Cli, tmp_path: Path) -> None:
    _, doc = _apply(cli, "rightsize-example", CORPUS / "escaped-gpu-key.yaml", tmp_path)
    assert "resources" not in _container(doc)
    assert _template(doc)["metadata"]["annotations"]["tensor-fusion.ai/gpu-count"] == "1"


def test_merge_keys_are_read_and_edits_under_them_land(cli: Cli, tmp_path: Path) -> None:
    _, doc = _apply(cli, "rightsize-example", CORPUS / "merge-keys.yaml", tmp_path)
    assert doc["metadata"] == {"name": "llm", "labels": {"app": "llm"}}
    assert _template(doc)["metadata"]["labels"] == {"app": "llm", **ENABLED}
    assert _template(doc)["metadata"]["name"] == "llm"  # still merged in
    assert doc["x-resources"] == {"limits": {GPU: 1, "memory": "24Gi"}}
    assert _container(doc)["resources"] == {"limits": {"memory": "24Gi"},
                                            "requests": {"cpu": "2"}}


SHARED_CONTAINER = """\
apiVersion: apps/v1
kind: Deployment
x-container: &c
  name: c
  image: i
  resources:
    limits:
      nvidia.com/gpu: 1
metadata:
  name: a
spec:
  selector:
    matchLabels:
      app: a
  template:
    metadata:
      labels:
        app: a
    spec:
      containers:
      - *c
"""


def test_a_container_aliased_as_a_list_item_is_written_out(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "in" / "shared.yaml"
    path.parent.mkdir()
    path.write_text(SHARED_CONTAINER)
    out, doc = _apply(cli, "rightsize-example", path, tmp_path)
    assert doc["x-container"]["resources"] == {"limits": {GPU: 1}}
    assert _container(doc) == {"name": "c", "image": "i"}
    assert "      - name: c\n        image: i\n" in out


def test_a_document_no_writer_can_rewrite_faithfully_is_refused(cli: Cli,
                                                                tmp_path: Path) -> None:
    """The comment after the alias has no place once it is written out; ruamel would
    edit the anchor too: refused, and ``fix`` leaves the file alone."""
    path = tmp_path / "shared.yaml"
    text = SHARED_CONTAINER.replace("- *c\n", "- *c  # the shared container\n")
    path.write_text(text)
    code, out, err = cli("apply", "-p", "rightsize-example", str(path))
    assert (code, out) == (2, "")
    assert err.startswith(f"{path}:1: error: cannot rewrite this document") and err.count("\n") == 1
    code, _, _ = cli("fix", "-p", "rightsize-example", str(path))
    assert code == 2 and path.read_text() == text


def test_the_safety_net_rejects_text_that_reads_back_differently() -> None:
    intended = {"a": {"b": 1}}
    assert reads_back("a:\n  b: 1\n", "a: {}\n", intended, "f")
    assert not reads_back("a:\n  b: '1'\n", "a: {}\n", intended, "f")
    assert not reads_back("a:\n  b: 1", "a: {}\n", intended, "f")  # lost its last line break
    assert not reads_back("a:\n  b: 1\n", "--- a: {}\n", intended, "f")  # lost its "---"
    assert not reads_back("a:\n b: 1\n  c: 2\n", "a: {}\n", intended, "f")  # does not parse


def test_json_surrogate_pairs_are_accepted(cli: Cli, tmp_path: Path) -> None:
    manifest = {"apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": "j", "annotations": {"emoji": "\U0001F600"}},
                "spec": {"template": {"spec": {"containers": [
                    {"name": "m", "resources": {"limits": {GPU: 1}}}]}}}}
    path = tmp_path / "d.json"
    path.write_text(json.dumps(manifest, indent=2))  # ensure_ascii: "\ud83d\ude00"
    assert "\\ud83d\\ude00" in path.read_text()
    code, out, err = cli("apply", "-p", "takeover", str(path))
    assert code == 0 and "[error]" not in err, err
    staged = json.loads(out)
    assert staged["metadata"]["annotations"]["emoji"] == "\U0001F600"
    assert staged["spec"]["template"]["metadata"]["labels"] == ENABLED


def test_merge_key_written_after_the_key_it_sets_is_refused(cli: Cli) -> None:
    code, out, err = cli("apply", "-p", "takeover",
                         "tests/corpus/bad/merge-key-after-its-key.yaml")
    assert (code, out) == (2, "")
    assert err.startswith("tests/corpus/bad/merge-key-after-its-key.yaml:22:13: error: ")


@pytest.mark.parametrize("value", ["!!int abc", "!!int ''", "!!bool maybe", "!!float x",
                                   "9" * 4301, "0x" + "f" * 3600, "!!binary aGk=",
                                   "!!set {a}", "&a [*a]"])
def test_yaml_values_that_made_the_loader_raise_are_located_errors_in_policies(
        cli: Cli, tmp_path: Path, value: str) -> None:
    text = (ROOT / "policies" / "takeover.yaml").read_text()
    path = tmp_path / "policy.yaml"
    path.write_text(text + f"  priority: {value}\n")
    line = text.count("\n") + 1
    code, _, err = cli("validate", str(path))
    assert code == 2, err
    assert err.startswith(f"{path}:{line}:13: error: ") and err.count("\n") == 1
    assert value[-20:] not in err


def test_bad_integer_in_an_inventory_is_a_located_error(cli: Cli, tmp_path: Path) -> None:
    text = (ROOT / "examples" / "inventory.yaml").read_text()
    path = tmp_path / "inventory.yaml"
    path.write_text(text.replace("tflopsOversellRatio: 2000", "tflopsOversellRatio: !!int x"))
    line = text[:text.index("tflopsOversellRatio")].count("\n") + 1
    code, out, err = cli("plan", "-p", "takeover", "--inventory", str(path), "examples/manifests")
    assert code == 2 and out == ""
    assert err.startswith(f"{path}:{line}:") and err.count("\n") == 1


def test_manifests_with_bad_numbers_are_refused_by_fix_without_writing(
        cli: Cli, tmp_path: Path) -> None:
    good = tmp_path / "good.yaml"
    shutil.copy(CORPUS / "merge-keys.yaml", good)
    bad = tmp_path / "bad.yaml"
    shutil.copy(ROOT / "tests" / "corpus" / "bad" / "integer-too-long.yaml", bad)
    before = good.read_bytes()
    code, _, err = cli("fix", "-p", "takeover", str(good), str(bad))
    assert code == 2 and f"{bad}:6:13: error: " in err
    assert good.read_bytes() == before
