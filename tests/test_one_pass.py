"""One pass over the arguments: validating jiter's parse means what validating the text means.

Where a tool's schema holds only JSON's own types, the parser validates the Python
value its strict jiter pass produced instead of handing the text to pydantic-core
for a second parse. The claim is checked against pydantic-core's own JSON mode, on
every corpus tool the parser reads that way, for generated valid instances and
their mutations: both give the same value, or the same errors at the same places.
"""

from __future__ import annotations

import json
from typing import Any

import jiter
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic_core import ValidationError

from test_agreement import TOOLS, _mutate, _valid
from toolcast import Tool

ONE_PASS = [t for t in TOOLS if t._get_parser(False)._parsed]
TWO_PASS = [t for t in TOOLS if not t._get_parser(False)._parsed]


def _judged(validate: Any, data: Any) -> tuple[str, Any]:
    try:
        return "ok", validate(data)
    except ValidationError as exc:
        return "error", [(e["type"], e["loc"]) for e in exc.errors(include_url=False)]


def test_most_of_the_corpus_is_read_in_one_pass() -> None:
    assert len(ONE_PASS) > len(TOOLS) // 2, [t.name for t in TWO_PASS]


@pytest.mark.parametrize("name", ["tuple_fixed", "tuple_variadic", "decimal_param", "enum_param"])
def test_types_python_mode_reads_differently_validate_the_text(name: str) -> None:
    # Strict Python mode wants a tuple, Decimal or enum instance. (Dates, UUIDs and
    # sets are toolcast's own validators on strings and lists: read in one pass.)
    assert name in [t.name for t in TWO_PASS]


@pytest.mark.parametrize("name", ["datetime_param", "uuid_param", "set_param", "scalars"])
def test_formats_and_sets_are_read_in_one_pass(name: str) -> None:
    assert name in [t.name for t in ONE_PASS]


@pytest.mark.parametrize("tool", ONE_PASS, ids=[t.name for t in ONE_PASS])
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(data=st.data())
def test_parse_and_text_validate_alike(tool: Tool, data: st.DataObject) -> None:
    valid = data.draw(_valid(tool))
    instance = data.draw(st.one_of(st.just(valid), _mutate(valid)))
    text = json.dumps(instance)
    validator = tool._get_parser(False)._validator
    parsed = jiter.from_json(text.encode(), allow_inf_nan=False, catch_duplicate_keys=True)
    from_text = _judged(validator.validate_json, text)  # type: ignore[union-attr]
    from_parse = _judged(validator.validate_python, parsed)  # type: ignore[union-attr]
    assert from_parse == from_text


def test_a_failed_one_pass_call_names_the_argument() -> None:
    def order(sku: str, qty: int) -> str:
        return sku * qty

    tool = Tool.from_function(order)
    assert tool._get_parser(False)._parsed
    with pytest.raises(ValueError, match="qty"):
        tool.validate('{"sku": "a", "qty": "2"}')
    assert tool.validate('{"sku": "a", "qty": 2.0}') == {"sku": "a", "qty": 2}
