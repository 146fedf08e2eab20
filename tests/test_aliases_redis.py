"""The Redis alias store against a real `redis-server` on 127.0.0.1 (issue 12 req. 4).

Atomic allocation across processes (4 processes x 2,000 registrations of one
conversation give a bijection), no resolution across 100 concurrent
conversations, the TTL refreshed on use, and a server killed mid-conversation:
the call fails closed with an error result.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator
from typing import Annotated, Any
from uuid import UUID

import pytest

from services import redis_server
from toolcast import Alias, Catalog, ToolCall
from toolcast.aliases import AliasesUnavailableError, AliasSession
from toolcast.aliases.redis import RedisAliasStore

redis_asyncio = pytest.importorskip("redis.asyncio")

PROCESSES = 4
REGISTRATIONS = 2_000
POOL = 3_000

WORKER = r"""
import asyncio, json, random, sys
from toolcast.aliases import AliasSession
from toolcast.aliases.redis import RedisAliasStore

url, conversation, seed, count, pool_file = sys.argv[1:]
pool = json.load(open(pool_file))
rng = random.Random(int(seed))
picked = [rng.choice(pool) for _ in range(int(count))]

async def main():
    store = RedisAliasStore.from_url(url, key_prefix="bijection:")
    session = AliasSession(conversation, store=store)
    got = {}
    for value in picked:  # one registration per round trip: the most interleaving
        # Upper case half the time: the same id whatever its spelling.
        spelled = value.upper() if rng.random() < 0.5 else value
        got.setdefault(value, set()).add(await session.register("link", spelled))
    await store.client.aclose()
    print(json.dumps({k: sorted(v) for k, v in got.items()}))

asyncio.run(main())
"""


@pytest.fixture
async def store(redis_url: str) -> AsyncIterator[RedisAliasStore]:
    made = RedisAliasStore.from_url(redis_url, key_prefix=f"test-{uuid.uuid4().hex}:")
    yield made
    await made.client.aclose()


def get_link(link_id: Annotated[UUID, Alias("link")]) -> dict[str, Annotated[UUID, Alias("link")]]:
    """Get a link."""
    CALLS.append(link_id)
    return {"id": link_id}


def new_link() -> dict[str, Annotated[UUID, Alias("link")]]:
    """Make a link."""
    made = uuid.uuid4()
    CALLS.append(made)
    return {"id": made}


CALLS: list[UUID] = []
TOOLS = Catalog([get_link, new_link]).select()


def test_four_processes_registering_one_conversation_get_a_bijection(
    redis_url: str, tmp_path: Any
) -> None:
    pool = [str(uuid.uuid4()) for _ in range(POOL)]
    pool_file = tmp_path / "pool.json"
    pool_file.write_text(json.dumps(pool))
    conversation = f"hammered-{uuid.uuid4().hex}"
    workers = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                WORKER,
                redis_url,
                conversation,
                str(seed),
                str(REGISTRATIONS),
                str(pool_file),
            ],
            stdout=subprocess.PIPE,
        )
        for seed in range(PROCESSES)
    ]
    results = []
    for worker in workers:
        out, _ = worker.communicate(timeout=120)
        assert worker.returncode == 0
        results.append(json.loads(out))

    alias_of: dict[str, str] = {}
    for result in results:
        for value, aliases in result.items():
            assert len(aliases) == 1, f"{value} got {aliases}"  # one UUID, one alias
            assert alias_of.setdefault(value, aliases[0]) == aliases[0]  # in every process
    uuid_of = {alias: value for value, alias in alias_of.items()}
    assert len(uuid_of) == len(alias_of)  # two UUIDs never share an alias
    assert sorted(uuid_of, key=lambda a: int(a.split("-")[1])) == [
        f"link-{n}" for n in range(1, len(alias_of) + 1)
    ]  # no number skipped or handed out twice

    async def stored() -> tuple[dict[str, str], dict[str, str]]:
        client = redis_asyncio.Redis.from_url(redis_url, decode_responses=True)
        u2a, a2u, _ = RedisAliasStore(client, key_prefix="bijection:").keys(conversation)
        maps = await client.hgetall(u2a), await client.hgetall(a2u)
        await client.aclose()
        return maps

    to_alias, to_uuid = asyncio.run(stored())
    assert to_alias == alias_of
    assert {a: u.lower() for a, u in to_uuid.items()} == uuid_of  # the maps are inverse


async def test_100_concurrent_conversations_never_resolve_each_others_ids(
    store: RedisAliasStore,
) -> None:
    sessions = [AliasSession(f"conversation-{n}", store=store) for n in range(100)]
    owned = {s.conversation_id: [uuid.uuid4() for _ in range(5)] for s in sessions}

    async def converse(session: AliasSession) -> list[bool]:
        mine = owned[session.conversation_id]
        aliases = await session.register_many([("link", v) for v in mine])
        checks = []
        for _ in range(3):
            for alias, value in zip(aliases, mine, strict=True):
                outcome = await TOOLS.invoke(
                    ToolCall("c", "get_link", json.dumps({"link_id": alias})), aliases=session
                )
                checks.append(
                    outcome.value == {"id": value} and json.loads(outcome.text) == {"id": alias}
                )
        return checks

    results = await asyncio.gather(*(converse(s) for s in sessions))
    assert all(all(checks) for checks in results)
    assert sum(len(checks) for checks in results) == 100 * 5 * 3
    strangers = await sessions[0].store.lookup("conversation-0", ["link-6"], ["link"])
    assert strangers == ([None], [5])


async def test_the_ttl_is_refreshed_on_use(redis_url: str) -> None:
    store = RedisAliasStore.from_url(redis_url, key_prefix=f"ttl-{uuid.uuid4().hex}:", ttl=3)
    session = AliasSession("c", store=store)
    await session.register("link", uuid.uuid4())
    keys = store.keys("c")
    await asyncio.sleep(1.2)
    before = [await store.client.pttl(k) for k in keys]
    assert all(0 < t < 2_000 for t in before)
    await session.aliasify_text("nothing to see")  # no UUID: no store call, no refresh
    await TOOLS.invoke(ToolCall("c", "get_link", '{"link_id": "link-1"}'), aliases=session)
    after = [await store.client.pttl(k) for k in keys]
    assert all(t > 2_500 for t in after)
    await store.client.aclose()


async def test_a_dead_redis_fails_closed_with_an_error_result() -> None:
    with redis_server() as server:
        store = RedisAliasStore.from_url(server.url, socket_connect_timeout=1)
        session = AliasSession("c", store=store)
        made = await TOOLS.invoke(ToolCall("c1", "new_link", "{}"), aliases=session)
        assert json.loads(made.text) == {"id": "link-1"}
        server.process.kill()
        server.process.wait(5)
        CALLS.clear()
        inbound = await TOOLS.invoke(
            ToolCall("c2", "get_link", '{"link_id": "link-1"}'), aliases=session
        )
        assert inbound.error is not None
        assert inbound.error.kind == "not_run"
        assert "ids of this conversation are unavailable" in inbound.text
        assert CALLS == []  # never an unresolved alias sent on to the code
        outbound = await TOOLS.invoke(ToolCall("c3", "new_link", "{}"), aliases=session)
        assert outbound.is_error
        assert "ran, but its result cannot be shown" in outbound.text
        assert str(CALLS[0]) not in outbound.text  # no raw id leaks instead
        with pytest.raises(AliasesUnavailableError):
            await session.register("link", uuid.uuid4())
        await store.client.aclose()


async def test_one_store_call_is_one_round_trip(store: RedisAliasStore) -> None:
    session = AliasSession("c", store=store)
    values = [uuid.uuid4() for _ in range(50)]
    aliases = await session.register_many([("link", v) for v in values])

    def stats(info: dict[str, Any]) -> int:
        return sum(v["calls"] for k, v in info.items() if k.startswith("cmdstat_eval"))

    await session.resolve(aliases[0])  # scripts loaded: what follows is the steady state
    before = stats(await store.client.info("commandstats"))
    outcome = await TOOLS.invoke(
        ToolCall("c", "get_link", json.dumps({"link_id": aliases[7]})), aliases=session
    )
    after = stats(await store.client.info("commandstats"))
    assert outcome.value == {"id": values[7]}
    assert after - before == 2  # one to resolve the argument, one to alias the result
