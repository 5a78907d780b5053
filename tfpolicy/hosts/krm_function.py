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

from collections.abc import Callable, Iterator
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
from tfpolicy.rewrite import firstpass
from tfpolicy.rewrite.engine import PolicySet
from tfpolicy.rewrite.pipeline import Markers, Options, transform
from tfpolicy.yamlio import resource_list as rt

API_VERSIONS = ("config.kubernetes.io/v1", "config.kubernetes.io/v1beta1",
                "config.kubernetes.io/v1alpha1")
# The current key first: kyaml copies legacy⇄internal, either may be the only one (kioutil.go).
_PATH_KEYS = ("internal.config.kubernetes.io/path", "config.kubernetes.io/path")
_INDEX_KEYS = ("internal.config.kubernetes.io/index", "config.kubernetes.io/index")


_UNREAD: Any = object()


class Output(Record):
    text: str
    failed: bool


class _Input(Record):
    text: str
    data: dict[str, Any]  # a scanned list's without its items (``items`` is empty)
    spans: list[rt.ItemSpan] | None  # None: not block style, re-emit from data

    def count(self) -> int:
        return len(self.data["items"]) if self.spans is None else len(self.spans)

    def item(self, position: int) -> _Item:
        if self.spans is None:
            data = self.data["items"][position]
            return _Item(position, rt.dump_block(data) if isinstance(data, dict) else "", data)
        return _Item(position, rt.item_text(self.text, self.spans[position]))

    def items(self) -> Iterator[_Item]:
        return (self.item(position) for position in range(self.count()))

    def holding(self, found: Callable[[str], bool]) -> Iterator[_Item]:
        """The items whose text ``found`` accepts (tested before the item is cut out)."""
        for position in range(self.count()):
            span = None if self.spans is None else self.spans[position]
            if span is None or found(self.text[span.start:span.end]):
                item = self.item(position)
                if found(item.text):
                    yield item


class _Item:
    """One item: its text, and its data only once asked for (a scanned list's items are
    parsed one at a time, and only those that may matter)."""

    def __init__(self, position: int, text: str, data: Any = _UNREAD) -> None:
        self.position, self.text, self._data = position, text, data

    def data(self) -> Any:
        if self._data is _UNREAD:
            self._data = _parsed_number_safe(self.text, self.name())
        return self._data

    def name(self) -> str:
        return f"items[{self.position}]"


def run(text: str, cwd: Path) -> Output:
    """The function's stdout for ``text`` and whether it must exit 1."""
    try:
        given = _read(text)
    except TfpolicyError as exc:
        return failure(exc)
    try:
        package = package_root(_kptfiles(given), cwd)
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
    scanned = rt.scan(text)
    data = _parsed_list(text if scanned is None else scanned.header)
    if data.get("apiVersion") not in API_VERSIONS:
        raise TfpolicyError(f"unsupported ResourceList apiVersion {brief(data.get('apiVersion'))} "
                            f"(supported: {', '.join(API_VERSIONS)})")
    if not isinstance(data.get("items"), list):
        raise TfpolicyError("the ResourceList has no items list")
    spans = None if scanned is None else scanned.spans
    return _Input(text, data, spans)


def _parsed_number_safe(text: str, file: str) -> Any:
    try:
        return yamlio.parse_document(text, file=file).data
    except ValueError:  # Python refuses int() of over 4,300 digits; no real field needs one
        raise TfpolicyError("a number too large to read (over 4,300 digits)",
                            file=file) from None


def _parsed_list(text: str) -> dict[str, Any]:
    data = _parsed_number_safe(text, "<stdin>")
    if not isinstance(data, dict) or data.get("kind") != "ResourceList":
        raise TfpolicyError("input is not a ResourceList (kind: ResourceList)")
    return data


def _kptfiles(given: _Input) -> list[Any]:
    """The items that may be the root Kptfile (``package_root`` reads which)."""
    return [_data_or_none(item) for item in given.holding(lambda text: "Kptfile" in text)]


def _data_or_none(item: _Item) -> Any:
    try:
        return item.data()
    except TfpolicyError:
        return None  # its own error comes with the item


def _error(exc: TfpolicyError, resource: ResourceRef | None = None) -> Finding:
    return Finding(Severity.ERROR, str(exc), "krm-input", resource=resource)


class _Origin(Record):
    name: str  # the item's file as the engine is told it, unique in the list
    path: str
    index: int
    line: int  # of the item in the list: orders the items of one file as kpt lists them


def _transform_items(given: _Input, policies: PolicySet,
                     options: Options) -> tuple[dict[int, str], list[Finding]]:
    """The rewritten text of each changed item (by position), and every finding. The
    canary rung and the DRA claims are settled over all the items first, as ``apply``
    settles them over all its files (:mod:`tfpolicy.rewrite.firstpass`)."""
    markers = Markers.of((*policies.markers(), *firstpass.MARKERS))
    origins: dict[int, _Origin | Finding] = {}
    for item in given.holding(markers.found_in):
        origins[item.position] = _origin_of(given, item)
    policies = firstpass.over_documents(policies, (
        (o.name, yamlio.iter_documents([given.item(p).text], o.line, file=o.name))
        for p, o in origins.items() if isinstance(o, _Origin)), options.namespace)
    new: dict[int, str] = {}
    findings: list[Finding] = []
    for item in given.items():
        changed, found = _transform_item(item, origins.get(item.position), policies, options)
        findings.extend(found)
        if changed is not None:
            new[item.position] = changed
    return new, findings


def _origin_of(given: _Input, item: _Item) -> _Origin | Finding:
    try:
        data = item.data()
        if not isinstance(data, dict):
            return Finding(Severity.ERROR, f"items[{item.position}] is not a mapping",
                           "krm-input")
        path, index = _origin(data)
    except TfpolicyError as exc:
        return _error(exc, _ref(item._data) if isinstance(item._data, dict) else None)
    line = 0 if given.spans is None else given.spans[item.position].line
    return _Origin(f"{path or item.name()}", path, index, line)


def _transform_item(item: _Item, origin: _Origin | Finding | None, policies: PolicySet,
                    options: Options) -> tuple[str | None, list[Finding]]:
    if isinstance(origin, Finding):
        return None, [origin]
    name, line = (item.name(), 0) if origin is None else (origin.name, origin.line)
    try:
        result = transform(item.text, policies, name, options, line)
    except TfpolicyError as exc:
        return None, [_error(exc, _ref(item._data) if isinstance(item._data, dict) else None)]
    if origin is None and (result.findings or result.changed):
        origin = _origin_of_found(item)
    path, index = ("", 0) if origin is None or isinstance(origin, Finding) else (
        origin.path, origin.index)
    # Lines and columns count in the item's text, not in the user's file: drop them.
    findings = [replace(f, file=path, index=index, line=0, column=0) for f in result.findings]
    return (result.text if result.changed else None), findings


def _origin_of_found(item: _Item) -> _Origin | None:
    try:
        data = item.data()
        path, index = _origin(data) if isinstance(data, dict) else ("", 0)
    except TfpolicyError:
        return None
    return _Origin(item.name(), path, index, 0)


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
    results = [_result(f) for f in sorted(sorted_findings(findings), key=_position)]
    failed = has_errors(findings)
    if given.spans is not None and "results" in given.data:
        given = _Input(given.text, _parsed_list(given.text), None)  # results to append to
    if given.spans is not None:
        text = rt.splice_items(given.text, given.spans, new)
        return Output(rt.append_block(text, "results", results) if results else text, failed)
    data = dict(given.data)
    data["items"] = [_parsed(new[i]) if i in new else item for i, item in enumerate(data["items"])]
    if results:
        data["results"] = list(data.get("results") or []) + results
    return Output(rt.dump_block(data), failed)


def _position(finding: Finding) -> tuple[str, int, str, str]:
    """Where an item's finding is: its file and index (lines are the item's own), then the
    object and field, so that equal findings of two items keep one order (stable sort)."""
    return finding.file, finding.index, str(finding.resource or ""), finding.field


def _parsed(text: str) -> Any:
    return yamlio.parse_document(text, file="<item>").data


def _result(finding: Finding) -> dict[str, Any]:
    result = as_result(finding)
    tags = {k: v for k, v in result.get("tags", {}).items() if k not in ("line", "column")}
    result["tags"] = tags
    return result
