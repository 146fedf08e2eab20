"""With Temporal's TracingInterceptor, the tool activity's `execute_tool` span is a child of
Temporal's `RunActivity` span, in the one trace of the client's `start_run`."""

from __future__ import annotations

import pytest
from temporalio.client import Client
from tests.temporal.helpers import queue, worker

import toolcast.temporal as tt
from toolcast.testing import ScriptedModel, call

sdk = pytest.importorskip("opentelemetry.sdk.trace")


async def test_tool_spans_are_children_of_run_activity_in_one_trace(temporal):
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = sdk.TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    client = await Client.connect(temporal.address, plugins=[tt.ToolcastPlugin(tracing=provider)])
    task_queue = queue()
    model = ScriptedModel([[call("lookup", id="a", order=1)], "Found."])
    async with worker(client, task_queue, {"default": model}, tracing=provider):
        handle = await tt.start_run(client, task_queue, "Look", id="trace-" + task_queue)
        result = await handle.result()
    assert result.status == "done"
    spans = exporter.get_finished_spans()
    by_name = {s.name: s for s in spans}
    tool = by_name["execute_tool lookup"]
    attributes = dict(tool.attributes or {})
    assert attributes["gen_ai.tool.name"] == "lookup"
    assert attributes["gen_ai.tool.call.id"] == "a"
    parent = next(s for s in spans if s.context.span_id == tool.parent.span_id)
    assert parent.name == "RunActivity:toolcast.tool_call"
    assert "RunActivity:toolcast.model_turn" in by_name
    assert "StartWorkflow:toolcast.run" in by_name
    assert len({s.context.trace_id for s in spans}) == 1
    # Workflow code opened no toolcast span of its own.
    assert [s.name for s in spans].count("execute_tool lookup") == 1
