"""The ``exclude:`` globs' dialect (tfpolicy.policy.excludes, docs/hosts.md "Excluding files")."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tfpolicy.policy.excludes import matching, normalised

PART = st.from_regex(r"[a-z][a-z0-9.-]{0,8}", fullmatch=True)


def test_a_folder_leaves_out_all_below_it() -> None:
    globs = normalised(("./vendor/", "*.generated.yaml"))
    assert globs == ("vendor", "*.generated.yaml")
    assert matching(globs, "vendor/upstream/notes.yaml") == "vendor"
    assert matching(globs, "apps/vendor.yaml") is None
    assert matching(globs, "apps/x/a.generated.yaml") == "*.generated.yaml"
    assert matching(globs, "apps/a.yaml") is None


def test_star_crosses_folders_as_fnmatch_does() -> None:
    assert matching(("apps/*.yaml",), "apps/deep/er/a.yaml") == "apps/*.yaml"
    assert matching(("Apps",), "apps/a.yaml") is None  # case-sensitive


@given(st.lists(PART, min_size=1, max_size=5), st.lists(PART, min_size=1, max_size=5))
def test_what_is_under_an_excluded_folder_is_excluded(folder: list[str],
                                                      rest: list[str]) -> None:
    glob = "/".join(folder)
    assert matching(normalised((glob + "/",)), "/".join(folder + rest)) == glob
