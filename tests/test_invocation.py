"""Invoking a tool: where it runs, what it is given, and what `invoke` adds.

Coroutines are awaited; a blocking sync tool runs in a worker thread under
`invoke` so the event loop never stalls; `@tool(blocking=False)` and
`invoke_sync` run inline. Arguments arrive as text, bytes or a mapping; the
`ToolContext` and host values are injected; `null_means_default` is opt-in;
deprecated tools carry a note.
"""

from __future__ import annotations

import asyncio
import contextvars
import datetime as dt
import threading
import types
import uuid
from dataclasses import dataclass
from typing import Annotated, Any

import pytest
from pydantic import Field

from toolcast import Injected, TextPart, Tool, ToolContext, tool

request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")


def where() -> int:
    """Which thread ran me."""
    return threading.get_ident()


@tool(blocking=False)
def where_inline() -> int:
    return threading.get_ident()


async def where_async() -> int:
    return threading.get_ident()


# -- sync, async, threads ---------------------------------------------------------


async def test_a_coroutine_function_is_awaited() -> None:
    async def double(x: int) -> int:
        await asyncio.sleep(0)
        return x * 2

    tool_ = Tool.from_function(double)
    assert tool_.spec.is_async
    outcome = await tool_.invoke('{"x": 21}')
    assert outcome.value == 42
    assert outcome.text == "42"


async def test_an_async_tool_runs_on_the_event_loop_thread() -> None:
    outcome = await Tool.from_function(where_async).invoke("{}")
    assert outcome.value == threading.get_ident()


async def test_a_plain_sync_tool_runs_in_a_worker_thread_under_invoke() -> None:
    tool_ = Tool.from_function(where)
    assert tool_.spec.blocking
    outcome = await tool_.invoke("{}")
    assert outcome.value != threading.get_ident()


async def test_a_non_blocking_sync_tool_runs_inline_on_the_loop_thread() -> None:
    tool_ = Tool.from_function(where_inline)
    assert not tool_.spec.blocking
    outcome = await tool_.invoke("{}")
    assert outcome.value == threading.get_ident()


async def test_blocking_false_can_also_be_given_to_from_function() -> None:
    outcome = await Tool.from_function(where, blocking=False).invoke("{}")
    assert outcome.value == threading.get_ident()


def test_async_tools_are_never_marked_blocking() -> None:
    assert not Tool.from_function(where_async).spec.blocking


async def test_the_event_loop_keeps_running_while_a_sync_tool_blocks() -> None:
    release = threading.Event()

    def wait_for_release() -> bool:
        return release.wait(10)

    async def release_soon() -> None:
        await asyncio.sleep(0.01)
        release.set()

    # If the tool ran on the loop thread, release_soon could never run.
    outcome, _ = await asyncio.gather(
        Tool.from_function(wait_for_release).invoke("{}"), release_soon()
    )
    assert outcome.value is True


async def test_context_variables_reach_the_worker_thread() -> None:
    def read_request_id() -> str:
        return request_id.get()

    token = request_id.set("req-42")
    try:
        outcome = await Tool.from_function(read_request_id).invoke("{}")
    finally:
        request_id.reset(token)
    assert outcome.value == "req-42"


def test_invoke_sync_runs_a_sync_tool_inline() -> None:
    assert Tool.from_function(where).invoke_sync("{}").value == threading.get_ident()


def test_invoke_sync_runs_an_async_tool_outside_an_event_loop() -> None:
    async def greet(name: str) -> str:
        await asyncio.sleep(0)
        return f"hello {name}"

    assert Tool.from_function(greet).invoke_sync('{"name": "Ada"}').text == "hello Ada"


async def test_invoke_sync_of_an_async_tool_inside_an_event_loop_raises() -> None:
    tool_ = Tool.from_function(where_async)
    with pytest.raises(RuntimeError) as info:
        tool_.invoke_sync("{}")
    assert str(info.value) == (
        "Tool 'where' is async: use 'await tool.invoke(...)' inside an event loop."
    )


async def test_invoke_sync_of_a_sync_tool_inside_an_event_loop_is_fine() -> None:
    assert Tool.from_function(where).invoke_sync("{}").value == threading.get_ident()


async def test_timeouts_are_not_enforced_for_non_blocking_sync_tools() -> None:
    @tool(blocking=False, timeout=0.01)
    def busy() -> str:
        threading.Event().wait(0.1)
        return "finished"

    outcome = await Tool.from_function(busy).invoke("{}")
    assert outcome.text == "finished"


def test_timeouts_are_not_enforced_by_invoke_sync_for_sync_tools() -> None:
    @tool(timeout=0.01)
    def busy() -> str:
        threading.Event().wait(0.1)
        return "finished"

    assert Tool.from_function(busy).invoke_sync("{}").text == "finished"


def test_invoke_sync_enforces_the_timeout_of_an_async_tool() -> None:
    @tool(timeout=0.05)
    async def slow() -> str:
        await asyncio.sleep(10)
        return "late"

    assert Tool.from_function(slow).invoke_sync("{}").text == "Tool 'slow' timed out after 0.05 s."


# -- arguments: text, bytes, mapping -------------------------------------------------


def add(a: int, b: int = 0) -> int:
    return a + b


@pytest.mark.parametrize(
    "arguments",
    [
        '{"a": 2, "b": 3}',
        b'{"a": 2, "b": 3}',
        bytearray(b'{"a": 2, "b": 3}'),
        {"a": 2, "b": 3},
        types.MappingProxyType({"a": 2, "b": 3}),
    ],
    ids=["str", "bytes", "bytearray", "dict", "mappingproxy"],
)
async def test_arguments_may_be_text_bytes_or_a_mapping(arguments: Any) -> None:
    outcome = await Tool.from_function(add).invoke(arguments)
    assert outcome.value == 5


def test_a_mapping_passed_as_arguments_is_not_mutated() -> None:
    def ctx_tool(a: int, ctx: ToolContext) -> int:
        return a

    arguments = {"a": 1}
    Tool.from_function(ctx_tool).invoke_sync(arguments)
    assert arguments == {"a": 1}


def test_arguments_are_converted_to_the_annotated_types() -> None:
    @dataclass
    class Seen:
        when: dt.datetime
        ident: uuid.UUID
        tags: frozenset[str]

    def record(when: dt.datetime, ident: uuid.UUID, tags: frozenset[str]) -> str:
        seen.append(Seen(when, ident, tags))
        return "ok"

    seen: list[Seen] = []
    Tool.from_function(record).invoke_sync(
        '{"when": "2024-05-01T09:30:00Z", "ident": "123e4567-e89b-12d3-a456-426614174000", '
        '"tags": ["a", "b"]}'
    )
    assert seen == [
        Seen(
            dt.datetime(2024, 5, 1, 9, 30, tzinfo=dt.timezone.utc),
            uuid.UUID("123e4567-e89b-12d3-a456-426614174000"),
            frozenset({"a", "b"}),
        )
    ]


def test_validate_returns_the_converted_arguments_without_running_the_tool() -> None:
    ran: list[int] = []

    def count(n: int) -> int:
        ran.append(n)
        return n

    tool_ = Tool.from_function(count)
    assert tool_.validate('{"n": 3}') == {"n": 3}
    with pytest.raises(ValueError, match=r"^Argument 'n' must be an integer \(got \"x\"\)\.$"):
        tool_.validate('{"n": "x"}')
    assert ran == []


def test_an_omitted_pydantic_field_default_is_used_not_the_fieldinfo() -> None:
    def search(
        query: str = Field(default="*", description="A glob."),
        limit: int = Field(default_factory=lambda: 7),
    ) -> str:
        return f"{query}|{limit}"

    tool_ = Tool.from_function(search)
    assert tool_.invoke_sync("{}").text == "*|7"
    assert tool_.invoke_sync('{"query": "a*", "limit": 2}').text == "a*|2"


# -- ToolContext and injected host values -------------------------------------------


async def test_the_tool_context_carries_call_id_tool_name_and_state() -> None:
    seen: list[ToolContext] = []

    def lookup(key: str, ctx: ToolContext) -> str:
        seen.append(ctx)
        return ctx.state["prefix"] + key

    tool_ = Tool.from_function(lookup, name="get")
    assert list(tool_.spec.input_schema["properties"]) == ["key"]
    outcome = await tool_.invoke(
        '{"key": "k"}', context=ToolContext(state={"prefix": "p:"}), call_id="call_1"
    )
    assert outcome.text == "p:k"
    assert outcome.call_id == "call_1"
    ctx = seen[0]
    assert (ctx.call_id, ctx.tool_name, dict(ctx.state)) == ("call_1", "get", {"prefix": "p:"})
    assert not ctx.cancelled


def test_a_context_is_made_when_the_host_passes_none() -> None:
    def whoami(ctx: ToolContext) -> str:
        return f"{ctx.tool_name}/{ctx.call_id}/{dict(ctx.state)}"

    assert Tool.from_function(whoami).invoke_sync("{}", call_id="c9").text == "whoami/c9/{}"


def test_the_call_id_of_a_host_context_is_kept_when_none_is_passed() -> None:
    def whoami(ctx: ToolContext) -> str | None:
        return ctx.call_id

    outcome = Tool.from_function(whoami).invoke_sync("{}", context=ToolContext(call_id="c3"))
    assert outcome.value == "c3"
    assert outcome.call_id == "c3"


def test_an_optional_context_parameter_is_filled_too() -> None:
    def maybe(q: str, ctx: ToolContext | None = None) -> str:
        return f"{q}:{ctx.tool_name if ctx else None}"

    tool_ = Tool.from_function(maybe)
    assert list(tool_.spec.input_schema["properties"]) == ["q"]
    assert tool_.invoke_sync('{"q": "a"}').text == "a:maybe"


def test_each_call_gets_its_own_cancel_signal_but_shares_state() -> None:
    seen: list[ToolContext] = []

    def note(ctx: ToolContext) -> None:
        seen.append(ctx)

    host = ToolContext(state={"user": "ada"})
    tool_ = Tool.from_function(note)
    tool_.invoke_sync("{}", context=host)
    tool_.invoke_sync("{}", context=host)
    assert seen[0] is not seen[1]
    assert seen[0].cancel_event is not seen[1].cancel_event
    assert seen[0].state is host.state is seen[1].state


class Database:
    def __init__(self, rows: dict[str, str]) -> None:
        self.rows = rows


def fetch(key: str, db: Annotated[Database, Injected("db")]) -> str:
    return db.rows[key]


def test_an_injected_value_comes_from_the_context_state_and_is_not_in_the_schema() -> None:
    tool_ = Tool.from_function(fetch)
    assert tool_.spec.input_schema == {
        "type": "object",
        "properties": {"key": {"type": "string"}},
        "required": ["key"],
        "additionalProperties": False,
    }
    context = ToolContext(state={"db": Database({"a": "apple"})})
    assert tool_.invoke_sync('{"key": "a"}', context=context).text == "apple"


def test_the_model_cannot_supply_an_injected_value() -> None:
    outcome = Tool.from_function(fetch).invoke_sync(
        '{"key": "a", "db": {"rows": {}}}', context=ToolContext(state={"db": Database({})})
    )
    assert outcome.text == "Argument 'db' is not accepted by 'fetch' (known: key)."


async def test_a_missing_injected_value_is_an_error_result_with_the_exception_logged() -> None:
    outcome = await Tool.from_function(fetch).invoke('{"key": "a"}', context=ToolContext())
    assert outcome.is_error
    assert outcome.text == "Tool 'fetch' is not available right now."
    assert outcome.error is not None
    assert outcome.error.kind == "exception"
    assert isinstance(outcome.exception, RuntimeError)
    assert "'db'" in str(outcome.exception)  # the host's log names the missing key


def test_a_missing_injected_value_without_any_context_is_an_error_result() -> None:
    outcome = Tool.from_function(fetch).invoke_sync('{"key": "a"}')
    assert outcome.text == "Tool 'fetch' is not available right now."


# -- null_means_default ---------------------------------------------------------------


@dataclass
class Page:
    size: int = 10
    cursor: str | None = None


def list_items(query: str = "*", limit: int = 5, page: Page | None = None) -> str:
    return f"{query}|{limit}|{page}"


def test_null_means_default_treats_null_as_the_default_at_the_top_level() -> None:
    tool_ = Tool.from_function(list_items)
    outcome = tool_.invoke_sync('{"query": null, "limit": null}', null_means_default=True)
    assert outcome.text == "*|5|None"


def test_null_means_default_applies_to_nested_dataclass_fields() -> None:
    tool_ = Tool.from_function(list_items)
    outcome = tool_.invoke_sync('{"page": {"size": null, "cursor": "c"}}', null_means_default=True)
    assert outcome.text == "*|5|Page(size=10, cursor='c')"


def test_plain_invoke_refuses_null_for_a_defaulted_parameter() -> None:
    tool_ = Tool.from_function(list_items)
    assert tool_.invoke_sync('{"limit": null}').text == (
        "Argument 'limit' must be an integer (got null)."
    )
    assert tool_.invoke_sync('{"page": {"size": null}}').text == (
        "Argument 'page.size' must be an integer (got null)."
    )


async def test_null_means_default_is_accepted_by_async_invoke_and_validate() -> None:
    tool_ = Tool.from_function(list_items)
    outcome = await tool_.invoke('{"limit": null}', null_means_default=True)
    assert outcome.text == "*|5|None"
    assert tool_.validate('{"limit": null}', null_means_default=True) == {}


def test_null_means_default_keeps_null_where_null_is_allowed() -> None:
    def pick(choice: int | None = 3) -> str:
        return repr(choice)

    assert Tool.from_function(pick).invoke_sync(
        '{"choice": null}', null_means_default=True
    ).text == ("None")


def test_null_means_default_still_refuses_null_for_a_required_parameter() -> None:
    def echo(text: str) -> str:
        return text

    outcome = Tool.from_function(echo).invoke_sync('{"text": null}', null_means_default=True)
    assert outcome.text == "Argument 'text' must be a string (got null)."


# -- deprecation --------------------------------------------------------------------


def test_a_deprecated_tool_adds_a_note_naming_the_replacement() -> None:
    @tool(deprecated="Superseded by the v2 search.", replaced_by="search_v2")
    def search(q: str) -> str:
        return f"results for {q}"

    outcome = Tool.from_function(search).invoke_sync('{"q": "x"}')
    note = (
        "Note: tool 'search' is deprecated: Superseded by the v2 search. Use 'search_v2' instead."
    )
    assert not outcome.is_error
    assert outcome.content == (TextPart("results for x"), TextPart(note))
    assert outcome.text == f"results for x\n{note}"
    assert outcome.value == "results for x"


def test_a_deprecated_tool_without_replacement_notes_only_the_reason() -> None:
    @tool(deprecated="Will be removed in 2.0.")
    def ping() -> None:
        return None

    outcome = Tool.from_function(ping).invoke_sync("{}")
    assert outcome.text == "Note: tool 'ping' is deprecated: Will be removed in 2.0."


def test_a_deprecated_tool_keeps_its_structured_result() -> None:
    @tool(deprecated="Old.", replaced_by="sum_v2")
    def total(values: list[int]) -> int:
        return sum(values)

    outcome = Tool.from_function(total).invoke_sync('{"values": [1, 2]}')
    assert outcome.structured == 3
    assert outcome.text.startswith("3\nNote: tool 'total' is deprecated: Old.")


def test_a_failing_deprecated_tool_gets_no_note() -> None:
    @tool(deprecated="Old.", replaced_by="new")
    def broken(x: int) -> int:
        return x

    assert Tool.from_function(broken).invoke_sync('{"x": "a"}').text == (
        "Argument 'x' must be an integer (got \"a\")."
    )


# -- schema tools -----------------------------------------------------------------


def test_a_schema_tool_handler_receives_the_validated_object() -> None:
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
    }
    tool_ = Tool.from_schema("weather", "Weather for a city.", schema, lambda args: args)
    assert tool_.invoke_sync('{"city": "Oslo"}').value == {"city": "Oslo"}
    assert tool_.invoke_sync("{}").text == "Argument 'city' is required."


async def test_a_schema_tool_handler_with_two_parameters_gets_the_context() -> None:
    schema = {"type": "object", "properties": {}, "additionalProperties": False}

    async def handler(args: dict[str, Any], ctx: ToolContext) -> str:
        return f"{ctx.tool_name}:{ctx.call_id}:{args}"

    tool_ = Tool.from_schema("echo", "", schema, handler)
    assert (await tool_.invoke("{}", call_id="c1")).text == "echo:c1:{}"


def test_an_injected_parameter_with_a_default_uses_it_when_the_host_has_no_value() -> None:
    def lookup(q: str, region: Annotated[str, Injected("region")] = "eu") -> str:
        return f"{q}@{region}"

    lookup_tool = Tool.from_function(lookup)
    assert "region" not in lookup_tool.spec.input_schema["properties"]
    assert lookup_tool.invoke_sync('{"q": "x"}').text == "x@eu"
    context = ToolContext(state={"region": "us"})
    assert lookup_tool.invoke_sync('{"q": "x"}', context=context).text == "x@us"
