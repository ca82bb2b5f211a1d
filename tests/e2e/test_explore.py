"""The explorer page in headless Chromium against a real server: the first
screen, search, explanations, the neighbourhood graph, expanding it, hiding
candidates, a URL per search and per memory, and the API key, all without a
request leaving 127.0.0.1."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

import pytest
from playwright.sync_api import Page, expect

from graphmem.api import GraphMem
from graphmem.auth import Role
from graphmem.clock import ManualClock
from graphmem.config import Settings
from graphmem.models import Memory
from tests.e2e.conftest import ARTIFACTS, Explorer, is_local

# A surface suite: what it checks is the surface, the same on every backend; the
# store suites beneath it run on Neo4j as well (tests/conftest.py).
pytestmark = pytest.mark.backends("falkordb")


@dataclass
class Seeded:
    pipeline: str
    rule: str
    flags: str
    manual: str
    soak: str
    drills: str


@pytest.fixture
def seeded(gm: GraphMem, clock: ManualClock) -> Seeded:
    """A small graph, written a minute apart: the pipeline decision is
    constrained, enabled and supersedes an older practice; the feature-flag
    memory it depends on leads on to a candidate and to one more active memory."""

    def remember(fields: dict[str, str]) -> Memory:
        clock.advance(60)
        return gm.remember(fields)

    pipeline = remember(
        {"content": "The release pipeline ships every build through a canary stage"}
    )
    rule = remember(
        {
            "content": "Production releases must pass the canary stage first",
            "tier": "procedural",
            "suggested_by": "agent",
        }
    )
    flags = remember({"content": "Feature flags let a bad release roll back instantly"})
    manual = remember({"content": "Releases used to be copied to the servers by hand"})
    soak = remember(
        {"content": "The canary soak time might need to be longer", "source": "auto_extracted"}
    )
    drills = remember({"content": "Rollback drills run every quarter", "tier": "semantic"})
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


def listed(page: Page, selector: str) -> list[str]:
    return page.locator(selector).evaluate_all("items => items.map(i => i.dataset.id)")


def hash_of(page: Page) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(page.url).fragment))


def screenshot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / name
    page.screenshot(path=str(shot), full_page=True)
    print(f"explorer screenshot: {shot}")


def test_the_first_screen_shows_the_most_important_and_the_newest_memories(
    explorer: Explorer, gm: GraphMem, seeded: Seeded
):
    page = explorer.page
    page.goto("/explore")
    expect(page).to_have_title("graphmem explorer")
    live = gm.list().items
    by_importance = sorted(live, key=lambda m: (-m.importance, -m.created_at))
    important = page.locator("#important li")
    expect(important).to_have_count(len(live))
    assert listed(page, "#important li") == [m.id for m in by_importance]
    assert listed(page, "#recent li") == [
        seeded.drills,
        seeded.soak,
        seeded.manual,
        seeded.flags,
        seeded.rule,
        seeded.pipeline,
    ]
    expect(page.locator("#status")).to_contain_text("6 memories")
    expect(page.locator("#query")).to_have_attribute("placeholder", re.compile(r"e\.g\. \w+"))

    # The graph starts on the most important memories and what they touch.
    graph = page.locator("#graph")
    expect(graph).to_have_attribute("data-state", "ready")
    assert len(node_ids(page)) == 6
    assert seeded.rule in node_ids(page, "node.listed")
    screenshot(page, "explore-first-screen.png")

    # The example query comes from the most important memory and finds it.
    example = page.locator("#example a")
    expect(example).to_be_visible()
    example.click()
    expect(page.locator(f'#results > li[data-id="{by_importance[0].id}"]')).to_be_visible()
    assert hash_of(page) == {"q": example.inner_text()}
    expect(page.locator("#overview")).to_be_hidden()


def test_an_empty_project_says_how_to_fill_it(explorer: Explorer, seeded: Seeded):
    """The project named in the URL is the one read, and it holds nothing."""
    page = explorer.page
    page.goto("/explore#project=elsewhere")
    expect(page.locator("#project")).to_have_value("elsewhere")
    expect(page.locator("#status")).to_contain_text("Project elsewhere has no memories yet")
    expect(page.locator("#status")).to_contain_text("graphmem remember")
    expect(page.locator("#graph")).to_have_attribute("data-state", "empty")
    expect(page.locator("#example")).to_be_hidden()
    expect(page.locator("#important li")).to_have_count(0)

    # Clearing the field goes back to the default project, which has memories.
    page.fill("#project", "")
    page.press("#project", "Enter")
    expect(page.locator("#important li")).to_have_count(6)
    assert "project" not in hash_of(page)


def test_search_explain_open_expand_and_hide_candidates(explorer: Explorer, seeded: Seeded):
    page, traffic = explorer.page, explorer.traffic
    page.goto("/explore")
    graph = page.locator("#graph")
    expect(graph).to_have_attribute("data-state", "ready")

    search(page, "canary stage")
    hits = page.locator("#results > li")
    expect(hits.first).to_be_visible()
    assert seeded.pipeline in listed(page, "#results > li")
    pipeline_hit = page.locator(f'#results > li[data-id="{seeded.pipeline}"]')
    expect(pipeline_hit.locator(".found-by")).to_contain_text("full text #")
    pipeline_hit.locator("summary").click()
    expect(pipeline_hit.locator(".components tbody tr").first).to_be_visible()
    expect(page.locator("#status")).to_contain_text("hits in")
    assert hash_of(page) == {"q": "canary stage"}

    pipeline_hit.locator("a.open").click()
    expect(graph).to_have_attribute("data-node-count", "4")
    expect(graph).to_have_attribute("data-state", "ready")
    expect(graph).to_have_attribute("data-edge-count", "3")
    assert hash_of(page) == {"q": "canary stage", "memory": seeded.pipeline}
    assert node_ids(page) == {seeded.pipeline, seeded.rule, seeded.flags, seeded.manual}
    expect(page.locator("#details .content")).to_have_text(
        "The release pipeline ships every build through a canary stage"
    )
    edge_labels = set(page.evaluate("window.graphmemExplorer.cy.edges().map(e => e.data('type'))"))
    assert edge_labels == {"CONSTRAINS", "ENABLES", "SUPERSEDES"}

    # Colour by tier, size by importance, labels horizontal and legible, as drawn.
    drawn = page.evaluate(
        """ids => {
            const cy = window.graphmemExplorer.cy;
            const nodes = ids.map(id => {
                const node = cy.getElementById(id);
                return [node.style('background-color'), node.renderedWidth(),
                        parseFloat(node.renderedStyle('font-size'))];
            });
            const edges = cy.edges().map(e => [e.style('text-rotation'),
                                               parseFloat(e.renderedStyle('font-size'))]);
            return {nodes, edges};
        }""",
        [seeded.pipeline, seeded.rule],
    )
    (pipeline_colour, pipeline_width, pipeline_font), (rule_colour, rule_width, _) = drawn["nodes"]
    assert pipeline_colour != rule_colour
    assert rule_width > 1.5 * pipeline_width, (rule_width, pipeline_width)
    assert 12.5 <= pipeline_font <= 14
    assert all(rotation == "none" and 10.5 <= font <= 12 for rotation, font in drawn["edges"])

    click_node(page, seeded.flags)
    expect(graph).to_have_attribute("data-node-count", "6")
    assert {seeded.soak, seeded.drills} <= node_ids(page)
    expect(page.locator("#details")).to_contain_text("Feature flags let a bad release")
    expect(graph).to_have_attribute("data-hidden-count", "0")
    screenshot(page, "explore.png")

    page.uncheck("#show-candidates")
    expect(graph).to_have_attribute("data-node-count", "5")
    expect(graph).to_have_attribute("data-edge-count", "4")
    expect(graph).to_have_attribute("data-hidden-count", "1")
    # The class is set at once; the style that hides the node follows on the next frame.
    page.wait_for_function(
        "id => !window.graphmemExplorer.cy.elements('node:visible').some(n => n.id() === id)",
        arg=seeded.soak,
    )
    assert seeded.soak not in node_ids(page)
    expect(page.locator("#graph-summary")).to_contain_text("5 memories, 4 relations, 1 hidden")
    page.check("#show-candidates")
    expect(graph).to_have_attribute("data-node-count", "6")

    # Centring on a memory is following its link: a new view at the chosen depth.
    page.click("#details a.centre")
    expect(graph).to_have_attribute("data-node-count", "4")
    assert node_ids(page) == {seeded.flags, seeded.pipeline, seeded.soak, seeded.drills}
    assert hash_of(page) == {"q": "canary stage", "memory": seeded.flags}
    page.select_option("#depth", "2")
    expect(graph).to_have_attribute("data-node-count", "6")
    expect(graph).to_have_attribute("data-state", "ready")
    assert hash_of(page)["depth"] == "2"
    assert page.evaluate("window.graphmemExplorer.cy.$('node.center').map(n => n.id())") == [
        seeded.flags
    ]

    assert traffic.foreign == []
    assert all(is_local(url) for _, url, _ in traffic.requests), traffic.requests


def test_every_search_and_memory_has_a_url_that_back_forward_and_reload_restore(
    explorer: Explorer, seeded: Seeded
):
    page = explorer.page
    graph = page.locator("#graph")
    status = page.locator("#status")
    page.goto(f"/explore#q=rollback&mode=FULLTEXT&memory={seeded.drills}")
    expect(page.locator("#query")).to_have_value("rollback")
    expect(page.locator("#mode")).to_have_value("FULLTEXT")
    expect(page.locator(f'#results > li[data-id="{seeded.drills}"]')).to_be_visible()
    expect(graph).to_have_attribute("data-node-count", "2")
    assert node_ids(page) == {seeded.drills, seeded.flags}
    expect(page.locator("#details .content")).to_have_text("Rollback drills run every quarter")

    search(page, "canary")
    expect(page.locator(f'#results > li[data-id="{seeded.pipeline}"]')).to_be_visible()
    page.locator(f'#results > li[data-id="{seeded.rule}"] a.open').click()
    expect(page.locator("#details .content")).to_have_text(
        "Production releases must pass the canary stage first"
    )
    expect(graph).to_have_attribute("data-node-count", "2")
    assert node_ids(page) == {seeded.rule, seeded.pipeline}
    assert hash_of(page) == {"q": "canary", "mode": "FULLTEXT", "memory": seeded.rule}

    page.go_back()
    expect(page.locator("#details")).to_be_hidden()
    expect(graph).to_have_attribute("data-state", "ready")
    assert hash_of(page) == {"q": "canary", "mode": "FULLTEXT"}
    assert seeded.rule in node_ids(page, "node.listed")
    page.go_back()
    expect(page.locator("#query")).to_have_value("rollback")
    expect(page.locator("#details .content")).to_have_text("Rollback drills run every quarter")
    page.go_forward()
    expect(page.locator("#query")).to_have_value("canary")
    expect(page.locator("#details")).to_be_hidden()
    page.go_forward()
    expect(page.locator("#details .content")).to_have_text(
        "Production releases must pass the canary stage first"
    )
    expect(page.locator("#query")).to_have_value("canary")

    page.reload()
    expect(page.locator("#query")).to_have_value("canary")
    expect(page.locator(f'#results > li[data-id="{seeded.rule}"]')).to_be_visible()
    expect(graph).to_have_attribute("data-node-count", "2")
    expect(page.locator("#details .content")).to_have_text(
        "Production releases must pass the canary stage first"
    )

    page.click("#home")
    expect(page.locator("#important li")).to_have_count(6)
    expect(page.locator("#results")).to_be_hidden()
    expect(page.locator("#query")).to_have_value("")

    page.goto("/explore#memory=no-such-memory")
    expect(status).to_have_class("error")
    expect(status).to_contain_text("NOT_FOUND")
    expect(graph).to_have_attribute("data-node-count", "0")


def test_candidate_hits_hide_with_the_toggle(explorer: Explorer, seeded: Seeded):
    page = explorer.page
    page.goto("/explore")
    soak_item = page.locator(f'#recent li[data-id="{seeded.soak}"]')
    expect(soak_item).to_be_visible()
    page.uncheck("#show-candidates")
    expect(soak_item).to_be_hidden()
    page.check("#show-candidates")
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
    expect(page.locator("#graph")).to_have_attribute("data-state", "ready")
    assert traffic.graphql()[-1].get("authorization") == f"Bearer {token}"

    search(page, "canary")
    expect(page.locator(f'#results > li[data-id="{seeded.pipeline}"]')).to_be_visible()
    assert traffic.graphql()[-1].get("authorization") == f"Bearer {token}"

    page.fill("#api-key", "")
    search(page, "rollback")
    expect(page.locator(f'#results > li[data-id="{seeded.drills}"]')).to_be_visible()
    assert "authorization" not in traffic.graphql()[-1]
    assert page.evaluate("sessionStorage.length") == 0
    assert all(token not in url for _, url, _ in traffic.requests)
    assert token not in page.url


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
    expect(status).to_contain_text("this server needs an API key")
    expect(status).to_have_class("error")

    search(page, "canary")
    expect(status).to_contain_text("this server needs an API key")
    expect(page.locator("#results > li")).to_have_count(0)

    page.fill("#api-key", "gmk_not-a-key")
    search(page, "canary")
    expect(status).to_contain_text("the API key was refused")

    # Entering a key re-reads what the page shows, here the search.
    _, token = gm.keys.create("explorer", [gm.default_project], Role.READ)
    sent = len(traffic.graphql())
    page.fill("#api-key", token)
    page.press("#api-key", "Enter")
    expect(page.locator(f'#results > li[data-id="{seeded.pipeline}"]')).to_be_visible()
    page.locator(f'#results > li[data-id="{seeded.pipeline}"] a.open').click()
    expect(page.locator("#graph")).to_have_attribute("data-node-count", "4")
    keys = [h.get("authorization") for h in traffic.graphql()]
    assert keys[0] is None and "Bearer gmk_not-a-key" in keys
    assert len(keys) > sent and set(keys[sent:]) == {f"Bearer {token}"}
