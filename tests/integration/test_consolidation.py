"""Consolidation on a real store with real embeddings: which memories group,
what one consolidated memory holds, that sources stay restorable, that a dry
run writes nothing, and that a group changed since it was read is skipped."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from graphmem import Client, GraphMem
from graphmem.cli import app
from graphmem.domain.clock import ManualClock
from graphmem.domain.consolidation import ARCHIVE_REASON
from graphmem.domain.errors import InvalidInputError
from graphmem.domain.kinds import RelationType, Source, Tier
from graphmem.domain.retention import Consolidation, RetentionRules
from graphmem.graphql.app import create_app
from graphmem.server.scheduler import Scheduler
from graphmem.settings import Settings
from tests.integration.conftest import GraphQLClient, serve

DAY = 86_400.0
REFRESH = [
    "The staging database is refreshed from production every Sunday night.",
    "Every Sunday night the staging database gets refreshed from production.",
    "Staging database refreshes from production run on Sunday nights. "
    "They lock the reporting tables while they run.",
]
CONTRADICTION = "The staging database is never refreshed from production on Sunday night."
RULE = "Always refresh the staging database from production on Sunday nights."
DARK_MODE = ["The user prefers dark mode in the editor.", "User prefers the editor in dark mode."]
UNRELATED = "Deploys go out through the blue-green pipeline."


def crafted(gm: GraphMem, clock: ManualClock) -> dict[str, Any]:
    """Restatements written a day apart with dedup off (as an import or an agent
    with dedup disabled would), a contradiction, a pinned rule, two preferences."""
    ids: dict[str, Any] = {"refresh": []}
    for index, text in enumerate(REFRESH):
        (memory_id,) = gm.remember_many(
            [{"content": text, "memory_type": "fact", "confidence": 0.6 + 0.1 * index}],
            dedup=False,
        )
        ids["refresh"].append(memory_id)
        gm.record_access(memory_id)
        clock.advance(DAY)
    ids["contradiction"], ids["rule"], *ids["dark"], ids["unrelated"] = gm.remember_many(
        [
            {"content": CONTRADICTION, "memory_type": "fact"},
            {"content": RULE, "memory_type": "fact", "pinned": True},
            *({"content": t, "memory_type": "preference"} for t in DARK_MODE),
            {"content": UNRELATED, "memory_type": "fact"},
        ],
        dedup=False,
    )
    return ids


def test_groups_restatements_but_not_contradictions_rules_or_other_types(
    egm: GraphMem, clock: ManualClock, graph_snapshot: Callable[[], Any]
) -> None:
    ids = crafted(egm, clock)
    before = graph_snapshot()
    dry = egm.consolidate(dry_run=True)
    assert graph_snapshot() == before, "a dry run writes nothing"
    groups = {frozenset(g.member_ids): g for g in dry.groups}
    assert set(groups) == {frozenset(ids["refresh"]), frozenset(ids["dark"])}
    assert (dry.scanned, dry.eligible) == (8, 7), "the pinned rule is read but not groupable"
    refresh = groups[frozenset(ids["refresh"])]
    assert refresh.content.startswith(REFRESH[1]), "the most central statement leads"
    assert "They lock the reporting tables while they run" in refresh.content
    assert refresh.seen.startswith("seen 3 times between")
    assert refresh.fingerprint != groups[frozenset(ids["dark"])].fingerprint
    assert dry.consolidated == [] and dry.notes == []


def test_apply_writes_one_memory_per_group_and_sources_stay_restorable(
    egm: GraphMem, clock: ManualClock
) -> None:
    ids = crafted(egm, clock)
    egm.relate(ids["refresh"][0], ids["unrelated"], "ENABLES", rationale="refresh first")
    egm.relate(ids["rule"], ids["refresh"][1], "CONSTRAINS")
    sources = egm.get_many(ids["refresh"])
    result = egm.consolidate()
    assert sorted(len(c.source_ids) for c in result.consolidated) == [2, 3]
    assert result.memories_consolidated == 5 and result.notes == []
    (done,) = [c for c in result.consolidated if set(c.source_ids) == set(ids["refresh"])]
    memory = egm.get(done.memory_id)
    assert memory.source is Source.CONSOLIDATED
    assert memory.occurrence_count == 3 and memory.access_count == 3
    assert memory.evidence[0].startswith("seen 3 times between")
    assert memory.confidence == pytest.approx(0.8)
    assert memory.occurred_at == min(s.occurred for s in sources if s)
    assert memory.created_at == clock.now(), "written now, about what happened earlier"
    assert memory.last_seen == max(s.occurred for s in sources if s)
    assert memory.importance == pytest.approx(egm.scorer.score(memory, clock.now()), abs=1e-6), (
        "importance is the scorer's, over the summed evidence"
    )
    for source_id in ids["refresh"]:
        source = egm.get(source_id)
        assert source.tier is Tier.ARCHIVED and source.archived_from is Tier.WORKING
        assert source.archive_reason == ARCHIVE_REASON.format(id=memory.id)
        assert source.superseded_by == memory.id
    edges = egm.relations([memory.id])[0]
    assert {(e.type, e.from_id, e.to_id) for e in edges} == {
        *((RelationType.SUPERSEDES, memory.id, i) for i in ids["refresh"]),
        (RelationType.ENABLES, memory.id, ids["unrelated"]),
        (RelationType.CONSTRAINS, ids["rule"], memory.id),
    }, "the sources' relations are carried to the consolidated memory"
    (enables,) = [e for e in edges if e.type is RelationType.ENABLES]
    assert enables.rationale == "refresh first"
    restored = egm.restore(ids["refresh"][0])
    assert restored.tier is Tier.WORKING and restored.superseded_by == memory.id
    context = egm.knowledge_context("when is the staging database refreshed")
    served = [item.memory.id for item in context.items]
    assert memory.id in served and not set(ids["refresh"]) & set(served)
    assert egm.consolidate(dry_run=True).groups == [], "nothing left to group"
    findings = egm.evaluate().findings
    assert [f for f in findings if f.code == "CONSOLIDATION_PROVENANCE"] == []


def test_a_group_changed_since_the_dry_run_is_skipped_with_a_note(
    egm: GraphMem, clock: ManualClock
) -> None:
    ids = crafted(egm, clock)
    dry = egm.consolidate(dry_run=True)
    clock.advance(60)
    egm.update(ids["dark"][0], {"tags": ["ui"]})
    result = egm.consolidate(fingerprints=[g.fingerprint for g in dry.groups])
    assert [set(c.source_ids) for c in result.consolidated] == [set(ids["refresh"])]
    (dark,) = [g for g in dry.groups if set(g.member_ids) == set(ids["dark"])]
    assert result.notes == [
        f"group {dark.fingerprint}: changed since the dry run (a member was written, "
        "archived or regrouped); skipped, nothing written"
    ]
    assert all(egm.get(i).tier is Tier.WORKING for i in ids["dark"])


def test_a_fingerprint_applied_twice_says_it_was_applied_already(
    egm: GraphMem, clock: ManualClock
) -> None:
    crafted(egm, clock)
    dry = egm.consolidate(dry_run=True)
    fingerprints = [g.fingerprint for g in dry.groups]
    first = egm.consolidate(fingerprints=fingerprints)
    into = {c.fingerprint: c.memory_id for c in first.consolidated}
    assert set(into) == set(fingerprints)
    again = egm.consolidate(fingerprints=fingerprints)
    assert again.consolidated == []
    assert sorted(again.notes) == sorted(
        f"group {fp}: already consolidated into {into[fp]}; nothing written" for fp in fingerprints
    )


def test_a_member_written_between_read_and_write_skips_the_whole_group(
    egm: GraphMem, clock: ManualClock, graph_snapshot: Callable[[], Any]
) -> None:
    ids = crafted(egm, clock)
    egm.forget(ids["dark"][0])
    embed = egm.consolidator.embed

    def racing(texts: Any) -> Any:
        clock.advance(1)
        egm.record_access(ids["refresh"][2])
        return embed(texts)

    egm.consolidator.embed = racing
    before = graph_snapshot()
    result = egm.consolidate()
    assert result.consolidated == [] and len(result.groups) == 1
    assert result.notes[0].endswith("a member changed since it was read; skipped, nothing written")
    after = graph_snapshot()
    changed = set(after[0]) ^ set(before[0])
    assert len(changed) == 2, "only the raced access changed one memory; nothing half-written"


def test_bad_fingerprints_are_refused_naming_the_item(
    egm: GraphMem, graph_snapshot: Callable[[], Any]
) -> None:
    before = graph_snapshot()
    with pytest.raises(InvalidInputError) as refused:
        egm.consolidate(fingerprints=["0123456789abcdef", "not-a-fingerprint"])
    assert refused.value.field == "fingerprints[1]"
    assert graph_snapshot() == before


def test_the_scheduler_consolidates_only_when_enabled(
    store: Any, clock: ManualClock, embedder: Any
) -> None:
    off = GraphMem(store, clock=clock, embedder=embedder)
    ids = crafted(off, clock)
    Scheduler(off, busy_fraction=1.0).tick()
    assert off.get(ids["dark"][0]).tier is Tier.WORKING
    rules = RetentionRules(consolidation=Consolidation(enabled=True))
    on = GraphMem(store, clock=clock, embedder=embedder, rules=rules)
    clock.advance(rules.archive_interval_seconds + 1)
    Scheduler(on, busy_fraction=1.0).tick()
    assert on.get(ids["dark"][0]).tier is Tier.ARCHIVED


CONSOLIDATE = """
mutation($dry: Boolean!, $f: [String!]) {
  consolidate(dryRun: $dry, fingerprints: $f) {
    dryRun scanned eligible memoriesConsolidated notes
    groups { fingerprint memberIds content reason }
    consolidated { memoryId sourceIds memory { source content } }
  }
}"""


def test_graphql_and_the_client_over_http(egm: GraphMem, clock: ManualClock) -> None:
    ids = crafted(egm, clock)
    with serve(create_app(egm)) as http:
        gql = GraphQLClient(http)
        dry = gql.data(CONSOLIDATE, {"dry": True})["consolidate"]
        assert dry["dryRun"] and dry["consolidated"] == []
        assert {frozenset(g["memberIds"]) for g in dry["groups"]} == {
            frozenset(ids["refresh"]),
            frozenset(ids["dark"]),
        }
        with Client(str(http.base_url)) as client:
            assert client.consolidate(dry_run=True) == egm.consolidate(dry_run=True)
            refused = gql.error(CONSOLIDATE, {"dry": False, "f": ["XYZ"]})
            assert refused["extensions"]["code"] == "INVALID_INPUT"
            (dark,) = [g for g in dry["groups"] if set(g["memberIds"]) == set(ids["dark"])]
            done = gql.data(CONSOLIDATE, {"dry": False, "f": [dark["fingerprint"]]})
            (written,) = done["consolidate"]["consolidated"]
            assert set(written["sourceIds"]) == set(ids["dark"])
            assert written["memory"]["source"] == "CONSOLIDATED"
            rest = client.consolidate()
            assert [set(c.source_ids) for c in rest.consolidated] == [set(ids["refresh"])]


def test_the_cli_groups_related_memories_without_embeddings(data_dir: Path) -> None:
    with GraphMem.open(
        Settings(data_dir=data_dir, embedder="none"), clock=ManualClock(time.time())
    ) as gm:
        a, b, c = (
            gm.remember({"content": text, "memory_type": "discovery"})
            for text in (
                "The flaky login test fails when the cache is cold.",
                "Warming the cache first makes the login test pass.",
                "Login test flakiness traced to the session cache.",
            )
        )
        gm.relate(a.id, b.id, "related_to")
        gm.relate(b.id, c.id, "related_to")
    unset = {k: None for k in os.environ if k.startswith("GRAPHMEM_")}
    env = {**unset, "GRAPHMEM_DATA_DIR": str(data_dir), "GRAPHMEM_EMBEDDER": "none"}
    dry = CliRunner().invoke(app, ["consolidate", "--dry-run"], env=env)
    assert dry.exit_code == 0, dry.output
    assert "would consolidate 1 group" in dry.stdout and a.id in dry.stdout
    done = CliRunner().invoke(app, ["consolidate", "--json"], env=env)
    assert done.exit_code == 0, done.output
    assert '"memories_consolidated": 3' in done.stdout
    with GraphMem.open(Settings(data_dir=data_dir, embedder="none")) as gm:
        assert {gm.get(i).tier for i in (a.id, b.id, c.id)} == {Tier.ARCHIVED}


def test_as_of_a_time_before_consolidation_the_sources_stand_as_they_were(
    egm: GraphMem, clock: ManualClock
) -> None:
    ids = crafted(egm, clock)
    before = clock.now()
    clock.advance(60)
    result = egm.consolidate()
    (done,) = [c for c in result.consolidated if set(c.source_ids) == set(ids["refresh"])]
    clock.advance(60)
    for source_id in ids["refresh"]:
        then = egm.get(source_id, as_of=before)
        assert then.tier is Tier.WORKING and then.superseded_by is None
        assert egm.get(source_id, as_of=clock.now()).tier is Tier.ARCHIVED
    listed_then = {m.id for m in egm.list(as_of=before, first=50).items}
    assert set(ids["refresh"]) <= listed_then and done.memory_id not in listed_then
