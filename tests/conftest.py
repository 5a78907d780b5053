"""Shared helpers: run the real engine on text with built-in or inline policies."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

from tfpolicy.files.sources import load_policy_set
from tfpolicy.rewrite.engine import PolicySet
from tfpolicy.rewrite.pipeline import FileResult, Options, transform

ROOT = Path(__file__).resolve().parent.parent

# CI runs the property tests on the same examples every time, so a red build is the change's
# and reruns the same; locally they stay random, to keep finding what CI has not tried (a
# failure found is stored in .hypothesis and tried first next time). Loaded here, before the
# test modules build their settings on it.
settings.register_profile("ci", derandomize=True, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") == "true" else "default")


def policy_set(*refs: str) -> PolicySet:
    return load_policy_set(list(refs), ROOT)


def run(text: str, policies: PolicySet, file: str = "in.yaml") -> FileResult:
    return transform(text, policies, file, Options())


@pytest.fixture(scope="session")
def builtin() -> dict[str, PolicySet]:
    names = ["takeover", "takeover-25", "rightsize-example", "autoscale", "rollback"]
    return {name: policy_set(name) for name in names}
