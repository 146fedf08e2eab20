"""The tools, policy and scripted-model helpers the Temporal tests and their worker processes share.

Every tool that has an effect appends one line to the file named by
`TOOLCAST_TEMPORAL_LOG` (one `write` of a short line to a file opened for
append), so a test can count what ran, where and how often, across processes.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

from toolcast import Catalog, Policy, ToolContext, tool, toolbox


def log(line: str) -> None:
    path = os.environ.get("TOOLCAST_TEMPORAL_LOG")
    if path:
        with Path(path).open("a") as handle:
            handle.write(line + "\n")


def lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


@tool(categories=["shop"])
def lookup(order: int) -> dict[str, Any]:
    """Look an order up."""
    log(f"lookup {order}")
    return {"order": order, "total": 40}


@tool(requires_approval=True)
def refund(order: int, amount: int) -> str:
    """Refund part of an order."""
    log(f"refund {order} {amount}")
    return f"refunded {amount} on order {order}"


@tool(requires_approval=True)
def cancel_order(order: int) -> str:
    """Cancel an order."""
    log(f"cancel {order}")
    return f"cancelled {order}"


@tool
def delete_account(user: str) -> str:
    """Delete a user's account."""
    log(f"delete {user}")
    return "deleted"


@tool(timeout=20)
async def slow(n: int, ctx: ToolContext) -> str:
    """Take a while, reporting progress."""
    log(f"start {n} {os.getpid()}")
    for step in range(int(os.environ.get("TOOLCAST_SLOW_STEPS", "10"))):
        ctx.report_progress(step, 10)
        await asyncio.sleep(0.25)
    log(f"done {n} {os.getpid()}")
    return f"slow {n} done"


@tool(timeout=20, idempotent=True)
async def slow_sync(n: int) -> str:
    """Take a while; safe to run again."""
    log(f"start {n} {os.getpid()}")
    await asyncio.sleep(0.25 * int(os.environ.get("TOOLCAST_SLOW_STEPS", "10")))
    log(f"done {n} {os.getpid()}")
    return f"slow {n} done"


@tool
def broken() -> str:
    """Always fails."""
    raise RuntimeError("disk on fire")


@tool(timeout=0.5)
async def hang() -> str:
    """Never answers in time."""
    await asyncio.sleep(30)
    return "late"


@tool(ends_loop=True)
def answer(text: str) -> dict[str, str]:
    """Give the final answer."""
    return {"answer": text}


@tool
def spend(units: int, ctx: ToolContext) -> str:
    """Spend some credits."""
    ctx.add_cost(0.5 * units, "usd", "spend")
    return f"spent {units}"


@toolbox("shipping", "Ship orders and track parcels.")
class Shipping:
    @tool
    @staticmethod
    def ship(order: int, carrier: str) -> str:
        """Ship an order with a carrier (ups or dhl)."""
        log(f"ship {order} {carrier}")
        return f"shipped {order} with {carrier}"


CATALOG = Catalog(
    [
        lookup,
        refund,
        cancel_order,
        delete_account,
        slow,
        slow_sync,
        broken,
        hang,
        answer,
        spend,
        Shipping,
    ]
)
POLICY = Policy(allow=["*"], deny=["delete_*"])


def tool_set() -> Any:
    return CATALOG.select(include_selectors=True)


# -- the scripted OpenAI-compatible model -------------------------------------------------


def completion(
    content: str | None = None,
    calls: list[tuple[str, str, dict[str, Any]]] = (),
    *,
    finish: str | None = None,
) -> dict[str, Any]:  # type: ignore[assignment]
    """A Chat Completions response: text, or tool calls `(id, name, arguments)`."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [
            {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, n, a in calls
        ]
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "scripted",
        "choices": [
            {
                "index": 0,
                "finish_reason": finish or ("tool_calls" if calls else "stop"),
                "message": message,
            }
        ],
        "usage": {"prompt_tokens": 30, "completion_tokens": 7, "total_tokens": 37},
    }


def make_model(url: str) -> Any:
    """A real `openai_chat.Model` over the official async client, pointed at the fake server."""

    def build() -> Any:
        import openai

        from toolcast.providers import openai_chat

        client = openai.AsyncOpenAI(base_url=url + "/v1", api_key="test", max_retries=0)
        return openai_chat.Model(client, "scripted")

    return build
