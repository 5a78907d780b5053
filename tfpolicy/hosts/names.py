"""Values that reach a render tool's command line: checked to be what they claim to be.

Whoever may create an Application chooses its name, namespace and plugin
parameters. A release name like ``--post-renderer=./x.sh`` in ``helm
template``'s first positional slot makes helm run a program, and
``-f../../outside.yaml`` reads a values file around the value-file check.
So a value where a name is expected must be such a name (a name never starts
with ``-``), and every flag value goes in one ``--flag=value`` argument,
which no tool can take for a flag of its own (docs/design.md, "Rules across every
command and host").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from tfpolicy.errors import TfpolicyError
from tfpolicy.policy.schema import brief
from tfpolicy.suggest import closest

# Helm's own rule for release names (pkg/chartutil ValidateReleaseName): DNS-1123
# subdomain characters, at most 53 so the names helm derives from it stay under 63.
_RELEASE = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
RELEASE_MAX = 53
_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")  # a namespace: a DNS-1123 label
LABEL_MAX = 63
# A URL scheme (RFC 3986 §3.1): ``s3:/b/k``, ``oci:x``, ``file:…`` are fetched or read by
# helm's getters, not taken from the repository; ``://`` alone misses the one-slash forms.
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def release_name(value: str, origin: str) -> str:
    """``value`` if it is a Helm release name, else one clear error naming ``origin``."""
    if len(value) > RELEASE_MAX or not _RELEASE.fullmatch(value):
        raise TfpolicyError(f"{brief(value)} is not a Helm release name (lower-case letters, "
                            f"digits, '-' and '.', starting and ending with a letter or digit, "
                            f"at most {RELEASE_MAX} characters)", file=origin)
    return value


def namespace(value: str, origin: str) -> str:
    """``value`` if it is a Kubernetes namespace name, else one clear error naming ``origin``."""
    if len(value) > LABEL_MAX or not _LABEL.fullmatch(value):
        raise TfpolicyError(f"{brief(value)} is not a namespace name (lower-case letters, "
                            f"digits and '-', starting and ending with a letter or digit, "
                            f"at most {LABEL_MAX} characters)", file=origin)
    return value


def local_file(value: str, origin: str) -> str:
    """``value`` if it names a file by a plain path: not an option, not ``-`` (stdin), not
    a URL of any scheme. Whether it stays inside the repository is checked apart."""
    if not value or value.startswith("-"):
        raise TfpolicyError(f"{brief(value)} is not a file name: a value file must not start "
                            "with '-'", file=origin)
    if _SCHEME.match(value):
        raise TfpolicyError(f"{brief(value)} is a URL: a value file must be a file inside "
                            "the repository", file=origin)
    return value


def flag(name: str, value: str) -> str:
    """One ``--name=value`` argument: its value can never be read as another flag."""
    return f"--{name}={value}"


def known_names(given: Iterable[str], valid: Sequence[str], what: str, origin: str,
                shown: Callable[[str], str] = str) -> None:
    """Refuse a name outside ``valid`` (a misspelled functionConfig key or plugin parameter),
    naming the valid one it is closest to: a typo silently ignored would render the app
    with settings nobody asked for. ``shown`` says where a name came from."""
    unknown = sorted({name for name in given if name not in valid})
    if not unknown:
        return
    close = [match for name in unknown if (match := closest(name, valid, 0.6)) is not None]
    hint = f"did you mean {', '.join(close)}? " if close else ""
    raise TfpolicyError(f"unknown {what} {', '.join(shown(n) for n in unknown)} "
                        f"({hint}valid: {', '.join(valid)})", file=origin)
