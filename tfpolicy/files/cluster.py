"""The cluster as ``verify`` and ``promote`` see it: ``kubectl get -o yaml`` files, or
``kubectl`` itself run with ``--live`` (no other client: what the user's kubeconfig
allows is all it can read).

The operator's custom resources may be absent (the operator is not installed
yet), which kubectl says as a missing resource type: the snapshot then holds
no GPU objects, and the report says so. So may the GitOps controllers' (Argo CD's
Applications, Flux's Kustomizations, HelmReleases and GitRepositories, each asked for
alone: a cluster runs one controller or the other, and Flux's are installed one by one),
and a kubeconfig may not be allowed to list them: the snapshot then holds none, and
promote judges the sync by object times, saying so (docs/hosts.md).
"""

from __future__ import annotations

import shutil
import subprocess
from typing import Any

from tfpolicy import gitops, yamlio
from tfpolicy.errors import TfpolicyError
from tfpolicy.files.sources import MAX_FILE_BYTES, read_text, shown_name
from tfpolicy.inventory import load_inventory
from tfpolicy.plan import Document
from tfpolicy.rewrite.engine import objects
from tfpolicy.scheduler import Inventory
from tfpolicy.verify import Snapshot, snapshot_of

# What `--live` asks for: the workloads' side, then the operator's (its CRDs may be absent,
# which kubectl reports as a missing resource type; the group keeps other GPU CRDs out).
WORKLOAD_KINDS = "pods,replicasets,events"
OPERATOR_KINDS = "gpus.tensor-fusion.ai,gpunodes.tensor-fusion.ai,gpupools.tensor-fusion.ai"
ROLLOUT_KINDS = "rollouts.argoproj.io"  # their stable and canary revisions
GITOPS_KINDS = gitops.RESOURCES  # which commit the cluster runs, as its controller says
_NO_TYPE = "the server doesn't have a resource type"
_FORBIDDEN = "(Forbidden)"  # kubectl's "Error from server (Forbidden): … cannot list …"
_KUBECTL_SECONDS = 120


def read_snapshots(files: tuple[str, ...]) -> Snapshot:
    """The cluster as the ``kubectl get -o yaml`` files (``-``: stdin) show it."""
    found: list[tuple[str, Any]] = []
    for file in files:
        shown = shown_name(file)
        found.extend((shown, doc) for doc in yamlio.load_all(read_text(file), file=shown))
    return snapshot_of(found)


def live_snapshot(context: str | None, rollouts: bool) -> Snapshot:
    """The cluster as ``kubectl`` shows it now (Argo's Rollouts too when ``rollouts``)."""
    found: list[tuple[str, Any]] = []
    for kinds in (WORKLOAD_KINDS, OPERATOR_KINDS, *([ROLLOUT_KINDS] if rollouts else []),
                  *GITOPS_KINDS):
        text = _kubectl_get(context, kinds)
        shown = f"<kubectl get {kinds}>"
        found.extend((shown, doc) for doc in yamlio.load_all(text, file=shown))
    return snapshot_of(found)


def has_rollouts(docs: list[Document]) -> bool:
    """Argo's CRD is asked for only when the manifests hold a Rollout."""
    return any(obj.get("kind") == "Rollout" and str(obj.get("apiVersion", "")).startswith(
        "argoproj.io/") for doc in docs for _, obj in objects(doc.data))


def snapshot_fleet(snapshot: Snapshot) -> Inventory:
    """The snapshot's pools, nodes and GPUs; none when the operator is not installed."""
    if not snapshot.operator_installed:
        return Inventory.build([], [])
    try:
        return load_inventory(list(snapshot.operator_objects()))
    except TfpolicyError as exc:
        raise exc.located("--cluster") from None


def snapshot_source(files: tuple[str, ...], live: bool, context: str | None) -> str:
    """Where the snapshot came from, as the report names it: with --live and no --context,
    the kubeconfig's current context by name when kubectl tells it."""
    if live and context:
        return f"kubectl --context {context}"
    if live:
        current = _current_context()
        return f"kubectl, its current context ({current})" if current else (
            "kubectl, its current context")
    return ", ".join(shown_name(f) for f in files)


def _current_context() -> str:
    """``kubectl config current-context``, or "" when it says nothing usable (a name is one
    line, no longer than a Kubernetes name)."""
    program = shutil.which("kubectl")
    if program is None:
        return ""
    try:
        done = subprocess.run([program, "config", "current-context"], capture_output=True,
                              timeout=_KUBECTL_SECONDS, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    name = done.stdout.decode("utf-8", "replace").strip()
    usable = done.returncode == 0 and 0 < len(name) <= 253 and name.isprintable()
    return name if usable else ""


def _absent(kinds: str, error: str) -> bool:
    """kubectl's error says the kinds are not there: a CRD not installed, or (a GitOps
    controller's only) not for this kubeconfig to list."""
    if kinds == WORKLOAD_KINDS:
        return False
    return _NO_TYPE in error or (kinds in GITOPS_KINDS and _FORBIDDEN in error)


def _kubectl_get(context: str | None, kinds: str) -> str:
    program = shutil.which("kubectl")
    if program is None:
        raise TfpolicyError("--live: kubectl is not on PATH")
    argv = [program, *(["--context", context] if context else []), "get", kinds, "-A",
            "-o", "yaml"]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=_KUBECTL_SECONDS, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise TfpolicyError(f"--live: kubectl get {kinds} did not run: {exc}") from None
    error = done.stderr.decode("utf-8", "replace").strip()
    if done.returncode != 0 and _absent(kinds, error):
        return ""  # the operator's (or Argo's, or Flux's) CRDs are not installed
    if done.returncode != 0:
        last = error.splitlines()[-1][:200] if error else "no message"
        raise TfpolicyError(f"--live: kubectl get {kinds} failed ({done.returncode}): {last}")
    if len(done.stdout) > MAX_FILE_BYTES:
        raise TfpolicyError(f"--live: kubectl get {kinds} printed more than "
                            f"{MAX_FILE_BYTES:,} bytes")
    return yamlio.decode(done.stdout, f"<kubectl get {kinds}>")
