"""The operator's configuration as it changes scheduling → `SchedulerSettings`.

Two spellings of the same fields, absent ones keeping the Helm chart's defaults:

* an inventory's ``spec.scheduler`` (``isolationModePolicy``,
  ``progressiveMigration``, ``vramWeight``, ``tflopsWeight``, ``maxWorkerPerNode``);
* the chart's values as ``helm get values -o yaml`` prints them:
  ``controller.isolationModePolicy`` (`values.yaml:33`),
  ``controller.nvidiaOperatorProgressiveMigration`` (`values.yaml:28`) and the
  `GPUResourcesFit` args of ``schedulerConfig.profiles[].pluginConfig``
  (`values.yaml:935-939`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfpolicy.errors import TfpolicyError
from tfpolicy.gpus.quantity import parse_quantity
from tfpolicy.inventory.fields import amount, as_list, get, integer, keys, mapping
from tfpolicy.scheduler.model import IsolationPolicy, SchedulerSettings

_SPEC_KEYS = {"isolationModePolicy", "progressiveMigration", "vramWeight", "tflopsWeight",
              "maxWorkerPerNode"}
_PLUGIN = "GPUResourcesFit"


def from_spec(raw: Any, path: str) -> SchedulerSettings:
    """An inventory's ``spec.scheduler``."""
    data = mapping(raw, path)
    keys(data, _SPEC_KEYS, path)
    policy = (data.get("isolationModePolicy"), f"{path}.isolationModePolicy")
    flag = (data.get("progressiveMigration"), f"{path}.progressiveMigration")
    return _settings(policy, flag, data, path)


def from_values(values: Mapping[str, Any]) -> SchedulerSettings:
    """Helm values of the tensor-fusion chart; errors name the values' JSON path."""
    controller = mapping(values.get("controller") or {}, "$.controller")
    policy = (controller.get("isolationModePolicy"), "$.controller.isolationModePolicy")
    flag = (controller.get("nvidiaOperatorProgressiveMigration"),
            "$.controller.nvidiaOperatorProgressiveMigration")
    return _settings(policy, flag, *_plugin_args(values.get("schedulerConfig")))


def _plugin_args(config: Any) -> tuple[Mapping[str, Any], str]:
    """The `GPUResourcesFit` args of the first profile that configures them."""
    profiles = get(config, "profiles") if config is not None else None
    for i, profile in enumerate(as_list(profiles or [], "$.schedulerConfig.profiles")):
        for j, plugin in enumerate(get(profile, "pluginConfig") or []):
            if get(plugin, "name") == _PLUGIN:
                path = f"$.schedulerConfig.profiles[{i}].pluginConfig[{j}].args"
                return mapping(get(plugin, "args") or {}, path), path
    return {}, "$.schedulerConfig"


def _settings(policy: tuple[Any, str], flag: tuple[Any, str], args: Mapping[str, Any],
              args_path: str) -> SchedulerSettings:
    mode = str("dynamic" if policy[0] is None else policy[0]).strip().lower()
    if mode not in ("dynamic", "static"):  # resolveIsolationModePolicy, cmd/main.go:299-307
        raise TfpolicyError(f"isolationModePolicy must be dynamic or static ({policy[1]})")
    progressive = False if flag[0] is None else flag[0]
    if not isinstance(progressive, bool):
        raise TfpolicyError(f"expected true or false ({flag[1]})")
    workers = args.get("maxWorkerPerNode")
    return SchedulerSettings(
        IsolationPolicy(mode.capitalize()), progressive,
        _weight(args.get("vramWeight", 0.7), f"{args_path}.vramWeight"),
        _weight(args.get("tflopsWeight", 0.3), f"{args_path}.tflopsWeight"),
        None if workers is None else integer(workers, f"{args_path}.maxWorkerPerNode", 100_000))


def _weight(value: Any, path: str) -> int:
    """A score weight in thousandths; finer weights would be rounded, so refused."""
    scaled = amount(value, path, lambda v: parse_quantity(v) * 1000, 100_000, "100")
    if scaled != int(scaled):
        raise TfpolicyError(f"a weight has at most 3 decimals ({path})")
    return int(scaled)
