"""The documentation site: `mkdocs build --strict` passes, the API reference covers
every public name, and the built pages render in headless Chromium.

The site is built once per session, in-process, from the repository's `mkdocs.yml`.
The browser tests drive Debian's `chromium` over the DevTools protocol (the
`websockets` client of the test extra) against a local HTTP server on 127.0.0.1; they
carry the `docs_browser` marker and are skipped when no Chromium is installed, except
under CI (`CI=true`), where `.ci/run` installs it and its absence is a failure.
Screenshots are kept in `test-artifacts/docs/` (gitignored).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import functools
import http.server
import importlib
import json
import os
import re
import shutil
import subprocess
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts" / "docs"

# Each public wing and the reference page that renders it. A wing added later
# (toolcast.integrations, toolcast.temporal) gets a row here and a page in mkdocs.yml.
REFERENCE = {
    "toolcast": "reference/toolcast",
    "toolcast.errors": "reference/errors",
    "toolcast.typing": "reference/typing",
    "toolcast.policy": "reference/policy",
    "toolcast.loop": "reference/loop",
    "toolcast.loop.redis": "reference/loop",
    "toolcast.aliases": "reference/aliases",
    "toolcast.aliases.redis": "reference/aliases",
    "toolcast.testing": "reference/testing",
    "toolcast.grpc": "reference/grpc",
    "toolcast.integrations.pydantic_ai": "reference/integrations",
    "toolcast.integrations.openai_agents": "reference/integrations",
    "toolcast.integrations.langchain": "reference/integrations",
    "toolcast.temporal": "reference/temporal",
    **{
        f"toolcast.providers.{name}": f"reference/providers/{name}"
        for name in (
            "openai_chat",
            "openai_responses",
            "openai_realtime",
            "anthropic",
            "gemini",
            "bedrock",
            "mistral",
            "ollama",
            "mcp",
            "hermes",
        )
    },
}


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built strictly: any warning (broken link, missing reference) fails."""
    pytest.importorskip("mkdocs", reason="the docs extra: pip install -e '.[docs]'")
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    out = tmp_path_factory.mktemp("site")
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    config = load_config(str(ROOT / "mkdocs.yml"), site_dir=str(out), strict=True)
    build(config)  # raises mkdocs.exceptions.Abort on the first warning under strict
    return out


def test_the_site_builds_strictly_with_a_page_per_guide_and_provider(site: Path) -> None:
    pages = sorted((ROOT / "docs").glob("**/*.md"))
    assert len(pages) > 30
    for page in pages:
        relative = page.relative_to(ROOT / "docs").with_suffix("")
        folder = relative.parent if relative.name == "index" else relative
        assert (site / folder / "index.html").is_file(), f"{page} was not built"
    assert (site / "search" / "search_index.json").is_file()


def test_every_page_is_in_the_navigation() -> None:
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\s*-\s[^:\n]+:\s(\S+\.md)\s*$", config, flags=re.MULTILINE))
    pages = {str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").glob("**/*.md")}
    assert pages - listed == set()
    assert listed - pages == set()


@pytest.mark.parametrize("module", sorted(REFERENCE))
def test_the_reference_documents_every_public_name(site: Path, module: str) -> None:
    exported = importlib.import_module(module).__all__
    html = (site / REFERENCE[module] / "index.html").read_text(encoding="utf-8")
    anchors = set(re.findall(r'id="([\w.]+)"', html))
    missing = [name for name in exported if f"{module}.{name}" not in anchors]
    assert missing == [], f"{REFERENCE[module]} does not document {module}.{missing}"


def test_every_provider_module_has_a_reference_page_and_a_guide() -> None:
    providers = ROOT / "src" / "toolcast" / "providers"
    public = {p.stem for p in providers.glob("*.py") if not p.stem.startswith("_")}
    referenced = {m.rsplit(".", 1)[1] for m in REFERENCE if m.startswith("toolcast.providers.")}
    assert public == referenced
    for name in public:
        assert (ROOT / "docs" / "providers" / f"{name}.md").is_file()


# --------------------------------------------------------------------------- browser


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.fixture(scope="session")
def chromium() -> str:
    found = _chromium()
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true but no chromium on PATH: .ci/run installs Debian's chromium")
        pytest.skip("no chromium on PATH (apt-get install chromium)")
    return found


@pytest.fixture(scope="session")
def served(site: Path) -> Iterator[str]:
    """The built site over HTTP on 127.0.0.1 (search needs fetch, which file:// refuses)."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


class DevTools:
    """A minimal Chrome DevTools Protocol client: one page target, flat session."""

    def __init__(self, socket: Any) -> None:
        self._socket = socket
        self._next = 0
        self._session: str | None = None
        self.events: list[dict[str, Any]] = []

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params}
        if self._session is not None and not method.startswith("Target."):
            message["sessionId"] = self._session
        await self._socket.send(json.dumps(message))
        while True:
            reply = json.loads(await self._socket.recv())
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return dict(reply.get("result", {}))
            self.events.append(reply)

    async def wait_for(self, method: str) -> dict[str, Any]:
        for index, event in enumerate(self.events):
            if event.get("method") == method:
                return self.events.pop(index)
        while True:
            event = json.loads(await self._socket.recv())
            if event.get("method") == method:
                return dict(event)
            self.events.append(event)

    async def drain(self, seconds: float) -> None:
        # Let late console output (the search worker) arrive; not a timing assertion.
        with contextlib.suppress(asyncio.TimeoutError):
            while True:
                self.events.append(json.loads(await asyncio.wait_for(self._socket.recv(), seconds)))

    async def open_page(self) -> None:
        target = await self.send("Target.createTarget", url="about:blank")
        attached = await self.send(
            "Target.attachToTarget", targetId=target["targetId"], flatten=True
        )
        self._session = attached["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            await self.send(f"{domain}.enable")
        await self.send(
            "Emulation.setDeviceMetricsOverride",
            width=1280,
            height=900,
            deviceScaleFactor=1,
            mobile=False,
        )

    async def evaluate(self, expression: str) -> Any:
        result = await self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        return result["result"].get("value")

    def errors(self) -> list[str]:
        found = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                found.append(params["exceptionDetails"].get("text", "exception"))
            elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
                found.append(" ".join(str(a.get("value", a)) for a in params.get("args", [])))
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                found.append(f"{params['entry'].get('url', '')}: {params['entry']['text']}")
        return found


@contextlib.asynccontextmanager
async def devtools(chromium: str, profile: Path) -> AsyncIterator[DevTools]:
    websockets = pytest.importorskip("websockets")
    process = subprocess.Popen(
        [
            chromium,
            "--headless",
            "--no-sandbox",  # root in CI containers
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            "--disable-background-networking",
            "--remote-debugging-address=127.0.0.1",
            "--remote-debugging-port=0",
            f"--user-data-dir={profile}",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        url = None
        for line in process.stderr:
            match = re.search(r"DevTools listening on (ws://\S+)", line)
            if match:
                url = match[1]
                break
        assert url, "chromium did not print its DevTools address"
        async with websockets.connect(url, max_size=None) as socket:
            client = DevTools(socket)
            await client.open_page()
            yield client
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


async def _render(chromium: str, profile: Path, url: str, shot: Path) -> dict[str, Any]:
    async with devtools(chromium, profile) as page:
        await page.send("Page.navigate", url=url)
        await page.wait_for("Page.loadEventFired")
        await page.drain(1.0)
        facts = {
            "title": await page.evaluate("document.title"),
            "nav": await page.evaluate(
                "[...document.querySelectorAll('nav.md-nav--primary .md-nav__link')]"
                ".map(a => a.textContent.trim()).filter(Boolean)"
            ),
            "search": await page.evaluate("!!document.querySelector('input.md-search__input')"),
            "h1": await page.evaluate("document.querySelector('article h1')?.textContent"),
            "text": await page.evaluate("document.querySelector('article').innerText"),
        }
        picture = await page.send("Page.captureScreenshot", format="png")
        shot.parent.mkdir(parents=True, exist_ok=True)
        shot.write_bytes(base64.b64decode(picture["data"]))
        facts["errors"] = page.errors()
        return facts


@pytest.mark.docs_browser
def test_the_home_page_renders_with_title_navigation_and_no_console_errors(
    chromium: str, served: str, tmp_path: Path
) -> None:
    shot = ARTIFACTS / "home.png"
    facts = asyncio.run(_render(chromium, tmp_path / "profile", served + "/", shot))
    assert facts["errors"] == []
    assert facts["title"] == "toolcast"
    assert facts["h1"].startswith("toolcast documentation")
    for entry in ("Home", "Tutorial", "Getting started", "API reference", "Providers"):
        assert entry in facts["nav"]
    assert facts["search"]
    assert shot.stat().st_size > 10_000  # a rendered page, not a blank one


@pytest.mark.docs_browser
def test_a_reference_page_renders_the_docstrings(
    chromium: str, served: str, tmp_path: Path
) -> None:
    shot = ARTIFACTS / "reference-toolcast.png"
    url = served + "/reference/toolcast/"
    facts = asyncio.run(_render(chromium, tmp_path / "profile", url, shot))
    assert facts["errors"] == []
    assert facts["title"].startswith("toolcast - toolcast")
    assert "API reference" in facts["nav"]
    import toolcast

    first_line = (toolcast.Tool.__doc__ or "").strip().splitlines()[0].replace("`", "")
    assert first_line in facts["text"]
    assert shot.stat().st_size > 10_000
