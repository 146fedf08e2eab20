"""`toolcast demo`: the recorded conversation played through the real pipeline.

Pins: the recorded replies are real Chat Completions responses (checked by the
openai SDK's own model), each turn goes parse_calls -> ToolSet.resolve -> invoke
-> format_results, bad arguments and unknown tools come back as error results,
the toolbox adds its members to the next request, every call is answered in
order, the transcript is valid input for the next request, and nothing touches
the network.
"""

from __future__ import annotations

import asyncio
import io
import socket
from typing import Any

import pytest
from pydantic import TypeAdapter

from toolcast._cli._demo import Turn, load_conversation, play, run_demo
from toolcast._cli._main import Style
from toolcast.examples import catalog
from toolcast.providers import openai_chat

openai_types = pytest.importorskip("openai.types.chat")


@pytest.fixture(scope="module")
def turns() -> list[Turn]:
    conversation = load_conversation()
    toolset = catalog().select(include_selectors=True)
    return asyncio.run(play(toolset, conversation["responses"]))


def test_recorded_replies_are_valid_chat_completions() -> None:
    for response in load_conversation()["responses"]:
        openai_types.ChatCompletion.model_validate(response)


def test_every_recorded_reply_becomes_a_turn_and_the_last_is_the_answer(
    turns: list[Turn],
) -> None:
    assert len(turns) == len(load_conversation()["responses"])
    assert [t.answer is None for t in turns] == [True] * 5 + [False]
    assert turns[-1].answer is not None
    assert turns[-1].answer.startswith("The biggest is Springfield, Missouri")


def test_bad_arguments_get_an_error_result_naming_the_limit(turns: list[Turn]) -> None:
    (outcome,) = turns[0].outcomes
    assert outcome.is_error
    assert outcome.error is not None
    assert outcome.error.kind == "invalid_arguments"
    assert outcome.text == "Argument 'max_results' must be less than or equal to 50 (got 3000)."


def test_the_corrected_call_succeeds_with_the_largest_place_first(turns: list[Turn]) -> None:
    (outcome,) = turns[1].outcomes
    assert not outcome.is_error
    assert [p.name for p in outcome.value] == [
        "Springfield, Missouri",
        "Springfield, Massachusetts",
        "Springfield, Illinois",
    ]


def test_opening_the_toolbox_adds_its_members_to_the_next_request(
    turns: list[Turn],
) -> None:
    opened = turns[2]
    assert opened.opened == ("documents",)
    assert [info["name"] for info in opened.outcomes[0].value] == [
        "search_documents",
        "read_document",
    ]
    assert opened.tools_next == (
        "find_places",
        "place_details",
        "documents",
        "search_documents",
        "read_document",
    )
    assert turns[0].tools_next == ("find_places", "place_details", "documents")


def test_strict_null_for_a_defaulted_argument_means_the_default(turns: list[Turn]) -> None:
    (call,) = turns[3].calls
    assert '"limit":null' in str(call.arguments)
    (outcome,) = turns[3].outcomes
    assert not outcome.is_error
    assert [hit.id for hit in outcome.value] == ["doc-1", "doc-2"]


def test_a_tool_outside_the_set_is_refused_and_the_other_call_still_runs(
    turns: list[Turn],
) -> None:
    read, delete = turns[4].outcomes
    assert turns[4].resolved == (True, False)
    assert not read.is_error
    assert read.text.startswith("Offsite venue shortlist")
    assert delete.is_error
    assert delete.error is not None
    assert delete.error.kind == "unknown_tool"
    assert delete.text.startswith("Unknown tool 'delete_document'. Available tools: ")


def test_every_call_is_answered_in_call_order(turns: list[Turn]) -> None:
    for turn in turns[:-1]:
        assert [r["tool_call_id"] for r in turn.replies] == [c.id for c in turn.calls]
        assert all(r["role"] == "tool" for r in turn.replies)
        errors = [o.is_error for o in turn.outcomes]
        prefixed = [str(r["content"]).startswith("Error: ") for r in turn.replies]
        assert prefixed == errors


def test_the_transcript_is_a_valid_next_request(turns: list[Turn]) -> None:
    messages: list[dict[str, Any]] = [{"role": "user", "content": load_conversation()["user"]}]
    for turn in turns[:-1]:
        messages.append(openai_chat.format_assistant_message(turn.calls))
        messages.extend(turn.replies)
    adapter = TypeAdapter(list[openai_types.ChatCompletionMessageParam])
    assert len(adapter.validate_python(messages)) == 1 + sum(1 + len(t.replies) for t in turns[:-1])


def test_run_demo_prints_every_step_and_makes_no_network_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the demo tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    out = io.StringIO()
    assert run_demo(out, style=Style(color=False)) == 0
    text = out.getvalue()
    assert "2  One tool, three wire formats: find_places" in text
    for provider in ("openai_chat (strict)", "anthropic (strict)", "gemini (not strict)"):
        assert f"   {provider}\n" in text
    assert "invoke          error (invalid_arguments): Argument 'max_results'" in text
    assert "toolbox opened: documents. Next request offers" in text
    assert "resolve         delete_document: not in the tool set" in text
    assert "Done: 6 calls in 6 turns; 2 came back as error results" in text


def test_run_demo_colours_only_when_asked() -> None:
    out = io.StringIO()
    run_demo(out, style=Style(color=True))
    assert "\x1b[1mtoolcast demo\x1b[0m" in out.getvalue()
