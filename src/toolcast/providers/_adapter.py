"""What every provider's `Model` adapter shares: the client call, options, usage, text.

Each provider module ends with a small `Model` class built on `Adapter`; it owns
the wire shapes (through the module's own `format_*`/`parse_calls`), this module
owns the plumbing. It never imports a provider module or an SDK: the host hands
the adapter a client it built, and the SDK's own retry settings stay in charge.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pydantic_core import to_json

from toolcast.loop._model import ModelRequest, Usage
from toolcast.providers._common import get, to_plain

__all__ = ("Adapter", "choice_of", "drop_none", "plain", "text_of", "usage_of")


class Adapter:
    """The plumbing of a `Model` adapter: one client method, default options, merging.

    Subclasses set `provider` (a name for messages), `method` (the dotted path of
    the async client method to call), `expects` (the client the host should pass)
    and `extra` (the toolcast extra that installs the SDK).
    """

    provider = ""
    method = ""
    expects = ""
    extra = ""

    def __init__(self, client: Any, model: str, **options: Any) -> None:
        if not model:
            raise TypeError(f"{self.provider} Model takes the model name as a string.")
        self.client = client
        self.model = model
        self.options: dict[str, Any] = options
        self._send = self._bind(client)

    def __repr__(self) -> str:
        return f"{type(self).__module__}.Model({self.model!r})"

    def _bind(self, client: Any) -> Callable[..., Any]:
        target = client
        for part in self.method.split("."):
            target = getattr(target, part, None)
            if target is None:
                raise TypeError(
                    f"{self.provider} Model needs {self.expects} "
                    f"(pip install 'toolcast[{self.extra}]'); "
                    f"{type(client).__name__} has no `.{self.method}`."
                )
        if not callable(target):
            raise TypeError(f"`{type(client).__name__}.{self.method}` is not callable.")
        return target  # type: ignore[no-any-return]

    def merged(self, request: ModelRequest) -> dict[str, Any]:
        """The adapter's default options overlaid with this request's."""
        return {**self.options, **request.options}

    async def send(self, **kwargs: Any) -> Any:
        """Call the client method; a sync client works too (it blocks the event loop)."""
        result = self._send(**kwargs)
        if inspect.isawaitable(result):
            result = await result
        return result


def choice_of(mode: str) -> str | dict[str, str]:
    """A `ModelRequest.tool_choice` as the neutral choice the `format_tool_choice`s read."""
    return mode if mode in ("auto", "required", "none") else {"name": mode}


def plain(value: Any) -> Any:
    """An SDK object or mapping as JSON-ready data, `None` fields left out."""
    data = to_plain(value)  # a fresh copy already, down to every dict and list
    try:
        # Most responses hold no None once the SDK's dump left out its None fields:
        # one serialisation in C says so, for half the time of walking them in Python.
        # Anything it cannot say for sure (a `null` in a text, NaN) takes the walk.
        clean = b"null" not in to_json(data)
    except Exception:  # what pydantic-core cannot serialise is walked
        clean = False
    return data if clean else drop_none(data)


_SCALARS = frozenset({str, int, float, bool})


def drop_none(value: Any) -> Any:
    """`value` with `None` entries of every mapping removed (recursively)."""
    # Scalars, most of a response, are kept without a call each: this runs on every
    # response the loop reads.
    scalars = _SCALARS
    if isinstance(value, Mapping):
        return {
            k: v if v.__class__ in scalars else drop_none(v)
            for k, v in value.items()
            if v is not None
        }
    if isinstance(value, list):
        return [v if v.__class__ in scalars else drop_none(v) for v in value]
    return value


def usage_of(report: Any, input_keys: Iterable[str], output_keys: Iterable[str]) -> Usage:
    """Tokens from a provider's usage record: the sum of the named fields (missing = 0)."""
    if report is None:
        return Usage()

    def total(keys: Iterable[str]) -> int:
        return sum(int(get(report, key) or 0) for key in keys)

    return Usage(total(input_keys), total(output_keys))


def text_of(blocks: Any, *, kind: str = "text", key: str = "text") -> str:
    """The text of a message's content: a string as is, or the joined text blocks."""
    if blocks is None:
        return ""
    if isinstance(blocks, str):
        return blocks
    parts = []
    for block in blocks:
        if get(block, "type", kind) == kind and isinstance(get(block, key), str):
            parts.append(get(block, key))
    return "".join(parts)


class StrictAdapter(Adapter):
    """An adapter whose provider projects tools strictly or not (`strict=None`: per tool)."""

    def __init__(
        self, client: Any, model: str, *, strict: bool | None = None, **options: Any
    ) -> None:
        super().__init__(client, model, **options)
        self.strict = strict


def openai_tool_fields(
    request: ModelRequest,
    format_tools: Callable[..., Any],
    format_tool_choice: Callable[..., Any],
    *,
    strict: bool | None,
) -> dict[str, Any]:
    """`tools`, `tool_choice` and `parallel_tool_calls`, as OpenAI-shaped APIs take them.

    Nothing when the request has no tools: these APIs refuse a tool choice or a
    parallel switch without tools.
    """
    if not request.tools:
        return {}
    fields: dict[str, Any] = {
        "tools": format_tools(request.tools, strict=strict),
        "tool_choice": format_tool_choice(choice_of(request.tool_choice), tools=request.tools),
    }
    if not request.parallel_calls:
        fields["parallel_tool_calls"] = False
    return fields
