"""Each integration says what to install when its framework is missing; the gate's decisions."""

from __future__ import annotations

import importlib
import sys

import pytest

from toolcast import Decision, Policy, ToolCall
from toolcast.integrations._gate import Gate

from .tools import POLICY, toolset


@pytest.mark.parametrize(
    ("module", "framework", "extra"),
    [
        ("pydantic_ai", "pydantic_ai", "pydantic-ai"),
        ("openai_agents", "agents", "openai-agents"),
        ("langchain", "langchain_core", "langchain"),
    ],
)
def test_a_missing_framework_names_the_extra(
    module: str, framework: str, extra: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = f"toolcast.integrations.{module}"
    monkeypatch.delitem(sys.modules, name, raising=False)
    for loaded in [m for m in sys.modules if m == framework or m.startswith(framework + ".")]:
        monkeypatch.setitem(sys.modules, loaded, None)  # importing it (or a part) fails
    monkeypatch.setitem(sys.modules, framework, None)
    with pytest.raises(ImportError, match=rf"pip install 'toolcast\[{extra}\]'"):
        importlib.import_module(name)
    monkeypatch.delitem(sys.modules, name, raising=False)


def test_the_gate_takes_a_toolset_and_a_policy() -> None:
    with pytest.raises(TypeError, match="ToolSet"):
        Gate([], None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="Policy"):
        Gate(toolset(), {"allow": ["*"]})  # type: ignore[arg-type]


async def test_the_evaluator_and_the_approver_see_typed_arguments_once() -> None:
    asked: list[object] = []

    def approver(spec, call, arguments):  # type: ignore[no-untyped-def]
        asked.append(arguments)
        return Decision.allow() if arguments["quantity"] <= 5 else Decision.deny("too many")

    gate = Gate(toolset(), POLICY, approver=approver)
    thread = gate.thread("c")
    small = await gate.decide(thread, ToolCall("o1", "place_order", '{"sku": 1, "quantity": 2}'))
    big = await gate.decide(thread, ToolCall("o2", "place_order", '{"sku": 1, "quantity": 9}'))
    assert small.status == "run"
    assert big.outcome is not None
    assert big.outcome.text == "Tool 'place_order' was denied: too many"
    assert asked == [{"sku": 1, "quantity": 2}, {"sku": 1, "quantity": 9}]


async def test_a_failing_evaluator_is_a_refusal_without_internals() -> None:
    def broken(spec, call, arguments):  # type: ignore[no-untyped-def]
        raise KeyError("session")

    gate = Gate(toolset(), Policy(evaluator=broken))
    verdict = await gate.decide(gate.thread("c"), ToolCall("f1", "find_product", '{"query": "x"}'))
    assert verdict.outcome is not None
    assert verdict.outcome.text == "Tool 'find_product' was not run: its policy check failed."


async def test_a_defer_rule_is_a_deferred_verdict() -> None:
    gate = Gate(toolset(), Policy(defer=["find_product"]))
    verdict = await gate.decide(gate.thread("c"), ToolCall("f1", "find_product", "{}"))
    assert verdict.status == "deferred"


async def test_approved_calls_run_once_and_only_unchanged() -> None:
    gate = Gate(toolset(), POLICY)
    thread = gate.thread("c")
    call = ToolCall("o1", "place_order", '{"sku": 1, "quantity": 2}')
    paused = await gate.decide(thread, call)
    assert paused.status == "pending"
    same = ToolCall("o1", "place_order", '{"quantity": 2,  "sku": 1}')  # canonical JSON: same
    assert gate.approved(thread, same).status == "run"
    again = gate.approved(thread, same)  # the approval was used up
    assert again.outcome is not None
    assert "no approval request" in again.outcome.text
    await gate.decide(thread, call)
    changed = gate.approved(thread, ToolCall("o1", "place_order", '{"sku": 1, "quantity": 3}'))
    assert changed.outcome is not None
    assert "arguments changed after they were approved" in changed.outcome.text


def test_threads_are_bounded_and_keyed_by_identity() -> None:
    gate = Gate(toolset(), POLICY, max_threads=2)
    one, two = object(), object()
    assert gate.thread(one) is gate.thread(one)
    assert gate.thread(one) is not gate.thread(two)
    first = gate.thread("a")
    gate.thread("b")
    gate.thread("c")
    assert gate.thread("a") is not first  # the least recently used was forgotten
