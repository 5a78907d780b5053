"""A real Prometheus holding every gate case's series, shared by the gate tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.gates.gate_cases import backfill
from tests.recommend.prometheus_server import serving


@pytest.fixture(scope="session")
def gates_prometheus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("gates-prometheus")
    with serving(backfill(folder), folder) as url:
        yield url
