"""Fixtures for provider tests: the shared corpus and a recording fake HTTP server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from providers.fakeserver import FakeServer


@pytest.fixture
def fake_server() -> Iterator[FakeServer]:
    """A started `FakeServer` on 127.0.0.1, stopped after the test."""
    with FakeServer() as server:
        yield server


@pytest.fixture(scope="session")
def corpus() -> list:
    """Every corpus tool (tests/corpus.py), built once per session."""
    from corpus import corpus_tools

    return corpus_tools()
