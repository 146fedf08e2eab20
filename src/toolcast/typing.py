"""Public type aliases and protocols used across toolcast."""

from __future__ import annotations

from toolcast._json import JsonSchema, JsonValue
from toolcast._tool import TargetResolver

__all__ = ("JsonSchema", "JsonValue", "TargetResolver")
