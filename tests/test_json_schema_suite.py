"""The official JSON Schema Test Suite (draft 2020-12), run through `Tool.from_schema`.

Every test group becomes a tool whose schema holds the group's schema under one
required property, `value`; every test case is a call with `{"value": data}`, which
must be accepted exactly when the case says `valid`. The wrapping keeps the suite's
meaning: the group's schema is a schema resource of its own under `$defs` (with its
own `$id`, a made-up one when it has none, so `#` still means the group's root) and
`value` refers to it with `$ref`. The suite's `remotes/` are bundled the same way,
each under its retrieval URL, so references to `http://localhost:1234/...` resolve
offline; toolcast itself never fetches a schema.

Known differences live in `json_schema_known_gaps.json`, each with its reason; the
test fails on a new disagreement and on a listed gap that now agrees, as
protovalidate's conformance runner does. The counts are printed at the end of the run.
"""

from __future__ import annotations

import decimal
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from toolcast import Tool, ToolDefinitionError

# Vendored (MIT, see data/json-schema-test-suite/LICENSE and SNAPSHOT.txt): a fresh
# clone runs every case, and a missing file fails the run instead of skipping it.
SUITE = Path(__file__).with_name("data") / "json-schema-test-suite"
TESTS = SUITE / "tests" / "draft2020-12"
REMOTES = SUITE / "remotes"
GAPS_FILE = Path(__file__).with_name("json_schema_known_gaps.json")
GROUP_ID = "https://suite.toolcast.invalid/schema.json"

FILES = sorted(str(p.relative_to(TESTS)) for p in TESTS.rglob("*.json") if p.is_file())
GAPS: dict[str, str] = json.loads(GAPS_FILE.read_text()) if GAPS_FILE.exists() else {}
COUNTS: Counter[str] = Counter()


def _remotes() -> dict[str, Any]:
    """Each remote as a schema resource identified by its retrieval URL."""
    bundled: dict[str, Any] = {}
    for path in sorted((REMOTES / "draft2020-12").rglob("*.json")):
        url = "http://localhost:1234/" + path.relative_to(REMOTES).as_posix()
        remote = json.loads(path.read_text())
        if "$id" not in remote:
            remote = {"$id": url, **remote}
        elif remote["$id"] != url:  # reachable by its URL, identified by its own $id
            remote = {"$id": url, "$ref": remote["$id"], "$defs": {"remote": remote}}
        bundled[f"remote:{path.relative_to(REMOTES).as_posix()}"] = remote
    return bundled


REMOTE_DEFS = _remotes()


def wrap(schema: Any) -> dict[str, Any]:
    """The tool schema for one group: its schema under the required property `value`."""
    wrapped: dict[str, Any] = {
        "type": "object",
        "properties": {"value": schema},
        "required": ["value"],
        "additionalProperties": False,
    }
    if isinstance(schema, dict):
        group = schema if "$id" in schema else {"$id": GROUP_ID, **schema}
        wrapped["properties"]["value"] = {"$ref": group["$id"]}
        wrapped["$defs"] = {"group": group}
        if "localhost:1234" in json.dumps(schema):
            wrapped["$defs"].update(REMOTE_DEFS)
    return wrapped


def dumps(value: Any) -> str:
    """JSON text with every digit of the suite's numbers (read as Decimal)."""
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(k)}:{dumps(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(dumps(v) for v in value) + "]"
    return json.dumps(value)


def run_file(name: str) -> tuple[dict[str, str], Counter[str]]:
    """Every disagreement in one suite file (key -> what happened), and its counts."""
    text = (TESTS / name).read_text()
    groups = json.loads(text)
    instances = json.loads(text, parse_float=decimal.Decimal)
    found: dict[str, str] = {}
    counts: Counter[str] = Counter()
    for group, exact in zip(groups, instances, strict=True):
        where = f"{name} :: {group['description']}"
        counts["groups"] += 1
        counts["tests"] += len(group["tests"])
        try:
            tool = Tool.from_schema("suite", "", wrap(group["schema"]), lambda args: args)
        except ToolDefinitionError as exc:
            counts["refused"] += len(group["tests"])
            found[where] = f"refused at definition: {exc.problems[0]}"
            continue
        for case, exact_case in zip(group["tests"], exact["tests"], strict=True):
            try:
                tool.validate(dumps({"value": exact_case["data"]}))
            except ValueError:
                accepted = False
            else:
                accepted = True
            if accepted != case["valid"]:
                found[f"{where} :: {case['description']}"] = (
                    f"{'accepted' if accepted else 'refused'}, the suite says "
                    f"{'valid' if case['valid'] else 'invalid'}"
                )
    return found, counts


@pytest.fixture(scope="module", autouse=True)
def _print_counts(request: pytest.FixtureRequest) -> None:
    class Summary:
        def pytest_terminal_summary(self, terminalreporter: Any) -> None:
            if COUNTS["tests"]:
                terminalreporter.write_line(
                    f"JSON Schema Test Suite (draft 2020-12): {COUNTS['tests']} tests in "
                    f"{COUNTS['groups']} groups, {COUNTS['agree']} agree, "
                    f"{COUNTS['gaps']} documented gaps ({COUNTS['refused']} tests in groups "
                    "refused at definition)"
                )

    plugin = Summary()
    if not request.config.pluginmanager.is_registered(plugin):
        request.config.pluginmanager.register(plugin, "toolcast-json-schema-suite")


@pytest.mark.parametrize("name", FILES)
def test_suite_file_agrees_except_documented_gaps(name: str) -> None:
    found, counts = run_file(name)
    listed = {key for key in GAPS if key.startswith(f"{name} :: ")}
    gap_tests = sum(counts_for(key, name) for key in found if key in listed)
    COUNTS.update(counts)
    COUNTS["gaps"] += gap_tests
    COUNTS["agree"] += counts["tests"] - counts_disagreeing(found, name)
    new = {key: why for key, why in found.items() if key not in listed}
    fixed = sorted(listed - set(found))
    assert not new, "new disagreements (fix them, or list them in the gaps file):\n" + "\n".join(
        f"  {key}: {why}" for key, why in new.items()
    )
    assert not fixed, "listed gaps that now agree (remove them from the gaps file):\n" + "\n".join(
        f"  {key}" for key in fixed
    )


def counts_for(key: str, name: str) -> int:
    """How many test cases one gap key covers (a whole group when it was refused)."""
    parts = key.split(" :: ")
    if len(parts) == 3:
        return 1
    for group in json.loads((TESTS / name).read_text()):
        if group["description"] == parts[1]:
            return len(group["tests"])
    return 0


def counts_disagreeing(found: dict[str, str], name: str) -> int:
    return sum(counts_for(key, name) for key in found)


def test_the_vendored_suite_is_present() -> None:
    """No case can go missing silently: the snapshot's files are all there."""
    assert (SUITE / "LICENSE").is_file()
    assert (SUITE / "SNAPSHOT.txt").is_file()
    assert len(FILES) >= 40, f"{len(FILES)} suite files under {TESTS}"
    assert "ref.json" in FILES
    assert "optional/format/date.json" in FILES
    assert len(list((REMOTES / "draft2020-12").rglob("*.json"))) >= 10
    assert REMOTE_DEFS


def test_every_gap_names_a_suite_file_and_a_reason() -> None:
    for key, why in GAPS.items():
        assert key.split(" :: ")[0] in FILES, key
        assert why.strip(), key


LIBRARY_WORDING = (
    "is not valid under",
    "was expected",
    "is not of type",
    "False schema",
    "Unevaluated",
    "Additional properties",
    "is a required property",
    "does not match",
    "is not one of",
)


def test_every_refusal_in_the_suite_is_in_toolcast_wording() -> None:
    """Each invalid case's message: toolcast's sentences, never jsonschema-rs's."""
    checked = 0
    for name in FILES:
        text = (TESTS / name).read_text()
        for group, exact in zip(
            json.loads(text), json.loads(text, parse_float=decimal.Decimal), strict=True
        ):
            try:
                tool = Tool.from_schema("suite", "", wrap(group["schema"]), lambda args: args)
            except ToolDefinitionError:
                continue
            for case in exact["tests"]:
                try:
                    tool.validate(dumps({"value": case["data"]}))
                except ValueError as exc:
                    message = str(exc)
                else:
                    continue
                checked += 1
                assert message.startswith(("Argument", "Invalid arguments", "Arguments for")), (
                    message
                )
                assert not any(phrase in message for phrase in LIBRARY_WORDING), message
    assert checked > 500
