"""The pure pieces of promote: durations, the configuration edit, the rung's position."""

from __future__ import annotations

import pytest

from tfpolicy.errors import TfpolicyError
from tfpolicy.promote import LADDER, RefusedError, parse_duration, position
from tfpolicy.promote.config_edit import set_policy
from tfpolicy.promote.soak import shown


@pytest.mark.parametrize(("text", "seconds"), [
    ("0", 0), ("90s", 90), ("10m", 600), ("1h30m", 5400), ("2h", 7200), ("1h0m5s", 3605)])
def test_durations(text: str, seconds: int) -> None:
    assert parse_duration(text) == seconds
    assert parse_duration(shown(seconds)) == seconds


@pytest.mark.parametrize("text", ["", "10", "m", "-5m", "10 m", "1d", "5m1h"])
def test_bad_durations_are_usage_errors(text: str) -> None:
    with pytest.raises(TfpolicyError, match="--min-soak"):
        parse_duration(text)


def test_the_edit_keeps_every_other_byte() -> None:
    before = ("# which policies govern the manifests\n"
              "policies:\n"
              "  - policies/team-a.yaml   # their own\n"
              "  - 'takeover-25'          # the rung\n"
              "namespace: ml-serving\n")
    after = set_policy(before, ".tfpolicy.yaml", 1, "takeover-50")
    assert after == before.replace("'takeover-25'", "'takeover-50'")


def test_the_position_is_the_one_rung_named() -> None:
    at = position(["policies/team-a.yaml", "takeover-50"])
    assert (at.index, at.step, at.name, at.next_name, at.rollback_name, at.last) == (
        1, 3, "takeover-50", "takeover", "takeover-25", False)
    assert position(["takeover"]).last and position(["takeover-1"]).rollback_name == "rollback"
    assert LADDER == ("takeover-1", "takeover-25", "takeover-50", "takeover")
    for refs in ([], ["rollback"], ["takeover-1", "takeover"]):
        with pytest.raises(RefusedError):
            position(refs)


def test_the_edit_keeps_crlf_line_ends() -> None:
    before = "policies:\r\n- takeover-1\r\nnamespace: ml\r\n"
    assert set_policy(before, ".tfpolicy.yaml", 0, "takeover-25") == before.replace(
        "takeover-1", "takeover-25")
