"""The explorer page in headless Chromium against a real server: search,
explanations, the neighbourhood graph, expanding it, hiding candidates and
the API key, all without a request leaving 127.0.0.1."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from playwright.sync_api import Page, expect

from graphmem.api import GraphMem
from graphmem.auth import Role
from graphmem.config import Settings
from tests.e2e.conftest import ARTIFACTS, Explorer, is_local


@dataclass
class Seeded:
    pipeline: str
    rule: str
    flags: str
    manual: str
    soak: str
    drills: str


@pytest.fixture
def seeded(gm: GraphMem) -> Seeded:
    """A small graph: the pipeline decision is constrained, enabled and
    supersedes an older practice; the feature-flag memory it depends on leads
    on to a candidate and to one more active memory."""
    pipeline = gm.remember(
        {"content": "The release pipeline ships every build through a canary stage"}
    )
    rule = gm.remember(
        {
            "content": "Production releases must pass the canary stage first",
            "tier": "procedural",
            "suggested_by": "agent",
        }
    )
    flags = gm.remember({"content": "Feature flags let a bad release roll back instantly"})
    manual = gm.remember({"content": "Releases used to be copied to the servers by hand"})
    soak = gm.remember(
        {"content": "The canary soak time might need to be longer", "source": "auto_extracted"}
    )
    drills = gm.remember({"content": "Rollback drills run every quarter", "tier": "semantic"})
    assert soak.status.value == "candidate" and pipeline.status.value == "active"
    assert rule.importance > pipeline.importance
    gm.relate(rule.id, pipeline.id, "CONSTRAINS", rationale="release policy")
    gm.relate(flags.id, pipeline.id, "ENABLES")
    gm.supersede(manual.id, pipeline.id)
    gm.relate(soak.id, flags.id, "RELATED_TO")
    gm.relate(drills.id, flags.id, "RELATED_TO")
    return Seeded(pipeline.id, rule.id, flags.id, manual.id, soak.id, drills.id)


def search(page: Page, query: str) -> None:
    page.fill("#query", query)
    page.click("#search button[type=submit]")


def click_node(page: Page, memory_id: str) -> None:
    """A real mouse click where cytoscape drew the node, with the details panel
    (which floats over the graph) closed first."""
    if page.locator("#details").is_visible():
        page.click("#details .close")
    x, y, reachable = page.evaluate(
        """id => {
            const cy = window.graphmemExplorer.cy;
            const box = cy.container().getBoundingClientRect();
            const at = cy.getElementById(id).renderedPosition();
            const [x, y] = [box.left + at.x, box.top + at.y];
            return [x, y, cy.container().contains(document.elementFromPoint(x, y))];
        }""",
        memory_id,
    )
    assert reachable, "the node is drawn under something else"
    page.mouse.click(x, y)


def node_ids(page: Page, selector: str = "node:visible") -> set[str]:
    return set(
        page.evaluate(
            "s => window.graphmemExplorer.cy.elements(s).map(n => n.id())",
            selector,
        )
    )


def test_search_explain_open_expand_and_hide_candidates(explorer: Explorer, seeded: Seeded):
    page, traffic = explorer.page, explorer.traffic
    page.goto("/explore")
    expect(page).to_have_title("graphmem explorer")
    graph = page.locator("#graph")
    expect(graph).to_have_attribute("data-node-count", "0")

    search(page, "canary stage")
    hits = page.locator("#results > li")
    expect(hits.first).to_be_visible()
    assert seeded.pipeline in hits.evaluate_all("items => items.map(i => i.dataset.id)")
    pipeline_hit = page.locator(f'#results > li[data-id="{seeded.pipeline}"]')
    expect(pipeline_hit.locator(".found-by")).to_contain_text("full text #")
    pipeline_hit.locator("summary").click()
    expect(pipeline_hit.locator(".components tbody tr").first).to_be_visible()
    expect(page.locator("#status")).to_contain_text("hits in")

    pipeline_hit.locator("button.open").click()
    expect(graph).to_have_attribute("data-state", "ready")
    expect(graph).to_have_attribute("data-node-count", "4")
    expect(graph).to_have_attribute("data-edge-count", "3")
    assert node_ids(page) == {seeded.pipeline, seeded.rule, seeded.flags, seeded.manual}
    edge_labels = set(page.evaluate("window.graphmemExplorer.cy.edges().map(e => e.data('type'))"))
    assert edge_labels == {"CONSTRAINS", "ENABLES", "SUPERSEDES"}
    # Colour by tier, size by importance, as drawn.
    (pipeline_colour, pipeline_width), (rule_colour, rule_width) = page.evaluate(
        """ids => ids.map(id => {
            const node = window.graphmemExplorer.cy.getElementById(id);
            return [node.style('background-color'), node.renderedWidth()];
        })""",
        [seeded.pipeline, seeded.rule],
    )
    assert pipeline_colour != rule_colour
    assert rule_width > pipeline_width

    click_node(page, seeded.flags)
    expect(graph).to_have_attribute("data-node-count", "6")
    assert {seeded.soak, seeded.drills} <= node_ids(page)
    expect(page.locator("#details")).to_contain_text("Feature flags let a bad release")
    expect(graph).to_have_attribute("data-hidden-count", "0")

    page.uncheck("#show-candidates")
    expect(graph).to_have_attribute("data-node-count", "5")
    expect(graph).to_have_attribute("data-edge-count", "4")
    expect(graph).to_have_attribute("data-hidden-count", "1")
    assert seeded.soak not in node_ids(page)
    expect(page.locator("#graph-summary")).to_contain_text("1 candidates hidden")
    page.check("#show-candidates")
    expect(graph).to_have_attribute("data-node-count", "6")

    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "explore.png"
    page.screenshot(path=str(shot), full_page=True)
    print(f"explorer screenshot: {shot}")

    # Re-centring starts a new view: the flags memory and its own neighbours.
    page.select_option("#depth", "2")
    page.click("#details button:has-text('Centre on this memory')")
    expect(graph).to_have_attribute("data-state", "ready")
    expect(graph).to_have_attribute("data-node-count", "6")
    assert page.evaluate("window.graphmemExplorer.cy.$('node.center').map(n => n.id())") == [
        seeded.flags
    ]
    page.select_option("#depth", "1")
    click_node(page, seeded.drills)
    expect(graph).to_have_attribute("data-state", "ready")
    page.click("#details button:has-text('Centre on this memory')")
    expect(graph).to_have_attribute("data-state", "ready")
    expect(graph).to_have_attribute("data-node-count", "2")
    assert node_ids(page) == {seeded.drills, seeded.flags}

    assert traffic.foreign == []
    assert all(is_local(url) for _, url, _ in traffic.requests), traffic.requests
    # search, open, expand, centre at depth 2, expand (drills), centre at depth 1
    assert len(traffic.graphql()) == 6


def test_candidate_hits_hide_with_the_toggle(explorer: Explorer, seeded: Seeded):
    page = explorer.page
    page.goto("/explore")
    search(page, "canary")
    soak = page.locator(f'#results > li[data-id="{seeded.soak}"]')
    expect(soak).to_be_visible()
    page.uncheck("#show-candidates")
    expect(soak).to_be_hidden()
    expect(page.locator(f'#results > li[data-id="{seeded.pipeline}"]')).to_be_visible()


def test_api_key_is_kept_for_the_tab_and_sent_as_a_bearer_token(
    explorer: Explorer, gm: GraphMem, seeded: Seeded
):
    page, traffic = explorer.page, explorer.traffic
    _, token = gm.keys.create("explorer", [gm.default_project], Role.READ)
    page.goto("/explore")
    page.fill("#api-key", token)
    page.reload()
    expect(page.locator("#api-key")).to_have_value(token)

    search(page, "canary")
    expect(page.locator(f'#results > li[data-id="{seeded.pipeline}"]')).to_be_visible()
    assert traffic.graphql()[-1].get("authorization") == f"Bearer {token}"

    page.fill("#api-key", "")
    search(page, "rollback")
    expect(page.locator(f'#results > li[data-id="{seeded.drills}"]')).to_be_visible()
    assert "authorization" not in traffic.graphql()[-1]
    assert page.evaluate("sessionStorage.length") == 0


def test_errors_from_the_server_are_shown(explorer: Explorer, seeded: Seeded):
    """The input's own limit is lifted to reach the server's, which names the field."""
    page = explorer.page
    page.goto("/explore")
    page.evaluate("document.getElementById('query').removeAttribute('maxlength')")
    search(page, "canary " * 200)
    status = page.locator("#status")
    expect(status).to_have_class("error")
    expect(status).to_contain_text("INVALID_INPUT")
    expect(status).to_contain_text("query")
    expect(page.locator("#results > li")).to_have_count(0)


@pytest.mark.parametrize("server_settings", [Settings.model_construct(auth="required")])
def test_a_server_that_requires_keys_serves_the_page_and_answers_with_a_key(
    explorer: Explorer, gm: GraphMem, seeded: Seeded
):
    page, traffic = explorer.page, explorer.traffic
    explorer.refusals_expected = True
    status = page.locator("#status")
    page.goto("/explore")
    expect(page.locator("#search")).to_be_visible()

    search(page, "canary")
    expect(status).to_contain_text("this server needs an API key")
    expect(status).to_have_class("error")
    expect(page.locator("#results > li")).to_have_count(0)

    page.fill("#api-key", "gmk_not-a-key")
    search(page, "canary")
    expect(status).to_contain_text("the API key was refused")

    _, token = gm.keys.create("explorer", [gm.default_project], Role.READ)
    page.fill("#api-key", token)
    search(page, "canary")
    expect(page.locator(f'#results > li[data-id="{seeded.pipeline}"]')).to_be_visible()
    page.locator(f'#results > li[data-id="{seeded.pipeline}"] button.open').click()
    expect(page.locator("#graph")).to_have_attribute("data-node-count", "4")
    assert [h.get("authorization") for h in traffic.graphql()] == [
        None,
        "Bearer gmk_not-a-key",
        f"Bearer {token}",
        f"Bearer {token}",
    ]
