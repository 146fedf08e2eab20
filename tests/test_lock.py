"""Schema lock: `toolcast lock` writes the contract, `toolcast check` classifies changes.

The end-to-end tests lock `catalog_fixtures/lock/before.py` and check real edited
copies of it; the unit tests pin each schema rule on small literal schemas.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import pytest

from catalog_fixtures.lock import before
from toolcast._catalog._catalog import Catalog
from toolcast._cli._lock import (
    LOCK_FORMAT,
    check_main,
    compare_locks,
    dumps_lock,
    is_version_bump,
    load_target,
    lock_document,
    lock_main,
)
from toolcast.errors import CatalogError

BEFORE = "catalog_fixtures.lock.before"


@pytest.fixture
def lockfile(tmp_path: Path) -> Path:
    path = tmp_path / "tools.lock.json"
    assert lock_main([BEFORE, "-o", str(path)]) == 0
    return path


def check(target: str, lockfile: Path, *extra: str) -> int:
    return check_main([f"catalog_fixtures.lock.{target}", str(lockfile), *extra])


def kinds(text: str) -> list[tuple[str, str, str]]:
    """(status, tool, kind) of every change line `toolcast check` printed."""
    out = []
    for line in text.splitlines():
        if line.endswith("]") and ": " in line:
            status, tool, _ = line.split(": ", 2)
            out.append((status, tool, line.rsplit("[", 1)[1].rstrip("]")))
    return out


# -- writing -----------------------------------------------------------------------


def test_lock_main_writes_every_tool_sorted_with_its_schemas(lockfile: Path) -> None:
    document = json.loads(lockfile.read_text(encoding="utf-8"))

    assert document["format"] == LOCK_FORMAT
    assert list(document["tools"]) == [
        "book_table",
        "find_places",
        "forget_place",
        "get_place",
        "list_reviews",
    ]
    reviews = document["tools"]["list_reviews"]
    assert reviews["version"] == "1"
    assert reviews["aliases"] == ["fetch_reviews"]
    assert reviews["input_schema"]["properties"]["min_stars"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 5,
        "default": 1,
    }
    assert document["tools"]["book_table"]["toolbox"] == "booking"
    assert document["toolboxes"] == {
        "booking": {"description": "Book tables.", "members": ["book_table"]}
    }


def test_lock_main_prints_to_stdout_without_an_output_file(
    capsys: pytest.CaptureFixture[str], lockfile: Path
) -> None:
    assert lock_main([BEFORE]) == 0

    assert capsys.readouterr().out == lockfile.read_text(encoding="utf-8")


def test_the_lock_is_deterministic() -> None:
    one = lock_document(Catalog.from_modules(before, cache=False))
    two = lock_document(Catalog.from_modules(before, cache=False))

    assert dumps_lock(one) == dumps_lock(two)
    assert dumps_lock(one).endswith("}\n")


def test_the_lock_includes_deprecated_tools() -> None:
    places = importlib.import_module("catalog_fixtures.places")

    document = lock_document(Catalog.from_modules(places))

    assert document["tools"]["place_summary"]["replaced_by"] == "get_place"


# -- checking real module pairs ----------------------------------------------------


def test_check_of_unchanged_code_finds_nothing(
    capsys: pytest.CaptureFixture[str], lockfile: Path
) -> None:
    assert check("before", lockfile) == 0

    assert capsys.readouterr().out == "0 changes, 0 breaking, 0 without a version bump.\n"


def test_check_fails_on_breaking_changes_without_a_version_bump(
    capsys: pytest.CaptureFixture[str], lockfile: Path
) -> None:
    assert check("after_breaking", lockfile) == 1

    captured = capsys.readouterr()
    assert kinds(captured.out) == [
        ("BREAKING", "find_places", "parameter-removed"),
        ("BREAKING", "find_places", "parameter-added-required"),
        ("BREAKING", "find_places", "enum-value-removed"),
        ("BREAKING", "find_places", "type-narrowed"),
        ("BREAKING", "find_places", "field-removed"),
        ("BREAKING", "forget_place", "tool-removed"),
        ("BREAKING", "get_place", "tool-renamed"),
        ("BREAKING", "get_place", "field-removed"),
        ("BREAKING", "list_reviews", "alias-removed"),
        ("BREAKING", "list_reviews", "constraint-tightened"),
    ]
    assert "Argument 'limit' was removed." in captured.out
    assert "Argument 'unit' no longer accepts \"mi\"." in captured.out
    assert "renamed to 'place_details'" in captured.out
    assert "without a version bump" in captured.err


def test_check_accepts_breaking_changes_whose_version_was_bumped(
    capsys: pytest.CaptureFixture[str], lockfile: Path
) -> None:
    assert check("after_bumped", lockfile) == 0

    found = kinds(capsys.readouterr().out)
    breaking = [k for k in found if k[0] != "compatible"]
    assert len(breaking) == 9
    assert {status for status, _, _ in breaking} == {"breaking (version bumped)"}
    assert ("compatible", "forget_place", "tool-deprecated") in found


def test_check_passes_compatible_changes(
    capsys: pytest.CaptureFixture[str], lockfile: Path
) -> None:
    assert check("after_compatible", lockfile) == 0

    assert kinds(capsys.readouterr().out) == [
        ("compatible", "find_places", "parameter-added"),
        ("compatible", "find_places", "enum-value-added"),
        ("compatible", "find_places", "field-added"),
        ("compatible", "find_places", "description-changed"),
        ("compatible", "find_places", "metadata-changed"),
        ("compatible", "forget_place", "tool-deprecated"),
        ("compatible", "get_place", "tool-renamed-with-alias"),
        ("compatible", "get_place", "field-added"),
        ("compatible", "list_reviews", "alias-added"),
        ("compatible", "list_reviews", "constraint-loosened"),
        ("compatible", "nearby_events", "tool-added"),
    ]


def test_check_prints_json_when_asked(capsys: pytest.CaptureFixture[str], lockfile: Path) -> None:
    assert check("after_breaking", lockfile, "--json") == 1

    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False
    first = report["changes"][0]
    assert first == {
        "tool": "find_places",
        "kind": "parameter-removed",
        "path": "limit",
        "breaking": True,
        "excused": False,
        "message": "Argument 'limit' was removed.",
    }


# -- targets and exit codes --------------------------------------------------------


def test_targets_can_name_a_catalog_a_tool_set_or_a_factory() -> None:
    base = "catalog_fixtures.lock.targets"

    assert isinstance(load_target(f"{base}:catalog"), Catalog)
    assert [t.name for t in load_target(f"{base}:search_only").all()] == ["find_places"]
    assert len(load_target(f"{base}:make_catalog").all()) == 5


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("catalog_fixtures.lock.targets:missing", "has no attribute 'missing'"),
        ("catalog_fixtures.lock.targets:not_a_catalog", "is a int, not a Catalog"),
    ],
)
def test_load_target_refuses_what_is_not_a_catalog(target: str, message: str) -> None:
    with pytest.raises(CatalogError, match=message):
        load_target(target)


def test_lock_of_a_tool_set_holds_only_its_tools(tmp_path: Path) -> None:
    path = tmp_path / "search.lock.json"

    assert lock_main(["catalog_fixtures.lock.targets:search_only", "-o", str(path)]) == 0

    assert list(json.loads(path.read_text(encoding="utf-8"))["tools"]) == ["find_places"]


def test_check_exits_1_when_the_catalog_cannot_be_built(
    capsys: pytest.CaptureFixture[str], lockfile: Path
) -> None:
    assert check("targets:colliding", lockfile) == 1

    assert "collides" in capsys.readouterr().err


def test_check_exits_2_when_the_target_cannot_be_imported(
    capsys: pytest.CaptureFixture[str], lockfile: Path
) -> None:
    assert check_main(["no_such_module_xyz", str(lockfile)]) == 2

    assert "cannot import 'no_such_module_xyz'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read"),
        ("{not json", "is not JSON"),
        ('{"format": "other"}', "is not a toolcast lock file"),
        ("[]", "is not a toolcast lock file"),
    ],
)
def test_check_exits_2_on_a_bad_lock_file(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    content: str | None,
    message: str,
) -> None:
    path = tmp_path / "tools.lock.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")

    assert check_main([BEFORE, str(path)]) == 2

    assert message in capsys.readouterr().err


def test_missing_arguments_are_a_usage_error() -> None:
    with pytest.raises(SystemExit) as caught:
        check_main([BEFORE])

    assert caught.value.code == 2


# -- the rules, on literal schemas -------------------------------------------------


def lock_of(input_schema: dict[str, Any], **entry: Any) -> dict[str, Any]:
    tool = {"version": None, "aliases": [], "input_schema": input_schema}
    tool["output_schema"] = None
    tool.update(entry)
    return {"format": LOCK_FORMAT, "tools": {"t": tool}, "toolboxes": {}}


def obj(required: tuple[str, ...] = (), **properties: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    schema["additionalProperties"] = False
    return schema


def changes(old: dict[str, Any], new: dict[str, Any]) -> list[tuple[str, str, bool]]:
    report = compare_locks(lock_of(old), lock_of(new))
    return [(c.kind, c.path, c.breaking) for c in report.changes]


INT = {"type": "integer"}
NUM = {"type": "number"}
STR = {"type": "string"}


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (obj(x=INT), obj(x=NUM), [("type-widened", "x", False)]),
        (obj(x=NUM), obj(x=INT), [("type-narrowed", "x", True)]),
        (
            obj(x={"type": ["integer", "null"]}),
            obj(x=INT),
            [("type-narrowed", "x", True)],
        ),
        (
            obj(x={"anyOf": [INT, STR]}),
            obj(x=STR),
            [("type-narrowed", "x", True)],
        ),
        (
            obj(x={"type": "string", "enum": ["a", "b"]}),
            obj(x={"type": "string", "enum": ["a"]}),
            [("enum-value-removed", "x", True)],
        ),
        (
            obj(x={"type": "string", "enum": ["a"]}),
            obj(x={"type": "string", "enum": ["a", "b"]}),
            [("enum-value-added", "x", False)],
        ),
        (obj(x=STR), obj(x={"type": "string", "enum": ["a"]}), [("enum-added", "x", True)]),
        (
            obj(x={"type": "integer", "enum": [1]}),
            obj(x={"type": "boolean", "enum": [True]}),
            # JSON's 1 and true differ, though Python says 1 == True.
            [
                ("type-narrowed", "x", True),
                ("type-widened", "x", False),
                ("enum-value-removed", "x", True),
                ("enum-value-added", "x", False),
            ],
        ),
        (
            obj(x={"type": "integer", "maximum": 9}),
            obj(x={"type": "integer", "maximum": 5}),
            [("constraint-tightened", "x", True)],
        ),
        (
            obj(x={"type": "string", "minLength": 2}),
            obj(x={"type": "string", "minLength": 1}),
            [("constraint-loosened", "x", False)],
        ),
        (
            obj(x=STR),
            obj(x={"type": "string", "pattern": "^a"}),
            [("constraint-tightened", "x", True)],
        ),
        (
            obj(x={"type": "string", "pattern": "^a"}),
            obj(x={"type": "string", "pattern": "^b"}),
            [("constraint-tightened", "x", True)],
        ),
        (
            obj(x=STR),
            obj(x={"type": "string", "format": "uuid"}),
            [("constraint-tightened", "x", True)],
        ),
        (
            obj(x={"type": "integer", "multipleOf": 4}),
            obj(x={"type": "integer", "multipleOf": 2}),
            [("constraint-loosened", "x", False)],
        ),
        (
            obj(x={"type": "integer", "multipleOf": 2}),
            obj(x={"type": "integer", "multipleOf": 3}),
            [("constraint-tightened", "x", True)],
        ),
        (
            obj(x={"type": "array", "items": INT}),
            obj(x={"type": "array", "items": INT, "uniqueItems": True}),
            [("constraint-tightened", "x", True)],
        ),
        (
            obj(x={"type": "object", "additionalProperties": INT}),
            obj(x={"type": "object", "additionalProperties": False}),
            [("constraint-tightened", "x", True)],
        ),
        (
            obj(x={"type": "object", "additionalProperties": NUM}),
            obj(x={"type": "object", "additionalProperties": INT}),
            [("type-narrowed", "x.*", True)],
        ),
        (obj(x=INT), obj(), [("parameter-removed", "x", True)]),
        (obj(x=INT), obj(y=INT), [("parameter-renamed", "x", True)]),
        (obj(), obj(("y",), y=INT), [("parameter-added-required", "y", True)]),
        (obj(), obj(y=INT), [("parameter-added", "y", False)]),
        (obj(x=INT), obj(("x",), x=INT), [("parameter-now-required", "x", True)]),
        (obj(("x",), x=INT), obj(x=INT), [("parameter-now-optional", "x", False)]),
        (
            obj(a=obj(("city",), city=STR)),
            obj(a=obj(("city",), city={"type": "string", "maxLength": 9})),
            [("constraint-tightened", "a.city", True)],
        ),
        (
            obj(items={"type": "array", "items": obj(qty=NUM)}),
            obj(items={"type": "array", "items": obj(qty=INT)}),
            [("type-narrowed", "items[].qty", True)],
        ),
        (
            obj(p={"type": "array", "prefixItems": [INT, STR], "minItems": 2}),
            obj(p={"type": "array", "prefixItems": [INT, INT], "minItems": 2}),
            [("type-narrowed", "p[1]", True), ("type-widened", "p[1]", False)],
        ),
        (
            obj(x={"anyOf": [obj(a=INT), STR]}),
            obj(x={"anyOf": [obj(), STR]}),
            [("parameter-removed", "x.a", True)],
        ),
    ],
)
def test_input_schema_changes_are_classified(
    old: dict[str, Any], new: dict[str, Any], expected: list[tuple[str, str, bool]]
) -> None:
    assert changes(old, new) == expected


def test_recursive_schemas_are_compared_once_per_definition() -> None:
    def tree(leaf: dict[str, Any]) -> dict[str, Any]:
        node = obj(value=leaf, children={"type": "array", "items": {"$ref": "#/$defs/Node"}})
        return {**obj(("root",), root={"$ref": "#/$defs/Node"}), "$defs": {"Node": node}}

    assert changes(tree(NUM), tree(INT)) == [("type-narrowed", "root.value", True)]


def output_changes(old: dict[str, Any], new: dict[str, Any]) -> list[tuple[str, bool]]:
    report = compare_locks(lock_of(obj(), output_schema=old), lock_of(obj(), output_schema=new))
    return [(c.kind, c.breaking) for c in report.changes]


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (obj(("a",), a=INT), obj(), [("field-removed", True)]),
        (obj(), obj(("a",), a=INT), [("field-added", False)]),
        (obj(("a",), a=INT), obj(a=INT), [("field-now-optional", True)]),
        (obj(a=INT), obj(a=NUM), [("type-widened", True)]),
        (obj(a=NUM), obj(a=INT), [("type-narrowed", False)]),
        (
            obj(a={"type": "string", "enum": ["x"]}),
            obj(a={"type": "string", "enum": ["x", "y"]}),
            [("enum-value-added", True)],
        ),
    ],
)
def test_output_schema_changes_are_classified_for_readers(
    old: dict[str, Any], new: dict[str, Any], expected: list[tuple[str, bool]]
) -> None:
    assert output_changes(old, new) == expected


def test_losing_structured_output_is_breaking() -> None:
    report = compare_locks(lock_of(obj(), output_schema=obj()), lock_of(obj(), output_schema=None))

    assert [(c.kind, c.breaking) for c in report.changes] == [("output-schema-removed", True)]


def test_a_removed_tool_is_never_excused_by_other_bumps() -> None:
    old = lock_of(obj(), version="1")
    new = {"format": LOCK_FORMAT, "tools": {}, "toolboxes": {}}

    report = compare_locks(old, new)

    assert [(c.kind, c.excused) for c in report.changes] == [("tool-removed", False)]
    assert not report.ok


def test_a_removed_toolbox_is_breaking() -> None:
    old = {**lock_of(obj()), "toolboxes": {"box": {"description": "", "members": []}}}

    report = compare_locks(old, lock_of(obj()))

    assert [(c.kind, c.breaking) for c in report.changes] == [("toolbox-removed", True)]


def test_turning_on_the_envelope_breaks_readers() -> None:
    report = compare_locks(lock_of(obj(), envelope=False), lock_of(obj(), envelope=True))

    assert [(c.kind, c.breaking) for c in report.changes] == [("metadata-changed", True)]


def test_a_version_bump_excuses_the_tools_breaking_changes() -> None:
    report = compare_locks(lock_of(obj(x=INT), version="1.9"), lock_of(obj(), version="1.10"))

    assert report.ok
    assert [(c.kind, c.excused) for c in report.breaking] == [("parameter-removed", True)]


@pytest.mark.parametrize(
    ("old", "new", "bumped"),
    [
        ("1", "2", True),
        ("1.9", "1.10", True),
        ("v1", "v2", True),
        (None, "1", True),
        ("2", "1", False),
        ("1", "1", False),
        ("1", None, False),
        (None, None, False),
        ("alpha", "beta", True),
    ],
)
def test_version_bumps(old: str | None, new: str | None, bumped: bool) -> None:
    assert is_version_bump(old, new) is bumped


def test_compare_refuses_documents_that_are_not_lock_files() -> None:
    with pytest.raises(CatalogError, match="not a toolcast lock"):
        compare_locks({"format": "nope"}, lock_of(obj()))


# -- targets as `inspect` and `call` take them (issue 10) --------------------------


METHOD_TOOLS = """\
from toolcast import tool


class Shelf:
    @tool
    def count(self, shelf: str) -> int:
        return len(shelf)
"""


def test_lock_and_check_take_a_file_path_with_method_tools(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from toolcast._cli._main import main

    source = tmp_path / "shelf_tools.py"
    source.write_text(METHOD_TOOLS, encoding="utf-8")
    path = tmp_path / "shelf.lock.json"

    assert main(["lock", str(source), "-o", str(path)]) == 0
    assert list(json.loads(path.read_text(encoding="utf-8"))["tools"]) == ["count"]
    assert main(["check", str(source), str(path)]) == 0
    assert capsys.readouterr().out == "0 changes, 0 breaking, 0 without a version bump.\n"


def test_lock_of_an_unimportable_target_prints_one_line_and_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from toolcast._cli._main import main

    for target in ("no_such_module_xyz", str(tmp_path / "missing.py")):
        assert main(["lock", target]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1, err
        assert err.startswith("toolcast: ")


def test_lock_of_a_module_that_raises_on_import_exits_1_like_inspect(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from toolcast._cli._main import main

    source = tmp_path / "raising_tools.py"
    source.write_text("raise RuntimeError('no config')\n", encoding="utf-8")
    for command in (["lock", str(source)], ["inspect", str(source)]):
        assert main(command) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1, err
        assert "failed: RuntimeError: no config" in err


@pytest.mark.parametrize("where", ["missing_dir/out.json", "."])
def test_lock_to_an_unwritable_output_says_so_and_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, where: str
) -> None:
    from toolcast._cli._main import main

    output = tmp_path / where
    assert main(["lock", BEFORE, "-o", str(output)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"toolcast: cannot write {output}: ")
    assert err.count("\n") == 1, err
