"""The explorer page in headless Chromium against a real server: the first
screen, search, explanations, the neighbourhood graph, expanding it, hiding
candidates, a URL per search and per memory, the API key and the projects it
may read, all without a request leaving 127.0.0.1; and the graph as drawn:
captions whole and clear of each other, the details panel beside the graph,
sizes close for close importances, superseded and expired memories marked,
relations in the Neo4j Browser style's colours."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

import pytest
from playwright.sync_api import Page, expect

from graphmem.api import GraphMem
from graphmem.domain.auth import Role
from graphmem.domain.clock import ManualClock
from graphmem.domain.kinds import RelationType
from graphmem.domain.models import Memory
from graphmem.settings import Settings
from tests.e2e.conftest import ARTIFACTS, Explorer, is_local
from tests.unit.test_browser_files import grass, rgb

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


def test_an_empty_project_says_how_to_fill_it(explorer: Explorer, gm: GraphMem, seeded: Seeded):
    """The project named in the URL is the one read: it exists (a session was
    opened in it) and holds no memory."""
    gm.open_session("s-1", project_id="elsewhere")
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


def offered_projects(page: Page) -> list[str]:
    return page.locator("#projects option").evaluate_all("options => options.map(o => o.value)")


def test_the_project_box_offers_the_projects_the_api_key_may_read(
    explorer: Explorer, gm: GraphMem, seeded: Seeded
):
    gm.remember({"content": "Alpha ships on Tuesdays"}, project_id="alpha")
    gm.set_project_settings(auto_links=["previous_turn"], project_id="beta")
    page = explorer.page
    page.goto("/explore")
    expect(page.locator("#project")).to_have_attribute("list", "projects")
    expect(page.locator("#projects option")).to_have_count(3)
    assert offered_projects(page) == ["alpha", "beta", "default"]

    _, token = gm.keys.create("explorer", ["default", "alpha", "gamma"], Role.READ)
    page.fill("#api-key", token)
    page.press("#api-key", "Enter")
    expect(page.locator("#projects option")).to_have_count(2)
    assert offered_projects(page) == ["alpha", "default"]

    page.fill("#api-key", "")
    page.press("#api-key", "Enter")
    expect(page.locator("#projects option")).to_have_count(3)


def test_a_project_that_does_not_exist_is_said_with_the_ones_that_do(
    explorer: Explorer, gm: GraphMem, seeded: Seeded
):
    """A typo is not passed off as an empty project, in the overview or a search."""
    page = explorer.page
    status = page.locator("#status")
    page.goto("/explore#project=defualt")
    expect(status).to_have_text("no project named defualt (projects: default)")
    expect(status).to_have_class("error")
    expect(page.locator("#overview")).to_be_empty()
    expect(page.locator("#example")).to_be_hidden()
    screenshot(page, "explore-missing-project.png")

    search(page, "canary")
    expect(status).to_have_text("no project named defualt (projects: default)")
    expect(page.locator("#results > li")).to_have_count(0)

    # A project written to after the page loaded is found when named.
    gm.remember({"content": "Alpha ships on Tuesdays"}, project_id="alpha")
    page.fill("#project", "alpha")
    page.press("#project", "Enter")
    expect(status).to_contain_text("0 hits")
    expect(status).not_to_have_class("error")
    page.goto("/explore#project=alpha")
    expect(page.locator("#important li")).to_have_count(1)
    assert offered_projects(page) == ["alpha", "default"]


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
    # Its relations, the two the expansion brought in among them.
    expect(page.locator("#details .relations li")).to_have_count(3)
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


@pytest.mark.parametrize("server_settings", [Settings.model_validate(dict(auth="required"))])
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


@dataclass
class Crowded:
    tuesdays: str
    friday: str
    friday_noon: str
    pipeline: str
    freeze: str
    flags: str


@pytest.fixture
def crowded(gm: GraphMem, clock: ManualClock) -> Crowded:
    """Two conventions about Friday deploys that say nearly the same, one
    superseding an older convention, and a release freeze that has expired:
    conventions weigh 0.625, facts 0.55 and a plain memory 0.45. The freeze's
    validity ends before the browser's clock as well as the server's."""

    def remember(fields: dict[str, object]) -> Memory:
        clock.advance(60)
        return gm.remember(fields)

    tuesdays = remember(
        {"content": "Deploys go out on Tuesdays and Thursdays only", "memory_type": "convention"}
    )
    friday = remember(
        {"content": "Never deploy to production on a Friday", "memory_type": "convention"}
    )
    friday_noon = remember(
        {"content": "No production deploys on Fridays after noon", "memory_type": "convention"}
    )
    pipeline = remember(
        {
            "content": "The release pipeline ships every build through a canary stage",
            "memory_type": "fact",
        }
    )
    ended = time.time() - 86_400
    freeze = remember(
        {
            "content": "A release freeze holds until the audit closes",
            "memory_type": "fact",
            "valid_from": ended - 86_400,
            "valid_to": ended,
        }
    )
    flags = remember({"content": "Feature flags let a bad release roll back instantly"})
    assert (friday.importance, pipeline.importance, flags.importance) == (0.625, 0.55, 0.45)
    gm.supersede(tuesdays.id, friday.id)
    gm.relate(friday.id, pipeline.id, "CONSTRAINS")
    gm.relate(friday_noon.id, pipeline.id, "CONSTRAINS")
    gm.relate(friday_noon.id, friday.id, "RELATED_TO")
    gm.relate(freeze.id, pipeline.id, "CONSTRAINS")
    gm.relate(flags.id, pipeline.id, "ENABLES")
    return Crowded(tuesdays.id, friday.id, friday_noon.id, pipeline.id, freeze.id, flags.id)


def overlapping_labels(page: Page) -> list[list[str]]:
    """Each pair of drawn things that overlap where one is a caption or an edge
    label: captions with captions, nodes and edge labels; edge labels with
    each other. Boxes in model units, as cytoscape draws them."""
    return page.evaluate(
        """() => {
            const cy = window.graphmemExplorer.cy;
            const box = (ele, labels) => ele.boundingBox(
                {includeNodes: !labels, includeEdges: false, includeLabels: labels,
                 includeOverlays: false});
            const items = [];
            cy.nodes(':visible').forEach(n => {
                items.push({name: `caption ${n.data('content')}`, box: box(n, true), label: true});
                items.push({name: `node ${n.data('content')}`, box: box(n, false), label: false});
            });
            cy.edges(':visible').forEach(e => {
                const b = box(e, true);
                if (e.pstyle('label').strValue && b.w > 0)
                    items.push({name: `edge label ${e.id()}`, box: b, label: true});
            });
            const hit = (a, b) => a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2;
            const pairs = [];
            items.forEach((a, i) => items.slice(i + 1).forEach(b => {
                const same = a.name.replace(/^\\w+ /, '') === b.name.replace(/^\\w+ /, '');
                if ((a.label || b.label) && !same && hit(a.box, b.box))
                    pairs.push([a.name, b.name]);
            }));
            return pairs;
        }"""
    )


def clipped_captions(page: Page) -> list[str]:
    """Each caption whose box, which cytoscape draws it into, is narrower than its
    widest line: the lines wrapped as cytoscape wraps them (whole words up to
    the caption's max width) and measured in the caption's own font."""
    return page.evaluate(
        """() => {
            const cy = window.graphmemExplorer.cy;
            const ctx = document.createElement('canvas').getContext('2d');
            const clipped = [];
            cy.nodes(':visible').forEach(n => {
                const style = name => n.pstyle(name).strValue;
                ctx.font = `${style('font-style')} ${style('font-weight')} ` +
                    `${n.pstyle('font-size').pfValue}px ${style('font-family')}`;
                const max = n.pstyle('text-max-width').pfValue;
                const width = text => ctx.measureText(text).width;
                let widest = 0;
                for (const part of style('label').split('\\n')) {
                    // A word joins a line if the line still fits with the space after it.
                    const words = part.split(/\\s+/);
                    let line = '';
                    words.forEach((word, i) => {
                        const after = i < words.length - 1 ? ' ' : '';
                        if (line && width(`${line} ${word}${after}`) > max) {
                            widest = Math.max(widest, width(line));
                            line = word;
                        } else line = line ? `${line} ${word}` : word;
                    });
                    widest = Math.max(widest, width(line));
                }
                const box = n.boundingBox(
                    {includeNodes: false, includeLabels: true, includeOverlays: false});
                if (box.w < widest)
                    clipped.push(`${style('label')}: ${box.w.toFixed(1)} < ${widest.toFixed(1)}`);
            });
            return clipped;
        }"""
    )


def test_captions_and_edge_labels_never_overlap(explorer: Explorer, crowded: Crowded):
    """Every view of the crowded graph: the overview, a memory at depth 1 and
    2, and after expanding a node. An edge's type shows under the pointer."""
    page = explorer.page
    graph = page.locator("#graph")
    page.goto("/explore")
    expect(graph).to_have_attribute("data-state", "ready")
    expect(graph).to_have_attribute("data-node-count", "6")
    screenshot(page, "explore-crowded-overview.png")
    assert overlapping_labels(page) == []
    assert clipped_captions(page) == []

    for view in (f"memory={crowded.pipeline}", f"memory={crowded.friday}&depth=2"):
        page.goto(f"/explore#{view}")
        expect(page.locator("#details .content")).to_be_visible()
        expect(graph).to_have_attribute("data-state", "ready")
        assert overlapping_labels(page) == [], view
        assert clipped_captions(page) == [], view

    page.goto(f"/explore#memory={crowded.flags}")
    expect(graph).to_have_attribute("data-node-count", "2")
    click_node(page, crowded.pipeline)
    expect(graph).to_have_attribute("data-node-count", "5")
    expect(graph).to_have_attribute("data-state", "ready")
    page.mouse.move(5, 5)
    assert overlapping_labels(page) == []
    assert clipped_captions(page) == []

    # Pointing at an edge shows its type, and only while pointing.
    edge = f"{crowded.flags}-ENABLES-{crowded.pipeline}"
    x, y = page.evaluate(
        """id => {
            const cy = window.graphmemExplorer.cy;
            const box = cy.container().getBoundingClientRect();
            const at = cy.getElementById(id).renderedMidpoint();
            return [box.left + at.x, box.top + at.y];
        }""",
        edge,
    )
    label = "id => window.graphmemExplorer.cy.getElementById(id).pstyle('label').strValue"
    assert page.evaluate(label, edge) == ""
    page.mouse.move(x, y)
    page.wait_for_function(f"({label})('{edge}') === 'ENABLES'", timeout=5_000)
    page.mouse.move(5, 5)
    page.wait_for_function(f"({label})('{edge}') === ''", timeout=5_000)


def test_captions_show_whole_words_whatever_the_zoom(explorer: Explorer, crowded: Crowded):
    """Each caption is drawn into a box as wide as its widest line, after the
    view zoomed in or out and was fitted again; a long memory's caption ends
    with an ellipsis after its last whole word."""
    page = explorer.page
    graph = page.locator("#graph")
    page.goto(f"/explore#memory={crowded.friday}&depth=2")
    expect(graph).to_have_attribute("data-state", "ready")
    labels = page.evaluate("() => window.graphmemExplorer.cy.nodes().map(n => n.data('label'))")
    assert "The release pipeline ships every build through a…" in labels
    assert "Feature flags let a bad release roll back…" in labels
    assert clipped_captions(page) == []
    box = box_of(page, "#graph")
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    for step, delta in enumerate((300, -500, 200, -300, 400, -200)):
        page.mouse.wheel(0, delta)
        page.wait_for_timeout(150)
        page.click("#fit")
        page.wait_for_timeout(150)
        assert clipped_captions(page) == [], step
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "explore-captions.png"))


def box_of(page: Page, selector: str) -> dict[str, float]:
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    return box


def test_the_details_panel_sits_beside_the_graph_not_over_it(explorer: Explorer, crowded: Crowded):
    page = explorer.page
    graph = page.locator("#graph")
    page.goto(f"/explore#memory={crowded.friday}&depth=2")
    expect(page.locator("#details .content")).to_have_text("Never deploy to production on a Friday")
    expect(graph).to_have_attribute("data-state", "ready")
    screenshot(page, "explore-crowded-details.png")
    assert clipped_captions(page) == []
    details, drawn = box_of(page, "#details"), box_of(page, "#graph")
    assert details["x"] >= drawn["x"] + drawn["width"] - 0.5 or (
        details["y"] >= drawn["y"] + drawn["height"] - 0.5
    ), (details, drawn)
    # Every node, caption included, is drawn inside the graph's own box.
    page.wait_for_function(
        """() => {
            const cy = window.graphmemExplorer.cy;
            const b = cy.nodes(':visible').renderedBoundingBox({includeLabels: true});
            return b.x1 >= 0 && b.y1 >= 0 && b.x2 <= cy.width() && b.y2 <= cy.height();
        }""",
        timeout=5_000,
    )
    # The panel lists the relations whose types the graph draws only under the pointer.
    relations = page.locator("#details .relations li")
    expect(relations).to_have_count(3)
    expect(page.locator('#details .relations li[data-type="SUPERSEDES"]')).to_contain_text(
        "Deploys go out on Tuesdays"
    )

    # Closing the panel gives the graph the room back.
    width = drawn["width"]
    page.click("#details .close")
    expect(page.locator("#details")).to_be_hidden()
    page.wait_for_function(f"document.getElementById('graph').offsetWidth > {width + 100}")


def test_node_size_grows_gently_with_importance(explorer: Explorer, crowded: Crowded):
    """Diameter linear in importance over a floor: a 0.625 memory is drawn a
    little bigger than a 0.55 one, not twice as big, and never smaller."""
    page = explorer.page
    page.goto("/explore")
    expect(page.locator("#graph")).to_have_attribute("data-node-count", "6")
    drawn = page.evaluate(
        """() => {
            const cy = window.graphmemExplorer.cy;
            return cy.nodes().map(n => [n.data('importance'), n.renderedWidth() / cy.zoom()]);
        }"""
    )
    widths = {importance: [w for i, w in drawn if i == importance] for importance, _ in drawn}
    assert sorted(widths) == [0.45, 0.55, 0.625]
    assert all(max(w) - min(w) < 0.5 for w in widths.values()), widths
    small, middle, large = (widths[i][0] for i in (0.45, 0.55, 0.625))
    assert small < middle < large
    assert 1.03 < large / middle < 1.25, (large, middle)
    assert large / small < 1.5, (large, small)


def drawn_marks(page: Page, ids: list[str]) -> list[dict[str, object]]:
    return page.evaluate(
        """ids => ids.map(id => {
            const n = window.graphmemExplorer.cy.getElementById(id);
            return {caption: n.pstyle('label').strValue,
                    fill: n.pstyle('background-opacity').value,
                    border: n.pstyle('border-style').strValue,
                    ring: n.pstyle('border-color').strValue};
        })""",
        ids,
    )


def test_superseded_and_expired_memories_are_marked(explorer: Explorer, crowded: Crowded):
    """As a neighbour, and as one of the overview's listed memories (drawn
    with a border of their own)."""
    page = explorer.page
    graph = page.locator("#graph")
    for view, count in ((f"#memory={crowded.pipeline}&depth=2", "6"), ("", "6")):
        page.goto(f"/explore{view}")
        expect(graph).to_have_attribute("data-node-count", count)
        expect(graph).to_have_attribute("data-state", "ready")
        superseded, expired, current = drawn_marks(
            page, [crowded.tuesdays, crowded.freeze, crowded.friday]
        )
        assert superseded["caption"].endswith("\n(superseded)"), superseded
        assert expired["caption"].endswith("\n(expired)"), expired
        assert "(" not in current["caption"]
        assert superseded["fill"] <= 0.5 < current["fill"]
        assert len({superseded["border"], expired["border"], current["border"]}) == 3, view
        assert len({superseded["ring"], expired["ring"], current["ring"]}) == 3, view

    legend = page.locator("#legend")
    for mark in ("candidate", "superseded", "expired"):
        expect(legend.locator(f'[data-mark="{mark}"]')).to_have_text(mark)

    # The overview's lists and the details panel say it in words.
    page.goto(f"/explore#memory={crowded.tuesdays}")
    expect(page.locator("#details .standing")).to_contain_text("Superseded")
    page.locator("#details dd a", has_text=crowded.friday).click()
    expect(page.locator("#details .content")).to_have_text("Never deploy to production on a Friday")
    expect(page.locator(f'#recent li[data-id="{crowded.freeze}"] .meta')).to_contain_text(
        "active · expired"
    )
    expect(page.locator(f'#recent li[data-id="{crowded.tuesdays}"]')).to_have_class(
        re.compile(r"\bsuperseded\b")
    )


def test_relations_are_drawn_in_the_neo4j_browser_colours(explorer: Explorer, crowded: Crowded):
    """cypher/browser/graphmem.grass is the one source of the relation colours."""
    style = grass()
    page = explorer.page
    page.goto(f"/explore#memory={crowded.pipeline}&depth=2")
    expect(page.locator("#graph")).to_have_attribute("data-edge-count", "6")
    drawn = page.evaluate(
        """() => window.graphmemExplorer.cy.edges().map(
               e => [e.data('type'), e.pstyle('line-color').strValue])"""
    )
    assert {type_ for type_, _ in drawn} == {t.value for t in RelationType}
    for type_, colour in drawn:
        drawn_rgb = tuple(int(part) for part in re.findall(r"\d+", colour))
        assert drawn_rgb == rgb(style[f"relationship.{type_}"]["color"]), type_
    for kind in RelationType:
        swatch = page.locator(f'#legend [data-type="{kind.value}"] .swatch')
        expect(swatch).to_have_css(
            "border-top-color", css_rgb(style[f"relationship.{kind.value}"]["color"])
        )


def css_rgb(colour: str) -> str:
    """A #RRGGBB colour as Chromium and cytoscape print it."""
    red, green, blue = rgb(colour)
    return f"rgb({red}, {green}, {blue})"
