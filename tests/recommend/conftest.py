"""A real Prometheus holding the example fleet's two days, shared by the live tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.recommend.prometheus_server import backfill, serving
from tests.recommend.scenario import fleet


@pytest.fixture(scope="session")
def prometheus_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("prometheus")
    with serving(backfill(fleet(), folder), folder) as url:
        yield url
