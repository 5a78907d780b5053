"""``tfpolicy krm`` under the real kpt, and its ResourceList contract on stdin (hosts.md §1)."""

from __future__ import annotations

import difflib
import json
import shutil
from pathlib import Path

import yaml
from hostlib import EXAMPLES, ROOT, TFPOLICY, copy_examples, need, run, snapshot, tfpolicy

FUNCTION = f"{TFPOLICY} krm"
KRM_EXAMPLE = ROOT / "plugins" / "kustomize" / "example"
# The record takeover writes (README "The record"), with and without enabled-replicas.
CANARY_RECORD = ('{"labels":{"tensor-fusion.ai/enabled":{}},"annotations":{'
                 '"tensor-fusion.ai/isolation":{},"tensor-fusion.ai/enabled-replicas":{}}}')
TAKEOVER_RECORD = ('{"labels":{"tensor-fusion.ai/enabled":{}},"annotations":{'
                   '"tensor-fusion.ai/isolation":{}},"maps":{"metadata":{},"labels":{},'
                   '"annotations":{}}}')


def _noop(tmp: Path) -> str:
    """A function that echoes its input: kpt reformats some files on its own, so compare to it."""
    noop = tmp / "noop.sh"
    noop.write_text("#!/bin/sh\nexec cat\n")
    noop.chmod(0o755)
    return str(noop)


def _changed_lines(old: bytes, new: bytes) -> list[str]:
    diff = difflib.ndiff(old.decode().splitlines(), new.decode().splitlines())
    return [line for line in diff if line[:1] in "+-"]


def test_kpt_fn_eval_rewrites_the_package_in_place(tmp_path: Path) -> None:
    kpt = need("kpt")
    names = ("llm-server.yaml", "batch-jobs.yaml", "opted-out.yaml", "monitoring.yaml")
    after = {}
    for label, function in (("tfpolicy", FUNCTION), ("noop", _noop(tmp_path))):
        pkg = copy_examples(tmp_path / label, *names)
        done = run([kpt, "fn", "eval", str(pkg), "--exec", function, "--results-dir",
                    str(tmp_path / f"results-{label}"), "--", "policies=takeover"], tmp_path)
        assert done.returncode == 0, done.stderr
        after[label] = snapshot(pkg)
    fixed = copy_examples(tmp_path / "fixed", *names)
    assert tfpolicy("fix", "-p", "takeover", *names, cwd=fixed).returncode == 1
    for name in names:
        original = (EXAMPLES / name).read_bytes()
        # Exactly the lines `tfpolicy fix` adds, nothing else; comments all kept.
        assert _changed_lines(after["noop"][name], after["tfpolicy"][name]) == _changed_lines(
            original, (fixed / name).read_bytes()), name
    assert after["tfpolicy"]["opted-out.yaml"] == (EXAMPLES / "opted-out.yaml").read_bytes()
    assert b"# Source: vllm/templates/deployment.yaml" in after["tfpolicy"]["llm-server.yaml"]
    results = yaml.safe_load((tmp_path / "results-tfpolicy" / "results.yaml").read_text())
    found = results["items"][0]["results"]
    opt_out = next(r for r in found if r["tags"]["rule"] == "opt-out")
    assert opt_out["severity"] == "info"
    assert opt_out["file"]["path"] == "opted-out.yaml"
    assert opt_out["file"].get("index", 0) == 0  # kpt omits a zero index
    assert opt_out["resourceRef"]["kind"] == "Deployment"
    assert opt_out["field"]["path"].startswith("spec.template")


def test_kpt_fn_eval_failing_policy_fails_and_writes_nothing(tmp_path: Path) -> None:
    kpt = need("kpt")
    pkg = copy_examples(tmp_path / "pkg", "llm-server.yaml")
    config = tmp_path / "fn-config.yaml"
    config.write_text("apiVersion: tfpolicy.dev/v1alpha1\nkind: MigrationPolicy\n"
                      "metadata: {name: broken}\nspec: {stage: sideways}\n")
    before = snapshot(pkg)
    done = run([kpt, "fn", "eval", str(pkg), "--exec", FUNCTION, "--fn-config", str(config)],
               tmp_path)
    assert done.returncode != 0
    assert "[error]" in done.stdout + done.stderr and "stage" in done.stdout + done.stderr
    assert snapshot(pkg) == before


def test_kpt_fn_render_runs_the_kptfile_pipeline(tmp_path: Path) -> None:
    """kpt render reformats on its own, so compare with the same pipeline running ``cat``."""
    kpt = need("kpt")
    rendered = {}
    for label, function in (("tfpolicy", FUNCTION), ("noop", _noop(tmp_path))):
        pkg = copy_examples(tmp_path / label, "llm-server.yaml")
        shutil.copyfile(KRM_EXAMPLE / "legacy" / "migration.yaml", pkg / "migration.yaml")
        (pkg / "Kptfile").write_text(
            f"apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: {label}\npipeline:\n"
            f"  mutators:\n  - exec: \"{function}\"\n    configPath: migration.yaml\n")
        done = run([kpt, "fn", "render", str(pkg), "--allow-exec"], tmp_path)
        assert done.returncode == 0, done.stderr
        rendered[label] = (pkg / "llm-server.yaml").read_text().splitlines()
    delta = [line for line in difflib.ndiff(rendered["noop"], rendered["tfpolicy"])
             if line[:1] in "+-"]
    assert delta == ['+         tensor-fusion.ai/enabled: "true"',
                     "+         tensor-fusion.ai/isolation: shared",
                     '+         tensor-fusion.ai/enabled-replicas: "1"',
                     "+         tfpolicy.dev/original: '" + CANARY_RECORD + "'"]


def test_krm_example_function_config_runs_under_kpt(tmp_path: Path) -> None:
    """The kustomize KRM example's MigrationPolicy (with its function annotation) as fn-config."""
    kpt = need("kpt")
    pkg = tmp_path / "pkg"
    shutil.copytree(KRM_EXAMPLE / "base", pkg)
    done = run([kpt, "fn", "eval", str(pkg), "--exec", FUNCTION, "--fn-config",
                str(KRM_EXAMPLE / "krm" / "migration.yaml")], tmp_path)
    assert done.returncode == 0, done.stderr
    text = (pkg / "inference.yaml").read_text()
    assert 'tensor-fusion.ai/enabled-replicas: "1"' in text
    assert text.startswith("# A GPU inference Deployment")


RESOURCE_LIST = """\
apiVersion: config.kubernetes.io/{version}
kind: ResourceList
items:
- # the GPU server
  apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
    annotations:
      config.kubernetes.io/index: '0'
      config.kubernetes.io/path: 'web.yaml'
      internal.config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/path: 'web.yaml'
      internal.config.kubernetes.io/id: '1'
      config.k8s.io/id: '1'
      kustomize.config.k8s.io/id: |
        group: apps
        kind: Deployment
        name: web
        version: v1
  spec:
    template:
      spec:
        containers:
        - name: app  # the only container
          resources: {{limits: {{nvidia.com/gpu: 1}}}}
- apiVersion: v1
  kind: Service
  metadata: {{name: web}}
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata: {{name: function-input}}
  data: {{policies: takeover}}
"""


def test_resource_list_round_trip_keeps_everything_but_the_edit(tmp_path: Path) -> None:
    for version in ("v1", "v1beta1", "v1alpha1"):
        given = RESOURCE_LIST.format(version=version)
        done = tfpolicy("krm", cwd=tmp_path, stdin=given)
        assert done.returncode == 0, done.stderr
        added = [line for line in difflib.ndiff(given.splitlines(), done.stdout.splitlines())
                 if line[:1] in "+-"]
        assert added == ["+       metadata:", "+         labels:",
                         '+           tensor-fusion.ai/enabled: "true"',
                         "+         annotations:", "+           tensor-fusion.ai/isolation: shared",
                         "+           tfpolicy.dev/original: '" + TAKEOVER_RECORD + "'"]


def test_json_in_block_yaml_out(tmp_path: Path) -> None:
    data = yaml.safe_load(RESOURCE_LIST.format(version="v1"))
    done = tfpolicy("krm", cwd=tmp_path, stdin=json.dumps(data))
    assert done.returncode == 0, done.stderr
    assert not done.stdout.lstrip().startswith("{")
    out = yaml.safe_load(done.stdout)
    template = out["items"][0]["spec"]["template"]
    assert template["metadata"]["labels"] == {"tensor-fusion.ai/enabled": "true"}
    assert out["items"][0]["metadata"]["annotations"] == data["items"][0]["metadata"]["annotations"]


def _failed(done: object, *words: str) -> dict[str, object]:
    assert done.returncode == 1
    out = yaml.safe_load(done.stdout)
    assert out["kind"] == "ResourceList"
    errors = [r for r in out["results"] if r["severity"] == "error"]
    assert errors and all(w in errors[0]["message"] for w in words), out["results"]
    return out


def test_failures_answer_with_results_and_exit_1(tmp_path: Path) -> None:
    _failed(tfpolicy("krm", cwd=tmp_path, stdin=""), "no input")
    _failed(tfpolicy("krm", cwd=tmp_path, stdin="kind: ResourceList\nitems: [\n"), "invalid YAML")
    _failed(tfpolicy("krm", cwd=tmp_path, stdin="apiVersion: v1\nkind: List\nitems: []\n"),
            "not a ResourceList")
    bad_stage = RESOURCE_LIST.format(version="v1").replace(
        "data: {policies: takeover}",
        "data:\n    policy: |\n      apiVersion: tfpolicy.dev/v1alpha1\n"
        "      kind: MigrationPolicy\n      metadata: {name: x}\n      spec: {stage: nope}")
    out = _failed(tfpolicy("krm", cwd=tmp_path, stdin=bad_stage), "stage")
    assert len(out["items"]) == 2  # the items come back untouched, never an empty list
    other = RESOURCE_LIST.format(version="v1").replace("kind: ConfigMap", "kind: Secret")
    _failed(tfpolicy("krm", cwd=tmp_path, stdin=other), "functionConfig must be")


def test_no_function_config_uses_the_project_config(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".tfpolicy.yaml").write_text("policies: [rollback]\n")
    given = RESOURCE_LIST.format(version="v1").split("functionConfig:")[0]
    done = tfpolicy("krm", cwd=tmp_path, stdin=given)
    assert done.returncode == 0, done.stderr
    assert done.stdout == given  # rollback of an unmigrated workload changes nothing
    assert EXAMPLES.is_dir()
