"""BFCL's ground-truth answers as argument objects the canonical schema accepts.

An answer lists the acceptable values of each argument (`""`: may be left out;
a nested object's answer lists its keys' values the same way). `arguments` picks,
per argument, the first acceptable value the argument's schema accepts, or leaves
an optional argument out when `""` is acceptable (with `omit`, whenever it is);
an answer with no such choice for some argument lies outside the schema: None.
"""

from __future__ import annotations

from typing import Any

import jsonschema_rs

_VALIDATORS: dict[str, Any] = {}


def _accepts(schema: Any, value: Any) -> bool:
    import json

    key = json.dumps(schema, sort_keys=True)
    validator = _VALIDATORS.get(key)
    if validator is None:
        validator = _VALIDATORS[key] = jsonschema_rs.validator_for(schema)
    return bool(validator.is_valid(value))


def _choose(alternatives: Any, schema: Any, omit: bool) -> tuple[bool, Any]:
    """(found, value): the first alternative `schema` accepts (`...`: leave it out).

    With `omit`, an argument that may be left out is left out.
    """
    if not isinstance(alternatives, list):
        alternatives = [alternatives]
    if omit and "" in alternatives and not _accepts(schema, ""):
        return True, ...
    omittable = False
    for alternative in alternatives:
        if alternative == "" and not _accepts(schema, ""):
            omittable = True
            continue
        if (
            isinstance(alternative, dict)
            and isinstance(schema, dict)
            and isinstance(schema.get("properties"), dict)
            and all(isinstance(v, list) for v in alternative.values())
        ):
            nested = arguments(alternative, schema, omit=omit)
            if nested is not None and _accepts(schema, nested):
                return True, nested
        if _accepts(schema, alternative):
            return True, alternative
    return (True, ...) if omittable else (False, None)


def arguments(
    answer: dict[str, Any], schema: dict[str, Any], *, omit: bool = False
) -> dict[str, Any] | None:
    """The argument object of one answer under `schema`, or None outside it.

    With `omit`, every argument the answer allows to be left out is left out.
    """
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    out: dict[str, Any] = {}
    for key, alternatives in answer.items():
        if key not in properties:
            return None
        found, value = _choose(alternatives, properties[key], omit)
        if not found or (value is ... and key in required):
            return None
        if value is not ...:
            out[key] = value
    if not required <= set(out):
        return None
    return out if _accepts(schema, out) else None
