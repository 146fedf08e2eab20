"""Validated arguments -> the request message, and the response -> JSON data, never raising raw.

The schema already holds the arguments to what `json_format.ParseDict` reads
(tests/rpc/test_grpc_protojson.py), so conversion is mostly `ParseDict` itself.
Three things remain: a well-known type whose protojson is not an object arrives
as `{"value": ...}`; a float32 written as protojson writes its largest value
(`3.4028235e38`) is a hair above what protobuf's Python parser takes, so such
values are clamped; and anything `ParseDict` or `MessageToDict` still raises
becomes a `ToolError` naming the argument, never an exception out of the tool.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolcast.errors import ToolError
from toolcast.grpc._scalars import FLOAT, NON_OBJECT_ROOTS

__all__ = ("RequestConverter", "response_json")

_EXACT_FLOAT_MAX = 3.4028234663852886e38  # float32's largest value, as a double
_FLOAT_WRAPPER = "google.protobuf.FloatValue"

# A plan says where float32 values sit: {field name: (shape, sub)}, shape "one",
# "list" or "map", sub None for a float32 scalar or the plan of a message.
Plan = dict[str, tuple[str, Any]]


def _clamp(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    number = float(value)
    if number > _EXACT_FLOAT_MAX:
        return _EXACT_FLOAT_MAX
    if number < -_EXACT_FLOAT_MAX:
        return -_EXACT_FLOAT_MAX
    return value


def _parts(field: Any) -> tuple[str, Any, Any]:
    """(shape, value field, value message) of `field`, looking through a map entry."""
    message = field.message_type
    if message is not None and message.GetOptions().map_entry:
        value = message.fields_by_name["value"]
        return "map", value, value.message_type
    return ("list" if field.is_repeated else "one"), field, message


def _is_float(field: Any, message: Any) -> bool:
    if message is None:
        return bool(field.type == FLOAT)
    return bool(message.full_name == _FLOAT_WRAPPER)


def _holding_floats(root: Any) -> set[str]:
    """Full names of the messages reachable from `root` that lead to a float32."""
    found: dict[str, Any] = {}
    stack = [root]
    while stack:
        descriptor = stack.pop()
        if descriptor.full_name in found:
            continue
        found[descriptor.full_name] = descriptor
        for field in descriptor.fields:
            _, _, message = _parts(field)
            # Struct, Value, Any, descriptors...: doubles, or payloads ParseDict checks.
            if message is not None and not message.full_name.startswith("google.protobuf."):
                stack.append(message)
    holding: set[str] = set()
    changed = True
    while changed:  # a fixpoint, so that recursive messages are decided too
        changed = False
        for name, descriptor in found.items():
            if name in holding:
                continue
            for field in descriptor.fields:
                _, value, message = _parts(field)
                if _is_float(value, message) or (
                    message is not None and message.full_name in holding
                ):
                    holding.add(name)
                    changed = True
                    break
    return holding


def _plan(descriptor: Any, holding: set[str], memo: dict[str, Plan]) -> Plan:
    name = descriptor.full_name
    if name in memo:
        return memo[name]
    plan: Plan = {}
    memo[name] = plan  # before the fields: a recursive message refers to itself
    for field in descriptor.fields:
        shape, value, message = _parts(field)
        if _is_float(value, message):
            plan[field.name] = (shape, None)
        elif message is not None and message.full_name in holding:
            plan[field.name] = (shape, _plan(message, holding, memo))
    return plan


def _apply(value: Any, plan: Plan) -> Any:
    if not isinstance(value, Mapping):
        return value
    out: dict[str, Any] | None = None
    for name, (shape, sub) in plan.items():
        item = value.get(name)
        if item is None:
            continue
        if shape == "one":
            new = _clamp(item) if sub is None else _apply(item, sub)
        elif shape == "list" and isinstance(item, list):
            new = [_clamp(v) if sub is None else _apply(v, sub) for v in item]
        elif shape == "map" and isinstance(item, Mapping):
            new = {k: _clamp(v) if sub is None else _apply(v, sub) for k, v in item.items()}
        else:
            continue
        if new is not item:
            out = dict(value) if out is None else out
            out[name] = new
    return value if out is None else out


class RequestConverter:
    """Builds the request message of one tool from its validated arguments."""

    __slots__ = ("_cls", "_name", "_parse", "_plan", "_pool", "_unwrap")

    def __init__(self, tool: str, request_cls: Any) -> None:
        from google.protobuf import json_format  # type: ignore[import-untyped,unused-ignore]

        descriptor = request_cls.DESCRIPTOR
        self._name = tool
        self._cls = request_cls
        self._pool = descriptor.file.pool  # an Any names types of this pool
        self._parse = json_format.ParseDict
        self._unwrap = descriptor.full_name in NON_OBJECT_ROOTS
        if descriptor.full_name == _FLOAT_WRAPPER:
            self._plan: Plan | None = {"value": ("one", None)}
        else:
            holding = _holding_floats(descriptor)
            self._plan = _plan(descriptor, holding, {}) if holding else None

    def __call__(self, arguments: Mapping[str, Any]) -> Any:
        """The request message; a `ToolError` naming the argument when it cannot be built."""
        payload: Any = arguments
        if self._plan is not None:
            payload = _apply(payload, self._plan)
        if self._unwrap:
            payload = payload.get("value") if isinstance(payload, Mapping) else payload
        try:
            return self._parse(payload, self._cls(), descriptor_pool=self._pool)
        except Exception as exc:
            raise ToolError(self._explain(arguments, exc)) from exc

    def _explain(self, arguments: Mapping[str, Any], exc: Exception) -> str:
        from google.protobuf import json_format

        if isinstance(exc, json_format.ParseError):
            return f"Arguments for '{self._name}' were not accepted: {exc}"
        # Anything else carries no path: find the argument by parsing each alone.
        if not self._unwrap and isinstance(arguments, Mapping):
            for key, value in arguments.items():
                try:
                    self._parse({key: value}, self._cls(), descriptor_pool=self._pool)
                except Exception:
                    return (
                        f"Argument '{key}' of '{self._name}' could not be converted to "
                        f"protobuf: {type(exc).__name__}: {exc}"
                    )
        return (
            f"Arguments for '{self._name}' could not be converted to protobuf: "
            f"{type(exc).__name__}: {exc}"
        )


def response_json(tool: str, message: Any, to_dict: Any, pool: Any) -> Any:
    """`message` as JSON data with proto field names (`{"value": ...}` for a bare WKT)."""
    try:
        out = to_dict(message, preserving_proto_field_name=True, descriptor_pool=pool)
    except Exception as exc:
        msg = f"Tool '{tool}': the service's response cannot be written as JSON: {exc}"
        raise ToolError(msg) from exc
    if message.DESCRIPTOR.full_name in NON_OBJECT_ROOTS:
        return {"value": out}
    return out
