"""A repository's address however it is written, and the commit a controller's revision
names."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tfpolicy.gitops import chart_commit_of, commit_of, normalised_url

SHA = "5394cb7f48332b2de7c17dd8b8384bbc84b7e738"


@pytest.mark.parametrize("url", [
    "https://github.com/acme/gpu-fleet",
    "https://github.com/acme/gpu-fleet.git",
    "https://github.com/acme/gpu-fleet/",
    "https://github.com/acme/gpu-fleet.git/",
    "HTTPS://GitHub.com/Acme/GPU-Fleet.git",
    "http://github.com/acme/gpu-fleet",
    "https://x-access-token:ghs_secret@github.com/acme/gpu-fleet.git",
    "https://github.com:443/acme/gpu-fleet",
    "ssh://git@github.com/acme/gpu-fleet.git",
    "ssh://git@github.com:22/acme/gpu-fleet",
    "git@github.com:acme/gpu-fleet.git",
    "git@github.com:acme/gpu-fleet",
    "github.com:acme/gpu-fleet.git",
    "git://github.com/acme/gpu-fleet.git",
    "  https://github.com/acme/gpu-fleet.git  ",
])
def test_one_repository_written_many_ways(url: str) -> None:
    assert normalised_url(url) == "github.com/acme/gpu-fleet"


@pytest.mark.parametrize(("one", "other"), [
    ("https://github.com/acme/gpu-fleet", "https://github.com/acme/platform"),
    ("https://github.com/acme/gpu-fleet", "https://gitlab.com/acme/gpu-fleet"),
    ("git@github.com:acme/gpu-fleet.git", "git@github.com:other/gpu-fleet.git"),
    ("https://gitlab.example.com/ml/infra/gpu-fleet", "https://gitlab.example.com/ml/gpu-fleet"),
])
def test_other_repositories_stay_apart(one: str, other: str) -> None:
    assert normalised_url(one) != normalised_url(other)


@given(st.text())
def test_normalising_twice_changes_nothing(url: str) -> None:
    once = normalised_url(url)
    assert normalised_url(once) == once


@given(scheme=st.sampled_from(["https://", "http://", "ssh://git@", "git://", "scp"]),
       owner=st.from_regex(r"[a-z0-9][a-z0-9-]{0,20}", fullmatch=True),
       name=st.from_regex(r"[a-z0-9][a-z0-9._-]{0,20}", fullmatch=True).filter(
           lambda n: not n.endswith((".git", ".")) and ".git" not in n),
       suffix=st.sampled_from(["", ".git", "/", ".git/"]),
       upper=st.booleans())
def test_every_spelling_of_an_address_is_one(scheme: str, owner: str, name: str, suffix: str,
                                            upper: bool) -> None:
    written = (f"git@example.org:{owner}/{name}{suffix}" if scheme == "scp"
               else f"{scheme}example.org/{owner}/{name}{suffix}")
    written = written.upper() if upper else written
    assert normalised_url(written) == f"example.org/{owner}/{name}"


@pytest.mark.parametrize(("revision", "commit"), [
    (SHA, SHA),  # Argo CD
    (f"main@sha1:{SHA}", SHA),  # Flux today
    (f"sha1:{SHA}", SHA),  # Flux, a commit asked for by itself
    (f"refs/heads/main@sha1:{SHA}", SHA),
    (f"v1.2.0@sha1:{SHA}", SHA),
    (f"main/{SHA}", SHA),  # Flux before RFC-0005
    (f"HEAD/{SHA}", SHA),
    ("main@sha256:" + "ab" * 32, "ab" * 32),  # a sha256 repository
    ("0.1.7", None),  # a Helm chart's version
    ("main", None),
    ("latest@sha256:" + "ab" * 31, None),
    (SHA[:12], None),
    (SHA + "0", None),
    ("", None),
])
def test_the_commit_a_revision_names(revision: str, commit: str | None) -> None:
    assert commit_of(revision) == commit


@pytest.mark.parametrize(("version", "commit"), [
    ("6.0.3+4e5cbb7b97d0", "4e5cbb7b97d0"),
    (f"0.3.0+{SHA}", SHA),
    ("6.0.3", None),
    ("6.0.3+1", None),
    ("6.0.3+build.7", None),
])
def test_the_commit_a_chart_version_carries(version: str, commit: str | None) -> None:
    assert chart_commit_of(version) == commit
