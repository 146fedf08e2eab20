"""`toolcast demo`: the example tools, three wire formats, and a recorded conversation.

Everything but the model runs for real: the example catalog is built by
discovery, projected by the provider modules, and each recorded model reply
(`toolcast/examples/conversation.json`, in the exact shape of an OpenAI Chat
Completions response) goes through `parse_calls`, `ToolSet.resolve`,
`Tool.invoke` and `format_results`, as a host's loop would. `play` returns the
turns as data, so tests assert on the pipeline rather than on printed text.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from types import ModuleType
from typing import Any, TextIO

from toolcast._catalog._catalog import ToolSet, UnknownToolError
from toolcast._cli._layout import Style, compact_json
from toolcast._outcome import ToolOutcome
from toolcast._spec import ToolCall
from toolcast.aliases import RAW_IDS

__all__ = ("Turn", "load_conversation", "play", "run_demo")

_PROJECTED = ("openai_chat", "anthropic", "gemini")
_SHOWCASE_TOOL = "find_places"
_WIDTH = 100


@dataclass(frozen=True, slots=True)
class Turn:
    """One recorded model reply and what the pipeline made of it."""

    number: int
    """1 for the model's first reply."""
    response: Mapping[str, Any]
    """The recorded reply, as the provider's API returns it."""
    calls: tuple[ToolCall, ...] = ()
    """The calls `parse_calls` found (none on the final answer)."""
    resolved: tuple[bool, ...] = ()
    """Per call: whether the tool set knew the name."""
    outcomes: tuple[ToolOutcome, ...] = ()
    """Per call: what the invocation produced."""
    replies: tuple[Mapping[str, Any], ...] = ()
    """The result messages `format_results` built, sent with the next request."""
    opened: tuple[str, ...] = ()
    """Toolboxes the model opened this turn."""
    tools_next: tuple[str, ...] = ()
    """The tools offered with the next request."""
    answer: str | None = None
    """The model's final text, on the turn without calls."""


def load_conversation() -> dict[str, Any]:
    """The recorded conversation shipped in `toolcast.examples`."""
    text = (
        resources.files("toolcast.examples")
        .joinpath("conversation.json")
        .read_text(encoding="utf-8")
    )
    conversation: dict[str, Any] = json.loads(text)
    return conversation


def _provider(name: str) -> ModuleType:
    import importlib

    return importlib.import_module(f"toolcast.providers.{name}")


async def _run(toolset: ToolSet, call: ToolCall, provider: ModuleType) -> tuple[bool, ToolOutcome]:
    try:
        tool = toolset.resolve(call.name)
    except UnknownToolError as exc:
        return False, exc.outcome(call_id=call.id)
    # Strict OpenAI tools send null for an omitted optional argument; the
    # provider says how its calls must be invoked.
    invoke_options = getattr(provider, "invoke_options", None)
    options = invoke_options(call) if invoke_options is not None else {}
    # A replay of recorded responses: the ids are the recording's own, sent as they are.
    return True, await tool.invoke(call.arguments, call_id=call.id, aliases=RAW_IDS, **options)


async def play(
    toolset: ToolSet,
    responses: Sequence[Mapping[str, Any]],
    *,
    provider: str = "openai_chat",
) -> list[Turn]:
    """Run each recorded reply through the real pipeline, as a host's loop would."""
    module = _provider(provider)
    offered = toolset.tools()
    turns: list[Turn] = []
    for number, response in enumerate(responses, start=1):
        calls = tuple(module.parse_calls(response))
        if not calls:
            message = response["choices"][0]["message"]
            turns.append(Turn(number=number, response=response, answer=message.get("content")))
            break
        results = [await _run(toolset, call, module) for call in calls]
        outcomes = tuple(outcome for _, outcome in results)
        replies = tuple(module.format_results(outcomes, calls=calls))
        opened = tuple(
            call.name
            for call, outcome in zip(calls, outcomes, strict=True)
            if toolset.is_selector(call.name) and not outcome.is_error
        )
        offered = toolset.next_tools(offered, opened)
        turns.append(
            Turn(
                number=number,
                response=response,
                calls=calls,
                resolved=tuple(ok for ok, _ in results),
                outcomes=outcomes,
                replies=replies,
                opened=opened,
                tools_next=tuple(tool.name for tool in offered),
            )
        )
    return turns


# --------------------------------------------------------------------------- output


def _clip(text: str, width: int = _WIDTH) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _arguments(call: ToolCall) -> str:
    raw = call.arguments
    if isinstance(raw, (bytes, bytearray)):
        raw = raw.decode("utf-8", "replace")
    return raw if isinstance(raw, str) else json.dumps(raw, separators=(",", ":"))


class _Printer:
    def __init__(self, out: TextIO, style: Style) -> None:
        self.out = out
        self.style = style

    def line(self, text: str = "") -> None:
        self.out.write(text.rstrip() + "\n")

    def section(self, number: int, title: str) -> None:
        self.line()
        self.line(self.style(f"{number}  {title}", "bold"))


def _show_tools(p: _Printer, toolset: ToolSet) -> None:
    s = p.style
    p.section(1, "The tools")
    p.line(
        "   Catalog.from_modules(examples.places, examples.documents)"
        ".select(include_selectors=True)"
    )
    p.line("   The model starts with these; the documents toolbox is one selector until opened.")
    width = max(len(name) for name in toolset.names())
    boxes = {box.name: box for box in toolset.toolboxes()}
    for tool in toolset.tools():
        box = boxes.get(tool.name)
        about = tool.spec.description
        if box is not None:
            about = f"toolbox of {', '.join(box.member_names)}"
        p.line(f"   {s(tool.name.ljust(width), 'cyan')}  {_clip(about, 76)}")


def _show_projections(p: _Printer, toolset: ToolSet) -> None:
    s = p.style
    tool = toolset.resolve(_SHOWCASE_TOOL)
    p.section(2, f"One tool, three wire formats: {_SHOWCASE_TOOL}")
    p.line(
        "   One canonical schema; each provider module down-converts it and notes every lossy step."
    )
    for name in _PROJECTED:
        projection = _provider(name).project(tool)
        mode = "strict" if projection.strict else "not strict"
        p.line()
        p.line(f"   {s(name, 'bold', 'cyan')} ({mode})")
        for row in compact_json(dict(projection.definition), width=_WIDTH - 5).splitlines():
            p.line(f"     {row}")
        for note in projection.notes:
            p.line(f"     {s('note', 'magenta')} {note.path} {note.keyword}: {note.detail}")


def _show_turn(p: _Printer, turn: Turn) -> None:
    s = p.style
    p.line()
    if turn.answer is not None:
        p.line(f"   {s(f'turn {turn.number}', 'bold')}  the model answers (no tool calls):")
        p.line(f"     {s(turn.answer, 'green')}")
        return
    p.line(
        f"   {s(f'turn {turn.number}', 'bold')}  "
        f"the model replies with {len(turn.calls)} tool call"
        + ("s" if len(turn.calls) != 1 else "")
    )
    step = s("{:<15}", "dim")
    replies = {reply.get("tool_call_id"): reply for reply in turn.replies}
    for call, resolved, outcome in zip(turn.calls, turn.resolved, turn.outcomes, strict=True):
        p.line(
            f"     {step.format('parse_calls')} {call.id}: {call.name} "
            f"{_clip(_arguments(call), 70)}"
        )
        found = s("found in the tool set", "green") if resolved else s("not in the tool set", "red")
        p.line(f"     {step.format('resolve')} {call.name}: {found}")
        if not resolved:
            verdict = s("not run", "red")
        elif outcome.is_error:
            kind = outcome.error.kind if outcome.error else "error"
            verdict = s(f"error ({kind})", "red")
        else:
            verdict = s("ok", "green")
        # Error texts are the point of the demo: show them whole.
        width = 10_000 if outcome.is_error else 80
        p.line(f"     {step.format('invoke')} {verdict}: {_clip(outcome.text, width)}")
        reply = replies.get(call.id)
        if reply is not None:
            text = json.dumps(reply, ensure_ascii=False)
            p.line(f"     {step.format('format_results')} {_clip(text, width)}")
    for name in turn.opened:
        p.line(
            f"     {s('toolbox opened', 'yellow')}: {name}. Next request offers "
            + ", ".join(turn.tools_next)
        )


def run_demo(out: TextIO, *, style: Style) -> int:
    """Print the whole demo to `out`; returns the exit code."""
    from toolcast.examples import catalog

    conversation = load_conversation()
    toolset = catalog().select(include_selectors=True)
    p = _Printer(out, style)
    p.line(style("toolcast demo", "bold") + ": no network and no API keys. The model's replies")
    p.line("are recorded; the catalog, projections, parsing, validation and tools run for real.")
    _show_tools(p, toolset)
    _show_projections(p, toolset)
    provider = str(conversation["format"])
    p.section(3, f"A recorded conversation ({provider})")
    p.line("   Each reply goes through parse_calls -> ToolSet.resolve -> invoke -> format_results.")
    p.line()
    p.line(f"   {style('user', 'bold')}: {conversation['user']}")
    turns = asyncio.run(play(toolset, conversation["responses"], provider=provider))
    for turn in turns:
        _show_turn(p, turn)
    calls = sum(len(turn.calls) for turn in turns)
    errors = sum(outcome.is_error for turn in turns for outcome in turn.outcomes)
    p.line()
    p.line(
        style("Done", "bold")
        + f": {calls} calls in {len(turns)} turns; {errors} came back as error "
        "results the model could act on, none crashed the host."
    )
    p.line("Next: toolcast inspect toolcast.examples:catalog --provider gemini")
    p.line('      toolcast call toolcast.examples.places find_places \'{"query": "Paris"}\'')
    return 0
