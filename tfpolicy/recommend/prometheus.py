"""The edge that talks to Prometheus (``/api/v1/query_range``) with the standard library.

Every failure is one line and exit 2: connection refused, timeout, an HTTP
error (Prometheus puts its JSON error body on 4xx/5xx), or an answer that is
not JSON. The URL's scheme must be http or https.
"""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from tfpolicy.errors import TfpolicyError
from tfpolicy.recommend.queries import Query

_LIMIT = 1 << 30  # one answer larger than this is refused rather than parsed


def fetch(base: str, query: Query, timeout: float) -> Any:
    """The decoded JSON answer of one range query."""
    url = _endpoint(base) + "?" + urllib.parse.urlencode(
        {"query": query.expr, "start": _ts(query.start), "end": _ts(query.end),
         "step": str(query.step), "timeout": f"{int(timeout)}s"})
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            body = response.read(_LIMIT + 1)
    except urllib.error.HTTPError as exc:
        body = exc.read(_LIMIT + 1)
        if not body.lstrip().startswith(b"{"):
            raise TfpolicyError(f"--prometheus: {query.key} query: HTTP {exc.code}") from None
    except TimeoutError:
        raise TfpolicyError(f"--prometheus: {query.key} query timed out after {timeout:g}s") \
            from None
    except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
        reason = getattr(exc, "reason", exc)
        raise TfpolicyError(f"--prometheus: cannot reach {base}: {reason}") from None
    return _decode(body, query.key)


def _endpoint(base: str) -> str:
    parsed = urllib.parse.urlsplit(base)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise TfpolicyError(f"--prometheus: not an http(s) URL: {base}")
    return base.rstrip("/") + "/api/v1/query_range"


def _ts(value: float) -> str:
    return f"{value:.3f}"


def _decode(body: bytes, key: str) -> Any:
    if len(body) > _LIMIT:
        raise TfpolicyError(f"--prometheus: {key} query: the answer is larger than 1 GiB")
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise TfpolicyError(f"--prometheus: {key} query: the answer is not JSON") from None
    except RecursionError:  # no Prometheus answer nests this deep
        raise TfpolicyError(f"--prometheus: {key} query: the answer is nested too deep") \
            from None
