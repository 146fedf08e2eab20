"""Observability: the event hook and OpenTelemetry GenAI tool spans."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from loop.tools import reset, shop
from toolcast import Policy, run
from toolcast.loop import LoopEvent, Usage
from toolcast.testing import ScriptedModel, call


@pytest.fixture(autouse=True)
def _fresh() -> None:
    reset()


async def test_the_hook_sees_every_step_in_order() -> None:
    events: list[LoopEvent] = []
    model = ScriptedModel(
        [[call("refund", id="r", amount=1), call("place_order", id="p", product="x", quantity=1)]],
        usage=Usage(5, 2),
    )
    result = await run(
        model, "Go", tools=shop().select(), policy=Policy(allow=["*"]), on_event=events.append
    )
    assert result.status == "pending"
    assert [(e.kind, e.call.id if e.call else None) for e in events] == [
        ("request", None),
        ("usage", None),
        ("call", "r"),
        ("call", "p"),
        ("decision", "r"),
        ("decision", "p"),
        ("result", "r"),
        ("pending", "p"),
        ("done", None),
    ]
    assert events[0].request is not None
    assert events[0].request.tools
    assert events[1].usage == Usage(5, 2)
    assert events[4].decision is not None
    assert events[4].decision.allowed
    assert events[5].decision is not None
    assert events[5].decision.status == "pending"
    assert events[6].outcome is not None
    assert events[6].outcome.text == "refunded 1"
    assert events[-1].status == "pending"
    assert {e.conversation_id for e in events} == {result.conversation.id}


async def test_an_async_hook_is_awaited() -> None:
    seen: list[str] = []

    async def hook(event: LoopEvent) -> None:
        await asyncio.sleep(0)
        seen.append(event.kind)

    await run(ScriptedModel(["hi"]), "x", tools=shop().select(), on_event=hook)
    assert seen == ["request", "usage", "done"]


async def test_tool_spans_follow_the_genai_conventions(monkeypatch: pytest.MonkeyPatch) -> None:
    sdk = pytest.importorskip("opentelemetry.sdk.trace")
    from opentelemetry import trace
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = sdk.TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    # The global provider can be set once per process; patch the lookup instead.
    monkeypatch.setattr(trace, "get_tracer_provider", lambda: provider)
    model = ScriptedModel([[call("refund", id="r1", amount=1), call("broken", id="b1", x=1)], "ok"])
    await run(model, "Go", tools=shop().select(), policy=Policy(default="allow"))
    spans = {s.name: s for s in exporter.get_finished_spans()}
    assert set(spans) == {"execute_tool refund", "execute_tool broken"}
    ok = spans["execute_tool refund"]
    assert ok.kind == trace.SpanKind.INTERNAL
    attributes: dict[str, Any] = dict(ok.attributes or {})
    assert attributes == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "refund",
        "gen_ai.tool.call.id": "r1",
        "gen_ai.tool.type": "function",
        "gen_ai.tool.description": "Refund an amount.",
    }
    failed = spans["execute_tool broken"]
    assert (failed.attributes or {})["error.type"] == "tool_error"
    assert failed.status.status_code == trace.StatusCode.ERROR


async def test_no_spans_without_a_configured_provider() -> None:
    from toolcast.loop._events import tracer

    assert tracer() is None
