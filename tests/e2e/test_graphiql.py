"""GraphiQL in headless Chromium against a real server: the page renders and runs a
query with every request staying on 127.0.0.1, so it works offline."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from graphmem.api import GraphMem
from graphmem.settings import Settings
from tests.e2e.conftest import ARTIFACTS, Explorer, is_local

# A surface suite: what it checks is the surface, the same on every backend; the
# store suites beneath it run on Neo4j as well (tests/conftest.py).
pytestmark = pytest.mark.backends("falkordb")


def test_graphiql_renders_and_runs_a_query_offline(explorer: Explorer, gm: GraphMem) -> None:
    gm.remember({"content": "GraphiQL ships inside the package"})
    page = explorer.page
    page.goto("/graphql", wait_until="load")
    run = page.locator(".graphiql-execute-button")
    expect(run).to_be_visible()
    expect(page.locator("#graphiql")).not_to_contain_text("Loading GraphiQL")
    run.click()
    result = page.locator(".result-window")
    expect(result).to_contain_text("GraphiQL ships inside the package")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "graphiql.png"))
    assert explorer.traffic.foreign == []
    assert all(is_local(url) for _, url, _ in explorer.traffic.requests)


@pytest.mark.parametrize(
    "server_settings", [Settings.model_validate(dict(auth="required"))], indirect=False
)
def test_graphiql_loads_without_a_key_where_keys_are_required(
    explorer: Explorer, gm: GraphMem
) -> None:
    gm.remember({"content": "nobody reads this without a key"})
    explorer.refusals_expected = True
    page = explorer.page
    page.goto("/graphql", wait_until="load")
    expect(page.locator(".graphiql-execute-button")).to_be_visible()
    page.locator(".graphiql-execute-button").click()
    result = page.locator(".result-window")
    expect(result).to_contain_text("UNAUTHENTICATED")
    expect(result).not_to_contain_text("nobody reads this")
    assert explorer.traffic.foreign == []
