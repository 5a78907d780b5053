"""Shared helpers: run the real engine on text with built-in or inline policies."""

from __future__ import annotations

from pathlib import Path

import pytest

from tfpolicy.files.sources import load_policy_set
from tfpolicy.rewrite.engine import PolicySet
from tfpolicy.rewrite.pipeline import FileResult, Options, transform

ROOT = Path(__file__).resolve().parent.parent


def policy_set(*refs: str) -> PolicySet:
    return load_policy_set(list(refs), ROOT)


def run(text: str, policies: PolicySet, file: str = "in.yaml") -> FileResult:
    return transform(text, policies, file, Options())


@pytest.fixture(scope="session")
def builtin() -> dict[str, PolicySet]:
    names = ["takeover", "takeover-25", "rightsize-example", "autoscale", "rollback"]
    return {name: policy_set(name) for name in names}
