"""A canary rung's order for ``fix`` and ``check``: over all a config governs, not one file.

A rung moves the first whole workloads of the kinds TensorFusion cannot cap
(:mod:`tfpolicy.stages.canary`), in an order over an input. ``fix`` and
``check`` rewrite one file at a time, and a hook names only a commit's files;
so before any file is rewritten, each config's policies get the order over
every manifest that config governs (:func:`tfpolicy.files.governed.governed`: the
YAML and JSON files git tracks under its folder, that folder walked outside a
git repository, less nested configs and repositories and symlinks; plus the
files named), less Helm chart templates and files that hold no Kubernetes
object, as the rewrite skips them. The choice is then the same whichever of
those files a run names, and the one ``plan`` and ``verify`` make over the
config's folder. Policies given with ``-p`` are ordered over the files given.

Done only when some policy sets a cap below 100 %: otherwise nothing is read.
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
from tfpolicy.files.sources import read_seen
from tfpolicy.policy.project_config import ProjectConfig
from tfpolicy.records import replace
from tfpolicy.rewrite import parallel
from tfpolicy.rewrite.engine import PolicySet, canary_scope, with_cohort
from tfpolicy.rewrite.firstpass import text_members
from tfpolicy.stages.canary import Member


def ordered(run: Run, files: list[str]) -> Run:
    """``run`` with a canary rung's order in each scope's policies, over what each governs
    (with ``-p``: over ``files``, the files the run reads)."""
    if run.scopes is None:
        if canary_scope(run.policies) is None:
            return run
        return replace(run, loaded=_over(run.policies, _manifests(files), run.options.namespace,
                                         run.jobs))
    chosen: dict[Path, Scope] = {}
    for config, named in _by_config(run.scopes, files):
        scope = run.scopes.scope(config)
        if canary_scope(scope.policies) is None:
            continue
        covered = _manifests(_union(governed(config), named))
        chosen[config.path] = replace(scope, policies=_over(scope.policies, covered,
                                                            scope.options.namespace, run.jobs))
    return replace(run, scopes=run.scopes.ordered(chosen)) if chosen else run


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
    """The order over ``files``, read in runs over the workers as the rewrite reads them
    (``rewrite.parallel``): members and the first error come in file order."""
    found = parallel.ordered(partial(_run_members, policies, namespace),
                             parallel.runs(list(files), jobs), jobs,
                             shared=yamlio.load_rewriter, in_worker=yamlio.silence_process)
    return with_cohort(policies, [m for members in found for m in members])


def _run_members(policies: PolicySet, namespace: str, files: list[str]) -> list[Member]:
    return [m for file in files for m in _file(policies, file, namespace)]


def _file(policies: PolicySet, file: str, namespace: str) -> list[Member]:
    """One file's members; none where it holds no Kubernetes object (a broken manifest is
    an error, as when it is rewritten) or is gone since it was listed."""
    if not os.path.isfile(file):
        return []
    data, _ = read_seen(file)
    try:
        return text_members(policies, file, yamlio.decode(data, file), namespace)
    except TfpolicyError:
        if not_kubernetes(data, file):
            return []
        raise
