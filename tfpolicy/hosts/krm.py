"""The KRM function: a ResourceList in, the same ResourceList (items rewritten, results added) out.

Contract: reference/hosts.md §1. The output is always a whole ResourceList
and failures are error results plus exit 1, never an empty list with exit 0
(kpt and kustomize would delete every resource, §7.1). Items are rewritten
in place in the round-trip tree, so every annotation the orchestrator set
(path, index, id, kustomize's resource id, §1.3) stays exactly as it came.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tfpolicy import yamlio
from tfpolicy.engine import PolicySet
from tfpolicy.errors import TfpolicyError
from tfpolicy.findings import Finding, ResourceRef, Severity, has_errors, sorted_findings
from tfpolicy.hosts.krmconfig import configure
from tfpolicy.pipeline import Options, transform
from tfpolicy.policy import PolicyInvalid
from tfpolicy.render import as_result
from tfpolicy.yamlio import krm as rt

API_VERSIONS = ("config.kubernetes.io/v1", "config.kubernetes.io/v1beta1",
                "config.kubernetes.io/v1alpha1")
# The current key first: kyaml copies legacy⇄internal, either may be the only one (§1.3).
_PATH_KEYS = ("internal.config.kubernetes.io/path", "config.kubernetes.io/path")
_INDEX_KEYS = ("internal.config.kubernetes.io/index", "config.kubernetes.io/index")


@dataclass(frozen=True, slots=True)
class Output:
    text: str
    failed: bool


@dataclass(frozen=True, slots=True)
class _Input:
    text: str
    data: dict[str, Any]
    spans: list[rt.ItemSpan] | None  # None: not block style, re-emit from data


def run(text: str, cwd: Path) -> Output:
    """The function's stdout for ``text`` and whether it must exit 1."""
    try:
        given = _read(text)
    except TfpolicyError as exc:
        return failure(exc)
    try:
        policies, options = configure(given.data.get("functionConfig"), cwd)
    except PolicyInvalid as exc:
        return _finish(given, {}, exc.findings)
    except TfpolicyError as exc:
        return _finish(given, {}, [_error(exc)])
    new, findings = _transform_items(given, policies, options)
    return _finish(given, new, findings)


def failure(exc: TfpolicyError) -> Output:
    """An empty ResourceList whose one error result says why, for exit 1."""
    empty = {"apiVersion": API_VERSIONS[0], "kind": "ResourceList", "items": []}
    return _finish(_Input("", empty, None), {}, [_error(exc)])


def _read(text: str) -> _Input:
    if not text.strip():
        raise TfpolicyError("no input: expected a ResourceList on stdin")
    parsed = yamlio.parse_document(text, file="<stdin>")
    data = parsed.data
    if not isinstance(data, dict) or data.get("kind") != "ResourceList":
        raise TfpolicyError("input is not a ResourceList (kind: ResourceList)")
    if data.get("apiVersion") not in API_VERSIONS:
        raise TfpolicyError(f"unsupported ResourceList apiVersion {data.get('apiVersion')!r} "
                            f"(supported: {', '.join(API_VERSIONS)})")
    if not isinstance(data.get("items"), list):
        raise TfpolicyError("the ResourceList has no items list")
    return _Input(text, data, rt.item_spans(text, parsed.node))


def _error(exc: TfpolicyError, resource: ResourceRef | None = None) -> Finding:
    return Finding(Severity.ERROR, str(exc), "krm-input", resource=resource)


def _transform_items(given: _Input, policies: PolicySet,
                     options: Options) -> tuple[dict[int, str], list[Finding]]:
    """The rewritten text of each changed item (by position), and every finding."""
    new: dict[int, str] = {}
    findings: list[Finding] = []
    for position, item in enumerate(given.data["items"]):
        text = given.spans[position].text if given.spans else rt.dump_block(item)
        changed, found = _transform_item(item, text, position, policies, options)
        findings.extend(found)
        if changed is not None:
            new[position] = changed
    return new, findings


def _transform_item(item: Any, text: str, position: int, policies: PolicySet,
                    options: Options) -> tuple[str | None, list[Finding]]:
    if not isinstance(item, dict):
        return None, [Finding(Severity.ERROR, f"items[{position}] is not a mapping",
                              "krm-input")]
    path, index = _origin(item)
    try:
        result = transform(text, policies, path or f"items[{position}]", options)
    except TfpolicyError as exc:
        return None, [_error(exc, _ref(item))]
    # Lines and columns count in the item's text, not in the user's file: drop them.
    findings = [replace(f, file=path, index=index, line=0, column=0) for f in result.findings]
    return (result.text if result.changed else None), findings


def _origin(item: dict[str, Any]) -> tuple[str, int]:
    annotations = (item.get("metadata") or {}).get("annotations") or {}
    path = next((str(annotations[k]) for k in _PATH_KEYS if k in annotations), "")
    index = next((str(annotations[k]) for k in _INDEX_KEYS if k in annotations), "0")
    return path, int(index) if index.isdigit() else 0


def _ref(item: dict[str, Any]) -> ResourceRef:
    meta = item.get("metadata") or {}
    return ResourceRef(str(item.get("apiVersion", "")), str(item.get("kind", "")),
                       str(meta.get("name", "")), str(meta.get("namespace") or ""))


def _finish(given: _Input, new: dict[int, str], findings: list[Finding]) -> Output:
    """The whole ResourceList back, spliced when it came in block style, plus ``results``."""
    results = [_result(f) for f in sorted_findings(findings)]
    failed = has_errors(findings)
    if given.spans is not None and "results" not in given.data:
        text = rt.splice_items(given.text, given.spans, new)
        return Output(rt.append_block(text, "results", results) if results else text, failed)
    data = dict(given.data)
    data["items"] = [_parsed(new[i]) if i in new else item for i, item in enumerate(data["items"])]
    if results:
        data["results"] = list(data.get("results") or []) + results
    return Output(rt.dump_block(data), failed)


def _parsed(text: str) -> Any:
    return yamlio.parse_document(text, file="<item>").data


def _result(finding: Finding) -> dict[str, Any]:
    result = as_result(finding)
    tags = {k: v for k, v in result.get("tags", {}).items() if k not in ("line", "column")}
    result["tags"] = tags
    return result
