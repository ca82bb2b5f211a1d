"""A real server and a real headless Chromium for end-to-end tests of the
explorer page. Chromium is Debian's (/usr/bin/chromium, or the path in
GRAPHMEM_TEST_CHROMIUM), driven by Playwright; no browser is ever downloaded."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from playwright.sync_api import Browser, Page, Route, sync_playwright

from graphmem.api import GraphMem
from graphmem.graphql.app import create_app
from graphmem.server.explore import built
from graphmem.settings import Settings
from tests.integration.conftest import serve

CHROMIUM = Path(os.environ.get("GRAPHMEM_TEST_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"


def missing(what: str) -> None:
    """Skip locally, fail in CI: there the browser and the bundle must be present."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{what} (CI=true: .ci/run installs chromium and `make test` builds the page)")
    pytest.skip(what)


@contextmanager
def headless_chromium() -> Iterator[Browser]:
    """Debian's Chromium (no browser is downloaded); under CI=true it must be there."""
    if not CHROMIUM.is_file():
        missing(f"{CHROMIUM} is missing: apt-get install chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, timeout=30_000
        )
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    if not built():
        missing("the explorer page is not built: run `make explorer`")
    with headless_chromium() as browser:
        yield browser


@pytest.fixture
def server_settings() -> Settings | None:
    """The server's settings; a test parametrizes this to change them."""
    return None


@pytest.fixture
def explorer_http(gm: GraphMem, server_settings: Settings | None) -> Iterator[httpx.Client]:
    with serve(create_app(gm, server_settings)) as client:
        yield client


def is_local(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and parts.hostname == "127.0.0.1"


class Traffic:
    """Every request the page made; anything not for 127.0.0.1 is aborted."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, dict[str, str]]] = []
        self.foreign: list[str] = []

    def graphql(self) -> list[dict[str, str]]:
        """The headers of each request to /graphql, in order."""
        return [headers for _, url, headers in self.requests if urlsplit(url).path == "/graphql"]


REFUSED = "Failed to load resource: the server responded with a status of 401"


@dataclass
class Explorer:
    page: Page
    traffic: Traffic
    refusals_expected: bool = False
    """Chromium logs every 401 as a console error; a test that provokes them says so."""


@pytest.fixture
def explorer(chromium: Browser, explorer_http: httpx.Client) -> Iterator[Explorer]:
    """A fresh browser context on the explorer, with its traffic and console
    errors recorded; the test fails if the page logged an error."""
    origin = str(explorer_http.base_url).rstrip("/")
    context = chromium.new_context(base_url=origin, viewport={"width": 1400, "height": 900})
    context.set_default_timeout(15_000)
    traffic = Traffic()
    errors: list[str] = []

    def route(route: Route) -> None:
        if is_local(route.request.url):
            route.continue_()
        else:
            traffic.foreign.append(route.request.url)
            route.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.on(
        "request",
        lambda request: traffic.requests.append((request.method, request.url, request.headers)),
    )
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    explorer = Explorer(page, traffic)
    try:
        yield explorer
    finally:
        context.close()
    if explorer.refusals_expected:
        errors = [error for error in errors if not error.startswith(REFUSED)]
    assert not errors, errors
