"""The KRM function: a ResourceList in, the same ResourceList (items rewritten, results added) out.

Contract: kubernetes-sigs/kustomize cmd/config/docs/api-conventions/functions-spec.md
(docs/hosts.md, "KRM function"). The output is always a whole ResourceList
and failures are error results plus exit 1, never an empty list with exit 0
(kpt and kustomize would delete every resource). Items are rewritten in
place in the round-trip tree, so every annotation the orchestrator set
(path, index, id, kustomize's resource id: kyaml/kio/kioutil/kioutil.go)
stays exactly as it came.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tfpolicy import yamlio
from tfpolicy.errors import TfpolicyError
from tfpolicy.findings import Finding, ResourceRef, Severity, has_errors, sorted_findings
from tfpolicy.hosts.krmconfig import function_policies, package_root
from tfpolicy.policy.model import PolicyInvalidError
from tfpolicy.policy.schema import brief
from tfpolicy.records import Record, replace
from tfpolicy.render import as_result
from tfpolicy.rewrite.engine import PolicySet
from tfpolicy.rewrite.pipeline import Options, transform
from tfpolicy.yamlio import resource_list as rt

API_VERSIONS = ("config.kubernetes.io/v1", "config.kubernetes.io/v1beta1",
                "config.kubernetes.io/v1alpha1")
# The current key first: kyaml copies legacy⇄internal, either may be the only one (kioutil.go).
_PATH_KEYS = ("internal.config.kubernetes.io/path", "config.kubernetes.io/path")
_INDEX_KEYS = ("internal.config.kubernetes.io/index", "config.kubernetes.io/index")


class Output(Record):
    text: str
    failed: bool


class _Input(Record):
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
        package = package_root(given.data["items"], cwd)
        policies, options = function_policies(given.data.get("functionConfig"), package)
    except PolicyInvalidError as exc:
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
    try:
        parsed = yamlio.parse_document(text, file="<stdin>")
    except ValueError:  # Python refuses int() of over 4,300 digits; no real field needs one
        raise TfpolicyError("a number too large to read (over 4,300 digits)",
                            file="<stdin>") from None
    data = parsed.data
    if not isinstance(data, dict) or data.get("kind") != "ResourceList":
        raise TfpolicyError("input is not a ResourceList (kind: ResourceList)")
    if data.get("apiVersion") not in API_VERSIONS:
        raise TfpolicyError(f"unsupported ResourceList apiVersion {brief(data.get('apiVersion'))} "
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
    try:
        path, index = _origin(item)
        result = transform(text, policies, path or f"items[{position}]", options)
    except TfpolicyError as exc:
        return None, [_error(exc, _ref(item))]
    # Lines and columns count in the item's text, not in the user's file: drop them.
    findings = [replace(f, file=path, index=index, line=0, column=0) for f in result.findings]
    return (result.text if result.changed else None), findings


def _origin(item: dict[str, Any]) -> tuple[str, int]:
    """The item's file and index as the orchestrator annotated them (kyaml/kio/kioutil/kioutil.go).

    Annotation values are strings in Kubernetes; anything else here (a
    ``.inf``, a 5,000-digit integer) is a broken ResourceList, reported as an
    error result rather than guessed at.
    """
    annotations = _mapping(_mapping(item.get("metadata")).get("annotations"))
    path_key = next((k for k in _PATH_KEYS if k in annotations), None)
    index_key = next((k for k in _INDEX_KEYS if k in annotations), None)
    path = annotations[path_key] if path_key else ""
    if not isinstance(path, str):
        raise TfpolicyError(f"annotation {path_key} must be a string, not {brief(path)}")
    return path, _index(index_key, annotations[index_key]) if index_key else 0


_MAX_INDEX = 1 << 31  # kyaml parses the index as a Go int; nothing real comes near


def _index(key: str, value: Any) -> int:
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 10:
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < _MAX_INDEX:
        return value
    raise TfpolicyError(f"annotation {key} must be a whole number as a string, "
                        f"not {brief(value)}")


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _ref(item: dict[str, Any]) -> ResourceRef:
    meta = _mapping(item.get("metadata"))
    return ResourceRef(_text(item.get("apiVersion", "")), _text(item.get("kind", "")),
                       _text(meta.get("name", "")), _text(meta.get("namespace") or ""))


def _text(value: Any) -> str:
    return value if isinstance(value, str) else brief(value)


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
