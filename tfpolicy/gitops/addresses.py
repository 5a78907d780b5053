"""Which repository a controller reads, and which commit it reports.

A repository is written many ways: ``https://github.com/org/repo.git``,
``ssh://git@github.com:22/org/repo``, ``git@github.com:org/repo`` (scp-like, as ``git
clone`` takes it), with or without the ``.git`` suffix and a trailing slash. Each becomes
``host/path`` (lower case: the hosts people use ignore the case of a repository's name),
and two addresses are one repository when they become the same text.

A revision is written by each controller its own way: Argo CD a bare commit
(argoproj/argo-cd pkg/apis/application/v1alpha1/types.go:1953), Flux
``<ref>@sha1:<commit>`` (or ``sha1:<commit>``) today and ``<branch>/<commit>`` before
(fluxcd/source-controller CHANGELOG.md:1295; fluxcd/kustomize-controller
docs/spec/v1beta1/kustomizations.md:1057, docs/spec/v1beta2/kustomizations.md:1455),
and a HelmRelease built from a GitRepository its chart version with the commit's first
12 characters appended, ``6.0.3+4e5cbb7b97d0``, when the chart's ``reconcileStrategy``
is ``Revision`` (fluxcd/source-controller docs/spec/v1/helmcharts.md:680).
"""

from __future__ import annotations

import re
import string

_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*://", re.IGNORECASE)
_SCP = re.compile(r"^(?:[^@/:]+@)?([^/:]+):(?!//)(.+)$")  # user@host:path, no ``://``
_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
_COMMIT = re.compile(r"(?:^|[@/:])([0-9a-f]{40}|[0-9a-f]{64})$")
_CHART_COMMIT = re.compile(r"\+([0-9a-f]{12,64})$")


def normalised_url(url: str) -> str:
    """``url`` as ``host/path``; applying it again changes nothing."""
    text = url.strip().translate(_LOWER)
    while (step := _once(text)) != text:
        text = step
    return text


def _once(text: str) -> str:
    """One step closer: a scheme, user, port, ``.git`` or a slash taken off; an scp-like
    address turned into ``host/path``."""
    if _SCHEME.match(text):
        rest = _SCHEME.sub("", text, count=1)
        host, _, path = rest.partition("/")
        return _host(host) + ("/" + path if path else "")
    scp = _SCP.match(text)
    if scp and "/" not in scp.group(1):
        return f"{scp.group(1)}/{scp.group(2).lstrip('/')}"
    for suffix in ("/", ".git"):
        if text.endswith(suffix) and len(text) > len(suffix):
            return text[: -len(suffix)]
    return text


def _host(authority: str) -> str:
    """``user:secret@host:port`` → ``host``."""
    host = authority.rpartition("@")[2]
    return host.partition(":")[0] if not host.startswith("[") else host.partition("]")[0] + "]"


def commit_of(revision: str) -> str | None:
    """The commit an Argo CD or Flux revision names; None when it names none."""
    found = _COMMIT.search(revision.strip())
    return found.group(1) if found else None


def chart_commit_of(version: str) -> str | None:
    """The commit (its first characters) a HelmRelease's chart version carries."""
    found = _CHART_COMMIT.search(version.strip())
    return found.group(1) if found else None
