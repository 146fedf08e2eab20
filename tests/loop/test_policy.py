"""Policy: rules by name, glob, alias, category; deny wins; the evaluator sees typed arguments."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import pytest

from toolcast import Decision, Policy, Tool, ToolCall, tool
from toolcast.policy import matches


@dataclass
class Money:
    amount: int
    currency: str


@tool(aliases=["lookup"], categories=["search", "read"])
def find(query: str) -> str:
    """Find."""
    return query


@tool(categories=["admin"])
def delete_user(user: str) -> str:
    """Delete."""
    return user


@tool(requires_approval=True)
def pay(money: Money) -> str:
    """Pay."""
    return str(money)


FIND, DELETE, PAY = (
    Tool.from_function(find),
    Tool.from_function(delete_user),
    Tool.from_function(pay),
)


def decide(policy: Policy, tool: Tool, arguments: Any = None, name: str | None = None) -> Decision:
    call = ToolCall("c1", name or tool.name, "{}")
    return asyncio.run(policy.evaluate(tool, call, arguments or {}))


@pytest.mark.parametrize(
    ("rule", "tool", "name", "expected"),
    [
        ("find", FIND, None, True),
        ("lookup", FIND, None, True),  # an alias names the tool
        ("find", FIND, "lookup", True),  # called by its alias
        ("f*", FIND, None, True),
        ("look?p", FIND, None, True),
        ("category:search", FIND, None, True),
        ("category:re*", FIND, None, True),
        ("category:admin", FIND, None, False),
        ("delete_*", FIND, None, False),
        ("delete_*", DELETE, None, True),
        ("Find", FIND, None, False),  # case-sensitive, like tool names
    ],
)
def test_rules_match_by_name_alias_glob_and_category(
    rule: str, tool: Tool, name: str | None, expected: bool
) -> None:
    assert matches(rule, tool.spec, name) is expected


def test_deny_wins_over_allow() -> None:
    policy = Policy(allow=["*"], deny=["category:admin"])
    assert decide(policy, FIND).status == "allowed"
    denied = decide(policy, DELETE)
    assert denied == Decision.deny("the policy does not allow it")


def test_allow_comes_before_the_evaluator_and_the_evaluator_before_the_default() -> None:
    seen: list[str] = []

    def evaluator(spec: Any, call: ToolCall, args: Any) -> None:
        seen.append(spec.name)

    policy = Policy(allow=["find"], evaluator=evaluator)
    assert decide(policy, FIND).allowed
    assert decide(policy, DELETE) == Decision.pending("No policy rule matched.")
    assert seen == ["delete_user"]
    assert decide(Policy(default="allow", evaluator=evaluator), DELETE).allowed


def test_the_evaluator_sees_the_spec_the_call_and_typed_arguments() -> None:
    got: dict[str, Any] = {}

    async def evaluator(spec: Any, call: ToolCall, args: Any) -> Decision:
        got.update(spec=spec, call=call, args=args)
        return Decision.deny("too much") if args["money"].amount > 100 else Decision.allow()

    policy = Policy(evaluator=evaluator)
    arguments = PAY.validate('{"money": {"amount": 500, "currency": "EUR"}}')
    assert decide(policy, PAY, arguments) == Decision.deny("too much")
    assert got["spec"] is PAY.spec
    assert got["call"].id == "c1"
    assert got["args"]["money"] == Money(500, "EUR")


def test_bool_verdicts_allow_or_deny() -> None:
    assert decide(Policy(evaluator=lambda s, c, a: True), FIND).allowed
    assert decide(Policy(evaluator=lambda s, c, a: False), FIND).status == "denied"


def test_an_evaluator_that_raises_gives_a_failed_decision() -> None:
    def evaluator(spec: Any, call: ToolCall, args: Any) -> bool:
        raise RuntimeError("database down")

    decision = decide(Policy(evaluator=evaluator), FIND)
    assert decision == Decision.failed("Tool policy evaluation failed: RuntimeError: database down")


def test_an_evaluator_returning_nonsense_gives_a_failed_decision() -> None:
    decision = decide(Policy(evaluator=lambda s, c, a: "yes"), FIND)
    assert decision.status == "failed"
    assert "returned str" in (decision.reason or "")


def test_requires_approval_keeps_an_allowed_call_pending() -> None:
    policy = Policy(allow=["*"])
    assert decide(policy, PAY) == Decision.pending("Tool 'pay' requires approval.")
    assert decide(Policy(deny=["pay"]), PAY).status == "denied"


def test_defer_rules_give_a_deferred_pending_decision() -> None:
    policy = Policy(defer=["find"])
    decision = decide(policy, FIND)
    assert decision.status == "pending"
    assert policy.is_deferred(decision)


def test_the_default_is_pending_and_can_be_allow() -> None:
    assert decide(Policy(), FIND).status == "pending"
    assert decide(Policy(default="allow"), FIND).allowed
    with pytest.raises(ValueError, match="'pending' or 'allow'"):
        Policy(default="deny")  # type: ignore[arg-type]


def test_rules_must_be_non_empty_strings() -> None:
    with pytest.raises(ValueError, match="non-empty strings"):
        Policy(allow=[""])


def test_a_single_string_is_one_rule() -> None:
    assert decide(Policy(allow="find"), FIND).allowed


def test_decision_constructors() -> None:
    assert Decision.allow() == Decision("allowed", None)
    assert Decision.deny("no") == Decision("denied", "no")
    assert Decision.pending() == Decision("pending", None)
    assert Decision.failed("x").status == "failed"
    assert Decision.allow().allowed
    assert not Decision.pending().allowed


def test_evaluate_accepts_a_spec_too() -> None:
    assert asyncio.run(
        Policy(allow=["find"]).evaluate(FIND.spec, ToolCall("c", "find"), {})
    ).allowed
