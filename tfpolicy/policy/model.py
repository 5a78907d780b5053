"""Migration policies as frozen records, built from schema-valid data (docs/policy.md)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from enum import Enum
from fractions import Fraction
from typing import Any

from tfpolicy.errors import TfpolicyError
from tfpolicy.findings import Finding, Severity
from tfpolicy.gpus.quantity import QuantityError, parse_quantity
from tfpolicy.gpus.resources import HAMI, Hami
from tfpolicy.policy.schema import name_only, not_of_kind, validate
from tfpolicy.policy.selectors import Selector
from tfpolicy.records import Record, field, replace
from tfpolicy.workloads import BUILTIN_KINDS, TemplateKind, parse_template_path
from tfpolicy.workloads.kinds import Shape

Locator = Callable[[tuple[str | int, ...]], tuple[int, int]]


class Stage(Enum):
    TAKEOVER = "takeover"
    RIGHTSIZE = "rightsize"
    ROLLBACK = "rollback"


class Match(Record):
    kinds: tuple[str, ...] | None = None
    namespaces: tuple[str, ...] | None = None
    names: tuple[str, ...] | None = None
    selector: Selector | None = None
    pod_selector: Selector | None = None


class Pair(Record):
    request: str
    limit: str


class Resources(Record):
    tflops: Pair | None = None
    compute_percent: Pair | None = None
    vram: Pair | None = None


class Settings(Record):
    """What a stage writes; ``None`` = not set by this policy."""

    enabled_replicas: int | str | None = None
    pool: str | None = None
    qos: str | None = None
    gpu_model: str | None = None
    isolation: str | None = None
    resources: Resources | None = None
    autoscale: str | None = None  # None = off, "" = default target, else the target
    hami: Hami | None = None  # the cluster's HAMi configuration; None: the chart's


class Override(Record):
    match: Match
    settings: Settings
    fields: frozenset[str]


class Policy(Record):
    name: str
    stage: Stage
    match: Match
    exclude: Match | None
    settings: Settings
    overrides: tuple[Override, ...] = ()
    template_kinds: tuple[TemplateKind, ...] = ()
    gpu_resources: tuple[str, ...] = ()
    file: str = ""
    line: int = 0
    column: int = 0
    index: int = field(default=0, compare=False)

    def settings_for(self, matches: Callable[[Match], bool]) -> Settings:
        """The policy's settings with the first matching per-workload override applied."""
        for override in self.overrides:
            if matches(override.match):
                values = {f: getattr(override.settings, f) for f in override.fields}
                if "resources" in values:
                    values["resources"] = _merge(self.settings.resources, values["resources"])
                return replace(self.settings, **values)
        return self.settings


def _merge(base: Resources | None, override: Resources) -> Resources:
    """An override's resource entries replace the policy's, one entry at a time; its
    computePercent replaces the policy's tflops and the other way round."""
    if base is None:
        return override
    tflops = override.tflops or (None if override.compute_percent else base.tflops)
    percent = override.compute_percent or (None if override.tflops else base.compute_percent)
    return Resources(tflops, percent, override.vram or base.vram)


class PolicyInvalidError(TfpolicyError):
    """A policy file failed its schema; every violation is a finding."""

    def __init__(self, findings: list[Finding]) -> None:
        first = findings[0]
        super().__init__(first.message, file=first.file, line=first.line, column=first.column)
        self.findings = findings


def check_policy(data: Any, file: str, locate: Locator) -> list[Finding]:
    """Schema violations and bad quantities of one policy document, as error findings."""
    alien = not_of_kind(data, "MigrationPolicy", "policy")
    if alien is not None:  # named by its shape: it may be any file's content (``-p FILE``)
        line, col = locate(alien.path)
        return [_error(alien.message, file, line, col, "")]
    found = []
    for violation in validate(data, "policy"):
        line, col = locate(violation.path)
        message = f"{_excerpt(violation.message)} ({violation.json_path})"
        found.append(_error(message, file, line, col, _name_of(data)))
    if not found:
        found.extend(_number_errors(data, file, locate))
        found.extend(_kind_errors(data, file, locate))
        found.extend(_hami_errors(data, file, locate))
    return found


def _hami_errors(data: Any, file: str, locate: Locator) -> list[Finding]:
    """HAMi's resources are told apart by name: two keys naming one resource, or a name
    that is a GPU count, would make its share unreadable."""
    raw = data["spec"].get("hami") or {}
    names = _hami(raw).resources
    found = []
    for key in ("resourceMem", "resourceMemPercentage", "resourceCores", "resourcePriority"):
        value = raw.get(key)
        if value is not None and (names.count(value) > 1 or value == "nvidia.com/gpu"):
            line, col = locate(("spec", "hami", key))
            message = (f"hami.{key} {_excerpt(repr(value))} names another of HAMi's resources "
                       "or the GPU count: each must be its own resource")
            found.append(_error(message, file, line, col, _name_of(data)))
    return found


# Schema messages quote the offending value; a long one is cut (an error never echoes a field).
_LONG_VALUE = re.compile(r"('[^'\n]{32})[^'\n]{8,}'|([0-9]{32})[0-9]{8,}")


def _excerpt(message: str) -> str:
    return _LONG_VALUE.sub(lambda m: f"{m[1]}…'" if m[1] else f"{m[2]}…", message)


def _kind_errors(data: Any, file: str, locate: Locator) -> list[Finding]:
    """A kind no registry knows would silently match nothing: a typo must be an error."""
    spec = data["spec"]
    known = {k.kind for k in BUILTIN_KINDS} | {t["kind"] for t in spec.get("podTemplates", [])}
    matches: list[tuple[tuple[str | int, ...], Any]] = [
        (("spec", "match"), spec.get("match")), (("spec", "exclude"), spec.get("exclude")),
    ]
    matches += [(("spec", "workloads", i, "match"), w["match"])
                for i, w in enumerate(spec.get("workloads", []))]
    found = []
    for path, match in matches:
        for index, kind in enumerate((match or {}).get("kinds", [])):
            if kind not in known:
                line, col = locate((*path, "kinds", index))
                message = (f"unknown kind {kind!r}: no pod templates known for it (add it to "
                           f"podTemplates, or use one of {', '.join(sorted(known))})")
                found.append(_error(message, file, line, col, _name_of(data)))
    return found


def _error(message: str, file: str, line: int, col: int, policy: str) -> Finding:
    return Finding(Severity.ERROR, message, "policy-schema", policy=policy, file=file,
                   line=line + 1, column=col + 1)


def _name_of(data: Any) -> str:
    """The policy's name for its findings, only when it is a name (never a long value)."""
    meta = data.get("metadata") if isinstance(data, Mapping) else None
    return name_only(meta.get("name", "")) if isinstance(meta, Mapping) else ""


# Per-GPU maxima, as the schema's numbers have them: far above any GPU TensorFusion knows
# (gputable.py: 2250 TFLOPS, 180 GiB), low enough that no total of them overflows.
_MAXIMA = {"tflops": (Fraction(100_000), "100000"), "computePercent": (Fraction(100), "100"),
           "vram": (Fraction(16 << 40), "16Ti")}


def _levels(spec: Mapping[str, Any]) -> list[tuple[tuple[str | int, ...], Mapping[str, Any]]]:
    """The spec and each per-workload override: where settings are written."""
    return [(("spec",), spec)] + [(("spec", "workloads", i), w)
                                  for i, w in enumerate(spec.get("workloads", []))]


def _number_errors(data: Any, file: str, locate: Locator) -> list[Finding]:
    """Quantities out of range, a request above its limit, a count that is not an integer."""
    found = []
    for path, level in _levels(data["spec"]):
        problems: list[tuple[tuple[str, ...], str]] = []
        if isinstance(level.get("enabledReplicas"), float):  # JSON Schema calls 3.0 an integer
            problems.append((("enabledReplicas",), "enabledReplicas must be a whole number "
                             "written without a point (the webhook parses an int32)"))
        for kind, pair in (level.get("resources") or {}).items():
            problems += [(("resources", kind, end), problem)
                         for end, problem in _pair_problems(kind, pair)]
        for where, problem in problems:
            line, col = locate((*path, *where))
            found.append(_error(problem, file, line, col, _name_of(data)))
    return found


def _pair_problems(kind: str, pair: Mapping[str, Any]) -> list[tuple[str, str]]:
    amounts, problems = {}, []
    for end, value in pair.items():
        try:
            amounts[end] = _amount(kind, value)
        except QuantityError as exc:
            problems.append((end, str(exc)))
    if len(amounts) == 2 and amounts["request"] > amounts["limit"]:
        message = (f"{kind} request {pair['request']!r} is above its limit {pair['limit']!r} "
                   "(as in Kubernetes, a request may not exceed its limit)")
        problems.append(("request", message))
    return problems


def _amount(kind: str, value: Any) -> Fraction:
    maximum, shown = _MAXIMA[kind]
    try:
        amount = parse_quantity(value)
    except QuantityError as exc:
        if not str(exc).startswith("out of range"):
            raise QuantityError(f"{kind}: {exc}") from None
        amount = maximum + 1  # above 2^63-1 (the schema allows no sign): name our maximum
    if not 0 < amount <= maximum:
        raise QuantityError(f"{kind} {value!r} must be above 0 and at most {shown}")
    return amount


def build_policy(data: Mapping[str, Any], file: str, line: int, column: int) -> Policy:
    """A Policy record from a schema-valid document."""
    spec = data["spec"]
    kinds = tuple(_template_kind(t) for t in spec.get("podTemplates", []))
    overrides = tuple(
        Override(_match(w["match"]), _settings(w), frozenset(_FIELDS[k] for k in w if k in _FIELDS))
        for w in spec.get("workloads", [])
    )
    return Policy(
        name=data["metadata"]["name"], stage=Stage(spec["stage"]),
        match=_match(spec.get("match", {})),
        exclude=_match(spec["exclude"]) if "exclude" in spec else None,
        settings=_settings(spec), overrides=overrides, template_kinds=kinds,
        gpu_resources=tuple(spec.get("gpuResources", [])), file=file, line=line, column=column,
    )


_FIELDS = {"enabledReplicas": "enabled_replicas", "pool": "pool", "qos": "qos",
           "gpuModel": "gpu_model", "isolation": "isolation", "resources": "resources",
           "autoscale": "autoscale"}


def _settings(raw: Mapping[str, Any]) -> Settings:
    return Settings(
        enabled_replicas=raw.get("enabledReplicas"), pool=raw.get("pool"), qos=raw.get("qos"),
        gpu_model=raw.get("gpuModel"), isolation=raw.get("isolation"),
        resources=_resources(raw["resources"]) if "resources" in raw else None,
        autoscale=_autoscale(raw.get("autoscale")),
        hami=_hami(raw["hami"]) if "hami" in raw else None,
    )


def _hami(raw: Mapping[str, Any]) -> Hami:
    return Hami(raw.get("resourceMem", HAMI.memory),
                raw.get("resourceMemPercentage", HAMI.memory_percent),
                raw.get("resourceCores", HAMI.cores), raw.get("resourcePriority", HAMI.priority),
                raw.get("memoryFactor", HAMI.memory_factor))


def _resources(raw: Mapping[str, Any]) -> Resources:
    def pair(name: str) -> Pair | None:
        entry = raw.get(name)
        if entry is None:
            return None
        limit = str(entry.get("limit", entry.get("request")))
        return Pair(str(entry.get("request", limit)), limit)

    return Resources(pair("tflops"), pair("computePercent"), pair("vram"))


def _autoscale(raw: Any) -> str | None:
    """``None`` = off; ``""`` = on with the webhook's default target; else the target."""
    if raw is True:
        return ""
    if isinstance(raw, Mapping):
        return str(raw.get("target", ""))
    return None


def _match(raw: Mapping[str, Any]) -> Match:
    def names(key: str) -> tuple[str, ...] | None:
        return tuple(raw[key]) if key in raw else None

    def selector(key: str) -> Selector | None:
        return Selector.parse(raw[key]) if key in raw else None

    return Match(names("kinds"), names("namespaces"), names("names"),
                 selector("selector"), selector("podSelector"))


def _template_kind(raw: Mapping[str, Any]) -> TemplateKind:
    group = raw["apiVersion"].rpartition("/")[0]
    paths = tuple(parse_template_path(p) for p in raw.get("paths", []))
    return TemplateKind(group, raw["kind"], paths, tuple(_shape(p) for p in raw.get("pods", [])))


def _shape(raw: Mapping[str, Any]) -> Shape:
    """A user's pod whose parts live apart (paths relative to its component ``at``)."""
    spec = raw.get("spec")
    return Shape(parse_template_path(raw["at"]), parse_template_path(raw["metadata"]),
                 None if spec is None else parse_template_path(spec),
                 tuple((parse_template_path(c), "") for c in raw["containers"]))
