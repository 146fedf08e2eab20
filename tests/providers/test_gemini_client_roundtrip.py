"""The real google-genai client against a 127.0.0.1 fake server: request -> parse_calls ->
invoke -> format_calls / format_results -> next request, plain and streamed.

What is pinned: the SDK accepts toolcast's declarations and toolConfig as they are
(both schema variants); thought signatures come back byte for byte on the rebuilt
model turn; responses answer calls by id when the API gave ids, else by name and
order with no made-up id on the wire.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest
from google import genai
from google.genai import types
from inline_snapshot import snapshot

from providers.fakeserver import FakeServer
from toolcast import Tool
from toolcast.providers import gemini

MODEL = "gemini-3-flash"
GENERATE = f"/v1/models/{MODEL}:generateContent"
STREAM = f"/v1/models/{MODEL}:streamGenerateContent"
SIGNATURE_BYTES = b"\x00\x01signature-from-the-model\xfe"
SIGNATURE = base64.b64encode(SIGNATURE_BYTES).decode()


def distance(origin: str, destination: str, unit: str | None = None) -> dict[str, Any]:
    """Road distance between two cities.

    Args:
        origin: Start city.
        destination: End city.
        unit: "km" or "mi"; km when null.
    """
    km = {("Oslo", "Bergen"): 463, ("Rome", "Milan"): 572}[(origin, destination)]
    return {"distance": km if unit != "mi" else round(km / 1.609), "unit": unit or "km"}


def response(*parts: dict[str, Any]) -> dict[str, Any]:
    return {
        "candidates": [
            {"content": {"role": "model", "parts": list(parts)}, "finishReason": "STOP"}
        ],
        "modelVersion": MODEL,
    }


CALL_OSLO = {
    "functionCall": {"name": "distance", "args": {"origin": "Oslo", "destination": "Bergen"}}
}
CALL_ROME = {
    "functionCall": {
        "name": "distance",
        "args": {"origin": "Rome", "destination": "Milan", "unit": "mi"},
    }
}
FINAL = response({"text": "463 km and 356 mi."})


@pytest.fixture
def client(fake_server: FakeServer) -> genai.Client:
    options = types.HttpOptions(
        base_url=fake_server.url, retry_options=types.HttpRetryOptions(attempts=1)
    )
    return genai.Client(api_key="test", http_options=options)


def config(tool: Tool, variant: gemini.Variant = "json_schema") -> types.GenerateContentConfig:
    return types.GenerateContentConfig(
        tools=gemini.format_tools([tool], variant=variant),  # type: ignore[arg-type]
        tool_config=gemini.format_tool_choice("auto"),  # type: ignore[arg-type]
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )


def signature_bytes(text: str) -> bytes:
    """Decode a signature as sent; google-genai writes bytes as URL-safe base64."""
    return base64.urlsafe_b64decode(text.replace("+", "-").replace("/", "_"))


def as_sdk(tool: dict[str, Any]) -> dict[str, Any]:
    """A declaration as the SDK reads it (the SDK may re-spell keys on the wire)."""
    dumped: dict[str, Any] = types.Tool.model_validate(tool).model_dump(
        mode="json", exclude_none=True
    )
    return dumped


async def test_round_trip_rebuilds_the_model_turn_with_its_thought_signature(
    fake_server: FakeServer, client: genai.Client
) -> None:
    """qwen-code #1202: history rebuilt from calls must keep the signature (400 otherwise)."""
    fake_server.queue(GENERATE, response({**CALL_OSLO, "thoughtSignature": SIGNATURE}, CALL_ROME))
    fake_server.queue(GENERATE, FINAL)
    tool = Tool.from_function(distance)
    question = types.Content(
        role="user", parts=[types.Part(text="Oslo-Bergen in km, Rome-Milan in mi?")]
    )

    first = client.models.generate_content(model=MODEL, contents=[question], config=config(tool))
    calls = gemini.parse_calls(first)
    outcomes = [await tool.invoke(c.arguments, call_id=c.id) for c in calls]
    history = [question, gemini.format_calls(calls), gemini.format_results(outcomes, calls=calls)]
    client.models.generate_content(model=MODEL, contents=history, config=config(tool))  # type: ignore[arg-type]

    sent_first, sent_second = fake_server.bodies(GENERATE)
    assert as_sdk(sent_first["tools"][0]) == as_sdk(gemini.format_tools([tool])[0])
    assert sent_first["toolConfig"] == {"functionCallingConfig": {"mode": "AUTO"}}
    model_turn, answers = sent_second["contents"][1:]
    assert signature_bytes(model_turn["parts"][0]["thoughtSignature"]) == SIGNATURE_BYTES
    assert "thoughtSignature" not in model_turn["parts"][1]
    assert answers == snapshot(
        {
            "parts": [
                {
                    "functionResponse": {
                        "name": "distance",
                        "response": {"output": {"distance": 463, "unit": "km"}},
                    }
                },
                {
                    "functionResponse": {
                        "name": "distance",
                        "response": {"output": {"distance": 356, "unit": "mi"}},
                    }
                },
            ],
            "role": "user",
        }
    )


async def test_round_trip_echoes_call_ids_with_the_response_content_as_history(
    fake_server: FakeServer, client: genai.Client
) -> None:
    with_ids = response(
        {
            "functionCall": {"id": "fc-1", **CALL_OSLO["functionCall"]},
            "thoughtSignature": SIGNATURE,
        },
        {
            "functionCall": {
                "id": "fc-2",
                "name": "distance",
                "args": {"origin": "Nowhere", "destination": "X"},
            }
        },
    )
    fake_server.queue(GENERATE, with_ids)
    fake_server.queue(GENERATE, FINAL)
    tool = Tool.from_function(distance)

    first = client.models.generate_content(model=MODEL, contents="Distances?", config=config(tool))
    calls = gemini.parse_calls(first)
    outcomes = [await tool.invoke(c.arguments, call_id=c.id) for c in calls]
    assert first.candidates
    assert first.candidates[0].content
    history = [
        "Distances?",
        first.candidates[0].content,
        gemini.format_results(outcomes, calls=calls),
    ]
    client.models.generate_content(model=MODEL, contents=history, config=config(tool))  # type: ignore[arg-type]

    model_turn, answers = fake_server.bodies(GENERATE)[1]["contents"][1:]
    assert signature_bytes(model_turn["parts"][0]["thoughtSignature"]) == SIGNATURE_BYTES
    ok, failed = (part["functionResponse"] for part in answers["parts"])
    assert (ok["id"], ok["response"]) == ("fc-1", {"output": {"distance": 463, "unit": "km"}})
    assert failed["id"] == "fc-2"
    assert failed["response"]["error"].startswith("Tool 'distance' failed: KeyError")


async def test_streamed_chunks_round_trip(fake_server: FakeServer, client: genai.Client) -> None:
    fake_server.queue_stream(
        STREAM, [response({"text": "Checking."}), response(CALL_OSLO)], done=False
    )
    fake_server.queue_stream(STREAM, [FINAL], done=False)
    tool = Tool.from_function(distance)

    chunks = list(
        client.models.generate_content_stream(model=MODEL, contents="Oslo?", config=config(tool))
    )
    (call,) = gemini.parse_calls(chunks)
    outcome = await tool.invoke(call.arguments, call_id=call.id)
    history = [
        "Oslo?",
        gemini.format_calls([call], text="Checking."),
        gemini.format_results([outcome]),
    ]
    list(client.models.generate_content_stream(model=MODEL, contents=history, config=config(tool)))  # type: ignore[arg-type]

    answers = fake_server.bodies(STREAM)[1]["contents"][2]
    (part,) = answers["parts"]
    assert part["functionResponse"] == {
        "name": "distance",
        "response": {"output": {"distance": 463, "unit": "km"}},
    }


def test_openapi_parameters_go_through_the_client_unchanged(
    fake_server: FakeServer, client: genai.Client
) -> None:
    fake_server.queue(GENERATE, FINAL)
    tool = Tool.from_function(distance)
    client.models.generate_content(model=MODEL, contents="Hi", config=config(tool, "openapi"))
    (sent,) = fake_server.bodies(GENERATE)
    (declaration,) = sent["tools"][0]["functionDeclarations"]
    assert (
        declaration["parameters"]
        == gemini.format_tools([tool], variant="openapi")[0]["functionDeclarations"][0][
            "parameters"
        ]
    )
