"""The whole-input first pass for ``fix`` and ``check``: over all a config governs, not
one file (``tfpolicy.rewrite.firstpass``).

Two things depend on every document of an input: a canary rung's order
(:mod:`tfpolicy.stages.canary`: the first whole workloads of the kinds
TensorFusion cannot cap) and the DRA claims, claim templates and
DeviceClasses a pod's ``resourceClaims`` name, which may sit in another file.
``fix`` and ``check`` rewrite one file at a time, and a hook names only a
commit's files; so before any file is rewritten, each config's policies get
the order and the claims over every manifest that config governs
(:func:`tfpolicy.files.governed.governed`: the YAML and JSON files git tracks
under its folder, that folder walked outside a git repository, less nested
configs and repositories, symlinks and what its ``exclude:`` leaves out; plus
the files named), less Helm chart templates and files that hold no
Kubernetes object, as the rewrite skips them. The choice is then the same
whichever of those files a run names, and the one ``plan``, ``apply`` and
``verify`` make over the config's folder. Policies given with ``-p`` are
settled over the files given.

Only files that may hold something for the pass are parsed
(``firstpass.worth``): every file under a canary rung, else those naming
``resource.k8s.io/``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from functools import partial
from pathlib import Path

from tfpolicy import yamlio
from tfpolicy.errors import TfpolicyError
from tfpolicy.files.foreign import not_kubernetes
from tfpolicy.files.governed import governed
from tfpolicy.files.scopes import Run, Scope, Scopes, chart_template
from tfpolicy.files.sources import read_bytes
from tfpolicy.policy.project_config import ProjectConfig
from tfpolicy.records import replace
from tfpolicy.rewrite import firstpass, parallel
from tfpolicy.rewrite.engine import PolicySet, canary_scope


def ordered(run: Run, files: list[str]) -> Run:
    """``run`` with each scope's policies settled (``firstpass.settled``) over what each
    governs (with ``-p``: over ``files``, the files the run reads)."""
    if run.scopes is None:
        if not firstpass.pending(run.policies):
            return run
        return replace(run, loaded=_over(run.policies, _manifests(files), run.options.namespace,
                                         run.jobs))
    chosen: dict[Path, Scope] = {}
    for config, named in _by_config(run.scopes, files):
        scope = run.scopes.scope(config)
        if not firstpass.pending(scope.policies):
            continue
        covered = _manifests(_union(governed(config), named))
        chosen[config.path] = replace(scope, policies=_over(scope.policies, covered,
                                                            scope.options.namespace, run.jobs))
    return replace(run, scopes=run.scopes.ordered(chosen)) if chosen else run


def presumed(run: Run) -> Run | None:
    """``run`` as ``ordered`` leaves it when no file holds a DRA claim, claim template or
    DeviceClass, where that is all the pass would look for (policies given with ``-p``, no
    canary rung); None where the pass decides more.

    Such files are rare, and the pass would read every file only to find none: a run
    that presumes so reads each file once, watching for one that may hold some
    (``runner.rewrite_files``, ``watch``), and is run again with the pass should it
    meet one (docs/speed.md, "fix beside apply").
    """
    policies = run.loaded
    if run.scopes is not None or policies is None or policies.claims is not None:
        return None
    if policies.cohort is None and canary_scope(policies) is not None:
        return None
    return replace(run, loaded=firstpass.settled(policies, [], run.options.namespace))


def _by_config(scopes: Scopes, files: list[str]) -> list[tuple[ProjectConfig, list[str]]]:
    """Each config that governs some of ``files``, with those files; by the config's path."""
    configs: dict[Path, tuple[ProjectConfig, list[str]]] = {}
    for file in files:
        config = scopes.config_of(file)
        if isinstance(config, ProjectConfig):
            configs.setdefault(config.path, (config, []))[1].append(file)
    return [configs[path] for path in sorted(configs)]


def _union(first: list[str], then: list[str]) -> list[str]:
    """Each file once (as ``os.path.normpath`` spells it), in order."""
    seen: set[str] = set()
    out = []
    for file in (*first, *then):
        if os.path.normpath(file) not in seen:
            seen.add(os.path.normpath(file))
            out.append(file)
    return out


def _manifests(files: list[str]) -> Iterator[str]:
    """The files the rewrite would take: not Helm chart templates."""
    for file in files:
        if "templates" not in os.path.abspath(file) or not chart_template(file):
            yield file


def _over(policies: PolicySet, files: Iterator[str], namespace: str, jobs: int) -> PolicySet:
    """``policies`` settled over ``files``, read in runs over the workers as the rewrite
    reads them (``rewrite.parallel``): what each holds, and the first error, in file order."""
    found = parallel.ordered(partial(_run_found, policies, namespace),
                             parallel.runs(list(files), jobs), jobs,
                             shared=yamlio.load_rewriter, in_worker=yamlio.silence_process)
    return firstpass.settled(policies, [f for run in found for f in run], namespace)


def _run_found(policies: PolicySet, namespace: str, files: list[str]) -> list[firstpass.Found]:
    return [_file(policies, file, namespace) for file in files]


def _file(policies: PolicySet, file: str, namespace: str) -> firstpass.Found:
    """What one file holds for the pass; nothing where it holds no Kubernetes object (a
    broken manifest is an error, as when it is rewritten), is gone since it was listed, or
    cannot hold anything the pass looks for."""
    if not os.path.isfile(file):
        return firstpass.Found()
    data = read_bytes(file)
    if not firstpass.worth(policies, data):
        return firstpass.Found()
    try:
        docs = yamlio.iter_documents([yamlio.decode(data, file)], file=file)
        return firstpass.scan(policies, namespace, file, docs)
    except TfpolicyError:
        if not_kubernetes(data, file):
            return firstpass.Found()
        raise
