"""Whether a file that failed to load is a Kubernetes manifest at all.

Hooks match every YAML and JSON file of a repository: an Ansible playbook, a
compose file or a ``tsconfig.json`` with comments is not tfpolicy's business
and is skipped, while a Kubernetes manifest that is broken stays an error.
"""

from __future__ import annotations

import re
from typing import Any

from tfpolicy import yamlio
from tfpolicy.errors import TfpolicyError

# A JSON object key as JSON writes it: enough to tell a JSONC file that names them.
_JSON_KEY = re.compile(r'"(apiVersion|kind)"\s*:')


def not_kubernetes(data: bytes, path: str) -> str:
    """Why the file holds no Kubernetes object (empty: it does, or it may, so it is an error)."""
    try:
        text = yamlio.decode(data, path)
    except TfpolicyError:
        return ""
    try:
        documents = [yamlio.parse_document(raw.text, file=path, line=raw.line).data
                     for raw in yamlio.split_documents(text)]
    except TfpolicyError:
        return _unparsed(text, path)
    if any(_is_object(doc) for doc in documents):
        return ""
    return "no document has both apiVersion and kind: not a Kubernetes manifest"


def _unparsed(text: str, path: str) -> str:
    """A JSON file YAML cannot read (JSONC: comments, trailing commas) naming no object.

    Malformed YAML stays an error: a ``.yaml`` file is meant to be read as YAML.
    """
    if not path.endswith(".json") or len(set(_JSON_KEY.findall(text))) == 2:
        return ""
    return "JSON that YAML cannot read, with no apiVersion and kind: not a Kubernetes manifest"


def _is_object(document: Any) -> bool:
    """An object, or a list of objects (a manifest written as a sequence is broken, not foreign)."""
    if isinstance(document, list):
        return any(_is_object(item) for item in document if not isinstance(item, list))
    return isinstance(document, dict) and "apiVersion" in document and "kind" in document
