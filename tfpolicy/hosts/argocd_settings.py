"""ArgoCD CMP ``generate``: which policies, which stage, which namespace, and how to render.

Contract: argoproj/argo-cd cmpserver/plugin/plugin.go (docs/hosts.md, "ArgoCD
config-management plugin"). Policies come from, later overriding
earlier: the app's ``.tfpolicy.yaml``, ``ARGOCD_ENV_TFPOLICY_POLICIES``
(the Application's ``plugin.env``), then the ``policies`` parameter
(``ARGOCD_APP_PARAMETERS``, or its ``PARAM_POLICIES_<i>`` twins). The
``stage`` parameter (or ``ARGOCD_ENV_TFPOLICY_STAGE``) moves every policy
to one stage. Manifests without a namespace get the app's destination
namespace, ``ARGOCD_APP_NAMESPACE``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from itertools import count, takewhile
from pathlib import Path
from typing import Any

from tfpolicy.errors import TfpolicyError
from tfpolicy.files.excluded import rules_of
from tfpolicy.files.project import find_config
from tfpolicy.files.sources import confine_refs
from tfpolicy.hosts.names import known_names
from tfpolicy.hosts.names import namespace as namespace_name
from tfpolicy.hosts.policies import split_refs
from tfpolicy.hosts.renderopts import PLAIN, RenderOptions, render_options
from tfpolicy.policy.project_config import Configuration, Given, resolve_config
from tfpolicy.records import Record, replace


class Settings(Record):
    decided: Configuration  # policies, namespace, operator config: as every host decides
    stage: str | None
    root: Path  # the repository the cmp-server unpacked: nothing is read outside it
    render: RenderOptions = PLAIN

    @property
    def refs(self) -> tuple[str, ...]:
        return self.decided.policies

    @property
    def base(self) -> Path:
        return self.decided.base

    @property
    def namespace(self) -> str:
        return self.decided.namespace


def settings(env: Mapping[str, str], cwd: Path) -> Settings:
    """The generate run's settings from the cmp-server environment (argo-cd
    cmpserver/plugin/plugin.go, ``generateManifest``).

    Whoever may create an Application chooses the env and parameters, so
    policy paths from them (and from the repository's ``.tfpolicy.yaml``)
    must stay inside the repository: else an error message in the UI could
    show the sidecar's own files.
    """
    root = repository_root(env, cwd)
    config = find_config(cwd, root)
    refs: tuple[str, ...] = ()
    from_env = split_refs(env.get("ARGOCD_ENV_TFPOLICY_POLICIES", ""))
    if from_env:
        confine_refs(from_env, cwd, root, "ARGOCD_ENV_TFPOLICY_POLICIES")
        refs = from_env
    params = _parameters(env)
    if params.get("policies"):
        refs = tuple(params["policies"])
        confine_refs(refs, cwd, root, "the plugin parameter 'policies'")
    given = env.get("ARGOCD_APP_NAMESPACE")
    namespace = namespace_name(given, "ARGOCD_APP_NAMESPACE") if given else None
    decided = resolve_config(config, Given(refs, cwd, namespace))
    if not decided.policies:
        raise TfpolicyError("no policy: add a .tfpolicy.yaml to the app folder, set plugin env "
                            "TFPOLICY_POLICIES or the plugin parameter 'policies'")
    stage = params.get("stage") or env.get("ARGOCD_ENV_TFPOLICY_STAGE") or None
    render = replace(render_options(params, cwd, root), exclude=rules_of(config, str(cwd)))
    return Settings(decided, str(stage) if stage else None, root, render)


def repository_root(env: Mapping[str, str], cwd: Path) -> Path:
    """The unpacked repository: the app folder minus ``ARGOCD_APP_SOURCE_PATH``, where the
    cmp-server runs generate (argo-cd cmpserver/plugin/plugin.go)."""
    here = cwd.resolve()
    parts = [p for p in Path(env.get("ARGOCD_APP_SOURCE_PATH") or ".").parts if p not in (".", "/")]
    if not parts or ".." in parts or len(parts) >= len(here.parts):
        return here
    if here.parts[-len(parts):] != tuple(parts):
        return here
    return here.parents[len(parts) - 1]


# The parameters plugins/argocd/plugin.yaml announces, each with its collection type.
PARAMETERS = {"policies": "array", "stage": "string", "helm-value-files": "array",
              "helm-values": "string", "helm-parameters": "map", "helm-release-name": "string",
              "kustomize-enable-helm": "string", "kustomize-load-restrictor": "string"}
ENV = ("TFPOLICY_POLICIES", "TFPOLICY_STAGE")  # plugin env, seen as ARGOCD_ENV_<name>
_PARAMETER = "plugin parameter"


def _parameters(env: Mapping[str, str]) -> dict[str, Any]:
    """``policies`` (list) and ``stage`` (string) from the Application's plugin parameters;
    a name the plugin does not announce (``polices``) is refused, not ignored."""
    _known_env(env)
    raw = env.get("ARGOCD_APP_PARAMETERS")
    if raw:
        return _from_json(raw)
    _known_param_env(env)
    found: dict[str, Any] = {}
    items = list(takewhile(lambda v: v is not None,
                           (env.get(f"PARAM_POLICIES_{i}") for i in count())))
    found_items = [str(item) for item in items]
    if found_items:
        found["policies"] = [r for item in found_items for r in split_refs(item)]
    if env.get("PARAM_STAGE"):
        found["stage"] = env["PARAM_STAGE"]
    return found


def _known_env(env: Mapping[str, str]) -> None:
    """Of the Application's plugin env, the names meant for tfpolicy (``TFPOLICY_*``)."""
    for name in sorted(env):
        own = name.removeprefix("ARGOCD_ENV_")
        if own != name and own.startswith("TFPOLICY_"):
            known_names([own], ENV, "plugin env", name, repr)


_INDEX = re.compile(r"_[0-9]+$")


def _known_param_env(env: Mapping[str, str]) -> None:
    """``PARAM_<NAME>`` (an array's ``_<i>``, a map's ``_<KEY>`` after it), as the
    cmp-server names each parameter: upper case, ``-`` as ``_``."""
    forms = {name.upper().replace("-", "_"): kind for name, kind in PARAMETERS.items()}
    for variable in sorted(v for v in env if v.startswith("PARAM_")):
        rest = variable.removeprefix("PARAM_")
        if rest in forms or any(rest.startswith(f"{form}_") for form, kind in forms.items()
                                if kind != "string"):
            continue
        guess = _INDEX.sub("", rest).lower().replace("_", "-")
        known_names([guess], tuple(PARAMETERS), _PARAMETER, variable, repr)


def _from_json(raw: str) -> dict[str, Any]:
    try:
        params = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise TfpolicyError(f"ARGOCD_APP_PARAMETERS is not JSON: {exc.msg}") from None
    found: dict[str, Any] = {}
    for param in params if isinstance(params, list) else []:
        name = param.get("name") if isinstance(param, dict) else None
        if isinstance(name, str):
            known_names([name], tuple(PARAMETERS), _PARAMETER, "ARGOCD_APP_PARAMETERS", repr)
        if name == "policies":
            values = param.get("array") or split_refs(str(param.get("string", "")))
            found["policies"] = [r for item in values for r in split_refs(str(item))]
        elif isinstance(name, str):  # stage and the render options: a string, array or map
            found[name] = next((param[k] for k in ("string", "array", "map") if k in param), "")
    return found
