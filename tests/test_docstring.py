"""Docstrings give the tool description and parameter descriptions, in any of the
three common styles, and no section heading ever leaks into the description."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, TypedDict

import pytest
from pydantic import BaseModel, Field

from toolcast import Tool
from toolcast._define._docstring import parse_docstring

LEAKS = ("Args", "Arguments", "Parameters", ":param", ":type", "Returns", ":return", "Raises")


def google(query: str, country: str | None = None, *, limit: int = 10) -> list[str]:
    """Find places matching
    a text query.

    Looks the query up in the gazetteer and
    ranks the matches.

    Args:
        query: Text to search for,
            possibly over several lines.
        country (str): Optional ISO country code.

    Keyword Args:
        limit: Maximum number of matches.

    Returns:
        The names of the places.

    Raises:
        ValueError: When the query is empty.
    """
    return []


def numpy(query: str, country: str | None = None, limit: int = 10) -> list[str]:
    """Find places matching
    a text query.

    Looks the query up in the gazetteer and
    ranks the matches.

    Parameters
    ----------
    query : str
        Text to search for,
        possibly over several lines.
    country : str, optional
        Optional ISO country code.
    limit : int
        Maximum number of matches.

    Returns
    -------
    list of str
        The names of the places.

    Raises
    ------
    ValueError
        When the query is empty.
    """
    return []


def sphinx(query: str, country: str | None = None, limit: int = 10) -> list[str]:
    """Find places matching
    a text query.

    Looks the query up in the gazetteer and
    ranks the matches.

    :param query: Text to search for,
        possibly over several lines.
    :type query: str
    :param str country: Optional ISO country code.
    :param limit: Maximum number of matches.
    :returns: The names of the places.
    :rtype: list[str]
    :raises ValueError: When the query is empty.
    """
    return []


STYLES = [google, numpy, sphinx]
EXPECTED_DESCRIPTION = (
    "Find places matching a text query.\n\n"
    "Looks the query up in the gazetteer and ranks the matches."
)
EXPECTED_PARAMS = {
    "query": "Text to search for, possibly over several lines.",
    "country": "Optional ISO country code.",
    "limit": "Maximum number of matches.",
}


@pytest.mark.parametrize("fn", STYLES, ids=lambda f: f.__name__)
def test_description_is_summary_and_body_only(fn: Any) -> None:
    description = Tool.from_function(fn).spec.description
    assert description == EXPECTED_DESCRIPTION
    assert not any(word in description for word in LEAKS)


@pytest.mark.parametrize("fn", STYLES, ids=lambda f: f.__name__)
def test_parameter_descriptions_are_found_and_normalised(fn: Any) -> None:
    properties = Tool.from_function(fn).spec.input_schema["properties"]
    assert {name: prop.get("description") for name, prop in properties.items()} == EXPECTED_PARAMS


def test_summary_only_docstring() -> None:
    assert parse_docstring("Echo the text.").description == "Echo the text."


def test_empty_and_missing_docstrings_give_nothing() -> None:
    assert parse_docstring(None).description == ""
    assert parse_docstring("   \n  ").params == {}


def test_paragraph_breaks_are_kept_and_lines_joined() -> None:
    doc = """Search.

    First paragraph
    on two lines.

    Second paragraph.
    """
    assert parse_docstring(doc).description == (
        "Search.\n\nFirst paragraph on two lines.\n\nSecond paragraph."
    )


def test_docstring_opening_with_args_has_no_description() -> None:
    doc = """Args:
        query: The text.
        limit: How many.
    """
    parsed = parse_docstring(doc)
    assert parsed.description == ""
    assert parsed.params == {"query": "The text.", "limit": "How many."}


def test_docstring_opening_with_args_then_returns() -> None:
    doc = """Args:
        query: The text.

    Returns:
        The matches.
    """
    parsed = parse_docstring(doc)
    assert (parsed.description, parsed.params) == ("", {"query": "The text."})


@pytest.mark.parametrize("title", ["Keyword Args", "Keyword Arguments", "Other Parameters"])
def test_napoleon_keyword_sections_describe_parameters(title: str) -> None:
    doc = f"""Search.

    {title}:
        limit: How many.
    """
    parsed = parse_docstring(doc)
    assert (parsed.description, parsed.params) == ("Search.", {"limit": "How many."})


def test_google_examples_and_notes_are_not_in_the_description() -> None:
    doc = """Search.

    Example:
        >>> search("x")

    Args:
        query: The text.
    """
    assert parse_docstring(doc).description == "Search."


def test_numpy_notes_are_not_in_the_description() -> None:
    doc = """Search.

    Parameters
    ----------
    query : str
        The text.

    Notes
    -----
    Slow on large indexes.
    """
    parsed = parse_docstring(doc)
    assert (parsed.description, parsed.params) == ("Search.", {"query": "The text."})


def test_class_attributes_section_describes_fields() -> None:
    doc = """A place.

    Attributes:
        name: What it is called.
        population: How many live there.
    """
    parsed = parse_docstring(doc)
    assert parsed.description == "A place."
    assert parsed.params == {"name": "What it is called.", "population": "How many live there."}


def test_parameter_without_text_has_no_description() -> None:
    doc = """Search.

    :param query:
    :param limit: How many.
    """
    assert parse_docstring(doc).params == {"limit": "How many."}


def test_explicit_description_replaces_the_docstring() -> None:
    assert Tool.from_function(google, description="Given.").spec.description == "Given."


# -- issue 21, defect 7: roles and whose description wins ------------------------------


def sphinx_roles(where: str, kind: str = "city") -> str:
    """Find a :class:`Place` near :func:`geo.locate`.

    Ranks with :py:meth:`~toolcast.geo.Finder.nearest`; see :ref:`the guide <guide>`.

    :param where: A :class:`~places.Place` name or :data:`None`.
    :param kind: One of :py:attr:`Kinds.ALL`; `plain backticks` stay.
    """
    return where


def test_defect_7_sphinx_roles_are_flattened_to_their_text() -> None:
    spec = Tool.from_function(sphinx_roles).spec
    assert spec.description == (
        "Find a Place near geo.locate.\n\nRanks with nearest; see the guide."
    )
    props = spec.input_schema["properties"]
    assert props["where"]["description"] == "A Place name or None."
    assert props["kind"]["description"] == "One of Kinds.ALL; `plain backticks` stay."
    assert ":class:" not in str(spec.input_schema) + spec.description


def test_defect_7_roles_in_google_and_numpy_docstrings_are_flattened_too() -> None:
    google_doc = parse_docstring("Go.\n\nArgs:\n    x: A :class:`Place`.\n")
    numpy_doc = parse_docstring(
        "Go.\n\nParameters\n----------\nx : Place\n    A :obj:`~a.b.Place`.\n"
    )
    assert google_doc.params == {"x": "A Place."}
    assert numpy_doc.params == {"x": "A Place."}
    # Colons that are not a role are prose.
    assert parse_docstring("Ratio 1:2, at 10:30:`x`.").description == "Ratio 1:2, at 10:30:`x`."


@dataclass
class Place:
    """A place on the map."""

    lat: float


class Box(TypedDict):
    """A bounding box."""

    west: float


class Target(BaseModel):
    """A pydantic place."""

    lat: float


@dataclass
class Trip:
    """A trip.

    Attributes:
        start: Where the trip starts.
    """

    start: Place
    end: Place


def plan(
    origin: Place,
    area: Box,
    target: Target,
    via: Annotated[Place, Field(description="A stop on the way.")],
    trip: Trip,
    anywhere: Place,
) -> str:
    """Plan.

    Args:
        origin: Where to leave from.
        area: The area to search.
        target: Where to go.
        via: Overridden by the annotation.
        trip: The whole trip.
    """
    return ""


def test_defect_7_a_parameters_own_description_wins_over_its_types_docstring() -> None:
    props = Tool.from_function(plan).spec.input_schema["properties"]
    assert props["origin"]["description"] == "Where to leave from."
    assert props["area"]["description"] == "The area to search."
    assert props["target"]["description"] == "Where to go."
    assert props["via"]["description"] == "A stop on the way."
    assert props["trip"]["description"] == "The whole trip."
    trip = props["trip"]["properties"]
    assert trip["start"]["description"] == "Where the trip starts."
    assert trip["end"]["description"] == "A place on the map."  # nothing of its own
    assert props["anywhere"]["description"] == "A place on the map."
