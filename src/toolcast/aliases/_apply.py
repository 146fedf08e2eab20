"""Aliases on a call's way in and its outcome's way out, driven by a tool's schemas.

Inbound, the strings under marked argument fields are looked up (one store
call) and replaced by their UUIDs before validation; an alias the conversation
never gave out is an `invalid_arguments` result naming the known ones. Outbound,
the UUIDs under marked result fields are registered (one store call) and
replaced by their aliases in the JSON the model receives; `outcome.value`, for
the host, keeps the UUIDs. Text is never rewritten by substring, except whole
UUIDs the conversation knows in error messages. Each step is written once as a
generator of store requests, driven either async or (in-memory store) sync.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Generator, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import jiter
from pydantic_core import to_json

from toolcast._content import JsonPart, TextPart
from toolcast._outcome import ToolOutcome
from toolcast._result import text_of
from toolcast._spec import ParsedArguments
from toolcast.aliases._plan import (
    UUID_IN_TEXT,
    UUID_TEXT,
    Plan,
    compile_plan,
    inbound_leaves,
    leaf_paths,
    outbound_leaves,
)
from toolcast.aliases._session import AliasSession
from toolcast.aliases._store import AliasesUnavailableError

__all__ = (
    "AliasPlans",
    "alias_outcome",
    "drive",
    "drive_sync",
    "plans_for",
    "plans_of",
    "resolve_arguments",
    "restored",
    "unavailable",
)

MAX_KNOWN = 10
"""An unknown-alias message lists at most this many known ids."""
_MAX_SHOWN = 64

Request = tuple[str, Any, Any]
Steps = Generator[Request, Any, Any]


@dataclass(frozen=True, slots=True)
class AliasPlans:
    """Where one tool's aliased ids are, inbound and outbound."""

    inbound: Plan | None
    outbound: Plan | None
    """The result's marks (the value itself, never an envelope)."""
    enveloped: Plan | None
    """The same marks under an envelope's `result`, for enveloped tools."""
    resolve: bool
    """False for display-only tools: aliases are checked but reach the code as aliases."""

    @property
    def any(self) -> bool:
        return self.inbound is not None or self.outbound is not None


def plans_of(spec: Any, session: Any, *, resolve: bool) -> AliasPlans:
    """The plans of a tool with `spec`, checking that `session` is an `AliasSession`.

    Raises:
        TypeError: `session` is not an `AliasSession` (a host mistake).
    """
    if not isinstance(session, AliasSession):
        msg = f"aliases= takes an AliasSession, got {type(session).__name__}."
        raise TypeError(msg)
    return plans_for(spec.input_schema, spec.output_schema, envelope=spec.envelope, resolve=resolve)


def plans_for(
    input_schema: Mapping[str, Any],
    output_schema: Mapping[str, Any] | None,
    *,
    envelope: bool,
    resolve: bool,
) -> AliasPlans:
    """The plans of a tool whose (model-facing) schemas are given."""
    outbound = compile_plan(output_schema)
    enveloped = None
    if outbound is not None and envelope:
        enveloped = Plan()
        enveloped.props["result"] = outbound
    return AliasPlans(compile_plan(input_schema), outbound, enveloped, resolve)


# -- drivers ---------------------------------------------------------------------


async def drive(steps: Steps, session: AliasSession) -> Any:
    """Run `steps` against the session's store, awaiting each request."""
    store, conversation = session.store, session.conversation_id
    try:
        request = next(steps)
        while True:
            kind, first, second = request
            try:
                if kind == "lookup":
                    answer: Any = await store.lookup(conversation, first, second)
                elif kind == "register":
                    answer = await store.register(conversation, first)
                else:
                    answer = await store.aliases_of(conversation, first)
            except AliasesUnavailableError as exc:
                request = steps.throw(exc)
                continue
            request = steps.send(answer)
    except StopIteration as done:
        return done.value


def drive_sync(steps: Steps, session: AliasSession) -> Any:
    """Run `steps` against an in-memory store, without an event loop."""
    memory = session.memory
    if memory is None:
        msg = (
            f"invoke_sync needs an in-memory alias session; {type(session.store).__name__} "
            "is async only: use 'await tools.invoke(call, aliases=session)'."
        )
        raise TypeError(msg)
    conversation = session.conversation_id
    try:
        request = next(steps)
        while True:
            kind, first, second = request
            if kind == "lookup":
                answer: Any = memory.lookup_sync(conversation, first, second)
            elif kind == "register":
                answer = memory.register_sync(conversation, first)
            else:
                answer = memory.aliases_of_sync(conversation, first)
            request = steps.send(answer)
    except StopIteration as done:
        return done.value


# -- inbound -----------------------------------------------------------------------


def resolve_arguments(
    plans: AliasPlans, arguments: Any, *, tool: str, call_id: str | None, max_bytes: int
) -> Steps:
    """Steps returning `(arguments, restore)` or an error `ToolOutcome`.

    With aliases swapped for ids, the arguments are `ParsedArguments`.

    `restore` maps each alias the model sent to the UUID put in (for messages).
    Arguments that cannot be read are passed on untouched: the parser then
    says what is wrong with them, in its usual words.
    """
    plan = plans.inbound
    if plan is None:
        return (arguments, {})
    parsed, exact = _parsed(arguments, max_bytes)
    if parsed is None:
        return (arguments, {})
    leaves = inbound_leaves(parsed, plan)
    if not leaves:
        return (arguments, {})
    # Per leaf: the strings sent there (a whole list of ids is one leaf).
    texts = [_strings(c) if k is None else [c[k]] for c, k, _ in leaves]
    if len(texts) == 1:
        sent = list(dict.fromkeys(texts[0]))
        prefixes = [leaves[0][2]]
    else:
        wanted: dict[str, None] = {}
        for strings in texts:
            wanted.update(dict.fromkeys(strings))
        sent = list(wanted)
        prefixes = sorted({prefix for _, _, prefix in leaves})
    try:
        found, counts = yield ("lookup", sent, prefixes)
    except AliasesUnavailableError as exc:
        return unavailable(tool, call_id, exc)
    if None in found or not _prefixes_fit(leaves, texts):
        uuids = dict(zip(sent, found, strict=True))
        count = dict(zip(prefixes, counts, strict=True))
        return _unknown(parsed, plan, leaves, uuids, count, tool, call_id)
    if not plans.resolve:
        return (arguments, {})
    container, key, _ = leaves[0]
    if len(texts) == 1 and key is None and len(sent) == len(container):
        # One list of distinct aliases, nothing else in it (the usual call): the
        # store's answers are already in the list's order.
        container[:] = found
    else:
        _put(leaves, texts, dict(zip(sent, found, strict=True)))
    restore = _Restore(sent, found)
    if exact:
        # Numbers a float would round (`1e23`, `1.0000000000000000001`, `1e400`) go on
        # as the model wrote them, for the parser to read exactly and word its refusals.
        return (_dump(parsed), restore)
    # The strict parse, ids in: the tool's parser validates it without reading it again.
    return (ParsedArguments(parsed), restore)


def _strings(container: list[Any]) -> list[str]:
    """The strings of a list the model sent under a marked field (a copy)."""
    strings = [v for v in container if v.__class__ is str]
    return strings if len(strings) < len(container) else list(container)


def _put(leaves: list[Any], texts: list[list[str]], uuids: Mapping[str, Any]) -> None:
    for (container, key, _), strings in zip(leaves, texts, strict=True):
        if key is not None:
            container[key] = uuids[strings[0]]
        elif len(strings) == len(container):
            container[:] = map(uuids.__getitem__, strings)
        else:
            container[:] = [uuids[v] if v.__class__ is str else v for v in container]


class _Restore(Mapping[str, Any]):
    """Each alias the model sent and the UUID put in, paired only if a message needs it.

    Most calls succeed and never read it: building the mapping up front cost as much
    as looking the aliases up.
    """

    __slots__ = ("_found", "_pairs", "_sent")

    def __init__(self, sent: list[str], found: list[Any]) -> None:
        self._sent, self._found = sent, found
        self._pairs: dict[str, Any] | None = None

    def _mapping(self) -> dict[str, Any]:
        if self._pairs is None:
            self._pairs = dict(zip(self._sent, self._found, strict=True))
        return self._pairs

    def __getitem__(self, alias: str) -> Any:
        return self._mapping()[alias]

    def __iter__(self) -> Iterator[str]:
        return iter(self._mapping())

    def __len__(self) -> int:
        return len(self._sent)


def _prefixes_fit(leaves: list[Any], texts: list[list[str]]) -> bool:
    # A link id sent where a theme id goes is a mix-up, not a theme id. Every text
    # is a known alias here (`prefix-n`, no NUL), so two C calls check a whole list.
    for (_, _, prefix), strings in zip(leaves, texts, strict=True):
        if not strings:
            continue
        marker = prefix + "-"
        joined = "\0".join(strings)
        if not joined.startswith(marker) or joined.count("\0" + marker) != len(strings) - 1:
            return False
    return True


def _unknown(
    parsed: Any,
    plan: Plan,
    leaves: list[Any],
    uuids: Mapping[str, str | None],
    count: Mapping[str, int],
    tool: str,
    call_id: str | None,
) -> ToolOutcome:
    paths = leaf_paths(parsed, plan)
    lines: list[str] = []
    for container, key, prefix in leaves:
        keys = [i for i, v in enumerate(container) if v.__class__ is str] if key is None else [key]
        lines.extend(
            f"Argument '{paths[(id(container), k)]}': {_shown(container[k])} is not a "
            f"{prefix} id in this conversation ({_known(prefix, count[prefix])})."
            for k in keys
            if uuids[container[k]] is None or not container[k].startswith(prefix + "-")
        )
    if len(lines) == 1:
        message = lines[0]
    else:
        shown = lines[:MAX_KNOWN]
        if len(lines) > MAX_KNOWN:
            shown.append(f"... and {len(lines) - MAX_KNOWN} more.")
        header = f"Invalid arguments for '{tool}' ({len(lines)} problems):"
        message = "\n".join([header, *(f"- {line}" for line in shown)])
    return ToolOutcome.failure("invalid_arguments", message, tool_name=tool, call_id=call_id)


# An exponent after a digit, or 17 digits and points in a row: a number a float may
# round. Searched in a copy where digits and points read `0` and exponents `e`: two
# substring searches run in C, where the regex `[0-9][eE]|[0-9.]{17}` steps through
# every byte in the matcher (11 µs for a call holding 50 aliases, 2 µs this way). A
# point before an `e` reads as a digit too: that only sends the text the exact way.
_NUMBER_SHAPE = bytes.maketrans(b"123456789.E", b"0000000000e")
_LONG_RUN = b"0" * 17


def _may_round(raw: bytes) -> bool:
    shape = raw.translate(_NUMBER_SHAPE)
    return b"0e" in shape or _LONG_RUN in shape


def _parsed(arguments: Any, max_bytes: int) -> tuple[dict[str, Any] | None, bool]:
    """The argument object, and whether its numbers are kept as written (LosslessFloat)."""
    if isinstance(arguments, str):  # the usual case first: a Mapping check is an ABC's
        raw = arguments.encode("utf-8", "surrogatepass")
    elif isinstance(arguments, Mapping):
        try:
            # A copy made of JSON data: the host's mapping is never changed.
            raw = to_json(dict(arguments), inf_nan_mode="constants", bytes_mode="base64")
        except Exception:
            return None, False
    elif isinstance(arguments, (bytes, bytearray)):
        raw = bytes(arguments)
    else:
        return None, False
    if len(raw) > max_bytes:
        return None, False
    exact = _may_round(raw)
    try:
        parsed = jiter.from_json(
            raw,
            allow_inf_nan=False,
            catch_duplicate_keys=True,
            cache_mode="keys",
            float_mode="lossless-float" if exact else "float",
        )
    except ValueError:
        return None, False
    return (parsed, exact) if isinstance(parsed, dict) else (None, False)


def _shown(value: str) -> str:
    text = value if value.isprintable() else value.encode("unicode_escape").decode("ascii")
    if len(text) > _MAX_SHOWN:
        text = text[: _MAX_SHOWN - 1] + "…"
    return "'" + text.replace("'", "\\'") + "'"


def _known(prefix: str, count: int) -> str:
    if count <= 0:
        return f"it has no {prefix} ids yet"
    listed = ", ".join(f"{prefix}-{n}" for n in range(1, min(count, MAX_KNOWN) + 1))
    more = f" and {count - MAX_KNOWN} more" if count > MAX_KNOWN else ""
    return f"known: {listed}{more}"


def unavailable(tool: str, call_id: str | None, exc: BaseException | None = None) -> ToolOutcome:
    """The fail-closed result when the alias store does not answer."""
    message = (
        f"Tool '{tool}' did not run: the ids of this conversation are unavailable "
        "right now (the id store did not answer). Try again later."
    )
    return ToolOutcome.failure("not_run", message, tool_name=tool, call_id=call_id, exception=exc)


def restored(outcome: ToolOutcome, restore: Mapping[str, Any]) -> ToolOutcome:
    """A failure whose message quotes the aliases the model sent, not their UUIDs."""
    if not restore or outcome.error is None:
        return outcome
    message = outcome.error.message
    lowered = {uuid.lower(): alias for alias, uuid in restore.items()}
    changed = UUID_IN_TEXT.sub(lambda m: lowered.get(m.group().lower(), m.group()), message)

    def cut(match: re.Match[str]) -> str:
        # A message that cut a quoted value short ends it in the middle of a UUID.
        start = match.group(1).lower()
        alias = next((a for u, a in lowered.items() if u.startswith(start)), None)
        return f"{alias}…" if alias is not None else match.group()

    changed = _CUT_UUID.sub(cut, changed)
    if changed == message:
        return outcome
    return _with_message(outcome, changed)


_CUT_UUID = re.compile(r"(?<![0-9A-Za-z-])([0-9a-fA-F][0-9a-fA-F-]{3,34})…")


def _with_message(outcome: ToolOutcome, message: str) -> ToolOutcome:
    assert outcome.error is not None
    return ToolOutcome.failure(
        outcome.error.kind,
        message,
        tool_name=outcome.tool_name,
        call_id=outcome.call_id,
        exception=outcome.exception,
    )


# -- outbound ----------------------------------------------------------------------


def alias_outcome(outcome: ToolOutcome, plans: AliasPlans, *, exact: bool) -> Steps:
    """Steps returning `outcome` as the model should see it (ids as aliases)."""
    if outcome.is_error:
        if outcome.error is None or not UUID_IN_TEXT.search(outcome.error.message):
            return outcome
        message = outcome.error.message
        found = list(dict.fromkeys(m.group() for m in UUID_IN_TEXT.finditer(message)))
        try:
            aliases = yield ("aliases_of", found, None)
        except AliasesUnavailableError:
            return outcome
        known = {u: a for u, a in zip(found, aliases, strict=True) if a is not None}
        if not known:
            return outcome
        changed = UUID_IN_TEXT.sub(lambda m: known.get(m.group(), m.group()), message)
        return _with_message(outcome, changed)
    plan = plans.outbound
    if plan is None:
        return outcome
    if plan.prefix is not None and isinstance(outcome.value, str):
        return (yield from _alias_text_result(outcome, plan.prefix))
    if plan.prefix is not None:
        return (yield from _alias_id_result(outcome, plan.prefix))
    marker = type(outcome.structured_value).__name__
    lazy = marker in ("_LazyMarker", "_LazyEnvelopedMarker")
    part_plan = plans.enveloped if marker == "_LazyEnvelopedMarker" else plan
    assert part_plan is not None
    values: list[Any] = []
    parts = list(outcome.content)
    json_at = [i for i, p in enumerate(parts) if isinstance(p, JsonPart)]
    for index in json_at:
        values.append(_load(parts[index].text, exact))  # type: ignore[union-attr]
    structured = None
    if not lazy and outcome.structured_value is not None:
        structured = _load(
            to_json(outcome.structured_value, bytes_mode="base64", inf_nan_mode="null"), exact
        )
    leaves = []
    for value in values:
        leaves.extend(outbound_leaves(value, part_plan))
    inner = outbound_leaves(structured, plan) if structured is not None else []
    if not leaves and not inner:
        return outcome
    leaves += inner
    spelled = [c[k] for c, k, _ in leaves]
    # One lower() for all: a UUID has no newline, so the split gives one per leaf.
    lowered = "\n".join(spelled).lower().split("\n")
    prefixes = [p for _, _, p in leaves]
    distinct = len(set(lowered)) == len(lowered)
    if distinct:  # the usual case: each id once, so no table from id to alias
        pairs = list(zip(prefixes, spelled, strict=True))
    else:
        first: dict[str, tuple[str, str]] = {}
        for low, prefix, uuid in zip(lowered, prefixes, spelled, strict=True):
            if low not in first:
                first[low] = (prefix, uuid)
        pairs = list(first.values())
    try:
        aliases = yield ("register", pairs, None)
    except AliasesUnavailableError as exc:
        return _unshown(outcome, exc)
    if not distinct:
        by_uuid = dict(zip(first, aliases, strict=True))
        aliases = [by_uuid[low] for low in lowered]
    for (container, key, _), alias in zip(leaves, aliases, strict=True):
        container[key] = alias
    for index, value in zip(json_at, values, strict=True):
        parts[index] = JsonPart(_dump(value))
    content = tuple(parts)
    return dataclasses.replace(
        outcome,
        content=content,
        text=text_of(content),
        structured_value=outcome.structured_value if structured is None else structured,
    )


def _alias_text_result(outcome: ToolOutcome, prefix: str) -> Steps:
    # A tool whose result is one aliased id returns it as text.
    value = outcome.value
    if not (len(value) == 36 and UUID_TEXT.match(value)) or outcome.text != value:
        return outcome
    try:
        [alias] = yield ("register", [(prefix, value)], None)
    except AliasesUnavailableError as exc:
        return _unshown(outcome, exc)
    return dataclasses.replace(outcome, content=(TextPart(alias),), text=alias)


def _alias_id_result(outcome: ToolOutcome, prefix: str) -> Steps:
    # A tool whose result is one aliased id of another type (a UUID) sends one JSON string.
    parts = outcome.content
    if len(parts) != 1 or not isinstance(parts[0], JsonPart):
        return outcome
    value = _load(parts[0].text, False)
    if not isinstance(value, str) or not UUID_TEXT.match(value):
        return outcome
    try:
        [alias] = yield ("register", [(prefix, value)], None)
    except AliasesUnavailableError as exc:
        return _unshown(outcome, exc)
    text = _dump(alias)
    return dataclasses.replace(
        outcome, content=(JsonPart(text),), text=text, structured_value=alias
    )


def _unshown(outcome: ToolOutcome, exc: BaseException) -> ToolOutcome:
    message = (
        f"Tool '{outcome.tool_name}' ran, but its result cannot be shown: the ids of "
        "this conversation are unavailable right now (the id store did not answer)."
    )
    return ToolOutcome.failure(
        "exception", message, tool_name=outcome.tool_name, call_id=outcome.call_id, exception=exc
    )


def _load(text: str | bytes, exact: bool) -> Any:
    raw = text.encode() if isinstance(text, str) else text
    # Only keys repeat in a large result; caching every value string costs more than it saves.
    return jiter.from_json(
        raw, float_mode="lossless-float" if exact else "float", cache_mode="keys"
    )


def _dump(value: Any) -> str:
    digits: list[bytes] = []
    import secrets  # only here: not worth loading at `import toolcast`

    token = f"\u0000{secrets.token_hex(6)}:"

    def keep(number: Any) -> Any:
        if isinstance(number, jiter.LosslessFloat):
            digits.append(bytes(number))
            return f"{token}{len(digits) - 1}"
        raise TypeError(f"{type(number).__name__} is not JSON")

    text = to_json(value, fallback=keep).decode()
    for index in range(len(digits) - 1, -1, -1):
        text = text.replace(to_json(f"{token}{index}").decode(), digits[index].decode())
    return text
