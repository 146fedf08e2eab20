"""A Python callable -> its tool name, description, schemas and call plan.

Everything here runs when the tool is defined, and the arguments' walk once more on
the tool's first call (`input_node`: a built tool keeps no pydantic-core schema).
Problems are collected and raised together as one `ToolDefinitionError`.
"""

from __future__ import annotations

import functools
import inspect
import re
import types
import typing
from collections import abc
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import typing_extensions

from toolcast._content import PARTS, ToolResult
from toolcast._context import ToolContext
from toolcast._define import _decorator
from toolcast._define._annotations import MISSING, split_annotated
from toolcast._define._decorator import Param, ToolOptions
from toolcast._define._docstring import Docstring, parse_docstring
from toolcast._define._envelope import wants_envelope
from toolcast._define._fields import FieldDef
from toolcast._define._names import check_name
from toolcast._define._node import Node
from toolcast._define._schema import SchemaBuilder
from toolcast.errors import DefinitionProblem, ToolDefinitionError

__all__ = ("Analysis", "CallPlan", "analyse", "input_node")

_RECEIVER_NAMES = ("self", "cls")


@dataclass(frozen=True, slots=True)
class CallPlan:
    """How validated arguments become a call of the function."""

    positional: tuple[tuple[str, Any], ...]
    """Positional-only parameters in order, with their defaults (MISSING if none)."""
    context_param: str | None
    """The parameter that receives the ToolContext."""
    injected: tuple[tuple[str, str, Any], ...]
    """(parameter, state key) pairs filled from ToolContext.state."""
    needs_receiver: bool
    """The function is an unbound method: the first argument is the instance."""
    field_defaults: tuple[tuple[str, Any], ...] = ()
    """(parameter, FieldInfo) for `x: T = Field(...)`: Python alone would pass the FieldInfo."""


@dataclass(frozen=True, slots=True)
class Analysis:
    """What defining a tool from a callable produced."""

    name: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    node: Node | None
    """The walk's result; a built `Tool` drops it and walks again on its first call."""
    plan: CallPlan
    needs_python_regex: bool
    is_async: bool
    exact_output: bool = False
    """Results hold Decimal, bytes or NamedTuple values, which need `exact_json`."""
    envelope: bool = False
    """The return type (or a type reachable from it) is marked `@envelope`."""


def _default_name(fn: Callable[..., Any]) -> str:
    name = getattr(fn, "__name__", type(fn).__name__)
    return name[: -len("_async")] if name.endswith("_async") else name


def _is_context(tp: Any) -> bool:
    if isinstance(tp, type):  # the usual annotation: one class, nothing to unwrap
        return tp is ToolContext
    base, _ = split_annotated(tp)
    if base is ToolContext:
        return True
    origin = typing_extensions.get_origin(base)
    if origin is typing.Union or origin is types.UnionType:
        return ToolContext in typing_extensions.get_args(base)
    return False


@functools.lru_cache(maxsize=4096)
def _compiled(annotation: str) -> types.CodeType:
    return compile(annotation, "<annotation>", "eval")


def _plain_hints(fn: Callable[..., Any]) -> dict[str, Any] | None:
    """The hints of a plain function, evaluating each string annotation once per text.

    `typing.get_type_hints` compiles every string annotation anew on each call,
    which is a fifth of defining a tool. Anything unusual (a forward reference left
    inside the value, evaluation errors) returns None, and the caller falls back to
    `get_type_hints`.
    """
    target = inspect.unwrap(getattr(fn, "__func__", fn))
    if not isinstance(target, types.FunctionType):
        return None
    globalns = target.__globals__
    hints: dict[str, Any] = {}
    for name, annotation in (target.__annotations__ or {}).items():
        if isinstance(annotation, str):
            try:
                annotation = eval(_compiled(annotation), globalns)
            except Exception:
                return None
        if not _settled(annotation):
            return None
        hints[name] = type(None) if annotation is None else annotation
    return hints


def _settled(tp: Any) -> bool:
    """Whether `tp` holds no forward reference (`get_type_hints` would leave it as is).

    Strings are forward references anywhere but among `Literal` values; `Annotated`
    metadata is not in `__args__`, so its strings (descriptions) never count.
    """
    if isinstance(tp, (str, typing.ForwardRef)):
        return False
    args = getattr(tp, "__args__", None)
    if not isinstance(args, tuple) or getattr(tp, "__origin__", None) is typing.Literal:
        return True
    if issubclass(type(tp), type):  # not `isinstance`: Python 3.10 says `list[int]` is a type
        return True  # a class of its own that happens to have `__args__`
    return all(_settled(a) for a in args)


def _hints(
    fn: Callable[..., Any], qualname: str, problems: list[DefinitionProblem]
) -> dict[str, Any]:
    fast = _plain_hints(fn)
    if fast is not None:
        return fast
    try:
        return typing_extensions.get_type_hints(fn, include_extras=True)
    except Exception:  # the user's annotation failed to evaluate: find which one
        pass
    target = inspect.unwrap(fn)
    globalns = getattr(target, "__globals__", None)
    hints: dict[str, Any] = {}
    for name, annotation in dict(getattr(target, "__annotations__", None) or {}).items():
        one = types.SimpleNamespace(__annotations__={name: annotation})
        try:
            hints.update(
                typing_extensions.get_type_hints(one, globalns=globalns, include_extras=True)
            )
        except Exception as exc:
            problems.append(
                DefinitionProblem(
                    "unresolved-annotation",
                    name,
                    f"annotation {annotation!r} could not be resolved ({exc}); "
                    "define the type at module level or import it outside TYPE_CHECKING.",
                )
            )
            hints[name] = typing.Any  # already reported; no second problem
    return hints


def analyse(
    fn: Callable[..., Any],
    options: ToolOptions,
    *,
    bound: bool,
    has_receiver: bool = False,
    lenient_nulls: bool = False,
    inputs_only: bool = False,
) -> Analysis:
    """Read `fn`'s signature, hints and docstring; raise ToolDefinitionError on problems.

    `has_receiver`: the host supplies `self` for an unbound method (instance or resolver).
    `inputs_only`: only the arguments' walk is wanted (a validator is being compiled):
    the return type is not described again.
    """
    qualname = getattr(fn, "__qualname__", repr(fn))
    problems: list[DefinitionProblem] = []
    name = options.name if options.name is not None else _default_name(fn)
    check_name(name, problems)
    for alias in options.aliases:
        check_name(alias, problems, kind="alias")
    if inputs_only:  # the docstring only describes (JSON), it never validates
        doc = Docstring()
    else:
        # The raw text (which the function holds anyway) keys the parse cache, cleaned
        # there as `inspect.getdoc` would; getdoc still finds an inherited docstring.
        raw_doc = getattr(fn, "__doc__", None)
        doc = parse_docstring(raw_doc if isinstance(raw_doc, str) else inspect.getdoc(fn))
    description = options.description if options.description is not None else doc.description
    hints = _hints(fn, qualname, problems)
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        raise ToolDefinitionError(
            qualname, [DefinitionProblem("no-signature", "", str(exc))]
        ) from None

    params = list(signature.parameters.values())
    needs_receiver = False
    if not bound and params and params[0].name in _RECEIVER_NAMES and params[0].name not in hints:
        # An undecorated-instance method (`Class.method`): the host supplies `self`.
        needs_receiver = True
        params = params[1:]
        if not has_receiver:
            problems.append(
                DefinitionProblem(
                    "unbound-method",
                    "self",
                    "this is a method: pass a bound method (obj.method), "
                    "instance=obj, or resolver=(tool, call) -> obj.",
                )
            )

    builder = SchemaBuilder(qualname, lenient_nulls=lenient_nulls)
    builder.python_types = options.python_types
    builder.problems = problems
    fields: list[FieldDef] = []
    positional: list[tuple[str, Any]] = []
    context_param: str | None = None
    injected: list[tuple[str, str, Any]] = []
    field_defaults: list[tuple[str, Any]] = []
    overrides, unmatched = _match_overrides(options.params, [p.name for p in params])
    seen_keys: dict[str, str] = {}

    for param in params:
        path = param.name
        if param.kind is param.VAR_POSITIONAL:
            problems.append(
                DefinitionProblem(
                    "var-positional",
                    path,
                    f"*{param.name} cannot be described to a model; use a list parameter.",
                )
            )
            continue
        if param.kind is param.VAR_KEYWORD:
            problems.append(
                DefinitionProblem(
                    "var-keyword",
                    path,
                    f"**{param.name} cannot be described to a model; declare each argument, "
                    "or take a dict parameter.",
                )
            )
            continue
        if param.name not in hints:
            problems.append(
                DefinitionProblem(
                    "missing-annotation",
                    path,
                    "parameter has no type annotation; annotate it "
                    "(use typing.Any to accept any JSON value).",
                )
            )
            continue
        annotation = hints[param.name]
        if _is_context(annotation):
            if context_param is not None:
                problems.append(
                    DefinitionProblem(
                        "duplicate-context",
                        path,
                        f"only one ToolContext parameter is allowed (already '{context_param}').",
                    )
                )
            context_param = param.name
            if param.kind is param.POSITIONAL_ONLY:
                positional.append((param.name, MISSING))
            continue
        base, meta = split_annotated(annotation)
        default = param.default
        if type(default).__name__ == "FieldInfo":  # x: T = Field(...)
            from toolcast._define._annotations import absorb

            field_defaults.append((param.name, default))
            absorb(meta, default)
            default = meta.default if meta.default is not MISSING else param.empty
        if meta.injected is not None:
            fallback = MISSING if default is param.empty else default
            injected.append((param.name, meta.injected.key, fallback))
            if param.kind is param.POSITIONAL_ONLY:
                positional.append((param.name, MISSING))
            continue
        override = overrides.get(param.name, Param())
        key = override.name or meta.rename or meta.alias or param.name
        if key in seen_keys:
            problems.append(
                DefinitionProblem(
                    "duplicate-name",
                    path,
                    f"model-visible name {key!r} is already used by '{seen_keys[key]}'.",
                )
            )
        seen_keys[key] = param.name
        required = default is param.empty and meta.default_factory is None
        param_doc = override.description or meta.description or doc.params.get(param.name)
        meta_for_type = meta.for_type()
        # Model-only guidance: the decorator's over the parameter's own (docs/schema.md).
        meta_for_type.model_description = override.description or meta.model_description
        meta_for_type.note = override.note or meta.note
        meta_for_type.hidden = meta_for_type.hidden or override.hidden
        fields.append(
            FieldDef(
                key,
                param.name,
                base,
                required,
                MISSING if default is param.empty else default,
                param_doc,
                meta_for_type,
            )
        )
        if param.kind is param.POSITIONAL_ONLY:
            positional.append((param.name, MISSING if default is param.empty else default))

    for key in unmatched:
        problems.append(
            DefinitionProblem(
                "unknown-param-override", key, f"params= names '{key}', which is not a parameter."
            )
        )

    node = builder.object_node(fields, "", construct=None, description=None)
    input_schema = dict(node.json)
    if builder.defs:
        input_schema["$defs"] = builder.defs
    if builder.core_defs:
        from pydantic_core import core_schema as cs

        node.core = cs.definitions_schema(node.core, builder.core_defs)

    output_schema, exact_output = (
        (None, False)
        if inputs_only
        else _output_schema(
            hints.get("return", MISSING), qualname, problems, python_types=options.python_types
        )
    )
    if problems:
        raise ToolDefinitionError(qualname, _in_signature_order(problems, params, seen_keys))

    # A callable object is async when its __call__ is (callable() cannot tell).
    call = getattr(fn, "__call__", None)  # noqa: B004
    is_async = inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(call)
    plan = CallPlan(
        tuple(positional), context_param, tuple(injected), needs_receiver, tuple(field_defaults)
    )
    return Analysis(
        name,
        description,
        input_schema,
        output_schema,
        node,
        plan,
        builder.needs_python_regex,
        is_async,
        exact_output,
        output_schema is not None and wants_envelope(hints.get("return")),
    )


def input_node(fn: Callable[..., Any], options: ToolOptions, *, lenient: bool) -> Node:
    """The arguments' walk again, for a validator (a built `Tool` keeps none)."""
    bound = inspect.ismethod(fn)
    analysis = analyse(
        fn, options, bound=bound, has_receiver=True, lenient_nulls=lenient, inputs_only=True
    )
    assert analysis.node is not None
    return analysis.node


def _match_overrides(
    given: Mapping[str, Param], names: list[str]
) -> tuple[dict[str, Param], list[str]]:
    """`params=` keys matched to parameter names: exactly, else ignoring case.

    As in the .NET catalog, a decorator-level override names its parameter
    case-insensitively (`params={"City": ...}` reaches `city`); an exact match
    wins, and a key that fits several parameters only by case fits none.
    """
    by_fold: dict[str, list[str]] = {}
    for name in names:
        by_fold.setdefault(name.casefold(), []).append(name)
    matched: dict[str, Param] = {}
    unmatched: list[str] = []
    for key, override in given.items():
        if key in names:
            matched[key] = override
            continue
        candidates = by_fold.get(key.casefold(), [])
        if len(candidates) == 1 and candidates[0] not in given:
            matched[candidates[0]] = override
        else:
            unmatched.append(key)
    return matched, sorted(unmatched)


def _in_signature_order(
    problems: list[DefinitionProblem], params: list[inspect.Parameter], keys: dict[str, str]
) -> list[DefinitionProblem]:
    """Tool-level problems first, then by parameter, then the return type (stable)."""
    rank = {p.name: i for i, p in enumerate(params)}
    rank.update({key: rank[name] for key, name in keys.items()})

    def position(problem: DefinitionProblem) -> int:
        if not problem.path:
            return -1
        head = re.match(r"[^.\[{]*", problem.path)
        name = head.group() if head else problem.path
        return rank.get(name, len(params) if name == "return" else len(params) + 1)

    return sorted(problems, key=position)


_PART_TYPES = (ToolResult, *PARTS)
_UNIONS = (typing.Union, types.UnionType)


def _is_parts(tp: Any) -> bool:
    """Content parts, or a list/tuple/union of them (they are sent as they are)."""
    base, _ = split_annotated(tp)
    if base in _PART_TYPES:
        return True
    origin = typing_extensions.get_origin(base)
    if origin in (*_UNIONS, list, tuple, abc.Sequence):
        return any(_is_parts(a) for a in typing_extensions.get_args(base) if a is not Ellipsis)
    return False


def _output_schema(
    tp: Any, qualname: str, problems: list[DefinitionProblem], *, python_types: bool = False
) -> tuple[dict[str, Any] | None, bool]:
    if tp is MISSING or tp is None or tp is type(None):
        return None, False
    base, _ = split_annotated(tp)
    if base is str or base is typing.Any or _is_parts(base):
        return None, False
    # `str | None`, `str | int`: sometimes plain text, so no structured schema.
    # (`list[str]` is structured: it is sent as one JSON part.)
    if typing_extensions.get_origin(base) in _UNIONS and str in typing_extensions.get_args(base):
        return None, False
    builder = SchemaBuilder(qualname, output=True)
    builder.python_types = python_types
    node = builder.node(tp, "return")
    problems.extend(builder.problems)
    schema = dict(node.json)
    if builder.defs:
        schema["$defs"] = builder.defs
    return schema, builder.exact_output


# -- @tool checks at decoration (issue 24) --------------------------------------------

# Problems no later `Tool.from_function(fn, name=..., description=..., params=...)`
# override can fix: the types and the shape of the signature. The others (a name, a
# missing description) may still be supplied when the tool is built.
_FATAL_AT_DECORATION = frozenset({"unsupported-type", "var-positional", "var-keyword"})


def _check_now(fn: Any, options: ToolOptions) -> None:
    """Raise the function's definition problems at decoration, not at its first use.

    Hints that name something defined later in the module (a forward reference
    under `from __future__ import annotations`) cannot be read yet: those functions
    are checked when they become a `Tool`, as before.
    """
    parameters: tuple[str, ...] = getattr(getattr(fn, "__code__", None), "co_varnames", ())
    method = "." in getattr(fn, "__qualname__", "").replace("<locals>.", "")
    receiver = method and bool(parameters) and parameters[0] in ("self", "cls")
    try:
        analyse(fn, options, bound=False, has_receiver=receiver, inputs_only=False)
    except NameError:
        return
    except ToolDefinitionError as error:
        fatal = [p for p in error.problems if p.code in _FATAL_AT_DECORATION]
        if fatal:
            raise ToolDefinitionError(error.qualname, fatal) from None


_decorator.checker = _check_now
