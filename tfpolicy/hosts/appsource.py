"""Render an ArgoCD app folder the way the repo-server would, for the CMP ``generate``,
and migrate what it rendered (``migrate``).

``kustomization.yaml`` → ``kustomize build`` (standalone when installed,
else ``kubectl kustomize``); ``Chart.yaml`` → ``helm template`` with the
app's name and namespace; otherwise the folder's own manifest files (not
recursive, like an Argo directory source's default). A render tool's
failure is a one-line error: a silent empty render would prune the app
(docs/hosts.md, "Argo CD").
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path

from tfpolicy import yamlio
from tfpolicy.errors import TfpolicyError
from tfpolicy.files.excluded import Rules
from tfpolicy.files.foreign import not_kubernetes
from tfpolicy.files.sources import MANIFEST_SUFFIXES, inside, read_text
from tfpolicy.findings import Finding
from tfpolicy.hosts.names import flag, namespace, release_name
from tfpolicy.hosts.renderopts import PLAIN, RenderOptions
from tfpolicy.records import Record
from tfpolicy.rewrite import firstpass
from tfpolicy.rewrite.engine import PolicySet
from tfpolicy.rewrite.pipeline import DocOutcome, Options, transform_documents

KUSTOMIZATIONS = ("kustomization.yaml", "kustomization.yml", "Kustomization")
_OWN_GROUP = "tfpolicy.dev/"


class Source(Record):
    name: str  # a file, or the render command, for messages
    text: str


def render(folder: Path, env: Mapping[str, str],
           options: RenderOptions = PLAIN) -> list[Source]:
    if any((folder / name).is_file() for name in KUSTOMIZATIONS):
        return [_run(_kustomize() + options.kustomize_args(), folder)]
    if (folder / "Chart.yaml").is_file():
        import tempfile  # here: only a chart's inline values need a scratch folder

        with tempfile.TemporaryDirectory(prefix="tfpolicy-values-") as scratch:
            inline = Path(scratch, "values.yaml") if options.values else None
            if inline is not None:
                inline.write_text(options.values, encoding="utf-8")
            return [_run(_helm(env, options.release) + options.helm_args(env, inline), folder)]
    return [Source(str(f.relative_to(folder)), read_text(str(f)))
            for f in _manifests(folder, options.exclude)]


def dependencies(folder: Path) -> None:
    """``helm dependency build`` for a chart that declares dependencies (the plugin's ``init``)."""
    chart = folder / "Chart.yaml"
    if chart.is_file() and "dependencies:" in read_text(str(chart)):
        if not shutil.which("helm"):
            raise TfpolicyError("Chart.yaml found, but helm is not installed in the plugin sidecar")
        _run(["helm", "dependency", "build"], folder)


def check_links(folder: Path, root: Path) -> None:
    """Refuse a symlink in the repository that resolves outside it, as ArgoCD does.

    The repo-server rejects such repositories (``CheckOutOfBoundsSymlinks``,
    argoproj/argo-cd util/io/files/tar.go); a render that followed one would publish a file of the
    sidecar (a token, a Secret) as a manifest.
    """
    top = root.resolve()
    for path in _links(str(root)):
        if not inside(Path(path), top):
            shown = os.path.relpath(path, folder)
            raise TfpolicyError("a symlink that leaves the repository: ArgoCD refuses "
                                "these, and so does tfpolicy", file=shown)


def _links(root: str) -> Iterator[str]:
    """The symlinks under ``root``, but in ``.git``: in ``os.walk``'s top-down order (each
    folder's entries by name, then its subfolders), a linked folder listed but not
    entered, a folder that cannot be listed passed over. The folders still to list are
    a list, as in ``tfpolicy.files.listing``, whose walk keeps manifests only and skips
    hidden folders: so no depth of nesting reaches Python's recursion limit, where
    ``os.walk`` recurses before Python 3.12."""
    pending = [root]
    while pending:
        current = pending.pop()
        try:
            with os.scandir(current) as listing:
                entries = sorted((entry.name, entry.is_symlink(), _folder(entry))
                                 for entry in listing)
        except OSError:
            continue
        entries = [entry for entry in entries if entry[0] != ".git" or not entry[2]]
        yield from (os.path.join(current, name) for name, link, _ in entries if link)
        pending.extend(os.path.join(current, name) for name, link, is_dir
                       in reversed(entries) if is_dir and not link)


def _folder(entry: os.DirEntry[str]) -> bool:
    """A folder, or a link to one (``os.walk`` lists both among the folders)."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def _manifests(folder: Path, exclude: Rules | None) -> list[Path]:
    """The folder's own manifests, less those its config's ``exclude:`` leaves out."""
    return sorted(f for f in folder.iterdir()
                  if f.is_file() and f.suffix in MANIFEST_SUFFIXES and not f.name.startswith(".")
                  and (exclude is None or exclude.drops(f.name) is None))


def _kustomize() -> list[str]:
    if shutil.which("kustomize"):
        return ["kustomize", "build", "."]
    if shutil.which("kubectl"):
        return ["kubectl", "kustomize", "."]
    raise TfpolicyError("kustomization.yaml found, but neither kustomize nor kubectl is installed")


def _helm(env: Mapping[str, str], release: str | None) -> list[str]:
    if not shutil.which("helm"):
        raise TfpolicyError("Chart.yaml found, but helm is not installed in the plugin sidecar")
    name = release or release_name(env.get("ARGOCD_APP_NAME") or "release", "ARGOCD_APP_NAME")
    command = ["helm", "template", name, "."]
    if env.get("ARGOCD_APP_NAMESPACE"):
        command.append(flag("namespace", namespace(env["ARGOCD_APP_NAMESPACE"],
                                                   "ARGOCD_APP_NAMESPACE")))
    return command


_STDERR_CAP = 4000  # a renderer's whole stderr, cut only past this


def _reason(stderr: bytes) -> str:
    """All of a failed renderer's stderr (its last line alone often says only "exit 1")."""
    text = stderr.decode("utf-8", "replace").strip()
    if len(text) > _STDERR_CAP:
        text = text[:_STDERR_CAP] + f"… ({len(text) - _STDERR_CAP} more characters)"
    return " | ".join(line.strip() for line in text.splitlines() if line.strip()) or (
        "no error message")


def _run(command: list[str], folder: Path) -> Source:
    import subprocess  # here: a plain app's files need no renderer

    shown = " ".join(command)
    done = subprocess.run(command, cwd=folder, capture_output=True, check=False)
    if done.returncode != 0:
        raise TfpolicyError(f"`{shown}` failed (exit {done.returncode}): "
                            f"{_reason(done.stderr)}")
    return Source(shown, done.stdout.decode("utf-8"))


class Migrated(Record):
    """What ``generate`` prints (each source's text, in order), its findings, and the
    plain-folder files skipped, with the reason (said under ``--explain``)."""

    chunks: list[str]
    findings: list[Finding]
    skipped: list[tuple[str, str]]


def migrate(sources: list[Source], policies: PolicySet, options: Options) -> Migrated:
    """Every source's documents through the engine, less tfpolicy's own configuration
    and less the files that hold no Kubernetes object (a compose file, any YAML without
    apiVersion and kind), as the pre-commit hooks skip them."""
    chunks: list[str] = []
    findings: list[Finding] = []
    skipped: list[tuple[str, str]] = []
    taken: list[tuple[int, str, list[yamlio.RawDoc]]] = []
    for number, source in enumerate(sources):
        reason = _foreign(source)
        if reason:
            skipped.append((source.name, reason))
            continue
        docs = [d for d in yamlio.split_documents(source.text) if not _own(d, source.name)]
        taken.append((number, source.name, docs))
    # The canary rung and the DRA claims over every source at once, as apply does.
    policies = firstpass.over_documents(policies, [(name, docs) for _, name, docs in taken],
                                        options.namespace)
    for number, name, docs in taken:
        text = "".join(_texts(transform_documents(docs, policies, name, options), findings))
        if text.strip():
            chunks.append(_separated(text, number > 0 and bool(chunks)))
    return Migrated(chunks, findings, skipped)


# An object's two keys at the top of a document (or quoted, in JSON): a file naming both
# is read as a manifest without a second parse; any other is asked whether it is one.
_OBJECT_KEYS = (re.compile(r'^(?:apiVersion|"apiVersion")\s*:|"apiVersion"\s*:', re.MULTILINE),
                re.compile(r'^(?:kind|"kind")\s*:|"kind"\s*:', re.MULTILINE))


def _foreign(source: Source) -> str:
    """Why a plain-folder file is not a manifest (empty: it is one, or it is broken)."""
    if all(key.search(source.text) for key in _OBJECT_KEYS):
        return ""
    return not_kubernetes(source.text.encode("utf-8"), source.name)


def _texts(outcomes: Iterator[DocOutcome], findings: list[Finding]) -> Iterator[str]:
    for outcome in outcomes:
        findings.extend(outcome.findings)
        yield outcome.text


def _own(doc: yamlio.RawDoc, file: str) -> bool:
    """tfpolicy's own configuration (a MigrationPolicy) is never a manifest to deploy."""
    if _OWN_GROUP not in doc.text:
        return False
    data = yamlio.parse_document(doc.text, file=file, line=doc.line).data
    return isinstance(data, dict) and str(data.get("apiVersion", "")).startswith(_OWN_GROUP)


def _separated(text: str, later: bool) -> str:
    """A file's documents, ending in a newline and, after the first file, after a ``---``."""
    text = text if text.endswith("\n") else text + "\n"
    return "---\n" + text if later else text
