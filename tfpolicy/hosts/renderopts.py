"""How an ArgoCD app is rendered: the Helm and kustomize options a plugin app passes.

ArgoCD picks a source's type explicitly: an Application that sets
``spec.source.helm`` or ``spec.source.kustomize`` never reaches a plugin, and
adding ``plugin:`` too is an error. So the plugin takes those options itself,
as parameters named after ArgoCD's own helm source fields (``valueFiles``,
``values``, ``parameters``, ``releaseName``); ``KUBE_VERSION`` and
``KUBE_API_VERSIONS`` come from the cmp-server's environment, as ArgoCD
passes them to ``helm template`` natively (argoproj/argo-cd
cmpserver/plugin/plugin.go).

Whoever may create an Application chooses these, so value files must stay
inside the repository and kustomize gets only options that run no program
(never ``--enable-exec`` or plugins).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tfpolicy.errors import TfpolicyError
from tfpolicy.files.excluded import Rules
from tfpolicy.files.sources import inside
from tfpolicy.hosts.names import flag, local_file, release_name
from tfpolicy.records import Record

LOAD_RESTRICTORS = ("LoadRestrictionsRootOnly", "LoadRestrictionsNone")


class RenderOptions(Record):
    release: str | None = None
    value_files: tuple[str, ...] = ()
    values: str = ""  # inline YAML, like the helm source's ``values``
    sets: tuple[tuple[str, str], ...] = ()
    enable_helm: bool = False
    load_restrictor: str | None = None
    exclude: Rules | None = None  # a plain folder's files its config's ``exclude:`` leaves out

    def helm_args(self, env: Mapping[str, str], inline: Path | None) -> list[str]:
        """``helm template`` flags in ArgoCD's order: value files, inline values, then --set;
        each one ``--flag=value`` argument (``tfpolicy.hosts.names``)."""
        args = [flag("values", f) for f in self.value_files]
        args += [flag("values", str(inline))] if inline is not None else []
        args += [flag("set", f"{key}={value}") for key, value in self.sets]
        if env.get("KUBE_VERSION"):
            args.append(flag("kube-version", env["KUBE_VERSION"]))
        versions = [v for v in env.get("KUBE_API_VERSIONS", "").split(",") if v.strip()]
        return args + [flag("api-versions", v.strip()) for v in versions]

    def kustomize_args(self) -> list[str]:
        args = ["--enable-helm"] if self.enable_helm else []
        return args + ([flag("load-restrictor", self.load_restrictor)] if self.load_restrictor
                       else [])


_VALUE_FILES = "the plugin parameter 'helm-value-files'"
_RELEASE = "the plugin parameter 'helm-release-name'"


def render_options(params: Mapping[str, Any], folder: Path, root: Path) -> RenderOptions:
    files = tuple(local_file(str(f), _VALUE_FILES) for f in _list(params, "helm-value-files"))
    for name in files:
        if not inside(folder / name, root.resolve()):
            raise TfpolicyError(f"helm value file {name!r} must be a file inside the repository",
                                file=_VALUE_FILES)
    restrictor = _string(params, "kustomize-load-restrictor") or None
    if restrictor is not None and restrictor not in LOAD_RESTRICTORS:
        raise TfpolicyError(f"kustomize-load-restrictor must be one of "
                            f"{', '.join(LOAD_RESTRICTORS)}, not {restrictor!r}")
    sets = params.get("helm-parameters") or {}
    release = _string(params, "helm-release-name")
    return RenderOptions(
        release_name(release, _RELEASE) if release else None, files,
        _string(params, "helm-values"),
        tuple(sorted((str(k), str(v)) for k, v in sets.items())) if isinstance(sets, dict)
        else (), _string(params, "kustomize-enable-helm").lower() == "true", restrictor)


def _string(params: Mapping[str, Any], name: str) -> str:
    value = params.get(name)
    return value if isinstance(value, str) else ""


def _list(params: Mapping[str, Any], name: str) -> list[Any]:
    value = params.get(name)
    return value if isinstance(value, list) else []


PLAIN = RenderOptions()  # no options: helm and kustomize as they render by default
