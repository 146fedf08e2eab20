"""Policy: who may run what. Allow and deny rules, an evaluator that sees the arguments.

`Policy.evaluate(tool, call, arguments)` gives a `Decision` (allowed, denied,
pending, failed). This wing imports only the root vocabulary (`_spec`, `_tool`);
the run loop (`toolcast.loop`) and the MCP server build on it.
"""

from __future__ import annotations

from toolcast.policy._decision import Decision, DecisionStatus
from toolcast.policy._policy import Approver, DefaultDecision, Evaluator, Policy, matches

__all__ = (
    "Approver",
    "Decision",
    "DecisionStatus",
    "DefaultDecision",
    "Evaluator",
    "Policy",
    "matches",
)
