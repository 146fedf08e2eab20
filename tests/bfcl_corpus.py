"""The Berkeley Function Calling Leaderboard's tools and ground-truth calls, as JSON Schema.

The data (tests/data/bfcl/corpus.json.gz, Apache-2.0, see the README beside it) keeps
BFCL's definitions as shipped, in BFCL's own dialect. `to_json_schema` converts one the
way BFCL converts them for OpenAI (`bfcl_eval.model_handler.utils.convert_to_tool` with
`GORILLA_TO_OPENAPI`): `.` in a name becomes `_`; the root becomes `"type": "object"`;
each property's BFCL type is mapped (`dict` -> `object`, `float` -> `number` with
`"format": "float"` and " This is a float type value." added to its description,
`tuple` -> `array`, `any` -> `string`, Java/JavaScript names such as `String`,
`HashMap`, `long` likewise, an unknown or missing type -> `string`), recursively
through `properties`, and through `items` one and two levels deep (as BFCL does);
every other keyword (`default`, `enum`, `required`, ...) is left as written.
"""

from __future__ import annotations

import copy
import functools
import gzip
import json
import re
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data" / "bfcl" / "corpus.json.gz"

# BFCL's `GORILLA_TO_OPENAPI` table (bfcl_eval/constants/type_mappings.py), as facts.
TYPES = {
    "integer": "integer", "number": "number", "float": "number", "string": "string",
    "boolean": "boolean", "bool": "boolean", "array": "array", "list": "array",
    "dict": "object", "object": "object", "tuple": "array", "any": "string",
    "byte": "integer", "short": "integer", "long": "integer", "double": "number",
    "char": "string", "ArrayList": "array", "Array": "array", "HashMap": "object",
    "Hashtable": "object", "Queue": "array", "Stack": "array", "Any": "string",
    "String": "string", "Bigint": "integer",
}  # fmt: skip


@functools.cache
def corpus() -> dict[str, Any]:
    """The data file: `functions` (BFCL's definitions) and `calls` ([index, answer])."""
    # A missing file fails the tests that need it: it is part of the repository.
    return json.loads(gzip.decompress(DATA.read_bytes()))  # type: ignore[no-any-return]


def _item_type(kind: Any) -> str:
    return TYPES.get(kind, "string") if isinstance(kind, str) else "string"


def _properties(properties: dict[str, Any]) -> dict[str, Any]:
    for value in properties.values():
        if not isinstance(value, dict):
            continue
        kind = value.get("type")
        if kind == "float":
            value["format"] = "float"
            value["description"] = value.get("description", "") + " This is a float type value."
        value["type"] = _item_type(kind) if kind is not None else "string"
        if value["type"] in ("array", "object"):
            if isinstance(value.get("properties"), dict):
                value["properties"] = _properties(value["properties"])
            elif isinstance(value.get("items"), dict):
                items = value["items"]
                items["type"] = _item_type(items.get("type"))
                inner = items.get("items")
                if items["type"] == "array" and isinstance(inner, dict):
                    inner["type"] = _item_type(inner.get("type"))
                elif items["type"] == "object" and isinstance(items.get("properties"), dict):
                    items["properties"] = _properties(items["properties"])
    return properties


def to_json_schema(function: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
    """(name, description, input schema) of one BFCL definition, as BFCL sends it to OpenAI."""
    function = copy.deepcopy(function)
    name = re.sub(r"\.", "_", function["name"])
    parameters = function.get("parameters") or {}
    parameters["type"] = "object"
    parameters["properties"] = _properties(parameters.get("properties") or {})
    return name, function.get("description", ""), parameters
