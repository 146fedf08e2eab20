from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

# tests/corpus.py and friends are imported as plain modules.
sys.path.insert(0, str(Path(__file__).parent))


import pytest

from services import RedisServer, redis_server


@pytest.fixture(scope="session")
def redis_service() -> Iterator[RedisServer]:
    """One real `redis-server` for the session (tests use their own key prefixes)."""
    with redis_server() as server:
        yield server


@pytest.fixture
def redis_url(redis_service: RedisServer) -> str:
    """The session server's URL (each test keeps to keys of its own)."""
    return redis_service.url
