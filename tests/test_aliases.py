"""Id aliases (issue 12): the model sees `link-1`, the code sees the UUID.

Declaring (`Alias(prefix)` anywhere a UUID goes, the `x-toolcast-alias` keyword),
structure-aware rewriting both ways, sessions (TTL, throwaway, snapshots), and
every place an id travels: provider results, MCP `structuredContent`, toolbox
listings, error messages and the lock file. The Redis store is in
`test_aliases_redis.py`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import uuid
from typing import Annotated, Any, TypedDict
from uuid import UUID

import pytest
from annotated_types import MaxLen
from pydantic import BaseModel

from toolcast import (
    Alias,
    Catalog,
    FixedResolver,
    Tool,
    ToolCall,
    ToolDefinitionError,
    ToolError,
    tool,
    toolbox,
)
from toolcast._lock._schemadiff import schema_changes
from toolcast.aliases import RAW_IDS, AliasSession, MemoryAliasStore, UnknownAliasError
from toolcast.providers import (
    anthropic,
    bedrock,
    gemini,
    hermes,
    mcp,
    mistral,
    ollama,
    openai_chat,
    openai_realtime,
    openai_responses,
)

PROVIDERS = [
    anthropic,
    bedrock,
    gemini,
    hermes,
    mcp,
    mistral,
    ollama,
    openai_chat,
    openai_realtime,
    openai_responses,
]


class Link(BaseModel):
    id: Annotated[UUID, Alias("link")]
    page_theme_id: Annotated[UUID, Alias("theme")]
    workspace_id: UUID  # not annotated: never aliased


def ids(n: int) -> list[UUID]:
    return [uuid.uuid4() for _ in range(n)]


L1, L2, THEME, WORKSPACE = ids(4)
LINKS = {
    L1: Link(id=L1, page_theme_id=THEME, workspace_id=WORKSPACE),
    L2: Link(id=L2, page_theme_id=THEME, workspace_id=WORKSPACE),
}
SEEN: list[Any] = []


def get_link(link_id: Annotated[UUID, Alias("link")]) -> Link:
    """Get one link.

    Args:
        link_id: The link to fetch.
    """
    SEEN.append(link_id)
    if link_id not in LINKS:
        raise ToolError(f"no link {link_id}")
    return LINKS[link_id]


def list_links() -> list[Link]:
    """All links."""
    return list(LINKS.values())


TOOLS = Catalog([get_link, list_links]).select()


def run(tools: Any, name: str, arguments: Any, session: AliasSession) -> Any:
    return tools.invoke_sync(ToolCall("c", name, arguments), aliases=session)


# -- declaring ----------------------------------------------------------------------


def test_the_model_is_told_the_field_is_an_id_like_link_1() -> None:
    schema = Tool.from_function(get_link).spec.input_schema
    assert schema["properties"]["link_id"] == {
        "type": "string",
        "description": "The link to fetch. An id like `link-1`.",
        "pattern": "^link-[1-9][0-9]*$",
        "x-toolcast-alias": "link",
    }


@dataclasses.dataclass
class Step:
    link_id: Annotated[UUID, Alias("link")]


class Page(TypedDict):
    steps: list[Step]
    by_name: dict[str, Annotated[UUID, Alias("theme")]]
    maybe: Annotated[UUID, Alias("link")] | None


def test_outputs_nested_fields_list_items_and_dict_values_are_marked() -> None:
    def pages(ids: list[Annotated[UUID, Alias("link")]]) -> Page:
        raise NotImplementedError

    spec = Tool.from_function(pages).spec
    assert spec.input_schema["properties"]["ids"]["items"]["x-toolcast-alias"] == "link"
    out = spec.output_schema
    assert out is not None
    props = out["properties"]
    assert props["steps"]["items"]["properties"]["link_id"]["x-toolcast-alias"] == "link"
    assert props["by_name"]["additionalProperties"]["pattern"] == "^theme-[1-9][0-9]*$"
    assert props["maybe"]["type"] == ["string", "null"]
    assert props["maybe"]["x-toolcast-alias"] == "link"


def test_prefixes_are_checked_when_the_tool_is_defined() -> None:
    def bad(
        a: Annotated[UUID, Alias("Link")],
        b: Annotated[UUID, Alias("a"), Alias("b")],
        c: Annotated[int, Alias("c")],
        d: Annotated[UUID, Alias("9x")],
    ) -> None: ...

    with pytest.raises(ToolDefinitionError) as raised:
        Tool.from_function(bad)
    assert raised.value.codes == ("alias-prefix", "alias-conflict", "alias-type", "alias-prefix")


def open_link(link_id: Annotated[UUID, Alias("link")]) -> str:
    """Open a link."""
    return str(link_id)


def test_every_provider_projection_shows_the_id_form_and_never_a_uuid_format() -> None:
    t = Tool.from_function(open_link)
    for provider in PROVIDERS:
        text = json.dumps(provider.format_tools([t]))
        assert "An id like `link-1`." in text, provider.__name__
        assert '"uuid"' not in text, provider.__name__


def test_a_hand_written_schema_declares_aliases_with_the_keyword() -> None:
    calls: list[Any] = []

    def handler(args: dict[str, Any]) -> dict[str, Any]:
        calls.append(args)
        return {"id": str(L1), "owner": str(WORKSPACE)}

    made = Tool.from_schema(
        "get_thing",
        "Get a thing.",
        {
            "type": "object",
            "properties": {"thing_id": {"type": "string", "x-toolcast-alias": "thing"}},
            "required": ["thing_id"],
            "additionalProperties": False,
        },
        handler,
        output_schema={
            "type": "object",
            "properties": {
                "id": {"type": "string", "format": "uuid", "x-toolcast-alias": "thing"},
                "owner": {"type": "string"},
            },
        },
    )
    field = made.spec.input_schema["properties"]["thing_id"]
    assert field["pattern"] == "^thing-[1-9][0-9]*$"
    session = AliasSession("c")
    first = session.register_sync("thing", L1)
    outcome = made.invoke_sync('{"thing_id": "thing-1"}', aliases=session)
    assert first == "thing-1"
    assert calls == [{"thing_id": str(L1)}]
    assert outcome.structured == {"id": "thing-1", "owner": str(WORKSPACE)}
    with pytest.raises(ToolDefinitionError) as raised:
        Tool.from_schema(
            "t",
            "",
            {"type": "object", "properties": {"x": {"type": "string", "x-toolcast-alias": "X"}}},
            handler,
        )
    assert raised.value.codes == ("alias-prefix",)


# -- the round trip -------------------------------------------------------------------


def test_the_model_sends_link_2_the_tool_gets_the_uuid_the_model_reads_aliases() -> None:
    session = AliasSession("conversation-1")
    listed = run(TOOLS, "list_links", "{}", session)
    assert listed.structured == [
        {"id": "link-1", "page_theme_id": "theme-1", "workspace_id": str(WORKSPACE)},
        {"id": "link-2", "page_theme_id": "theme-1", "workspace_id": str(WORKSPACE)},
    ]
    assert str(L1) not in listed.text
    assert str(THEME) not in listed.text
    assert str(WORKSPACE) in listed.text
    SEEN.clear()
    got = run(TOOLS, "get_link", '{"link_id": "link-2"}', session)
    assert SEEN == [L2]
    assert got.value == LINKS[L2]  # the host keeps the Python value, UUIDs and all
    assert json.loads(got.text) == {
        "id": "link-2",
        "page_theme_id": "theme-1",
        "workspace_id": str(WORKSPACE),
    }


def test_an_invented_alias_is_an_error_result_naming_the_known_ones() -> None:
    session = AliasSession("c")
    run(TOOLS, "list_links", "{}", session)
    SEEN.clear()
    outcome = run(TOOLS, "get_link", '{"link_id": "link-9"}', session)
    assert outcome.error.kind == "invalid_arguments"
    assert outcome.text == (
        "Argument 'link_id': 'link-9' is not a link id in this conversation "
        "(known: link-1, link-2)."
    )
    assert SEEN == []  # never sent on to the code
    raw = run(TOOLS, "get_link", json.dumps({"link_id": str(L1)}), session)
    assert raw.text.startswith(f"Argument 'link_id': '{L1}' is not a link id")
    empty = run(TOOLS, "get_link", '{"link_id": "link-1"}', AliasSession("other"))
    assert empty.text.endswith("(it has no link ids yet).")
    mixed_up = run(TOOLS, "get_link", '{"link_id": "theme-1"}', session)
    assert mixed_up.text == (
        "Argument 'link_id': 'theme-1' is not a link id in this conversation "
        "(known: link-1, link-2)."
    )


def test_the_known_list_is_capped() -> None:
    session = AliasSession("c")
    for value in ids(25):
        session.register_sync("link", value)
    outcome = run(TOOLS, "get_link", '{"link_id": "link-99"}', session)
    assert outcome.text.endswith(
        "(known: link-1, link-2, link-3, link-4, link-5, link-6, "
        "link-7, link-8, link-9, link-10 and 15 more)."
    )


def test_link_1_never_rewrites_link_10() -> None:
    many = ids(12)
    session = AliasSession("c")
    aliases = [session.register_sync("link", value) for value in many]
    assert aliases == [f"link-{n}" for n in range(1, 13)]

    def pick(links: list[Annotated[UUID, Alias("link")]]) -> list[UUID]:
        return links

    picked = Tool.from_function(pick).invoke_sync(
        {"links": ["link-10", "link-1", "link-11", "link-12"]}, aliases=session
    )
    assert picked.value == [many[9], many[0], many[10], many[11]]
    assert picked.structured is not None  # the list[UUID] result is not aliased
    assert picked.structured == [str(many[i]) for i in (9, 0, 10, 11)]


def test_only_declared_fields_are_resolved_and_only_declared_fields_aliased() -> None:
    session = AliasSession("c")
    session.register_sync("link", L1)

    def note(link_id: Annotated[UUID, Alias("link")], text: str) -> dict[str, str]:
        return {"text": text, "again": str(link_id)}

    outcome = Tool.from_function(note).invoke_sync(
        {"link_id": "link-1", "text": f"see link-1 and {L1}"}, aliases=session
    )
    # `text` is not declared: sent on as written; the untyped result keeps the UUID.
    assert outcome.value == {"text": f"see link-1 and {L1}", "again": str(L1)}
    assert outcome.structured == outcome.value


def test_upper_and_lower_case_uuids_are_one_id_and_the_code_gets_the_first_spelling() -> None:
    value = uuid.uuid4()
    upper, lower = str(value).upper(), str(value)
    session = AliasSession("c")

    def echo(link: Annotated[str, Alias("link")]) -> dict[str, Annotated[str, Alias("link")]]:
        return {"link": link}

    assert session.register_sync("link", upper) == "link-1"
    assert session.register_sync("link", lower) == "link-1"
    outcome = Tool.from_function(echo).invoke_sync({"link": "link-1"}, aliases=session)
    assert outcome.value == {"link": upper}  # the original spelling reaches the code
    assert outcome.text == '{"link":"link-1"}'


def test_one_uuid_one_alias_and_counters_per_prefix_start_at_1() -> None:
    session = AliasSession("c")
    a, b, c = ids(3)
    assert [session.register_sync(p, v) for p, v in [("link", a), ("theme", b), ("link", c)]] == [
        "link-1",
        "theme-1",
        "link-2",
    ]
    assert session.register_sync("theme", a) == "link-1"  # the id keeps its alias


def test_ids_are_numbered_in_the_order_the_result_lists_them() -> None:
    many = ids(5)

    def listing() -> list[Annotated[UUID, Alias("step")]]:
        return many

    outcome = Tool.from_function(listing).invoke_sync("{}", aliases=AliasSession("c"))
    assert outcome.structured == [f"step-{n}" for n in range(1, 6)]


def test_a_display_only_tool_checks_aliases_but_gets_them_as_written() -> None:
    @tool(resolve_aliases=False)
    def confirm(link_id: Annotated[str, Alias("link")]) -> str:
        return f"Delete {link_id}?"

    session = AliasSession("c")
    session.register_sync("link", L1)
    made = Tool.from_function(confirm)
    assert made.invoke_sync({"link_id": "link-1"}, aliases=session).text == "Delete link-1?"
    assert made.invoke_sync({"link_id": "link-2"}, aliases=session).is_error


def test_with_raw_ids_nothing_is_rewritten() -> None:
    made = Tool.from_function(get_link)
    outcome = made.invoke_sync({"link_id": str(L1)}, aliases=RAW_IDS)
    assert json.loads(outcome.text)["id"] == str(L1)


def test_an_enveloped_result_is_aliased_inside_the_envelope() -> None:
    made = Tool.from_function(get_link, envelope=True)
    session = AliasSession("c")
    session.register_sync("link", L1)
    outcome = made.invoke_sync({"link_id": "link-1"}, aliases=session)
    envelope = json.loads(outcome.text)
    assert envelope["result"]["id"] == "link-1"
    assert envelope["schema"]["properties"]["id"]["x-toolcast-alias"] == "link"
    assert outcome.structured == envelope["result"]


# -- error messages -----------------------------------------------------------------


def test_a_validation_error_quoting_a_uuid_shows_the_alias() -> None:
    def pick(links: Annotated[list[Annotated[UUID, Alias("link")]], MaxLen(1)]) -> None: ...

    session = AliasSession("c")
    session.register_sync("link", L1)
    session.register_sync("link", L2)
    outcome = Tool.from_function(pick).invoke_sync({"links": ["link-1", "link-2"]}, aliases=session)
    assert outcome.error is not None
    assert outcome.error.kind == "invalid_arguments"
    assert "link-1" in outcome.text
    assert "link-2" in outcome.text
    assert str(L1)[:8] not in outcome.text
    assert str(L2)[:8] not in outcome.text


def test_a_list_resolves_repeats_and_text_arguments_like_distinct_ones() -> None:
    def pick(links: list[Annotated[UUID, Alias("link")]]) -> list[UUID]:
        return links

    session = AliasSession("c")
    session.register_sync("link", L1)
    session.register_sync("link", L2)
    tool_ = Tool.from_function(pick)
    for text in ('{"links": ["link-2", "link-1", "link-2"]}', '{"links": ["link-2", "link-1"]}'):
        outcome = tool_.invoke_sync(text, aliases=session)
        assert outcome.value == [L2, L1, L2][: len(json.loads(text)["links"])]


def test_a_validation_error_on_text_arguments_shows_the_aliases() -> None:
    def pick(links: Annotated[list[Annotated[UUID, Alias("link")]], MaxLen(1)]) -> None: ...

    session = AliasSession("c")
    session.register_sync("link", L1)
    session.register_sync("link", L2)
    outcome = Tool.from_function(pick).invoke_sync(
        '{"links": ["link-1", "link-2"]}', aliases=session
    )
    assert outcome.error is not None
    assert "link-2" in outcome.text
    assert str(L2)[:8] not in outcome.text


def test_a_tool_error_quoting_a_known_uuid_shows_the_alias() -> None:
    stray = uuid.uuid4()
    session = AliasSession("c")
    session.register_sync("link", stray)
    outcome = run(TOOLS, "get_link", '{"link_id": "link-1"}', session)
    assert outcome.text == "no link link-1"


# -- sessions -----------------------------------------------------------------------


async def test_register_resolve_and_aliasify_text() -> None:
    session = AliasSession("c")
    assert await session.register("link", L1) == "link-1"
    assert await session.resolve("link-1") == L1
    with pytest.raises(UnknownAliasError):
        await session.resolve("link-2")
    text = f"Compare {L1} with {str(L1).upper()} and {L2}; {L1}0 is not an id."
    assert await session.aliasify_text(text) == (
        f"Compare link-1 with link-1 and {L2}; {L1}0 is not an id."
    )
    with pytest.raises(ValueError, match="prefix"):
        await session.register("Link", L1)
    with pytest.raises(ValueError, match="not a UUID"):
        await session.register("link", "nope")


def test_idle_conversations_are_evicted_after_the_ttl() -> None:
    now = [0.0]
    store = MemoryAliasStore(ttl=60, clock=lambda: now[0])
    kept, dropped = AliasSession("kept", store=store), AliasSession("dropped", store=store)
    kept.register_sync("link", L1)
    dropped.register_sync("link", L2)
    now[0] = 50
    assert kept.register_sync("link", L1) == "link-1"  # use refreshes the TTL
    now[0] = 100
    kept.register_sync("link", L1)
    assert "kept" in store
    assert "dropped" not in store
    now[0] = 170
    assert kept.register_sync("link", L2) == "link-1"  # idle 70 s: forgotten


def test_an_empty_conversation_id_gets_a_throwaway_session() -> None:
    store = MemoryAliasStore()
    one, two = AliasSession("", store=store), AliasSession("")
    assert one.throwaway
    assert two.throwaway
    assert one.conversation_id != two.conversation_id
    one.register_sync("link", L1)
    assert two.register_sync("link", L2) == "link-1"
    assert store.snapshot(one.conversation_id) == []  # nothing reached the shared store


def test_a_snapshot_restores_the_session() -> None:
    session = AliasSession("c")
    session.register_sync("link", L1)
    session.register_sync("theme", THEME)
    data = json.loads(json.dumps(session.to_json()))
    again = AliasSession.from_json(data)
    assert again.conversation_id == "c"
    assert again.register_sync("link", L2) == "link-2"
    assert again.register_sync("theme", THEME) == "theme-1"
    with pytest.raises(ValueError, match="not an alias of a UUID"):
        AliasSession.from_json({"format": 1, "conversation_id": "c", "aliases": {"x": "y"}})


def test_host_mistakes_raise_type_errors() -> None:
    with pytest.raises(TypeError, match="AliasSession"):
        TOOLS.invoke_sync(ToolCall("c", "list_links", "{}"), aliases="conversation-1")  # type: ignore[arg-type]


# -- everywhere ids travel ------------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS, ids=lambda p: p.__name__.rsplit(".", 1)[1])
def test_every_providers_result_message_carries_the_aliases(provider: Any) -> None:
    session = AliasSession("c")
    outcome = run(TOOLS, "list_links", "{}", session)
    text = json.dumps(provider.format_results([outcome]), default=str)
    assert "link-1" in text
    assert "theme-1" in text
    assert str(L1) not in text
    assert str(THEME) not in text


def test_mcp_structured_content_carries_the_aliases() -> None:
    outcome = run(TOOLS, "get_link", "{}", AliasSession("c"))
    assert outcome.is_error  # link_id missing
    session = AliasSession("c")
    session.register_sync("link", L2)
    outcome = run(TOOLS, "get_link", '{"link_id": "link-1"}', session)
    [message] = mcp.format_results([outcome])
    assert message["structuredContent"]["id"] == "link-1"
    assert message["structuredContent"]["page_theme_id"] == "theme-1"


@toolbox("links", "Work with links.")
class Links:
    @tool
    def follow_link(self, link_id: Annotated[UUID, Alias("link")]) -> str:
        """Follow a link."""
        return str(link_id)


def test_the_toolbox_listing_shows_ids_like_link_1() -> None:
    tools = Catalog([Links], resolver=FixedResolver(Links())).select(include_selectors=True)
    listing = tools.invoke_sync(ToolCall("c", "links", "{}"), aliases=AliasSession("c"))
    assert "^link-[1-9][0-9]*$" in listing.text
    assert "An id like `link-1`." in listing.text


def test_an_alias_prefix_change_is_breaking_for_the_lock_file() -> None:
    def before(link_id: Annotated[UUID, Alias("link")]) -> None: ...

    def after(link_id: Annotated[UUID, Alias("url")]) -> None: ...

    def plain(link_id: UUID) -> None: ...

    old, new, raw = (Tool.from_function(f, name="t").spec for f in (before, after, plain))
    for direction in ("input", "output"):
        changes = schema_changes(old.input_schema, new.input_schema, direction)
        kinds = {c.kind: c.breaking for c in changes}
        assert kinds["alias-prefix-changed"] is True
    gone = schema_changes(old.input_schema, raw.input_schema, "output")
    assert any(c.kind == "alias-prefix-changed" and c.breaking for c in gone)


def test_nested_results_alias_dataclass_fields_dict_values_and_optionals() -> None:
    steps = ids(2)

    def page() -> Page:
        return {
            "steps": [Step(link_id=steps[0]), Step(link_id=steps[1])],
            "by_name": {"dark": THEME, "light": L1},
            "maybe": None,
        }

    outcome = Tool.from_function(page).invoke_sync("{}", aliases=AliasSession("c"))
    assert outcome.structured == {
        "steps": [{"link_id": "link-1"}, {"link_id": "link-2"}],
        "by_name": {"dark": "theme-1", "light": "theme-2"},
        "maybe": None,
    }


def test_a_hand_written_tool_returning_one_id_as_text_shows_its_alias() -> None:
    made = Tool.from_schema(
        "new_thing",
        "Make a thing.",
        {"type": "object", "properties": {}},
        lambda args: str(L2),
        output_schema={"type": "string", "x-toolcast-alias": "thing"},
    )
    assert made.invoke_sync("{}", aliases=AliasSession("c")).text == "thing-1"


def test_toolcast_check_reports_an_alias_prefix_change_as_breaking() -> None:
    from toolcast._cli._lock import compare_locks, lock_document

    def get_thing(thing_id: Annotated[UUID, Alias("link")]) -> None:
        """Get a thing."""

    def get_thing_renamed(thing_id: Annotated[UUID, Alias("url")]) -> None:
        """Get a thing."""

    old = lock_document(Catalog([Tool.from_function(get_thing)]))
    new = lock_document(Catalog([Tool.from_function(get_thing_renamed, name="get_thing")]))
    assert (
        old["tools"]["get_thing"]["input_schema"]["properties"]["thing_id"]["x-toolcast-alias"]
        == "link"
    )
    report = compare_locks(old, new)
    [change] = [c for c in report.unexcused if c.kind == "alias-prefix-changed"]
    assert change.message == "Argument 'thing_id' changed its alias prefix: link-1 -> url-1."


def test_a_bare_aliased_id_returned_by_a_tool_reaches_the_model_as_its_alias() -> None:
    made = uuid.uuid4()

    @tool
    def create_link() -> Annotated[UUID, Alias("link")]:
        """Create a link."""
        return made

    session = AliasSession("bare-id")
    tools = Catalog([create_link]).select()
    outcome = tools.invoke_sync(
        ToolCall(id="c1", name="create_link", arguments={}), aliases=session
    )
    assert outcome.text == '"link-1"'
    assert outcome.structured == "link-1"
    assert outcome.value == made  # the host still holds the UUID
    assert asyncio.run(session.resolve("link-1")) == made
