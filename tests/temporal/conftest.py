"""One Temporal dev server for the whole module; each test connects its own client."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.temporal.server import TemporalServer, temporal_server

pytest.importorskip("temporalio")


@pytest.fixture(scope="session")
def temporal() -> Iterator[TemporalServer]:
    with temporal_server() as server:
        yield server
