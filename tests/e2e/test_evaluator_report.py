"""The evaluator's HTML report as a browser draws it: findings on top, every
plot loaded from the page itself, nothing fetched from anywhere."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Request

from graphmem.api import GraphMem
from graphmem.services.evaluator.page import render_html, shown_memory_ids
from graphmem.store.falkordb import FalkorStore
from tests.e2e.conftest import ARTIFACTS
from tests.integration.test_evaluator_html import problems

# A surface suite: what it checks is the surface, the same on every backend; the
# store suites beneath it run on Neo4j as well (tests/conftest.py).
pytestmark = pytest.mark.backends("falkordb")


def test_the_report_shows_findings_first_and_its_plots(
    chromium: Browser, gm: GraphMem, store: FalkorStore
):
    problems(gm, store)
    report = gm.evaluate()
    read = gm.get_many(shown_memory_ids(report))
    html = render_html(report, {m.id: m for m in read if m is not None})

    context = chromium.new_context(viewport={"width": 1200, "height": 900})
    requested: list[str] = []

    def refuse(request: Request) -> None:
        requested.append(request.url)

    context.on("request", refuse)
    context.route("**/*", lambda route: route.abort())
    try:
        page = context.new_page()
        page.set_content(html, wait_until="load")
        drawn = page.evaluate(
            """() => ({
                images: [...document.images].map(i => i.complete && i.naturalWidth > 0),
                findings: document.getElementById('findings').getBoundingClientRect().top,
                firstCard: document.querySelector('.finding').getBoundingClientRect().bottom,
                firstPlot: document.querySelector('figure').getBoundingClientRect().top,
                quotes: [...document.querySelectorAll('.finding blockquote')].map(q => q.innerText),
            })"""
        )
        assert drawn["images"] == [True, True, True]
        assert drawn["findings"] < drawn["firstCard"] < drawn["firstPlot"]
        assert drawn["firstCard"] < 900, "the first finding is on the first screen"
        assert "Schema changes need a migration" in drawn["quotes"]
        ARTIFACTS.mkdir(exist_ok=True)
        shot = ARTIFACTS / "evaluator-report.png"
        page.screenshot(path=str(shot), full_page=True)
        print(f"report screenshot: {shot}")
    finally:
        context.close()
    assert requested == []
