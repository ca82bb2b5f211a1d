"""Consolidation's pure part: eligibility, grouping, the consolidated statement,
its evidence and fingerprint; and the evaluator's provenance check on
hand-built graphs. No store: the store-backed job is in tests/integration."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from graphmem.domain.consolidation import (
    Candidate,
    eligible,
    find_groups,
    fingerprint,
    merged_fields,
    seen,
    summarise,
)
from graphmem.domain.kinds import MemoryType
from graphmem.domain.models import Memory, MemoryInput
from graphmem.domain.retention import Consolidation
from graphmem.services.evaluator.duplicates import check_consolidation_provenance
from graphmem.services.evaluator.snapshot import ForeignRelation
from tests.unit.test_evaluator_checks import CTX, NOW, memory, snapshot

DAY = 86_400.0
RULES = Consolidation()


def mem(memory_id: str, content: str, **fields: Any) -> Memory:
    values: dict[str, Any] = {
        "id": memory_id,
        "project_id": "p",
        "session_id": "s",
        "content": content,
        "memory_type": MemoryType.FACT,
        "created_at": NOW,
        "updated_at": NOW,
    }
    values.update(fields)
    return Memory(**values)


def groups_of(memories: list[Memory], similar: list[tuple[str, str, float]], **kw: Any):
    candidates = [Candidate(m) for m in memories]
    return [
        sorted(g.member_ids) for g in find_groups(candidates, similar, kw.pop("related", []), RULES)
    ]


def test_rules_pins_and_constraining_memories_are_never_grouped():
    assert eligible(Candidate(mem("a", "x")))
    assert not eligible(Candidate(mem("a", "x", pinned=True)))
    assert not eligible(Candidate(mem("a", "x", memory_type=MemoryType.RULE)))
    assert not eligible(Candidate(mem("a", "x", tier="procedural")))
    assert not eligible(Candidate(mem("a", "x", status="candidate")))
    assert not eligible(Candidate(mem("a", "x", conflicts_with="b")))
    assert not eligible(Candidate(mem("a", "x"), constrains=True))
    assert not eligible(Candidate(mem("a", "x"), taught=True))


def test_a_contradiction_is_kept_out_even_when_it_is_the_nearest():
    a = mem("a", "Retry failed charges after a minute.")
    b = mem("b", "Failed charges are retried after a minute.")
    c = mem("c", "Never retry failed charges.")
    similar = [("a", "c", 0.97), ("a", "b", 0.9), ("b", "c", 0.93)]
    assert groups_of([a, b, c], similar) == [["a", "b"]]


def test_only_memories_one_audience_sees_are_grouped():
    """A private memory never joins one that other agents see, nor another
    agent's private one: the consolidated memory would show its wording."""
    text = "Deploys go out on Tuesdays."
    shared = mem("a", text, agent_id="alice")
    private = mem("b", "Deploys ship on Tuesdays.", agent_id="alice", visibility="private")
    also_private = mem("c", "Deploys ship every Tuesday.", agent_id="alice", visibility="private")
    bobs = mem("d", "Deploys are on Tuesdays.", agent_id="bob", visibility="private")
    similar = [(x, y, 0.97) for x in "abcd" for y in "abcd" if x < y]
    assert groups_of([shared, private, also_private, bobs], similar) == [["b", "c"]]


def test_changed_values_and_other_types_stay_apart_related_links_join():
    a = mem("a", "The cache TTL is 30 seconds.")
    b = mem("b", "The cache TTL is 60 seconds.")
    c = mem("c", "Cache entries expire quickly.", memory_type=MemoryType.DISCOVERY)
    d = mem("d", "Cold caches slow the first request.", memory_type=MemoryType.DISCOVERY)
    similar = [("a", "b", 0.99), ("a", "c", 0.9)]
    assert groups_of([a, b, c, d], similar, related=[("c", "d")]) == [["c", "d"]]
    below = [("a", "b", RULES.similarity - 0.01)]
    assert groups_of([mem("a", "x y z"), mem("b", "x y w")], below) == []


def test_different_statements_group_only_when_very_near():
    a = mem("a", "Bart watched cartoons at his birthday party.")
    b = mem("b", "Bart received gifts from friends at his birthday party.")
    assert groups_of([a, b], [("a", "b", RULES.related_similarity - 0.05)]) == []
    assert groups_of([a, b], [("a", "b", RULES.related_similarity)]) == [["a", "b"]]
    assert groups_of([a, b], [], related=[("a", "b")]) == [["a", "b"]]


def test_groups_stop_at_the_size_limit():
    uses = ("linting", "tests", "packaging", "docs", "releases")
    members = [
        mem(f"m{i}", f"The build uses the shared runner pool for {w}.") for i, w in enumerate(uses)
    ]
    similar = [(x.id, y.id, 0.95) for x in members for y in members if x.id < y.id]
    small = Consolidation(max_group_size=3)
    found = find_groups([Candidate(m) for m in members], similar, [], small)
    assert [len(g.members) for g in found] == [3, 2]


def test_the_statement_leads_with_the_central_member_and_adds_what_is_new():
    central = mem("a", "Staging is refreshed every Sunday night.", occurrence_count=2)
    same = mem("b", "Every Sunday night staging gets refreshed.", created_at=NOW - 3 * DAY)
    adds = mem("c", "Staging refreshes on Sunday. They lock the reporting tables.")
    text = summarise([central, same, adds], max_chars=600)
    assert text.startswith("Staging is refreshed every Sunday night. Also: They lock")
    assert "Every Sunday night staging" not in text
    assert text.endswith("They lock the reporting tables.")
    assert seen([central, same, adds]) == (
        "seen 4 times between 2027-01-12 and 2027-01-15, consolidated from 3 memories"
    )
    one_word = mem("d", "Staging is refreshed every Sunday night by cron.")
    assert "by cron" in summarise([central, one_word], max_chars=600), "one new word is kept"
    framed = mem("e", "Reminder: Staging is refreshed every Sunday night (seen again).")
    assert summarise([central, framed], max_chars=600) == central.content, "framing adds nothing"
    short = summarise([central, same, adds], max_chars=len(central.content) + 5)
    assert "Also" not in short


def test_evidence_adds_up_and_the_fingerprint_follows_every_version_field():
    a = mem("a", "x", access_count=2, confidence=0.6, tier="episodic", tags=["ops"])
    b = mem("b", "y", access_count=3, confidence=0.9, occurred_at=NOW - DAY, tags=["ops", "db"])
    fields = merged_fields([a, b])
    assert fields["access_count"] == 5 and fields["occurrence_count"] == 2
    assert fields["confidence"] == 0.9 and fields["tier"] == "episodic"
    assert fields["occurred_at"] == NOW - DAY and fields["tags"] == ["ops", "db"]
    base = fingerprint([a, b])
    assert base == fingerprint([b, a])
    for change in ({"updated_at": NOW + 1}, {"access_count": 3}, {"occurrence_count": 2}):
        assert fingerprint([a.model_copy(update=change), b]) != base


def test_callers_cannot_write_consolidated_memories():
    with pytest.raises(ValidationError, match="only consolidation"):
        MemoryInput(content="x", source="consolidated")


def consolidated(**fields: Any) -> dict[str, Any]:
    return memory(source="consolidated", **fields)


def source(into: str, **fields: Any) -> dict[str, Any]:
    values = {
        "tier": "archived",
        "archived_from": "semantic",
        "archived_at": NOW,
        "archive_reason": f"consolidated into {into}",
        "superseded_by": into,
    }
    return memory(**{**values, **fields})


def problems(snap: Any) -> list[tuple[str, tuple[str, ...]]]:
    return [(f.details["problem"], f.memory_ids) for f in check_consolidation_provenance(snap, CTX)]


def test_sound_provenance_has_no_finding():
    nodes = {"c": consolidated(), "a": source("c"), "b": source("c", tier="semantic")}
    nodes["b"]["archived_at"] = nodes["b"]["archived_from"] = None  # restored, still superseded
    edges = [("c", "SUPERSEDES", "a"), ("c", "SUPERSEDES", "b")]
    assert problems(snapshot(nodes, edges)) == []


def test_broken_provenance_is_reported():
    nodes = {
        "c": consolidated(),
        "a": source("c"),
        "d": consolidated(),
        "x": source("d"),
        "y": source("d", superseded_by=None, tier="semantic", archive_reason=None),
        "z": source("gone"),
    }
    edges = [
        ("c", "SUPERSEDES", "a"),
        ("d", "SUPERSEDES", "x"),
        ("d", "SUPERSEDES", "y"),
        ("c", "SUPERSEDES", "x"),
    ]
    nodes["y"]["archived_at"] = nodes["y"]["archived_from"] = None
    snap = snapshot(nodes, edges, foreign=[ForeignRelation("d", "SUPERSEDES", "q", "other")])
    assert sorted(problems(snap)) == [
        ("consolidated_twice", ("c", "d", "x")),
        ("cross_project_source", ("d",)),
        ("source_served", ("d", "y")),
        ("unlinked_source", ("z",)),
    ]
    nodes["d"]["source"] = "agent"
    lonely = {"c": consolidated(), "a": source("c")}
    assert problems(snapshot(lonely, [("c", "SUPERSEDES", "a")])) == [
        ("too_few_sources", ("a", "c"))
    ]


def test_events_group_only_as_the_same_turn_written_twice():
    event = {"memory_type": MemoryType.EVENT}
    monday = mem("a", "Ben: Haha, fair enough.", occurred_at=NOW - 4 * DAY, **event)
    friday = mem("b", "Ben: Haha, fair enough.", occurred_at=NOW, **event)
    again = mem("c", "Ben: Haha, fair enough!", occurred_at=NOW + 10, **event)
    dentist = mem("d", "Ana: I went to the dentist.", occurred_at=NOW - DAY, **event)
    other = mem("e", "Ana: I went to the dentist again.", occurred_at=NOW, **event)
    similar = [("a", "b", 0.99), ("b", "c", 0.99), ("d", "e", 0.97)]
    assert groups_of([monday, friday, again, dentist, other], similar) == [["b", "c"]]
    assert groups_of([dentist, other], [], related=[("d", "e")]) == [["d", "e"]]
