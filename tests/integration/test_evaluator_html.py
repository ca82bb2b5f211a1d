"""The evaluator's HTML report, rendered from a real evaluation: findings
first, each with what its memories say and what to do, and plots whose
labels do not overlap."""

from __future__ import annotations

import re
from itertools import combinations
from typing import Any

import pytest

from graphmem.api import GraphMem
from graphmem.domain.consistency import ConsistencyReport
from graphmem.services.evaluator.charts import charts
from graphmem.services.evaluator.page import render_html, shown_memory_ids
from graphmem.store.falkordb import FalkorStore
from tests.conftest import cypher

pytest.importorskip("matplotlib", reason="the HTML report's plots need the report extra")


def problems(gm: GraphMem, store: FalkorStore) -> dict[str, str]:
    """Three kinds of finding: a fixable error and two warnings."""
    ids = {
        "scored": gm.remember({"content": "Deploys happen on Tuesdays", "memory_type": "fact"}).id,
        "pinned": gm.remember({"content": "Keep the changelog in English"}).id,
        "rule": gm.remember(
            {"content": "Schema changes need a migration", "memory_type": "rule"}
        ).id,
        "task": gm.remember({"content": "Rename the users table"}).id,
    }
    cypher(store, "MATCH (m:Memory {id: $id}) SET m.importance = 1.7", {"id": ids["scored"]})
    gm.pin(ids["pinned"])
    gm.relate(ids["rule"], ids["task"], "CONSTRAINS")
    gm.relate(ids["rule"], ids["task"], "ENABLES")
    return ids


@pytest.fixture
def evaluated(gm: GraphMem, store: FalkorStore) -> tuple[ConsistencyReport, str, dict[str, str]]:
    ids = problems(gm, store)
    report = gm.evaluate()
    read = gm.get_many(shown_memory_ids(report))
    page = render_html(report, {m.id: m for m in read if m is not None})
    return report, page, ids


def test_findings_come_first_each_with_its_memories_and_what_to_do(
    evaluated: tuple[ConsistencyReport, str, dict[str, str]],
):
    report, page, _ = evaluated
    codes = {f.code for f in report.findings}
    assert {"IMPORTANCE_OUT_OF_RANGE", "PINNED_NOT_PROCEDURAL", "RELATION_CONFLICT"} <= codes
    assert page.index('id="findings"') < page.index('id="metrics"') < page.index("<img")

    cards = re.findall(r'<article class="finding">(.*?)</article>', page, re.S)
    assert len(cards) == len(report.findings)
    for finding, card in zip(report.findings, cards, strict=True):
        assert f"<b>What to do:</b> {finding.fix}" in card
        assert card.count("<blockquote>") == len(finding.memory_ids)
    conflict = next(
        card
        for finding, card in zip(report.findings, cards, strict=True)
        if finding.code == "RELATION_CONFLICT"
    )
    assert "Schema changes need a migration" in conflict and "Rename the users table" in conflict
    assert "content not read" not in page
    # Grouped by code, most severe first: the error before the warnings.
    headings = re.findall(r'<section class="group (\w+)" id="(\w+)"', page)
    assert headings[0] == ("error", "IMPORTANCE_OUT_OF_RANGE")
    assert [severity for severity, _ in headings] == sorted(
        (severity for severity, _ in headings), key=["error", "warning", "info"].index
    )
    assert "graphmem evaluate --fix --dry-run" in page, "a fixable finding says how to fix it"
    assert "Deploys happen on Tuesdays" in page


def test_a_memory_not_read_is_shown_by_id(
    evaluated: tuple[ConsistencyReport, str, dict[str, str]],
):
    report, _, ids = evaluated
    page = render_html(report)
    assert f"<code>{ids['scored']}</code> (content not read)" in page
    assert "Deploys happen on Tuesdays" not in page


def test_a_clean_report_says_so(gm: GraphMem):
    gm.remember({"content": "Nothing wrong here", "memory_type": "fact"})
    report = gm.evaluate()
    assert report.findings == []
    assert "No findings: every check passed." in render_html(report)


def overlapping(fig: Any) -> list[tuple[str, str]]:
    """Pairs of tick labels, on either axis of any plot, whose drawn boxes overlap."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    pairs = []
    for ax in fig.axes:
        for labels in (ax.get_xticklabels(), ax.get_yticklabels()):
            boxes = [
                (label.get_text(), label.get_window_extent(renderer))
                for label in labels
                if label.get_visible() and label.get_text()
            ]
            pairs += [
                (a, b) for (a, box_a), (b, box_b) in combinations(boxes, 2) if box_a.overlaps(box_b)
            ]
    return pairs


def test_no_chart_labels_overlap(gm: GraphMem, store: FalkorStore):
    problems(gm, store)
    report = gm.evaluate()
    import matplotlib.pyplot as plt

    drawn = charts(report.metrics)
    assert [title for title, _ in drawn] == [
        "Tier distribution",
        "Importance histogram",
        "Promotions and archivals per day (UTC)",
    ]
    try:
        for title, fig in drawn:
            assert overlapping(fig) == [], title
        tiers = drawn[0][1].axes[0]
        assert [label.get_text() for label in tiers.get_yticklabels()][::-1] == list(
            report.metrics["by_tier"]
        )
    finally:
        for _, fig in drawn:
            plt.close(fig)

    # The check catches overlap: the old tier chart, tier names under vertical bars.
    fig, ax = plt.subplots(figsize=(5, 3), dpi=90)
    tiers_named = ["working", "episodic", "semantic", "procedural", "archived"] * 2
    ax.bar(range(len(tiers_named)), [1] * len(tiers_named), tick_label=tiers_named)
    try:
        assert overlapping(fig)
    finally:
        plt.close(fig)
