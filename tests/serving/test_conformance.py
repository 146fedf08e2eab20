"""The official MCP conformance suite against `toolcast serve --http`, both protocol eras.

`@modelcontextprotocol/conformance` 0.2.0-alpha.12 (the newest release on npm, and
the first line that covers 2026-07-28; the `latest` tag, 0.1.16, stops at
2025-11-25) runs on node 24 from the npm `node` package, both pinned by
tests/serving/conformance/package-lock.json (`.ci/run` does `npm ci --prefix
tests/serving/conformance`). For each era it runs `server --requirements ERA`:
exactly the server scenarios that revision requires, at that revision's wire
(the initialize handshake for 2025-11-25, per-request `_meta` for 2026-07-28),
plus the ones the suite runs without scoring (extensions such as Tasks, pending).

The scenarios call the tools of the suite's reference server by name, so the
server serves `conformance_tools:catalog` (tests/serving/conformance_tools.py).
Every scenario falls in one of three sets, and the test asserts the sets
exactly, so a new failure and a fix both show: passed; `NOT_APPLICABLE` (a
feature toolcast does not offer and issue 28 does not ask for, with the reason);
`KNOWN_FAILURES` (asked for, not done yet; also in docs/mcp.md). A WARNING (a
SHOULD) does not fail a scenario; the suite's own verdict does not either way.
Without node or the npm packages the test skips, except under CI=true, where it
fails.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp_serve_helpers import HttpServer, child_env, start_http

PROJECT = Path(__file__).resolve().parent / "conformance"
NODE = PROJECT / "node_modules" / "node" / "bin" / "node"
SUITE = PROJECT / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
ERAS = ("2025-11-25", "2026-07-28")

_NO_RESOURCES = "toolcast serves tools: no resources (resources/list answers an empty list)"
_NO_PROMPTS = "toolcast serves tools: no prompts (prompts/list answers an empty list)"
_NO_ASKING = (
    "a tool asking the client for sampling, roots or its own elicitation form: the only "
    "thing toolcast asks a client is an approval"
)
_NOT_APPLICABLE_BOTH = {
    "completion-complete": "completion is for prompt and resource arguments; toolcast has neither",
    "resources-read-text": _NO_RESOURCES,
    "resources-read-binary": _NO_RESOURCES,
    "resources-templates-read": _NO_RESOURCES,
    "prompts-get-simple": _NO_PROMPTS,
    "prompts-get-with-args": _NO_PROMPTS,
    "prompts-get-embedded-resource": _NO_PROMPTS,
    "prompts-get-with-image": _NO_PROMPTS,
}
NOT_APPLICABLE: dict[str, dict[str, str]] = {
    "2025-11-25": {
        **_NOT_APPLICABLE_BOTH,
        "resources-subscribe": _NO_RESOURCES,
        "resources-unsubscribe": _NO_RESOURCES,
        "tools-call-sampling": _NO_ASKING,
        "tools-call-elicitation": _NO_ASKING,
        "elicitation-sep1034-defaults": _NO_ASKING,
        "elicitation-sep1330-enums": _NO_ASKING,
        # Not scored (pending): emits only WARNINGs, for SSE resumability (a priming
        # event with an id, a `retry` field), which toolcast's streams do not offer.
        "server-sse-polling": "pending in the suite; SSE resumability, only warnings",
    },
    "2026-07-28": {
        **_NOT_APPLICABLE_BOTH,
        # toolcast's approval is asked under the key "approval"; the scenario wants
        # its own "user_name" form. The flow itself passes request-state,
        # tampered-state and result-type.
        "input-required-result-basic-elicitation": _NO_ASKING,
        "input-required-result-basic-sampling": _NO_ASKING,
        "input-required-result-basic-list-roots": _NO_ASKING,
        "input-required-result-multiple-input-requests": _NO_ASKING,
        "input-required-result-multi-round": _NO_ASKING,
        # Expects a sampling request instead of the undeclared elicitation; toolcast
        # sends no elicitation (right) and answers that it cannot ask.
        "input-required-result-capability-check": _NO_ASKING,
        "input-required-result-non-tool-request": _NO_PROMPTS,
        # Its fixture asks for a `user_name` by MRTR, then creates a task whose result
        # must contain it. toolcast asks only approvals, and asks a task tool's
        # approval inside the task (input_required on tasks/get), as tasks-mrtr-input
        # checks.
        "tasks-mrtr-composition": _NO_ASKING,
        # The suite skips it (its only check is SKIPPED): notifications/tasks now go
        # on the subscriptions/listen stream and its harness is being rewritten.
        "tasks-status-notifications": "skipped by the suite, pending its harness rewrite",
        # Not scored (pending): SEP-2243 tools with x-mcp-header parameters.
        "http-custom-header-server-validation": (
            "pending in the suite; toolcast has no tools with x-mcp-header parameters"
        ),
    },
}
# Single checks inside an otherwise passing scenario.
NOT_APPLICABLE_CHECKS: dict[str, dict[str, str]] = {
    "2025-11-25": {},
    "2026-07-28": {
        # toolcast's `test_missing_capability` is approval-gated, so it needs elicitation:
        # refused with -32021 and HTTP 400 (the next check passes), but this one wants
        # `sampling` named, which no toolcast tool needs.
        "server-stateless:sep-2575-server-rejects-undeclared-capability": (
            "wants requiredCapabilities.sampling; toolcast has no sampling, and names "
            "elicitation, what its approval needs"
        ),
        # Its fixture `protocol_error_job` "panics into a protocol error". A toolcast
        # tool that raises is a tool error (completed + isError, which
        # sep-2663-tool-error-uses-completed-status checks); `failed` is for toolcast
        # itself failing to finish (tests/serving/test_mcp_tasks.py provokes it).
        "tasks-lifecycle:sep-2663-tasks-get-status-failed": (
            "no toolcast tool can fail at the protocol level; tool errors are results"
        ),
        # Its fixture `multi_input` asks two elicitations at once; a toolcast call asks
        # one thing, its approval (answered through tasks/update, which passes).
        "tasks-mrtr-input:tasks-mrtr-partial-fulfillment": _NO_ASKING,
    },
}
KNOWN_FAILURES: dict[str, dict[str, str]] = {"2025-11-25": {}, "2026-07-28": {}}

COUNTS: dict[str, dict[str, int]] = {}


@pytest.fixture(scope="module")
def installed() -> None:
    """Skip without the npm project, as test_docs_site does without Chromium; fail in CI."""
    if NODE.is_file() and SUITE.is_file():
        return
    how = "npm ci --prefix tests/serving/conformance (.ci/run does it)"
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true but the conformance suite is not installed: {how}")
    pytest.skip(f"needs the conformance suite and its node: {how}")


@pytest.fixture(scope="module")
def server(installed: None) -> Iterator[HttpServer]:
    served = start_http("--task", "failing_job=required", target="conformance_tools:catalog")
    try:
        yield served
    finally:
        served.stop()


@pytest.fixture(scope="module", autouse=True)
def _print_counts(request: pytest.FixtureRequest) -> None:
    class Summary:
        def pytest_terminal_summary(self, terminalreporter: Any) -> None:
            for era, counts in sorted(COUNTS.items()):
                terminalreporter.write_line(
                    f"MCP conformance {era}: {counts['passed']} passed, "
                    f"{counts['failed']} failed (known), "
                    f"{counts['not_applicable']} not applicable"
                )

    plugin = Summary()
    if not request.config.pluginmanager.is_registered(plugin):
        request.config.pluginmanager.register(plugin, "toolcast-mcp-conformance")


_RUN_DIR = re.compile(r"^server-(?P<scenario>.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$")


def _run_suite(url: str, era: str, out: Path) -> dict[str, list[dict[str, Any]]]:
    """Run one era's requirement set; each scenario's checks, by scenario name."""
    done = subprocess.run(
        [str(NODE), str(SUITE), "server", "--url", url, "--requirements", era, "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        env=child_env(),
        check=False,
    )
    # The exit code is the suite's own verdict (1 while anything scored fails); the
    # sets below are the assertion, so only a run that produced nothing is an error.
    checks: dict[str, list[dict[str, Any]]] = {}
    for run in out.iterdir():
        match = _RUN_DIR.match(run.name)
        if match and (run / "checks.json").is_file():
            checks[match["scenario"]] = json.loads((run / "checks.json").read_text())
    assert checks, f"the suite ran no scenario:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    return checks


def _failing(scenario: str, checks: list[dict[str, Any]], excused: dict[str, str]) -> list[str]:
    problems = [
        f"{check['id']}: {check.get('errorMessage', '')}"
        for check in checks
        if check["status"] == "FAILURE" and f"{scenario}:{check['id']}" not in excused
    ]
    # A scenario that emits no SUCCESS check (only INFO or WARNING) has shown nothing;
    # counting it as passed would make e.g. tasks-status-notifications pass without Tasks.
    if not any(check["status"] == "SUCCESS" for check in checks):
        problems.append("no check succeeded (the scenario had nothing to exercise)")
    return problems


@pytest.mark.parametrize("era", ERAS)
def test_the_conformance_suite_passes_every_applicable_scenario(
    era: str, server: HttpServer, tmp_path: Path
) -> None:
    results = _run_suite(server.url, era, tmp_path / era)
    not_applicable, known = NOT_APPLICABLE[era], KNOWN_FAILURES[era]
    failed = {
        scenario: problems
        for scenario, checks in results.items()
        if (problems := _failing(scenario, checks, NOT_APPLICABLE_CHECKS[era]))
    }
    passed = set(results) - set(failed)
    COUNTS[era] = {
        "passed": len(passed - set(not_applicable)),
        "failed": len(set(failed) & set(known)),
        "not_applicable": len(set(not_applicable) & set(results)),
    }
    # Every scenario the suite ran is accounted for, and no listed one went missing.
    assert set(not_applicable) | set(known) <= set(results)
    unexpected = {s: p for s, p in failed.items() if s not in not_applicable and s not in known}
    assert unexpected == {}, "new failures"
    now_passing = sorted(set(known) & passed)
    assert now_passing == [], "fixed: move these out of KNOWN_FAILURES and docs/mcp.md"
    # A not-applicable scenario that passes means the reason is stale.
    assert sorted(set(not_applicable) & passed) == []
    # So does an excused check that now succeeds.
    succeeded = {
        f"{scenario}:{check['id']}"
        for scenario, checks in results.items()
        for check in checks
        if check["status"] == "SUCCESS"
    }
    assert sorted(set(NOT_APPLICABLE_CHECKS[era]) & succeeded) == [], "stale excuse"
