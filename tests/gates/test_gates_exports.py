"""The gates package names each export once, where it lives, and loads it on first use."""

from __future__ import annotations

import subprocess
import sys

import pytest

import tfpolicy.gates as gates


def test_every_export_has_a_home_and_resolves_to_it() -> None:
    assert set(gates.__all__) == set(gates._HOMES)
    for name in gates.__all__:
        value = getattr(gates, name)
        home = sys.modules[f"tfpolicy.gates.{gates._HOMES[name]}"]
        assert getattr(home, name) is value


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        gates.nothing  # noqa: B018


def test_the_spec_alone_loads_no_judge() -> None:
    code = ("import sys\nfrom tfpolicy.gates import GateConfig\n"
            "print(sorted(m for m in sys.modules if m.startswith('tfpolicy.gates')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "['tfpolicy.gates', 'tfpolicy.gates.spec']"
