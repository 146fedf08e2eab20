"""`@tool` on methods: bound methods, an explicit instance, or a resolver per call.

The host keeps its own object lifetime and dependency injection: toolcast either
uses the object it was given or asks the resolver `(tool, call) -> instance` on
every call. A method with neither is refused when the tool is defined.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from toolcast import Tool, ToolCall, ToolContext, ToolDefinitionError, tool

KEY_SCHEMA = {
    "type": "object",
    "properties": {"key": {"type": "string", "description": "What to look up."}},
    "required": ["key"],
    "additionalProperties": False,
}


class Repository:
    """Rows behind a prefix; one instance per tenant."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    @tool(status="Looking up")
    def lookup(self, key: str) -> str:
        """Look up a key.

        Args:
            key: What to look up.
        """
        return f"{self.prefix}:{key}"

    @tool(name="lookup_later")
    async def lookup_async(self, key: str) -> str:
        """Look up a key, asynchronously.

        Args:
            key: What to look up.
        """
        await asyncio.sleep(0)
        return f"{self.prefix}:{key}"

    @tool
    def lookup_with_context(self, key: str, ctx: ToolContext) -> str:
        """Look up a key and say which call asked.

        Args:
            key: What to look up.
        """
        return f"{self.prefix}:{key}@{ctx.call_id}"

    @classmethod
    @tool
    def kind(cls, key: str) -> str:
        """Name the class.

        Args:
            key: What to look up.
        """
        return f"{cls.__name__}:{key}"

    @staticmethod
    @tool
    def shout(key: str) -> str:
        """Upper-case a key.

        Args:
            key: What to look up.
        """
        return key.upper()


# -- the decorated method stays a method ---------------------------------------------


def test_a_decorated_method_stays_directly_callable() -> None:
    repo = Repository("r")
    assert repo.lookup("a") == "r:a"
    assert Repository.lookup(repo, "b") == "r:b"
    assert asyncio.run(repo.lookup_async("c")) == "r:c"
    assert Repository.kind("d") == "Repository:d"
    assert Repository.shout("e") == "E"


# -- bound methods ------------------------------------------------------------------


def test_a_bound_method_becomes_a_tool_without_self_in_the_schema() -> None:
    tool_ = Tool.from_function(Repository("r").lookup)
    assert tool_.spec.name == "lookup"
    assert tool_.spec.description == "Look up a key."
    assert tool_.spec.status == "Looking up"
    assert tool_.spec.input_schema == KEY_SCHEMA
    assert tool_.invoke_sync('{"key": "a"}').text == "r:a"


async def test_a_bound_async_method_is_awaited() -> None:
    tool_ = Tool.from_function(Repository("r").lookup_async)
    assert tool_.spec.name == "lookup_later"
    assert (await tool_.invoke('{"key": "a"}')).text == "r:a"


async def test_a_bound_sync_method_runs_in_a_worker_thread_under_invoke() -> None:
    class Probe:
        @tool
        def where(self) -> int:
            return threading.get_ident()

    outcome = await Tool.from_function(Probe().where).invoke("{}")
    assert outcome.value != threading.get_ident()


def test_a_bound_method_with_a_context_parameter_gets_the_context() -> None:
    tool_ = Tool.from_function(Repository("r").lookup_with_context)
    assert tool_.spec.input_schema == KEY_SCHEMA
    assert tool_.invoke_sync('{"key": "a"}', call_id="c1").text == "r:a@c1"


def test_classmethods_and_staticmethods_need_no_instance() -> None:
    assert Tool.from_function(Repository.kind).invoke_sync('{"key": "a"}').text == "Repository:a"
    assert Tool.from_function(Repository.shout).invoke_sync('{"key": "a"}').text == "A"
    assert Tool.from_function(Repository.kind).spec.input_schema == KEY_SCHEMA


def test_tools_from_two_bound_instances_are_independent() -> None:
    one = Tool.from_function(Repository("one").lookup)
    two = Tool.from_function(Repository("two").lookup)
    assert one.invoke_sync('{"key": "k"}').text == "one:k"
    assert two.invoke_sync('{"key": "k"}').text == "two:k"


# -- an unbound method with an instance ----------------------------------------------


def test_an_unbound_method_with_an_instance_runs_on_that_instance() -> None:
    tool_ = Tool.from_function(Repository.lookup, instance=Repository("inst"))
    assert tool_.spec.input_schema == KEY_SCHEMA
    assert tool_.invoke_sync('{"key": "a"}').text == "inst:a"


async def test_an_unbound_async_method_with_an_instance_is_awaited() -> None:
    tool_ = Tool.from_function(Repository.lookup_async, instance=Repository("inst"))
    assert (await tool_.invoke('{"key": "a"}')).text == "inst:a"


def test_an_unbound_method_with_an_instance_also_gets_the_context() -> None:
    tool_ = Tool.from_function(Repository.lookup_with_context, instance=Repository("i"))
    assert tool_.invoke_sync('{"key": "a"}', call_id="c2").text == "i:a@c2"


def test_undecorated_methods_work_the_same_way() -> None:
    class Plain:
        def __init__(self, n: int) -> None:
            self.n = n

        def times(self, k: int) -> int:
            return self.n * k

    assert Tool.from_function(Plain(3).times).invoke_sync('{"k": 2}').value == 6
    assert Tool.from_function(Plain.times, instance=Plain(4)).invoke_sync('{"k": 2}').value == 8


# -- an unbound method with a resolver -------------------------------------------------


def test_the_resolver_is_asked_on_every_call_with_the_tool_call() -> None:
    calls: list[tuple[Tool, ToolCall]] = []

    def resolver(tool_: Tool, call: ToolCall) -> Repository:
        calls.append((tool_, call))
        return Repository(f"tenant-{call.id}")

    tool_ = Tool.from_function(Repository.lookup, resolver=resolver)
    assert tool_.invoke_sync('{"key": "a"}', call_id="c1").text == "tenant-c1:a"
    assert tool_.invoke_sync('{"key": "b"}', call_id="c2").text == "tenant-c2:b"
    assert [(t, c.id, c.name, dict(c.arguments)) for t, c in calls] == [
        (tool_, "c1", "lookup", {"key": "a"}),
        (tool_, "c2", "lookup", {"key": "b"}),
    ]


def test_the_resolver_sees_only_the_models_arguments() -> None:
    """Injected host values and the ToolContext are not the model's arguments."""
    seen: list[ToolCall] = []

    def resolver(tool_: Tool, call: ToolCall) -> Repository:
        seen.append(call)
        return Repository("r")

    tool_ = Tool.from_function(Repository.lookup_with_context, resolver=resolver)
    assert tool_.invoke_sync('{"key": "a"}', call_id="c3").text == "r:a@c3"
    assert dict(seen[0].arguments) == {"key": "a"}


async def test_the_resolver_is_asked_for_async_methods_too() -> None:
    tool_ = Tool.from_function(Repository.lookup_async, resolver=lambda t, c: Repository(c.id))
    assert (await tool_.invoke('{"key": "a"}', call_id="x")).text == "x:a"


def test_the_resolver_is_not_asked_when_the_arguments_are_invalid() -> None:
    calls: list[ToolCall] = []

    def resolver(tool_: Tool, call: ToolCall) -> Repository:
        calls.append(call)
        return Repository("r")

    tool_ = Tool.from_function(Repository.lookup, resolver=resolver)
    assert tool_.invoke_sync('{"key": 1}').text == "Argument 'key' must be a string (got 1)."
    assert calls == []


def test_a_failing_resolver_becomes_an_error_result() -> None:
    def resolver(tool_: Tool, call: ToolCall) -> Any:
        raise LookupError("no session for this user")

    outcome = Tool.from_function(Repository.lookup, resolver=resolver).invoke_sync('{"key": "a"}')
    assert outcome.is_error
    assert outcome.text == "Tool 'lookup' failed: LookupError: no session for this user"
    assert isinstance(outcome.exception, LookupError)


# -- refused at definition -----------------------------------------------------------


def test_a_method_without_instance_or_resolver_is_refused_at_definition() -> None:
    with pytest.raises(ToolDefinitionError) as info:
        Tool.from_function(Repository.lookup)
    assert info.value.codes == ("unbound-method",)
    assert info.value.qualname == "Repository.lookup"
    assert str(info.value) == (
        "Repository.lookup cannot become a tool (1 problem):\n"
        "  [unbound-method] self: this is a method: pass a bound method (obj.method), "
        "instance=obj, or resolver=(tool, call) -> obj."
    )


def test_an_async_method_without_instance_or_resolver_is_refused_too() -> None:
    with pytest.raises(ToolDefinitionError) as info:
        Tool.from_function(Repository.lookup_async)
    assert info.value.codes == ("unbound-method",)


def test_the_refusal_is_a_type_error_for_callers_that_catch_those() -> None:
    with pytest.raises(TypeError):
        Tool.from_function(Repository.lookup)
