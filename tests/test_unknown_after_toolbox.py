"""A hand-written loop's unknown-tool answer lists what the model was offered (issue 24)."""

from __future__ import annotations

from toolcast import Catalog, FixedResolver, ToolCall, tool, toolbox


@tool
def find_places(query: str) -> list[str]:
    """Find places."""
    return [query]


@toolbox()
class Calendar:
    """Calendar tools."""

    @tool
    def add_event(self, title: str) -> str:
        """Add an event."""
        return f"added {title}"


def _set():  # type: ignore[no-untyped-def]
    catalog = Catalog([find_places])
    catalog.add(Calendar, resolver=FixedResolver(Calendar()))
    return catalog.select(include_selectors=True)


def test_after_a_toolbox_opened_the_answer_lists_its_members_too() -> None:
    toolset = _set()
    tools = toolset.tools()
    assert [t.name for t in tools] == ["find_places", "calendar"]
    tools = toolset.next_tools(tools, ["calendar"])  # the model opened the toolbox
    outcome = toolset.invoke_sync(ToolCall("c1", "add_evnt", "{}"), offered=tools)
    assert outcome.is_error
    assert outcome.error is not None
    assert outcome.error.kind == "unknown_tool"
    assert (
        outcome.text
        == "Unknown tool 'add_evnt'. Available tools: find_places, calendar, add_event."
    )


def test_a_member_of_an_unopened_toolbox_is_unknown_as_in_run() -> None:
    toolset = _set()
    outcome = toolset.invoke_sync(
        ToolCall("c1", "add_event", '{"title": "x"}'), offered=toolset.tools()
    )
    assert outcome.is_error
    assert outcome.error is not None
    assert outcome.error.kind == "unknown_tool"
    assert outcome.text == "Unknown tool 'add_event'. Available tools: find_places, calendar."


async def test_the_opened_member_runs_when_offered() -> None:
    toolset = _set()
    tools = toolset.next_tools(toolset.tools(), ["calendar"])
    outcome = await toolset.invoke(
        ToolCall("c1", "add_event", '{"title": "standup"}'), offered=tools
    )
    assert not outcome.is_error
    assert outcome.text == "added standup"
