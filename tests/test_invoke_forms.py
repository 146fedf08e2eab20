"""One way to invoke (issue 9 item 3): `Tool` and `ToolSet` accept the same things.

A `ToolCall` carries its own provider options, so no `**invoke_options` is
needed (it still works); host mistakes raise a `TypeError` saying what to pass;
the model's input never raises.
"""

from __future__ import annotations

import pytest

from toolcast import Catalog, Tool, ToolCall
from toolcast.providers import mistral, openai_chat, openai_responses


def add(a: int, b: int = 0) -> int:
    """Add two integers."""
    return a + b


TOOLS = Catalog([add]).select()
ADD = Tool.from_function(add)
STRICT_CALL = ToolCall("call_1", "add", '{"a": 2, "b": null}', {"null_means_default": True})


def reply(arguments: str) -> dict[str, object]:
    return {
        "role": "assistant",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "add", "arguments": arguments},
            }
        ],
    }


def test_tool_invoke_sync_takes_a_tool_call() -> None:
    outcome = ADD.invoke_sync(ToolCall("call_9", "add", '{"a": 1, "b": 2}'))
    assert (outcome.is_error, outcome.text, outcome.call_id) == (False, "3", "call_9")


async def test_tool_invoke_takes_a_tool_call() -> None:
    outcome = await ADD.invoke(ToolCall("call_9", "add", {"a": 1}))
    assert (outcome.text, outcome.call_id) == ("1", "call_9")


def test_a_tool_call_carries_its_provider_options() -> None:
    for outcome in (TOOLS.invoke_sync(STRICT_CALL), ADD.invoke_sync(STRICT_CALL)):
        assert (outcome.is_error, outcome.text) == (False, "2")


def test_a_call_parsed_from_a_strict_projection_needs_no_invoke_options() -> None:
    [call] = openai_chat.parse_calls(reply('{"a": 5, "b": null}'))
    assert TOOLS.invoke_sync(call).text == "5"
    assert ADD.invoke_sync(call).text == "5"


async def test_toolset_invoke_accepts_invoke_options_too() -> None:
    [call] = openai_chat.parse_calls(reply('{"a": 5, "b": null}'))
    outcome = await TOOLS.invoke(call, **openai_chat.invoke_options(call))
    assert outcome.text == "5"
    assert TOOLS.invoke_sync(call, **openai_chat.invoke_options(call)).text == "5"
    assert ADD.invoke_sync(call, **openai_chat.invoke_options(call)).text == "5"


def test_keyword_options_win_over_what_the_call_carries() -> None:
    strict = TOOLS.invoke_sync(STRICT_CALL, null_means_default=False)
    assert strict.text == "Argument 'b' must be an integer (got null)."
    renamed = TOOLS.invoke_sync(STRICT_CALL, call_id="other")
    assert renamed.call_id == "other"


def test_other_providers_calls_work_the_same_way() -> None:
    [chat] = mistral.parse_calls(
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "abcDEF123", "function": {"name": "add", "arguments": '{"a": 4, "b": null}'}}
            ],
        }
    )
    [response] = openai_responses.parse_calls(
        {
            "output": [
                {
                    "type": "function_call",
                    "call_id": "fc_1",
                    "name": "add",
                    "arguments": '{"a": 6, "b": null}',
                }
            ]
        }
    )
    assert TOOLS.invoke_sync(chat).text == "4"
    assert TOOLS.invoke_sync(response).text == "6"


def test_toolset_invoke_sync_with_bare_arguments_raises_a_type_error_saying_what_to_pass() -> None:
    with pytest.raises(TypeError, match=r"takes a ToolCall .*tools\.resolve\(name\)\.invoke"):
        TOOLS.invoke_sync('{"city": "x"}')  # type: ignore[arg-type]


async def test_toolset_invoke_with_bare_arguments_raises_a_type_error() -> None:
    with pytest.raises(TypeError, match="takes a ToolCall"):
        await TOOLS.invoke({"a": 1})  # type: ignore[arg-type]


def test_tool_invoke_with_something_that_is_not_arguments_raises_a_type_error() -> None:
    class Reply:  # e.g. an SDK's own tool-call object
        name = "add"

    with pytest.raises(TypeError, match=r"a ToolCall, or the arguments alone .*got Reply"):
        ADD.invoke_sync(Reply())  # type: ignore[arg-type]
    # A JSON value that is not an object may be what the model sent: a result.
    assert ADD.invoke_sync(7).text == "Arguments for 'add' must be a JSON object."  # type: ignore[arg-type]


def test_what_the_model_sent_inside_a_call_never_raises() -> None:
    for arguments in ("[1, 2]", "not json", '{"a": "two"}'):
        outcome = TOOLS.invoke_sync(ToolCall("c", "add", arguments))
        assert outcome.error is not None
        assert outcome.error.kind == "invalid_arguments"
    invented = TOOLS.invoke_sync(ToolCall("c", "subtract", "{}"))
    assert invented.error is not None
    assert invented.error.kind == "unknown_tool"
    parsed_list = ADD.invoke_sync(ToolCall("c", "add", [1, 2]))  # type: ignore[arg-type]
    assert parsed_list.text == "Arguments for 'add' must be a JSON object."
