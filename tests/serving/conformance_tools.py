"""The tools the MCP conformance suite calls by name (served in test_conformance.py).

The suite's server scenarios expect the tools of its reference "everything server"
(`examples/servers/typescript/everything-server.ts` in modelcontextprotocol/conformance):
`tools-call-simple-text` calls `test_simple_text`, and so on. These are the ones a
toolcast tool can be: plain text, an image, audio, an embedded resource, mixed
content, logs, progress, an error. The others are left out on purpose, each for
the reason test_conformance.py gives (sampling, roots and free-form elicitation
are not things a toolcast tool can ask the client for).

The 2026-07-28 multi round-trip (`input_required`) tools are approval-gated
tools: the only thing toolcast asks a client is "may this call run?", so the
suite's MRTR scenarios that take whatever the server asks (a sealed
`requestState`, a tampered one refused, `resultType`, extra params ignored) run
against toolcast's real approval flow.
"""

from __future__ import annotations

import asyncio
import base64
import struct

from toolcast import (
    AudioPart,
    Catalog,
    ImagePart,
    ResourcePart,
    TextPart,
    Tool,
    ToolContext,
    ToolError,
    ToolResult,
    tool,
)

# The suite's own 1x1 PNG (its everything server's TEST_IMAGE_BASE64).
_PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)


@tool
def test_simple_text() -> str:
    """Tests simple text content response."""
    return "This is a simple text response for testing."


@tool
def test_image_content() -> ToolResult:
    """Tests image content response."""
    return ToolResult([ImagePart(_PIXEL, "image/png")])


def _silent_wav(samples: int = 8) -> bytes:
    """A minimal valid WAV file: 8 kHz, 8-bit mono, `samples` of silence."""
    header = struct.pack("<4sI4s", b"RIFF", 36 + samples, b"WAVE")
    fmt = struct.pack("<4sIHHIIHH", b"fmt ", 16, 1, 1, 8000, 8000, 1, 8)
    return header + fmt + struct.pack("<4sI", b"data", samples) + b"\x80" * samples


@tool
def test_audio_content() -> ToolResult:
    """Tests audio content response."""
    return ToolResult([AudioPart(_silent_wav(), "audio/wav")])


@tool
def test_embedded_resource() -> ToolResult:
    """Tests embedded resource content response."""
    text = "This is an embedded resource content."
    return ToolResult([ResourcePart("test://embedded-resource", text, "text/plain")])


@tool
def test_multiple_content_types() -> ToolResult:
    """Tests response with multiple content types (text, image, resource)."""
    return ToolResult(
        [
            TextPart("Multiple content types test:"),
            ImagePart(_PIXEL, "image/png"),
            ResourcePart(
                "test://mixed-content-resource", '{"test":"data","value":123}', "application/json"
            ),
        ]
    )


@tool
async def test_tool_with_logging(context: ToolContext) -> str:
    """Tests tool that emits log messages during execution."""
    # Three entries ~50 ms apart, as the scenario asks: a client must see each one
    # arrive while the call is still running, not only the last.
    context.log("info", "Tool execution started")
    await asyncio.sleep(0.05)
    context.log("info", "Tool processing data")
    await asyncio.sleep(0.05)
    context.log("info", "Tool execution completed")
    return "Tool with logging executed successfully"


@tool
async def test_tool_with_progress(context: ToolContext) -> str:
    """Tests tool that reports progress notifications."""
    for done in (0, 50, 100):
        context.report_progress(done, 100, f"Completed step {done} of 100")
        if done < 100:
            await asyncio.sleep(0.05)
    return "Tool with progress executed successfully"


@tool
def test_error_handling() -> str:
    """Tests error response handling."""
    raise ToolError("This tool intentionally returns an error for testing")


@tool
def test_logging_tool(context: ToolContext) -> str:
    """Diagnostic logging validator tool."""
    # 2026-07-28: must log only when the request's _meta carries a logLevel.
    context.log("info", "Diagnostic trace logging activated")
    return "Logging evaluated"


# Approval-gated: toolcast answers these with `input_required` (an elicitation in
# inputRequests["approval"] and a sealed requestState) until the client accepts.
@tool(requires_approval=True)
def test_input_required_result_elicitation() -> str:
    """MRTR: returns InputRequiredResult with an elicitation request (an approval)."""
    return "Hello, approved caller!"


@tool(requires_approval=True)
def test_input_required_result_request_state() -> str:
    """MRTR: returns InputRequiredResult with requestState (an approval)."""
    # The scenario looks for "state-ok": the sealed state verified on the retry.
    return "state-ok"


@tool(requires_approval=True)
def test_input_required_result_tampered_state() -> str:
    """MRTR: integrity-protected requestState (an approval)."""
    return "state-ok"


@tool(requires_approval=True)
def test_input_required_result_capabilities() -> str:
    """MRTR: respects client capabilities in inputRequests (an approval)."""
    return "approved"


@tool(requires_approval=True)
def test_missing_capability() -> str:
    """Tests that a call needing a capability the client did not declare is refused (-32021).

    toolcast's only server-to-client question is an approval, asked as an elicitation.
    """
    return "This call needed approval, so it should not have run without elicitation."


@tool(requires_approval=True)
def test_streaming_elicitation() -> str:
    """Diagnostic tool: asks for approval without a server-to-client request."""
    return "Streaming complete"


# The Tasks extension's fixtures (SEP-2663 scenarios). `slow_compute`, `failing_job`
# and `confirm_delete` run as tasks for clients that declare the extension:
# `long_running=True`, and test_conformance serves `--task failing_job=required`.
@tool
def greet(name: str) -> str:
    """Sync-only greeting."""
    return f"Hello, {name}!"


@tool(long_running=True)
async def slow_compute(seconds: float, label: str = "") -> str:
    """Sleeps `seconds`, then answers (a task for clients with the Tasks extension)."""
    await asyncio.sleep(seconds)
    return f"Computed {label or 'result'} after {seconds:g} s"


@tool(long_running=True)
async def failing_job() -> str:
    """Fails after a short while with a tool error."""
    await asyncio.sleep(0.5)
    raise ToolError("failing_job always fails")


@tool(long_running=True, requires_approval=True)
def confirm_delete(filename: str) -> str:
    """Deletes a file once the user approves (the task waits in input_required)."""
    return f"Deleted {filename}"


# The suite's SEP-1613/SEP-2106 schema, hand-written: served as written (its
# $schema, $defs, $anchor, allOf/anyOf, if/then/else and additionalProperties kept).
json_schema_2020_12_tool = Tool.from_schema(
    "json_schema_2020_12_tool",
    "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
    {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"},
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {
            "properties": {"contactMethod": {"const": "phone"}},
            "required": ["contactMethod"],
        },
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": False,
    },
    lambda arguments: f"JSON Schema 2020-12 tool called with: {arguments}",
)

# What test_conformance serves (`toolcast serve conformance_tools:catalog`): a module
# scan finds only decorated functions, and the schema tool above is a `Tool` value.
catalog = Catalog(
    [
        test_simple_text,
        test_image_content,
        test_audio_content,
        test_embedded_resource,
        test_multiple_content_types,
        test_tool_with_logging,
        test_tool_with_progress,
        test_error_handling,
        test_logging_tool,
        test_input_required_result_elicitation,
        test_input_required_result_request_state,
        test_input_required_result_tampered_state,
        test_input_required_result_capabilities,
        test_streaming_elicitation,
        test_missing_capability,
        json_schema_2020_12_tool,
        greet,
        slow_compute,
        failing_job,
        confirm_delete,
    ]
)
