"""What-if tuning on a real graph: the variant's plan is what a store configured
with those rules really does, the diff names each memory that moves
differently, and the store is left exactly as it was."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.domain.errors import InvalidInputError
from graphmem.domain.kinds import Tier
from graphmem.domain.retention import RetentionRules
from graphmem.domain.scoring import ImportanceScorer
from graphmem.services.whatif import Outcome
from graphmem.store.falkordb import FalkorStore

DAY = 86_400.0


def item(content: str, memory_type: str, confidence: float, session: str, **extra) -> dict:
    return {
        "content": content,
        "memory_type": memory_type,
        "confidence": confidence,
        "session_id": session,
        **extra,
    }


@pytest.fixture
def seeded(gm: GraphMem, clock: ManualClock) -> dict[str, str]:
    """Memories on both sides of every threshold, in two sessions, some of them stale.

    Fresh scores under the default preset: risk 0.9 -> 0.675, fact 0.8 -> 0.575,
    assumption 0.2 -> 0.35; two days on, recency is ~0 and they drop by 0.2.
    """
    old = {
        "old-risk": gm.remember(item("old risk: the nightly job leaks", "risk", 0.9, "s1")).id,
        "old-guess": gm.remember(item("maybe the cache is cold", "assumption", 0.2, "s1")).id,
        "old-fact": gm.remember(item("the queue holds 10 jobs", "fact", 0.8, "s2")).id,
    }
    clock.advance(2 * DAY)
    fresh = {
        "risk": gm.remember(item("tokens expire after an hour", "risk", 0.9, "s1")).id,
        "fact": gm.remember(item("the api lives behind nginx", "fact", 0.8, "s2")).id,
        "guess": gm.remember(item("perhaps dns is slow", "assumption", 0.2, "s2")).id,
    }
    return {**old, **fresh}


def actual_plan(gm: GraphMem) -> dict[str, tuple[Outcome, Tier]]:
    """What the rules of ``gm`` really do: promote every session, then archive."""
    moved: dict[str, tuple[Outcome, Tier]] = {}
    for session in ("s1", "s2"):
        run = gm.run_promotion(session)
        moved |= {c.memory.id: (Outcome.PROMOTE, c.to_tier) for c in run.candidates}
    archived = gm.archive_stale()
    moved |= {i.memory_id: (Outcome.ARCHIVE, Tier.ARCHIVED) for i in archived.items}
    return moved


def predicted(report, side: str) -> dict[str, tuple[Outcome, Tier]]:
    """One side of a report, for the memories it moves."""
    changed = {c.memory.id: getattr(c, side) for c in report.changes if getattr(c, side).to_tier}
    return {k: (f.outcome, f.to_tier) for k, f in changed.items()}


def test_the_same_rules_change_nothing(gm: GraphMem, seeded: dict[str, str]):
    report = gm.what_if({})
    assert report.changes == []
    assert report.sessions == 2
    # The fresh risk promotes and the stale guess archives, under both sides alike.
    assert report.transitions == {
        (Outcome.PROMOTE, Outcome.PROMOTE): 1,
        (Outcome.ARCHIVE, Outcome.ARCHIVE): 1,
    }
    assert report.totals("current") == {Outcome.PROMOTE: 1, Outcome.ARCHIVE: 1}
    assert report.totals("variant") == report.totals("current")


def test_a_higher_threshold_keeps_what_the_current_rules_promote(
    gm: GraphMem, seeded: dict[str, str]
):
    report = gm.what_if({"rules": {"promote_threshold": 0.7}})
    (change,) = report.changes
    assert change.memory.id == seeded["risk"]
    assert (change.current.outcome, change.current.to_tier) == (Outcome.PROMOTE, Tier.EPISODIC)
    assert change.variant.outcome is Outcome.STAY and change.variant.to_tier is None
    # A memory that stays is still scored, under the variant's scorer.
    assert change.variant.score == pytest.approx(0.675, abs=1e-3)
    assert change.current.score == pytest.approx(0.675, abs=1e-3)
    assert report.variant_rules.promote_threshold == 0.7
    assert report.current_rules.promote_threshold == 0.6


def test_the_variant_plan_is_what_those_rules_really_do(
    gm: GraphMem, store: FalkorStore, clock: ManualClock, seeded: dict[str, str]
):
    variant = {
        "preset": "jarvis",
        "weights": {"recency": 0.1},
        "rules": {"promote_threshold": 0.5, "archive_importance_below": 0.45},
    }
    report = gm.what_if(variant)
    assert report.variant_preset == "jarvis"
    assert report.changes, "the variant should move something differently"
    tuned = GraphMem(
        store,
        clock=clock,
        scorer=_jarvis_with(recency=0.1),
        rules=RetentionRules(promote_threshold=0.5, archive_importance_below=0.45),
    )
    done = actual_plan(tuned)
    stays = {c.memory.id for c in report.changes if c.variant.outcome is Outcome.STAY}
    # Every change the report predicts for the variant is what the tuned store did,
    assert predicted(report, "variant").items() <= done.items()
    assert not stays & done.keys()
    # and every unchanged move is one the tuned store made too.
    unchanged = sum(n for (a, b), n in report.transitions.items() if a is b is not Outcome.STAY)
    changed_moves = len(predicted(report, "variant"))
    assert len(done) == unchanged + changed_moves


def _jarvis_with(**weights: float) -> ImportanceScorer:
    scorer = ImportanceScorer("jarvis")
    scorer.configure(**weights)
    return scorer


def test_a_lower_archive_bar_is_shown_per_memory(gm: GraphMem, seeded: dict[str, str]):
    report = gm.what_if({"rules": {"archive_importance_below": 0.4}})
    moved = {c.memory.id: (c.current.outcome, c.variant.outcome) for c in report.changes}
    # The old fact (0.375 after two days) now falls under the bar; the old risk (0.475) not.
    assert moved == {seeded["old-fact"]: (Outcome.STAY, Outcome.ARCHIVE)}
    change = report.changes[0]
    assert change.variant.to_tier is Tier.ARCHIVED
    assert change.current.score == pytest.approx(0.375, abs=1e-2)
    assert change.variant.score == pytest.approx(change.current.score)


def test_a_rules_file_is_a_variant(gm: GraphMem, seeded: dict[str, str], tmp_path: Path):
    path = tmp_path / "variant.yaml"
    path.write_text("promote_threshold: 0.5\nstale_after_days:\n  working: 30\n")
    report = gm.what_if(rules_file=path)
    outcomes = {c.memory.id: (c.current.outcome, c.variant.outcome) for c in report.changes}
    # The fresh fact (0.575) now promotes; nothing working is stale after 30 days.
    assert outcomes[seeded["fact"]] == (Outcome.STAY, Outcome.PROMOTE)
    assert outcomes[seeded["old-guess"]] == (Outcome.ARCHIVE, Outcome.STAY)
    assert report.variant_rules.stale_seconds(Tier.WORKING) == 30 * DAY


def test_the_listed_changes_are_capped_but_counted(gm: GraphMem, seeded: dict[str, str]):
    every = gm.what_if({"rules": {"promote_threshold": 0.1}})
    assert every.changed == len(every.changes) >= 3
    capped = gm.what_if({"rules": {"promote_threshold": 0.1}, "limit": 2})
    assert capped.changed == every.changed
    assert [c.memory.id for c in capped.changes] == [c.memory.id for c in every.changes][:2]
    assert capped.transitions == every.transitions


def test_what_if_writes_nothing(
    gm: GraphMem,
    seeded: dict[str, str],
    graph_snapshot: Callable[[], tuple[list[str], list[str]]],
):
    before = graph_snapshot()
    report = gm.what_if(
        {"preset": "jarvis", "rules": {"promote_threshold": 0.1, "archive_importance_below": 0.9}}
    )
    assert len(report.changes) >= 3
    assert graph_snapshot() == before


def test_the_environment_does_not_override_a_variant(
    gm: GraphMem, seeded: dict[str, str], monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("GRAPHMEM_PROMOTE_THRESHOLD", "0.99")
    report = gm.what_if({"rules": {"promote_threshold": 0.5}})
    assert report.variant_rules.promote_threshold == 0.5


@pytest.mark.parametrize(
    ("variant", "field"),
    [
        ({"rules_yaml": "promote_treshold: 0.5\n"}, "rules_yaml.promote_treshold"),
        ({"rules_yaml": "promote_threshold: 2\n"}, "rules_yaml.promote_threshold"),
        ({"rules_yaml": "- a list\n"}, "rules_yaml"),
        ({"rules_yaml": "a: [unclosed\n"}, "rules_yaml"),
        ({"rules": {"max_promotions_per_run": 0}}, "rules.max_promotions_per_run"),
        ({"rules": {"stale_after_days": {"forever": 3}}}, "rules.stale_after_days.forever.[key]"),
        ({"preset": "sky"}, "preset"),
        ({"weights": {"novelty": 1.0}}, "weights.novelty"),
        ({"weights": {"recency": -1.0}}, "weights"),
        ({"threshold": 0.5}, "threshold"),
        ({"rules_yaml": "x" * 70_000}, "rules_yaml"),
        ({"limit": 10_001}, "limit"),
    ],
)
def test_bad_variants_are_refused_naming_the_key(
    gm: GraphMem,
    seeded: dict[str, str],
    graph_snapshot: Callable[[], tuple[list[str], list[str]]],
    variant: dict,
    field: str,
):
    before = graph_snapshot()
    with pytest.raises(InvalidInputError) as caught:
        gm.what_if(variant)
    assert caught.value.field == field, caught.value.message
    assert field in caught.value.message
    assert graph_snapshot() == before


def test_a_bad_rules_file_names_the_file_and_key(gm: GraphMem, tmp_path: Path):
    path = tmp_path / "variant.yaml"
    path.write_text("archive_importance_below: 0.2\nshort_term_maxx: 10\n")
    with pytest.raises(InvalidInputError) as caught:
        gm.what_if(rules_file=path)
    assert caught.value.field == "rules_file.short_term_maxx"
    with pytest.raises(InvalidInputError) as missing:
        gm.what_if(rules_file=tmp_path / "absent.yaml")
    assert missing.value.field == "rules_file"
