"""The explorer's routes over real HTTP: the page with a policy that keeps it
on this server, its files, and a clear 503 when the page was never built."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

import graphmem.server.explore
from tests.e2e.conftest import missing

# A surface suite: what it checks is the surface, the same on every backend; the
# store suites beneath it run on Neo4j as well (tests/conftest.py).
pytestmark = pytest.mark.backends("falkordb")


@pytest.fixture
def bundle() -> None:
    if not graphmem.server.explore.built():
        missing("the explorer page is not built: run `make explorer`")


def test_the_page_and_its_files_are_served_from_this_server(
    bundle: None, explorer_http: httpx.Client
):
    response = explorer_http.get("/explore")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    policy = response.headers["content-security-policy"]
    assert "default-src 'none'" in policy and "connect-src 'self'" in policy
    assert "script-src 'self';" in policy
    assert '<script defer src="/explore/static/explorer.js">' in response.text

    script = explorer_http.get("/explore/static/explorer.js")
    assert script.status_code == 200
    assert "javascript" in script.headers["content-type"]
    assert "graphmemExplorer" in script.text
    assert explorer_http.get("/explore/static/explorer.css").status_code == 200


def test_files_outside_the_bundle_are_not_served(bundle: None, explorer_http: httpx.Client):
    assert explorer_http.get("/explore/static/missing.js").status_code == 404
    for escape in ("/explore/static/../__init__.py", "/explore/static/%2e%2e/__init__.py"):
        response = explorer_http.get(escape)
        assert response.status_code == 404, escape
        assert "STATIC" not in response.text


def test_an_unbuilt_page_answers_503_saying_how_to_build_it(
    explorer_http: httpx.Client, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    monkeypatch.setattr(graphmem.server.explore, "STATIC", tmp_path)
    response = explorer_http.get("/explore")
    assert response.status_code == 503
    assert response.headers["content-type"].startswith("text/plain")
    assert "make explorer" in response.text
    # The API itself is unaffected.
    assert explorer_http.get("/healthz").json() == {"status": "ok"}
