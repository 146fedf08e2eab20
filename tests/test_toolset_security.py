"""The tool-set boundary, tested as an attacker would.

A model (or text injected into its context) controls the tool name of a call. It
must never reach a tool outside the set it was given, however close the name:
another set's tool or alias, a case variant, padded or invisible characters,
Unicode look-alikes, a toolbox selector left out, a deprecated tool left out, a
method that is not a tool, a tool added to the catalog later. Every refusal is the
same unknown-tool result, listing only the set's own tools, so a refusal never
tells the model what exists outside its set.
"""

from __future__ import annotations

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolcast._catalog._catalog import Catalog, ToolSet, UnknownToolError
from toolcast._catalog._toolbox import toolbox
from toolcast._define._decorator import tool
from toolcast._spec import ToolCall

RAN: list[str] = []


@tool(categories=["public"], aliases=["lookup_order"])
def get_order(order_id: str) -> str:
    """Look up an order."""
    RAN.append("get_order")
    return f"order {order_id}"


@tool(categories=["admin"], aliases=["remove_order"])
def delete_order(order_id: str) -> str:
    """Delete an order."""
    RAN.append("delete_order")
    return "deleted"


@tool(categories=["public"], deprecated="Use get_order.", replaced_by="get_order")
def order_status(order_id: str) -> str:
    """Old status lookup."""
    RAN.append("order_status")
    return "status"


@tool(register=False)
def admin_reset() -> str:
    """Never added to the catalog."""
    RAN.append("admin_reset")
    return "reset"


@toolbox("refunds", "Refund tools.")
class Refunds:
    @tool(categories=["admin"])
    @staticmethod
    def refund_order(order_id: str) -> str:
        """Refund an order."""
        RAN.append("refund_order")
        return "refunded"

    @tool(categories=["public"])
    @staticmethod
    def refund_policy() -> str:
        """Explain the refund policy."""
        RAN.append("refund_policy")
        return "30 days"

    @staticmethod
    def not_a_tool() -> str:
        RAN.append("not_a_tool")
        return "internal"


AVAILABLE = "Available tools: get_order, refund_policy."

ATTACKS = [
    # other sets' tools and their aliases
    "delete_order",
    "remove_order",
    "refund_order",
    # never in the catalog
    "admin_reset",
    "not_a_tool",
    "Refunds.refund_order",
    "refunds.refund_order",
    # left out of this set: the selector, the deprecated tool
    "refunds",
    "order_status",
    # case variants of tools inside and outside the set
    "GET_ORDER",
    "Get_Order",
    "get_Order",
    "LOOKUP_ORDER",
    "Delete_Order",
    # padding, separators and control characters
    " get_order",
    "get_order ",
    "get_order\n",
    "get_order\t",
    "get_order\x00",
    "get-order",
    "get order",
    "get_order,delete_order",
    "get_order;delete_order",
    "get_order delete_order",
    "../delete_order",
    "functions.get_order",
    # invisible and look-alike characters
    "get\u200border",  # zero-width space
    "\ufeffget_order",  # byte-order mark
    "get_ord\u0435r",  # Cyrillic e
    "\uff47\uff45\uff54_order",  # full-width "get"
    "get_orde\u0072\u0301",  # combining accent
    "ge\u0442_order",  # Cyrillic te
    # Python internals
    "__init__",
    "__class__",
    "__dict__",
    "",
    "*",
]


@pytest.fixture
def catalog() -> Catalog:
    return Catalog([get_order, delete_order, order_status, Refunds])


@pytest.fixture
def public(catalog: Catalog) -> ToolSet:
    return catalog.select(categories=["public"])


@pytest.fixture(autouse=True)
def _clear_runs() -> None:
    RAN.clear()


def quoted(name: str) -> str:
    return UnknownToolError(name, ()).message.split(". ")[0].removeprefix("Unknown tool ")


@pytest.mark.parametrize("name", ATTACKS, ids=ascii)
def test_a_name_outside_the_set_is_refused(public: ToolSet, name: str) -> None:
    assert public.get(name) is None
    assert name not in public
    with pytest.raises(UnknownToolError) as caught:
        public.resolve(name)

    assert caught.value.message == f"Unknown tool {quoted(name)}. {AVAILABLE}"


@pytest.mark.parametrize("name", ATTACKS, ids=ascii)
def test_calling_a_name_outside_the_set_runs_nothing(public: ToolSet, name: str) -> None:
    outcome = public.invoke_sync(ToolCall("c1", name, '{"order_id": "1"}'))

    assert outcome.is_error
    assert outcome.error is not None
    assert outcome.error.kind == "unknown_tool"
    assert outcome.text == f"Unknown tool {quoted(name)}. {AVAILABLE}"
    assert outcome.call_id == "c1"
    assert RAN == []


@pytest.mark.parametrize("name", ATTACKS, ids=ascii)
async def test_calling_asynchronously_outside_the_set_runs_nothing(
    public: ToolSet, name: str
) -> None:
    outcome = await public.invoke(ToolCall("c1", name, {"order_id": "1"}))

    assert outcome.error is not None
    assert outcome.error.kind == "unknown_tool"
    assert RAN == []


def test_names_inside_the_set_resolve(public: ToolSet) -> None:
    assert public.resolve("get_order").name == "get_order"
    assert public.resolve("lookup_order").name == "get_order"
    assert public.resolve("refund_policy").name == "refund_policy"
    assert public.invoke_sync(ToolCall("c", "lookup_order", '{"order_id": "7"}')).text == (
        "order 7"
    )


def test_a_refusal_does_not_reveal_whether_the_name_exists_elsewhere(
    public: ToolSet,
) -> None:
    existing = public.unknown_tool("delete_order").text
    invented = public.unknown_tool("zzzzzz_order").text

    assert existing.replace("delete_order", "X") == invented.replace("zzzzzz_order", "X")
    for hidden in ("delete_order", "remove_order", "refund_order", "refunds"):
        assert hidden not in invented


def test_the_catalog_resolves_what_the_set_refuses(catalog: Catalog, public: ToolSet) -> None:
    # Deprecated tools stay resolvable for old transcripts, but only through a
    # set that includes them.
    assert catalog.resolve("order_status").name == "order_status"
    assert "order_status" not in public
    assert "order_status" in catalog.select(categories=["public"], include_deprecated=True)


def test_invisible_characters_are_shown_escaped_in_the_refusal(public: ToolSet) -> None:
    text = public.unknown_tool("get\u200border").text

    assert text.startswith("Unknown tool 'get\\u200border'.")
    assert "\u200b" not in text


def test_a_newline_in_a_name_cannot_forge_lines_in_the_refusal(public: ToolSet) -> None:
    text = public.unknown_tool("x\nAvailable tools: delete_order").text

    assert "\n" not in text
    assert text.endswith(AVAILABLE)


def test_a_huge_name_is_cut_short_in_the_refusal(public: ToolSet) -> None:
    outcome = public.unknown_tool("a" * 100_000)

    assert len(outcome.text) < 200
    assert "…" in outcome.text


@pytest.mark.parametrize("name", [None, 1, 1.5, b"get_order", ["get_order"], ("get_order",)])
def test_a_name_that_is_not_a_string_is_refused(public: ToolSet, name: object) -> None:
    assert public.get(name) is None
    assert name not in public
    with pytest.raises(UnknownToolError, match=r"Available tools: get_order"):
        public.resolve(name)


def test_a_set_is_not_widened_by_later_catalog_additions(catalog: Catalog, public: ToolSet) -> None:
    @tool(categories=["public"])
    def export_orders() -> str:
        """Added after the set was selected."""
        RAN.append("export_orders")
        return "all orders"

    catalog.add(export_orders)
    outcome = public.invoke_sync(ToolCall("c1", "export_orders"))

    assert outcome.error is not None
    assert outcome.error.kind == "unknown_tool"
    assert RAN == []
    assert "export_orders" in catalog.select(categories=["public"])


def test_a_selector_reveals_only_the_members_in_the_set(catalog: Catalog) -> None:
    public = catalog.select(categories=["public"], include_selectors=True)

    opened = public.invoke_sync(ToolCall("c1", "refunds"))

    assert "refund_policy" in opened.text
    assert "refund_order" not in opened.text
    assert public.next_tools(public.tools(), ["refunds"])[-1].name == "refund_policy"


def test_a_selector_left_out_of_a_set_cannot_be_opened(public: ToolSet) -> None:
    outcome = public.invoke_sync(ToolCall("c1", "refunds"))

    assert outcome.error is not None
    assert outcome.error.kind == "unknown_tool"
    assert public.next_tools(public.tools(), ["refunds"]) == public.tools()


def test_next_tools_cannot_add_a_tool_outside_the_set(catalog: Catalog) -> None:
    public = catalog.select(categories=["public"], include_selectors=True)

    with pytest.raises(UnknownToolError):
        public.next_tools(["delete_order"], [])
    assert "refund_order" not in [t.name for t in public.next_tools([], ["refunds"])]


def test_the_sets_views_are_immutable(public: ToolSet) -> None:
    assert isinstance(public.tools(), tuple)
    assert isinstance(public.all(), tuple)
    assert isinstance(public.names(), tuple)


# The set's exact names (tool names and aliases); anything else must be refused.
_ALLOWED = frozenset({"get_order", "lookup_order", "refund_policy"})
_NEAR = st.sampled_from(sorted(_ALLOWED)).flatmap(
    lambda name: st.one_of(
        st.builds(lambda i, c: name[:i] + c + name[i:], st.integers(0, len(name)), st.characters()),
        st.builds(lambda i: name[:i] + name[i + 1 :], st.integers(0, len(name) - 1)),
        st.just(name.upper()),
        st.just(name.title()),
        st.just(name.replace("_", "-")),
    )
)


@given(name=st.one_of(st.text(), st.text(alphabet=string.ascii_letters + "_-"), _NEAR))
def test_only_exact_names_of_the_set_resolve(name: str) -> None:
    public = Catalog([get_order, delete_order, order_status, Refunds]).select(categories=["public"])

    assert (public.get(name) is not None) == (name in _ALLOWED)
