"""A memory marked as needing review, in the explorer page in headless
Chromium against a real server: the node is drawn with an magenta ring and
captioned "(needs review)", the legend names the mark, and the details panel
gives the reason and a link to the cause, with the path from the cause
highlighted when it is on screen and brought in by a button when it is not."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
from playwright.sync_api import Page, expect

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.domain.models import Memory
from tests.e2e.conftest import ARTIFACTS, Explorer

pytestmark = pytest.mark.backends("falkordb")

REVIEW_RGB = "rgb(192,38,211)"


@dataclass
class Cascade:
    train: str
    moved: str
    deploys: str
    announce: str
    unrelated: str


@pytest.fixture
def cascade(gm: GraphMem, clock: ManualClock) -> Cascade:
    """The release train ENABLES the Friday deploys, which CONSTRAIN the
    release announcement; the train moves (a newer memory supersedes it), so
    the deploys (one hop) and the announcement (two hops) need review."""

    def remember(content: str) -> Memory:
        clock.advance(60)
        return gm.remember({"content": content, "memory_type": "fact"})

    train = remember("The release train leaves on Thursdays")
    deploys = remember("We deploy on Fridays, the day after the release train")
    announce = remember("The release notes go out on Friday mornings")
    unrelated = remember("Feature flags let a bad release roll back instantly")
    gm.relate(train.id, deploys.id, "ENABLES")
    gm.relate(deploys.id, announce.id, "CONSTRAINS")
    moved = remember("The release train leaves on Wednesdays")
    clock.advance(60)
    gm.supersede(train.id, moved.id)
    return Cascade(train.id, moved.id, deploys.id, announce.id, unrelated.id)


def drawn(page: Page, ids: list[str]) -> list[dict[str, object]]:
    """What cytoscape drew for each node: its caption, classes and ring."""
    return page.evaluate(
        """ids => ids.map(id => {
            const n = window.graphmemExplorer.cy.getElementById(id);
            return {caption: n.pstyle('label').strValue,
                    classes: n.classes(),
                    ring: n.pstyle('outline-width').pfValue,
                    ringColour: n.pstyle('outline-color').strValue.replaceAll(' ', '')};
        })""",
        ids,
    )


def traced(page: Page) -> dict[str, list[str]]:
    """The cause outlined and the relations highlighted as its path, as sorted ids."""
    return page.evaluate(
        """() => {
            const cy = window.graphmemExplorer.cy;
            return {cause: cy.nodes('.review-cause').map(n => n.id()).sort(),
                    path: cy.edges('.review-path').map(e => e.id()).sort()};
        }"""
    )


def test_a_memory_needing_review_is_drawn_marked_and_leads_to_its_cause(
    explorer: Explorer, gm: GraphMem, cascade: Cascade
):
    deploys = gm.get(cascade.deploys)
    mark = deploys.review_mark
    assert mark is not None and mark.cause_id == cascade.train
    assert gm.get(cascade.unrelated).review_mark is None

    page = explorer.page
    page.goto(f"/explore#memory={cascade.deploys}")
    graph = page.locator("#graph")
    expect(graph).to_have_attribute("data-state", "ready")
    expect(graph).to_have_attribute("data-node-count", "3")

    # The marked node: an magenta ring and a caption that says so; its cause
    # (superseded, so no longer current) is not marked.
    marked, cause = drawn(page, [cascade.deploys, cascade.train])
    assert "review" in marked["classes"], marked
    assert marked["caption"].endswith("\n(needs review)"), marked
    assert marked["ring"] >= 4 and marked["ringColour"] == REVIEW_RGB, marked
    assert "review" not in cause["classes"] and cause["caption"].endswith("\n(superseded)")

    # The details panel: the reason, in the server's words, and the cause,
    # outlined with the ENABLES edge from it highlighted.
    details = page.locator("#details")
    expect(details.locator(".review-reason")).to_have_text(f"Needs review: {mark.reason}")
    assert mark.reason.startswith(f"rests on {cascade.train} (ENABLES), superseded by")
    cause_line = details.locator(".review-cause")
    expect(cause_line).to_contain_text("The release train leaves on Thursdays")
    expect(cause_line).to_contain_text("(superseded)")
    expect(details.locator(".review-trace")).to_have_text(
        "The path from it is highlighted in the graph."
    )
    assert traced(page) == {
        "cause": [cascade.train],
        "path": [f"{cascade.train}-ENABLES-{cascade.deploys}"],
    }

    legend = page.locator("#legend")
    expect(legend.locator('[data-mark="review"]')).to_have_text("needs review")
    expect(legend.locator('[data-mark="review-path"]')).to_have_text("path to its cause")
    shot = ARTIFACTS / "explore-needs-review.png"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(shot))

    # Following the link opens the cause.
    details.locator(f'.review-cause a[data-id="{cascade.train}"]').click()
    expect(details.locator(".content")).to_have_text("The release train leaves on Thursdays")
    expect(details.locator(".review")).to_have_count(0)
    assert traced(page) == {"cause": [], "path": []}


def test_a_cause_two_hops_away_is_brought_into_the_graph(
    explorer: Explorer, gm: GraphMem, cascade: Cascade
):
    """The announcement rests on the train by ENABLES then CONSTRAINS: at
    depth 1 the train is off screen, and the button loads it with the path."""
    mark = gm.get(cascade.announce).review_mark
    assert mark is not None and [r.value for r in mark.path] == ["ENABLES", "CONSTRAINS"]
    page = explorer.page
    page.goto(f"/explore#memory={cascade.announce}")
    graph = page.locator("#graph")
    expect(graph).to_have_attribute("data-state", "ready")
    details = page.locator("#details")
    expect(details.locator(".review-reason")).to_contain_text("(ENABLES then CONSTRAINS)")
    assert traced(page) == {"cause": [], "path": []}
    # The cause's words are not on screen yet: the link names it by id.
    expect(details.locator(".review-cause a").first).to_have_text(cascade.train)

    details.locator("button.trace").click()
    expect(details.locator(".review-trace")).to_have_text(
        "The path from it is highlighted in the graph."
    )
    assert traced(page) == {
        "cause": [cascade.train],
        "path": sorted(
            [
                f"{cascade.train}-ENABLES-{cascade.deploys}",
                f"{cascade.deploys}-CONSTRAINS-{cascade.announce}",
            ]
        ),
    }
    expect(details.locator(".review-cause a").first).to_have_text(
        "“The release train leaves on Thursdays”"
    )

    # Closing the panel takes the trace away; the marks stay.
    details.locator(".close").click()
    assert traced(page) == {"cause": [], "path": []}
    (marked,) = drawn(page, [cascade.announce])
    assert "review" in marked["classes"]


def test_the_lists_say_a_memory_needs_review(explorer: Explorer, cascade: Cascade):
    page = explorer.page
    page.goto("/explore")
    item = page.locator(f'#recent li[data-id="{cascade.deploys}"]')
    expect(item.locator(".meta")).to_contain_text("active · needs review")
    expect(item).to_have_class(re.compile(r"\breview\b"))
    expect(page.locator(f'#recent li[data-id="{cascade.unrelated}"] .meta')).not_to_contain_text(
        "needs review"
    )
