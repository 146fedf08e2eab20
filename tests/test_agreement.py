"""Validation agrees with the advertised schema: accepted exactly when the schema accepts.

For every corpus signature, instances generated from the schema (hypothesis-jsonschema)
and mutations of them are judged by toolcast and by the `jsonschema` reference validator
(draft 2020-12, with format assertion and base64 `contentEncoding` checked, because
toolcast enforces both); the two decisions must match.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from jsonschema import Draft202012Validator, exceptions, validators

from corpus import CORPUS
from toolcast import Tool
from toolcast._frozen import thaw

# Known, documented gaps between toolcast and the reference (docs/schema.md, "Gaps").
KNOWN_GAPS: dict[str, str] = {}


def _base64(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
    if value == "base64" and isinstance(instance, str):
        try:
            base64.b64decode(instance, validate=True)
        except (binascii.Error, ValueError):
            yield exceptions.ValidationError(f"{instance!r} is not base64")


Reference = validators.extend(Draft202012Validator, {"contentEncoding": _base64})

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


# hypothesis-jsonschema cannot follow recursive references: these are written by hand.
_node = st.recursive(
    st.fixed_dictionaries({"label": st.text(max_size=5)}),
    lambda kids: st.fixed_dictionaries(
        {"label": st.text(max_size=5)}, optional={"children": st.lists(kids, max_size=3)}
    ),
    max_leaves=6,
)
_folder = st.recursive(
    st.fixed_dictionaries({"name": st.text(max_size=5)}),
    lambda subs: st.fixed_dictionaries(
        {"name": st.text(max_size=5)}, optional={"subfolders": st.lists(subs, max_size=3)}
    ),
    max_leaves=6,
)
HAND_WRITTEN = {
    "recursive_model": st.fixed_dictionaries({"tree": _node}),
    "recursive_dataclass": st.fixed_dictionaries({"root": _folder}),
    # hypothesis-jsonschema 0.23 predates prefixItems and knows no uuid/base64 generators.
    "tuple_fixed": st.fixed_dictionaries({"pair": st.tuples(st.integers(), st.text()).map(list)}),
    "uuid_param": st.fixed_dictionaries({"item_id": st.uuids().map(str)}),
    "bytes_param": st.fixed_dictionaries(
        {"blob": st.binary(max_size=20).map(lambda b: base64.b64encode(b).decode())}
    ),
}


def _outside_timedelta(instance: Any) -> bool:
    """Documented gap: durations beyond datetime.timedelta's range are refused."""
    text = instance.get("length") if isinstance(instance, dict) else None
    if not isinstance(text, str) or not text.startswith("P"):
        return False
    import re

    total = sum(
        float(n) * {"W": 7, "D": 1, "H": 1 / 24, "M": 1 / 1440, "S": 1 / 86400}[u]
        for n, u in re.findall(r"([0-9]+(?:\.[0-9]+)?)([WDHMS])", text)
    )
    return total >= 999_999_999


def _valid(tool: Tool) -> st.SearchStrategy[Any]:
    """Instances generated from the tool's schema."""
    if tool.name in HAND_WRITTEN:
        return HAND_WRITTEN[tool.name]
    return from_schema(thaw(tool.spec.input_schema))


def _mutate(value: Any) -> st.SearchStrategy[Any]:
    options: list[st.SearchStrategy[Any]] = [json_values]
    if isinstance(value, dict) and value:
        keys = sorted(value)
        options.append(
            st.sampled_from(keys).map(lambda k: {x: v for x, v in value.items() if x != k})
        )
        options.append(
            st.sampled_from(keys).flatmap(
                lambda k: _mutate(value[k]).map(lambda new: {**value, k: new})
            )
        )
        options.append(
            st.text(max_size=5).flatmap(lambda k: json_values.map(lambda v: {**value, k: v}))
        )
    if isinstance(value, list) and value:
        options.append(
            st.integers(0, len(value) - 1).flatmap(
                lambda i: _mutate(value[i]).map(lambda new: [*value[:i], new, *value[i + 1 :]])
            )
        )
        options.append(st.just(value + value))
        options.append(st.just(value[1:]))
    return st.one_of(options)


TOOLS = [Tool.from_function(fn) for fn in CORPUS]
IDS = [t.name for t in TOOLS]


def _decisions(tool: Tool, instance: Any) -> tuple[bool, bool, str]:
    reference = Reference(
        thaw(tool.spec.input_schema), format_checker=Draft202012Validator.FORMAT_CHECKER
    )
    expected = reference.is_valid(instance)
    try:
        tool.validate(json.dumps(instance))
    except ValueError as exc:
        return expected, False, str(exc)
    return expected, True, ""


def test_corpus_has_at_least_40_signatures() -> None:
    assert len(TOOLS) >= 40


@pytest.mark.parametrize("tool", TOOLS, ids=IDS)
def test_schema_is_valid_draft_2020_12(tool: Tool) -> None:
    Draft202012Validator.check_schema(tool.spec.input_schema)


@pytest.mark.parametrize("tool", TOOLS, ids=IDS)
@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_generated_valid_instances_are_accepted(tool: Tool, data: st.DataObject) -> None:
    if tool.name in KNOWN_GAPS:
        pytest.skip(KNOWN_GAPS[tool.name])
    instance = data.draw(_valid(tool))
    assume(not _outside_timedelta(instance))
    expected, accepted, message = _decisions(tool, instance)
    # hypothesis-jsonschema ignores some 2020-12 keywords (prefixItems, formats it does
    # not know); the reference validator is the judge of what is valid.
    assume(expected)
    assert accepted, f"{instance!r} refused: {message}"


@pytest.mark.parametrize("tool", TOOLS, ids=IDS)
@settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_mutated_instances_decided_like_the_reference(tool: Tool, data: st.DataObject) -> None:
    if tool.name in KNOWN_GAPS:
        pytest.skip(KNOWN_GAPS[tool.name])
    instance = data.draw(_valid(tool).flatmap(_mutate))
    assume(not _outside_timedelta(instance))
    expected, accepted, message = _decisions(tool, instance)
    assert accepted == expected, f"{instance!r}: reference={expected} toolcast={accepted} {message}"
