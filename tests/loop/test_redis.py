"""The Redis store, against a real redis-server: versions, conflicts, outages, a killed worker."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from loop import worker
from loop.tools import RUNS, reset, shop
from services import RedisServer, free_port, redis_server
from toolcast import Conversation, Policy, run
from toolcast.loop import ConversationConflictError, StoreError
from toolcast.loop.redis import RedisStore
from toolcast.testing import ScriptedModel, call

pytest.importorskip("redis")


@pytest.fixture(autouse=True)
def _fresh() -> None:
    reset()


def new_id() -> str:
    return f"test-{uuid.uuid4().hex}"


async def test_a_conversation_round_trips_through_redis(redis_url: str) -> None:
    store = RedisStore.from_url(redis_url)
    model = ScriptedModel([call("place_order", id="o", product="mug", quantity=2), "ok"])
    conversation = Conversation(id=new_id())
    first = await run(
        model,
        "Go",
        tools=shop().select(),
        policy=Policy(allow=["*"]),
        store=store,
        conversation=conversation,
    )
    assert first.status == "pending"
    loaded = await store.load(conversation.id)
    assert loaded is not None
    assert loaded.to_json() == first.conversation.to_json()
    loaded.approve("o")
    second = await run(
        model, conversation=loaded, tools=shop().select(), policy=Policy(allow=["*"]), store=store
    )
    assert second.status == "done"
    again = await store.load(conversation.id)
    assert again is not None
    assert again.version == second.conversation.version
    assert again.status == "done"
    assert await store.load("no-such-conversation") is None
    await store.delete(conversation.id)
    assert await store.load(conversation.id) is None
    await store.aclose()


async def test_concurrent_writers_are_detected_not_merged(redis_url: str) -> None:
    store = RedisStore.from_url(redis_url)
    conversation = Conversation(id=new_id())
    await store.save(conversation)
    one = await store.load(conversation.id)
    two = await store.load(conversation.id)
    assert one is not None
    assert two is not None
    one.text = "first writer"
    await store.save(one)
    two.text = "second writer"
    with pytest.raises(
        ConversationConflictError,
        match="changed by another writer: this copy is version 1, the store's is at version 2",
    ):
        await store.save(two)
    stored = await store.load(conversation.id)
    assert stored is not None
    assert stored.text == "first writer"
    assert two.version == 1  # the losing copy is untouched
    await store.aclose()


async def test_a_retried_save_whose_reply_was_lost_succeeds(redis_url: str) -> None:
    store = RedisStore.from_url(redis_url)
    conversation = Conversation(id=new_id())
    await store.save(conversation)
    await store.save(conversation)  # version 2 stored
    conversation.version = 1  # as if the reply of the second save never came
    await store.save(conversation)
    assert conversation.version == 2
    await store.aclose()


async def test_an_unreachable_redis_is_a_clear_error_and_nothing_is_lost() -> None:
    with redis_server() as server:
        store = RedisStore(
            __import__("redis.asyncio", fromlist=["Redis"]).Redis.from_url(
                server.url, socket_timeout=1, socket_connect_timeout=1
            )
        )
        model = ScriptedModel(
            [
                call("place_order", id="o", product="mug", quantity=2),
                call("refund", id="r", amount=1),
                "ok",
            ]
        )
        conversation = Conversation(id=new_id())
        first = await run(
            model,
            "Go",
            tools=shop().select(),
            policy=Policy(allow=["*"]),
            store=store,
            conversation=conversation,
        )
        assert first.status == "pending"
        port = server.port
    # The server is gone.
    first.conversation.approve("o")
    with pytest.raises(
        StoreError, match=r"Redis could not be reached to save conversation .*unchanged"
    ):
        await run(
            model,
            conversation=first.conversation,
            tools=shop().select(),
            policy=Policy(allow=["*"]),
            store=store,
        )
    assert RUNS == {}  # not even started: the start could not be journalled
    with pytest.raises(StoreError, match="could not be reached to load"):
        await store.load(conversation.id)
    await store.aclose()
    # Nothing was lost: the copy in memory still holds the approval and the history.
    assert first.conversation.batch[0].decided_by == "host"
    with redis_server(port) as again:
        fresh = RedisStore.from_url(again.url)
        copy = Conversation.from_json(first.conversation.to_json())
        copy.version = 0  # a fresh server: store it as new
        result = await run(
            model, conversation=copy, tools=shop().select(), policy=Policy(allow=["*"]), store=fresh
        )
        assert result.status == "done"
        assert RUNS == {"place_order": 1, "refund": 1}
        await fresh.aclose()


def test_a_worker_killed_mid_batch_is_resumed_elsewhere_without_rerunning(
    redis_url: str, tmp_path: Path
) -> None:
    log = tmp_path / "worker.log"
    conversation_id = new_id()
    script = Path(worker.__file__)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(
            [str(Path(__file__).parents[2] / "src"), os.environ.get("PYTHONPATH", "")]
        ),
    }
    process = subprocess.Popen(
        [sys.executable, str(script), redis_url, conversation_id, str(log)], env=env
    )
    try:
        deadline = time.monotonic() + 30
        while "slow start" not in (log.read_text() if log.exists() else ""):
            assert process.poll() is None, "the worker exited early"
            assert time.monotonic() < deadline, "the worker never reached the slow call"
            time.sleep(0.02)
        process.send_signal(signal.SIGKILL)
    finally:
        process.wait(10)
    assert log.read_text().splitlines() == ["note 1", "note 2", "slow start"]

    import asyncio

    async def resume() -> object:
        store = RedisStore.from_url(redis_url)
        loaded = await store.load(conversation_id)
        assert loaded is not None
        assert [(r.id, r.started, r.outcome is not None) for r in loaded.batch] == [
            ("n1", True, True),
            ("n2", True, True),
            ("s", True, False),
            ("n3", False, False),
        ]
        worker.LOG = log
        result = await run(
            ScriptedModel(worker.SCRIPT[1:]),
            conversation=loaded,
            tools=worker.tools().select(),
            policy=Policy(default="allow"),
            store=store,
        )
        await store.aclose()
        return result

    result = asyncio.run(resume())
    assert log.read_text().splitlines() == ["note 1", "note 2", "slow start", "note 3"]
    answers = {m["tool_call_id"]: m["content"] for m in result.messages if m["role"] == "tool"}  # type: ignore[attr-defined]
    assert answers["n1"] == "noted 1"
    assert answers["s"].startswith(
        "Tool 'slow' was interrupted before it finished and was not run again"
    )
    assert answers["n3"] == "noted 3"
    assert result.status == "done"  # type: ignore[attr-defined]


def test_the_missing_client_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import toolcast.loop.redis as module

    monkeypatch.setitem(sys.modules, "redis", None)
    monkeypatch.setitem(sys.modules, "redis.asyncio", None)
    with pytest.raises(ImportError, match=r"pip install 'toolcast\[redis\]'"):
        module.RedisStore.from_url("redis://127.0.0.1:1/0")


del RedisServer, free_port
