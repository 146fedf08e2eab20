"""The JSON vocabulary: what a schema and a JSON value are, as types.

A leaf: every other module may import it, it imports nothing of toolcast's.
`toolcast.typing` re-exports these names for users.
"""

from __future__ import annotations

from typing import Any, TypeAlias, Union

__all__ = ("JsonSchema", "JsonValue")

JsonSchema: TypeAlias = "dict[str, Any]"
"""A JSON Schema (draft 2020-12) document or fragment."""

JsonValue: TypeAlias = Union[bool, int, float, str, "list[JsonValue]", "dict[str, JsonValue]", None]
"""Any value JSON can carry."""
