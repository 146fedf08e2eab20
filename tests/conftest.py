from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

# tests/corpus.py and friends are imported as plain modules.
sys.path.insert(0, str(Path(__file__).parent))

import os

import pytest
from hypothesis import settings

from services import RedisServer, redis_server

# CI replays the same examples every run (a landing never waits on a lucky draw);
# a developer's run keeps exploring new ones, and replays its own failures first
# from .hypothesis/.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture(scope="session")
def redis_service() -> Iterator[RedisServer]:
    """One real `redis-server` for the session (tests use their own key prefixes)."""
    with redis_server() as server:
        yield server


@pytest.fixture
def redis_url(redis_service: RedisServer) -> str:
    """The session server's URL (each test keeps to keys of its own)."""
    return redis_service.url
