"""The KRM functionConfig: a MigrationPolicy, a ConfigMap naming or holding policies, or none.

kpt's ``fn eval -- k=v`` sends a ``v1/ConfigMap`` named function-input (the
functions specification, kubernetes-sigs/kustomize
cmd/config/docs/api-conventions/functions-spec.md); kustomize and kpt
pipelines send the config file as written, here our ``MigrationPolicy``.
With no functionConfig the project's ``.tfpolicy.yaml`` applies, as on every
other host (docs/design.md, "Policies and the project config").
Policy paths resolve against the package (the folder kpt names in the root
Kptfile's ``internal.config.kubernetes.io/package-path``, when a Kptfile of
that name is there, else the working directory), so a render is the same
wherever kpt runs, and must stay inside it, symlinks resolved. ``stage`` moves
every policy, as the ArgoCD plugin's parameter does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tfpolicy import yamlio
from tfpolicy.errors import TfpolicyError
from tfpolicy.files.operator import loaded_policies, with_operator
from tfpolicy.files.project import find_config
from tfpolicy.files.sources import confine_refs, load_policy_set, read_text
from tfpolicy.hosts.names import known_names
from tfpolicy.hosts.policies import policies_from_text, split_refs, with_stage
from tfpolicy.policy.model import Policy
from tfpolicy.policy.project_config import Given, ProjectConfig, resolve_config
from tfpolicy.policy.schema import brief
from tfpolicy.rewrite.engine import PolicySet
from tfpolicy.rewrite.pipeline import Options
from tfpolicy.yamlio import resource_list as rt

POLICY_KIND = ("tfpolicy.dev/v1alpha1", "MigrationPolicy")
CONFIGMAP_KEYS = ("namespace", "policies", "policy", "stage")
_PACKAGE_PATH = "internal.config.kubernetes.io/package-path"


def package_root(items: Any, cwd: Path) -> Path:
    """The package being rendered: the root Kptfile's package-path, as kpt annotates it.

    kpt runs an exec function in its own working directory, not the package's,
    so ``kpt fn render pkg`` from outside would otherwise read the wrong files.
    """
    for item in items if isinstance(items, list) else []:
        annotations = _annotations(item)
        path = annotations.get(_PACKAGE_PATH)
        if isinstance(item, dict) and item.get("kind") == "Kptfile" and annotations.get(
                "internal.config.kubernetes.io/path") == "Kptfile" and isinstance(path, str):
            return _package(path, item, cwd)
    return cwd


def _package(path: str, kptfile: dict[str, Any], cwd: Path) -> Path:
    """The folder ``path`` names, when it is the package this Kptfile item came from.

    kpt writes the annotation itself, an absolute path, over whatever the file
    said (checked with kpt 1.0.0-beta.56). From kustomize ``--enable-exec`` or a
    stream (``kpt fn eval -``) it is whatever the resource says, and ``/`` or
    ``../..`` would widen the folder policies are read from to the whole
    machine. So it counts only when absolute and holding a Kptfile of the
    same name; anything else is refused, never taken. A function run as an
    image sees none of the host's files: an absolute folder that does not
    exist here is that case, and the function's own working directory applies,
    as for a list with no Kptfile (nothing wider is ever read).
    """
    folder = Path(path)
    name = _mapping(kptfile.get("metadata")).get("name")
    if folder.is_absolute() and isinstance(name, str) and name and (
            _kptfile_name(folder / "Kptfile") == name):
        return folder
    if folder.is_absolute() and not _exists(folder):
        return cwd
    raise TfpolicyError(f"{_PACKAGE_PATH} {brief(path)} does not name the kpt package of "
                        "this ResourceList's Kptfile (an absolute folder holding a Kptfile "
                        "of the same name): no policy is read from it")


def _exists(folder: Path) -> bool:
    try:
        return folder.exists()
    except OSError:  # a name too long or otherwise unreadable: treated as absent
        return False


def _kptfile_name(path: Path) -> str | None:
    """The ``metadata.name`` of the Kptfile at ``path``; None when there is none to read."""
    try:
        data = yamlio.parse_document(read_text(str(path)), file=str(path)).data
    except (TfpolicyError, ValueError):
        return None
    name = _mapping(data).get("metadata") if isinstance(data, dict) else None
    found = _mapping(name).get("name")
    return found if isinstance(found, str) else None


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def function_policies(config: Any, cwd: Path) -> tuple[PolicySet, Options]:
    """The policy set and options a functionConfig asks for; what it leaves out (the
    namespace, the operator configuration) the package's ``.tfpolicy.yaml`` gives, as on
    every host (``tfpolicy.policy.project_config.resolve_config``)."""
    project = find_config(cwd)
    if not config or (_is_configmap(config) and not config.get("data")):
        return _project(project)
    if not isinstance(config, dict):
        raise TfpolicyError("functionConfig must be a mapping")
    shown = _shown(config)
    if (config.get("apiVersion"), config.get("kind")) == POLICY_KIND:
        chosen = PolicySet.of(policies_from_text(rt.dump_block(config), shown))
        return _configured(chosen, project, None)
    if _is_configmap(config):
        chosen, namespace = _from_configmap(config["data"], shown, cwd)
        return _configured(chosen, project, namespace)
    raise TfpolicyError(
        f"functionConfig must be a {'/'.join(POLICY_KIND)} or a v1/ConfigMap, "
        f"not {brief(config.get('apiVersion'))}/{brief(config.get('kind'))}"
    )


def _is_configmap(config: Any) -> bool:
    return isinstance(config, dict) and (config.get("apiVersion"), config.get("kind")) == (
        "v1", "ConfigMap")


def _annotations(item: Any) -> dict[str, Any]:
    metadata = item.get("metadata") if isinstance(item, dict) else None
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    return annotations if isinstance(annotations, dict) else {}


def _shown(config: dict[str, Any]) -> str:
    annotations = _annotations(config)
    path = annotations.get("internal.config.kubernetes.io/path") or annotations.get(
        "config.kubernetes.io/path")
    return path if isinstance(path, str) and path else "functionConfig"


def _project(config: ProjectConfig | None) -> tuple[PolicySet, Options]:
    if config is None:
        raise TfpolicyError("no policy: give a functionConfig (a MigrationPolicy, or a "
                            "ConfigMap with data.policies) or add a .tfpolicy.yaml")
    decided = resolve_config(config)
    return loaded_policies(decided), Options(decided.namespace)


def _configured(chosen: PolicySet, config: ProjectConfig | None,
                namespace: str | None) -> tuple[PolicySet, Options]:
    """The functionConfig's policies, with the namespace and operator configuration decided
    (the functionConfig's namespace, else the project config's)."""
    decided = resolve_config(config, Given(policies=_GIVEN, namespace=namespace))
    return with_operator(chosen, decided), Options(decided.namespace)


_GIVEN = ("functionConfig",)  # the policies are the functionConfig's: the config's are not read


def _from_configmap(data: Any, shown: str, cwd: Path) -> tuple[PolicySet, str | None]:
    _check_data(data, shown)
    policies: list[Policy] = []
    refs = split_refs(data.get("policies", ""))
    if refs:  # the package's own files only: a functionConfig is data the package ships
        confine_refs(refs, cwd, cwd, shown)
        policies += load_policy_set(list(refs), cwd).policies
    if data.get("policy"):
        policies += policies_from_text(_inline(data["policy"], shown), f"{shown}:data.policy")
    if not policies:
        raise TfpolicyError("functionConfig data names no policy (data.policies or "
                            "data.policy)", file=shown)
    chosen = PolicySet.of(policies)
    if data.get("stage"):
        chosen = with_stage(chosen, data["stage"])
    return chosen, data.get("namespace") or None


def _inline(text: str, shown: str) -> str:
    """``data.policy`` holds a whole policy document; a bare name means ``policies=``."""
    if "\n" not in text.strip() and ":" not in text:
        raise TfpolicyError(f"data.policy holds a whole MigrationPolicy document; to name "
                            f"policy files or built-in policies use policies={text.strip()}",
                            file=shown)
    return text


def _check_data(data: Any, shown: str) -> None:
    """A ConfigMap's data is strings only (``.inf`` or a huge integer is not a policy name)."""
    if not isinstance(data, dict):
        raise TfpolicyError("functionConfig data must be a mapping", file=shown)
    known_names((str(key) for key in data), CONFIGMAP_KEYS, "functionConfig data key",
                shown, brief)
    for key, value in data.items():
        if not isinstance(value, str):
            raise TfpolicyError(f"functionConfig data.{key} must be a string, not "
                                f"{brief(value)}", file=shown)
