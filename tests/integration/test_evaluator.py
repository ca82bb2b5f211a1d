"""The consistency evaluator against the real embedded FalkorDB."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from array import array
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import networkx as nx
import pytest

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.domain.consistency import CODES
from graphmem.domain.errors import InvalidInputError
from graphmem.domain.kinds import Status, Tier
from graphmem.server.scheduler import Scheduler
from graphmem.services.embeddings import DIMENSION
from graphmem.services.evaluator import fixes
from graphmem.services.evaluator.checks import run_checks
from graphmem.services.evaluator.context import CheckContext
from graphmem.services.evaluator.snapshot import load_snapshot
from graphmem.store.falkordb import FalkorStore
from tests.conftest import cypher

HOUR = 3_600.0


def raw(store: FalkorStore, text: str, **params: Any) -> None:
    """Corrupt the graph the way only a direct write could."""
    cypher(store, text, params)


def fact(gm: GraphMem, content: str, **fields: Any) -> str:
    return gm.remember({"content": content, "memory_type": "fact", "session_id": "s1", **fields}).id


def unit_vector(seed: int, nudge: float = 0.0) -> array:
    values = [((i * 7919 + seed * 104729) % 1000) / 1000.0 - 0.5 for i in range(DIMENSION)]
    values[0] += nudge
    norm = sum(v * v for v in values) ** 0.5
    return array("f", [v / norm for v in values])


def build_clean(gm: GraphMem, clock: ManualClock) -> dict[str, str]:
    """A graph built through the API only: every lifecycle path that writes."""
    ids = {name: fact(gm, f"clean {name}") for name in ("a", "b", "c", "d")}
    gm.relate(ids["a"], ids["b"], "RELATED_TO")
    gm.relate(ids["b"], ids["c"], "ENABLES")
    gm.supersede(ids["c"], ids["d"], rationale="newer")
    ids["rule"] = gm.remember(
        {"content": "always run ruff", "memory_type": "rule", "tier": "procedural", "pinned": True}
    ).id
    gm.relate(ids["rule"], ids["a"], "CONSTRAINS")
    ids["decided"] = gm.remember(
        {"content": "we chose falkordb", "memory_type": "decision", "suggested_by": "agent"}
    ).id
    ids["candidate"] = gm.remember(
        {"content": "maybe cache tokens", "source": "auto_extracted", "session_id": "s1"}
    ).id
    clock.advance(60)
    gm.record_access(ids["a"])
    gm.feedback(ids["b"], 1)
    gm.update(ids["a"], {"tags": ["db"]})
    gm.record_evidence(ids["candidate"], 0.2)
    ids["rejected"] = gm.remember({"content": "wrong idea", "source": "auto_extracted"}).id
    gm.reject(ids["rejected"], "not true")
    clock.advance(60)
    return ids


def test_a_graph_built_through_the_api_is_clean(gm: GraphMem, clock: ManualClock):
    build_clean(gm, clock)
    clock.advance(10 * 60)
    report = gm.evaluate()
    assert report.findings == [], [f.message for f in report.findings]
    assert report.memories == 8 and report.relations == 4
    assert report.notes and "no active memory has an embedding" in report.notes[0]
    assert report.metrics["by_tier"]["procedural"] == 1
    assert report.metrics["by_tier"]["semantic"] == 1
    assert report.metrics["by_tier"]["archived"] == 1
    assert report.metrics["candidates"]["backlog"] == 1


def seed_every_problem(gm: GraphMem, store: FalkorStore, clock: ManualClock) -> dict[str, tuple]:
    """One instance of each check's problem, on memories of its own; returns code -> ids."""
    start = clock.now()
    clock.set(start - 2 * 86_400)
    stale = gm.remember(
        {"content": "guess", "memory_type": "assumption", "confidence": 0.2, "session_id": "s1"}
    ).id
    clock.set(start - 3 * HOUR)
    hot = gm.remember(
        {"content": "tokens leak", "memory_type": "risk", "confidence": 1.0, "session_id": "s1"}
    ).id
    for _ in range(4):
        gm.record_access(hot)
    clock.set(start)
    build_clean(gm, clock)
    m = {name: fact(gm, name) for name in ("self", "c1", "c2", "c3", "inv_old", "fork_old",
                                            "f1", "f2", "mis_old", "mis_new", "x", "y",
                                            "imp", "conf", "stale_imp", "pin", "noarch",
                                            "life", "dangle", "cross", "orphan",
                                            "lonely", "badtime")}  # fmt: skip
    # Two wordings of one statement (the judge reads the texts, not the vectors).
    m["n1"] = fact(gm, "Nightly builds run at midnight.")
    m["n2"] = fact(gm, "The nightly build runs at midnight.")
    m["inv_new"] = gm.remember({"content": "inv new", "source": "auto_extracted"}).id
    m["r1"], m["r2"] = (
        gm.remember({"content": f"rule {i}", "memory_type": "rule", "tier": "procedural"}).id
        for i in (1, 2)
    )
    m["promoted"] = gm.remember(
        {"content": "agent said so", "memory_type": "fact", "suggested_by": "agent"}
    ).id
    other = gm.remember({"content": "elsewhere"}, project_id="other").id
    raw(store, "MATCH (a:Memory {id: $id}) CREATE (a)-[:SUPERSEDES]->(a)", id=m["self"])
    gm.supersede(m["c2"], m["c1"])
    gm.supersede(m["c3"], m["c2"])
    raw(
        store,
        "MATCH (a:Memory {id: $a}), (b:Memory {id: $b}) "
        "CREATE (a)-[:SUPERSEDES]->(b) SET b.superseded_by = a.id",
        a=m["c3"],
        b=m["c1"],
    )
    gm.supersede(m["inv_old"], m["inv_new"])
    gm.supersede(m["fork_old"], m["f1"])
    gm.supersede(m["fork_old"], m["f2"])
    gm.supersede(m["mis_old"], m["mis_new"])
    raw(store, "MATCH (m:Memory {id: $id}) SET m.superseded_by = null", id=m["mis_old"])
    gm.relate(m["x"], m["y"], "CONSTRAINS")
    gm.relate(m["x"], m["y"], "ENABLES")
    gm.relate(m["r1"], m["r2"], "CONSTRAINS")
    gm.relate(m["r2"], m["r1"], "CONSTRAINS")
    store.write(
        "set_embeddings",
        {
            "rows": [
                {"id": m["n1"], "project_id": "default", "embedding": unit_vector(1)},
                {"id": m["n2"], "project_id": "default", "embedding": unit_vector(1, 0.01)},
                {"id": m["x"], "project_id": "default", "embedding": unit_vector(2)},
            ]
        },
    )
    raw(store, "MATCH (m:Memory {id: $id}) SET m.importance = 1.7", id=m["imp"])
    raw(store, "MATCH (m:Memory {id: $id}) SET m.confidence = 1.3", id=m["conf"])
    raw(store, "MATCH (m:Memory {id: $id}) SET m.access_count = 7", id=m["stale_imp"])
    gm.pin(m["pin"])
    raw(
        store,
        "MATCH (m:Memory {id: $id}) SET m.tier = 'archived', m.archived_from = 'working'",
        id=m["noarch"],
    )
    raw(store, "MATCH (m:Memory {id: $id}) SET m.archived_at = m.created_at", id=m["life"])
    raw(store, "MATCH (m:Memory {id: $id}) SET m.tier = 'episodic'", id=m["promoted"])
    raw(store, "MATCH (m:Memory {id: $id}) SET m.superseded_by = 'nope'", id=m["dangle"])
    raw(
        store,
        "MATCH (a:Memory {id: $a}), (b:Memory {id: $b}) CREATE (a)-[:RELATED_TO]->(b)",
        a=m["cross"],
        b=other,
    )
    raw(store, "MATCH (:Memory {id: $id})-[r:IN_SESSION]->() DELETE r", id=m["orphan"])
    raw(store, "MATCH (m:Memory {id: $id}) SET m.source = 'consolidated'", id=m["lonely"])
    raw(store, "MATCH (m:Memory {id: $id}) SET m.valid_to = 1.0e300", id=m["badtime"])
    m["rest_base"] = fact(gm, "The release train leaves on Thursdays.")
    m["rest_dep"] = fact(gm, "We deploy on Fridays, the day after the release train.")
    gm.relate(m["rest_base"], m["rest_dep"], "ENABLES")
    gm.archive(m["rest_base"], "the release train was retired")
    clock.advance(10 * 60)
    return {
        "SUPERSEDES_SELF": (m["self"],),
        "SUPERSEDES_CYCLE": (m["c1"], m["c2"], m["c3"]),
        "SUPERSESSION_INVERTED": (m["inv_old"], m["inv_new"]),
        "SUPERSESSION_FORKED": (m["fork_old"], m["f1"], m["f2"]),
        "SUPERSEDED_BY_MISMATCH": (m["mis_old"], m["mis_new"]),
        "RELATION_CONFLICT": (m["x"], m["y"]),
        "CONSTRAINS_CYCLE": (m["r1"], m["r2"]),
        "RESTS_ON_NOTHING_CURRENT": (m["rest_base"], m["rest_dep"]),
        "NEAR_DUPLICATE": (m["n1"], m["n2"]),
        "CONSOLIDATION_PROVENANCE": (m["lonely"],),
        "IMPORTANCE_OUT_OF_RANGE": (m["imp"],),
        "CONFIDENCE_OUT_OF_RANGE": (m["conf"],),
        "TIME_OUT_OF_RANGE": (m["badtime"],),
        "IMPORTANCE_STALE": (m["stale_imp"],),
        "PINNED_NOT_PROCEDURAL": (m["pin"],),
        "ARCHIVED_WITHOUT_TIMESTAMP": (m["noarch"],),
        "LIFECYCLE_INVALID": (m["life"],),
        "PROMOTION_LOG_MISMATCH": (m["promoted"],),
        "DANGLING_REFERENCE": (m["dangle"],),
        "CROSS_PROJECT_RELATION": (m["cross"], other),
        "ORPHAN_MEMORY": (m["orphan"],),
        "PROMOTION_OVERDUE": (hot,),
        "ARCHIVAL_OVERDUE": (stale,),
    }


def test_every_seeded_problem_is_found_once_and_nothing_else(
    gm: GraphMem, store: FalkorStore, clock: ManualClock
):
    expected = seed_every_problem(gm, store, clock)
    assert set(expected) == set(CODES), "the seed covers every check"
    report = gm.evaluate()
    found = {f.code: f.memory_ids for f in report.findings}
    assert len(report.findings) == len(found), [f.code for f in report.findings]
    assert found == {code: tuple(sorted(ids)) for code, ids in expected.items()}
    assert report.counts() == {"error": 9, "warning": 12, "info": 2}
    assert any("covered 3 of" in note for note in report.notes)


def seed_fixable(gm: GraphMem, store: FalkorStore, clock: ManualClock) -> dict[str, str]:
    ids = {name: fact(gm, name) for name in ("stale", "range", "noarch", "orphan", "fine")}
    raw(store, "MATCH (m:Memory {id: $id}) SET m.access_count = 9", id=ids["stale"])
    raw(store, "MATCH (m:Memory {id: $id}) SET m.importance = -0.5", id=ids["range"])
    raw(
        store,
        "MATCH (m:Memory {id: $id}) SET m.tier = 'archived', m.archived_from = 'working'",
        id=ids["noarch"],
    )
    raw(store, "MATCH (:Memory {id: $id})-[r:IN_SESSION]->() DELETE r", id=ids["orphan"])
    clock.advance(5 * 60)
    return ids


def without_reports(take: Callable[[], Any]) -> Any:
    nodes, edges = take()
    return [n for n in nodes if "ConsistencyReport" not in n], edges


def test_fix_dry_run_changes_nothing_then_fixes_and_a_rerun_is_clean(
    gm: GraphMem, store: FalkorStore, clock: ManualClock, graph_snapshot
):
    ids = seed_fixable(gm, store, clock)
    before = without_reports(graph_snapshot)
    dry = gm.evaluate(fix=True, dry_run=True)
    assert without_reports(graph_snapshot) == before
    assert dry.fixes is not None and dry.fixes["applied"] == []
    planned = {(p["action"], p["memory_id"]) for p in dry.fixes["planned"]}
    assert planned == {
        ("recompute_importance", ids["stale"]),
        ("recompute_importance", ids["range"]),
        ("fill_archived_at", ids["noarch"]),
        ("archive_orphan", ids["orphan"]),
    }
    real = gm.evaluate(fix=True)
    assert sorted(real.fixes["applied"]) == sorted(ids[k] for k in ids if k != "fine")
    assert gm.get(ids["orphan"]).tier is Tier.ARCHIVED
    assert gm.get(ids["noarch"]).archived_at is not None
    clock.advance(60)
    again = gm.evaluate()
    assert again.findings == [], [f.message for f in again.findings]


def test_a_fix_skips_a_memory_changed_since_the_snapshot(
    gm: GraphMem, store: FalkorStore, clock: ManualClock
):
    memory_id = fact(gm, "moving")
    raw(store, "MATCH (m:Memory {id: $id}) SET m.access_count = 9", id=memory_id)
    snap = gm.evaluator.snapshot("default")
    context = CheckContext(now=clock.now(), scorer=gm.scorer, rules=gm.rules)
    actions = fixes.plan(run_checks(snap, context), snap, gm.scorer, clock.now())
    gm.record_access(memory_id)  # a concurrent writer rescored it meanwhile
    assert fixes.apply(store, "default", actions, clock.now()) == []


def test_report_round_trips_through_the_graph(gm: GraphMem, store: FalkorStore, clock):
    seed_fixable(gm, store, clock)
    first = gm.evaluate()
    clock.advance(60)
    gm.evaluator.settings = replace(gm.evaluator.settings, stored_findings=2)
    second = gm.evaluate()
    stored = gm.consistency_reports()
    assert [r.id for r in stored] == [second.id, first.id]
    assert stored[1].to_dict() == first.to_dict()
    assert len(stored[0].findings) == 2 and stored[0].summary()["findings"] == 4
    assert stored[0].to_dict()["findings_truncated"] is True
    trend = gm.consistency_reports(full=False)
    assert [r.summary() for r in trend] == [second.summary(), first.summary()]
    assert trend[0].findings == [] and trend[0].counts() == second.counts()
    only = gm.consistency_reports(report_id=first.id)
    assert [r.id for r in only] == [first.id]
    older = gm.consistency_reports(before=second.created_at)
    assert [r.id for r in older] == [first.id]
    assert gm.consistency_reports(project_id="other") == []


def test_evidence_activates_a_load_bearing_candidate(gm: GraphMem, clock: ManualClock):
    hub = gm.remember({"content": "retry with backoff", "source": "auto_extracted"}).id
    lonely = gm.remember({"content": "a passing thought", "source": "auto_extracted"}).id
    for i, kind in enumerate(("CONSTRAINS", "ENABLES", "RELATED_TO")):
        gm.relate(hub, fact(gm, f"depends {i}"), kind)
    clock.advance(60)
    plain = gm.evaluate()
    assert plain.evidence is None and gm.get(hub).status is Status.CANDIDATE
    report = gm.evaluate(evidence=True)
    assert report.evidence == {"written": 1, "activated": [hub]}
    assert gm.get(hub).status is Status.ACTIVE and gm.get(hub).evaluator_relevance == 1.0
    assert gm.get(lonely).status is Status.CANDIDATE
    assert gm.get(lonely).evaluator_relevance is None
    assert [e.signal for e in gm.staging_events(hub)] == ["evaluator"]


def test_paged_snapshot_equals_one_page_and_stays_in_its_project(
    gm: GraphMem, store: FalkorStore, clock: ManualClock
):
    build_clean(gm, clock)
    gm.remember({"content": "not ours"}, project_id="other")
    whole = load_snapshot(store, "default", page=1_000)
    paged = load_snapshot(store, "default", page=2)
    assert paged.pages == 4 and whole.pages == 1
    assert dict(paged.graph.nodes(data=True)) == dict(whole.graph.nodes(data=True))
    assert nx.utils.edges_equal(paged.graph.edges(keys=True), whole.graph.edges(keys=True))
    assert whole.graph.number_of_nodes() == 8
    assert all(attrs["in_session"] is not None for _, attrs in whole.graph.nodes(data=True))
    assert set(whole.sessions) == {"default", "s1"}
    assert sorted(gm.evaluator.projects()) == ["default", "other"]


class RecordingStore:
    """The real store, remembering which statements were read."""

    def __init__(self, store: FalkorStore) -> None:
        self.store = store
        self.dialect = store.dialect
        self.names: list[str] = []

    def read(self, name: str, params: Any = None) -> list[Any]:
        self.names.append(name)
        return self.store.read(name, params)


@pytest.mark.backends("falkordb")
def test_an_unclean_page_is_read_again_column_by_column(
    gm: GraphMem, store: FalkorStore, clock: ManualClock
):
    """FalkorDB only: the JSON page (``Dialect.snapshot_json``) is FalkorDB's own
    machinery, one ``toJSON`` text per memory, which a quote in a string spoils
    (FalkorDB does not escape it). Neo4j has no ``toJSON`` and always reads the
    columns, the path every other evaluator test here takes on it."""
    ids = build_clean(gm, clock)
    fast = RecordingStore(store)
    before = load_snapshot(fast, "default")
    assert "snapshot_relations" not in fast.names, "one JSON query per page on FalkorDB"
    # A quote inside a string would break FalkorDB's unescaped toJSON.
    raw(store, "MATCH (m:Memory {id: $id}) SET m.memory_type = 'say \"hi\"'", id=ids["a"])
    slow = RecordingStore(store)
    after = load_snapshot(slow, "default")
    assert "snapshot_memories" in slow.names and "snapshot_relations" in slow.names
    assert after.graph.nodes[ids["a"]]["memory_type"] == 'say "hi"'
    before.graph.nodes[ids["a"]]["memory_type"] = 'say "hi"'
    assert dict(after.graph.nodes(data=True)) == dict(before.graph.nodes(data=True))
    assert sorted(after.graph.edges(keys=True)) == sorted(before.graph.edges(keys=True))


def test_background_job_and_telemetry(gm: GraphMem, clock: ManualClock):
    events = []
    gm.telemetry.subscribe(events.append)
    fact(gm, "one")
    job = gm.evaluator.submit("default")
    deadline = time.monotonic() + 30
    while gm.evaluator.job(job.id).state in ("queued", "running"):
        assert time.monotonic() < deadline, "the job did not finish"
        time.sleep(0.02)
    gm.evaluator.close()
    assert gm.evaluator.job(job.id).state == "succeeded"
    (report,) = gm.consistency_reports(report_id=job.id)
    assert report.memories == 1
    (event,) = [e for e in events if e.name == "evaluator.completed"]
    assert event.fields["report_id"] == job.id and event.fields["memories"] == 1


def test_dry_run_without_fix_is_refused(gm: GraphMem):
    with pytest.raises(InvalidInputError):
        gm.evaluate(dry_run=True)


def test_the_scheduler_evaluates_each_project_once_per_interval(gm: GraphMem, clock: ManualClock):
    fact(gm, "one")
    scheduler = Scheduler(gm, busy_fraction=1.0, evaluation_interval_seconds=1_000)
    scheduler.tick()
    assert gm.consistency_reports() == [], "first seen: scheduled one interval ahead"
    clock.advance(999)
    scheduler.tick()
    assert gm.consistency_reports() == []
    clock.advance(1)
    scheduler.tick()
    scheduler.tick()
    assert len(gm.consistency_reports()) == 1
    assert Scheduler(gm, busy_fraction=1.0, evaluation_interval_seconds=None).tick() >= 0


def test_the_benchmark_runs_small() -> None:
    """``python -m benchmarks.evaluator`` keeps working (speed is not asserted here)."""
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.evaluator", "--n", "300", "--relations", "900",
         "--embedded", "200", "--json"],
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "GRAPHMEM_EMBEDDER": "none"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    keys = {figure["key"] for figure in json.loads(done.stdout)["figures"]}
    assert {"evaluation_s", "evaluation_peak_rss_mb", "snapshot_s", "evaluation_checks_s"} <= keys
    assert "near_duplicates_ms_per_memory" in keys
