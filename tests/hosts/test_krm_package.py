"""The KRM function under ``kpt fn render`` run from outside the package: ConfigMap
``policies:`` paths are the package's, ``stage`` moves every policy, ``policy=`` with a
bare name is a clear error; and the image's entrypoint runs the same command."""

from __future__ import annotations

import shlex
from pathlib import Path

from hostlib import EXAMPLES, ROOT, TFPOLICY, copy_examples, need, run, snapshot

FUNCTION = f"{TFPOLICY} krm"
POLICY = ("apiVersion: tfpolicy.dev/v1alpha1\nkind: MigrationPolicy\nmetadata: {name: p}\n"
          "spec: {stage: takeover}\n")


def _package(tmp: Path, data: str) -> Path:
    pkg = copy_examples(tmp / "work" / "pkg", "llm-server.yaml")
    (pkg / "policies").mkdir()
    (pkg / "policies" / "gpu.yaml").write_text(POLICY)
    (pkg / "Kptfile").write_text(
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\npipeline:\n"
        f"  mutators:\n  - exec: \"{FUNCTION}\"\n    configMap:\n{data}")
    return pkg


def test_configmap_policies_resolve_against_the_package(tmp_path: Path) -> None:
    kpt = need("kpt")
    pkg = _package(tmp_path, "      policies: policies/gpu.yaml\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "policies").mkdir()  # a decoy where kpt runs: must not be read
    (elsewhere / "policies" / "gpu.yaml").write_text(POLICY.replace("takeover", "sideways"))
    done = run([kpt, "fn", "render", str(pkg), "--allow-exec"], elsewhere)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "tensor-fusion.ai/enabled: \"true\"" in (pkg / "llm-server.yaml").read_text()


def test_stage_in_the_function_config(tmp_path: Path) -> None:
    kpt = need("kpt")
    pkg = _package(tmp_path, "      policies: policies/gpu.yaml\n")
    assert run([kpt, "fn", "render", str(pkg), "--allow-exec"], tmp_path).returncode == 0
    assert "tensor-fusion.ai/enabled" in (pkg / "llm-server.yaml").read_text()
    kptfile = pkg / "Kptfile"
    kptfile.write_text(kptfile.read_text() + "      stage: rollback\n")
    done = run([kpt, "fn", "render", str(pkg), "--allow-exec"], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    text = (pkg / "llm-server.yaml").read_text()
    assert "tensor-fusion.ai/enabled" not in text and "nvidia.com/gpu" in text


def test_singular_policy_names_policies(tmp_path: Path) -> None:
    kpt = need("kpt")
    pkg = copy_examples(tmp_path / "pkg", "llm-server.yaml")
    before = snapshot(pkg)
    done = run([kpt, "fn", "eval", str(pkg), "--exec", FUNCTION, "--", "policy=takeover"],
               tmp_path)
    assert done.returncode != 0
    assert "use policies=takeover" in done.stdout + done.stderr
    assert snapshot(pkg) == before


def test_image_entrypoint_is_the_function(tmp_path: Path) -> None:
    """No container engine here: run the command the image's ENTRYPOINT names."""
    dockerfile = (ROOT / "plugins" / "krm" / "Dockerfile").read_text()
    entry = next(line for line in dockerfile.splitlines() if line.startswith("ENTRYPOINT"))
    argv = __import__("json").loads(entry.removeprefix("ENTRYPOINT").strip())
    assert argv == ["tfpolicy", "krm"]
    kpt = need("kpt")
    pkg = copy_examples(tmp_path / "pkg", "llm-server.yaml")
    command = shlex.join([str(Path(TFPOLICY).parent / argv[0]), *argv[1:]])
    done = run([kpt, "fn", "eval", str(pkg), "--exec", command, "--", "policies=takeover"],
               tmp_path)
    assert done.returncode == 0, done.stderr
    assert (pkg / "llm-server.yaml").read_bytes() != (EXAMPLES / "llm-server.yaml").read_bytes()
