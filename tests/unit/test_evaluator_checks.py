"""The evaluator's checks and metrics on hand-built networkx graphs (no store)."""

from __future__ import annotations

import random
from typing import Any

import networkx as nx
import pytest

from graphmem.domain.consistency import CODES, ConsistencyReport, Severity
from graphmem.domain.errors import GraphMemError
from graphmem.domain.retention import RetentionRules
from graphmem.domain.scoring import ImportanceScorer
from graphmem.services.evaluator.checks import run_checks
from graphmem.services.evaluator.context import CheckContext
from graphmem.services.evaluator.duplicates import check_near_duplicates
from graphmem.services.evaluator.invariants import check_invariants, check_promotion_log
from graphmem.services.evaluator.metrics import Structure, compute_metrics, pagerank, relevance
from graphmem.services.evaluator.overdue import check_overdue
from graphmem.services.evaluator.references import check_orphans, check_references
from graphmem.services.evaluator.relations import (
    check_constrains_cycles,
    check_relation_conflicts,
    check_rests_on_nothing_current,
)
from graphmem.services.evaluator.scores import score_inputs, scoring_window
from graphmem.services.evaluator.snapshot import (
    ForeignRelation,
    NearPair,
    PromotionRecord,
    SessionInfo,
    Snapshot,
)
from graphmem.services.evaluator.supersession import (
    check_forked_supersession,
    check_inverted_supersession,
    check_superseded_by,
    check_supersession_cycles,
)

NOW = 1_800_000_000.0
HOUR = 3_600.0
DAY = 86_400.0
SCORER = ImportanceScorer()
CTX = CheckContext(now=NOW, scorer=SCORER, rules=RetentionRules())


def memory(**fields: Any) -> dict[str, Any]:
    """A consistent semantic fact, scored when it was last written."""
    attrs: dict[str, Any] = {
        "session_id": "s",
        "memory_type": "fact",
        "tier": "semantic",
        "status": "active",
        "confidence": 0.8,
        "access_count": 0,
        "feedback": 0,
        "feedback_count": 0,
        "self_assessment": None,
        "suggested_by": "implicit",
        "pinned": False,
        "created_at": NOW - HOUR,
        "updated_at": NOW - HOUR,
        "last_accessed_at": None,
        "promoted_at": None,
        "archived_at": None,
        "archived_from": None,
        "superseded_by": None,
        "merged_into": None,
        "has_embedding": False,
        "in_session": "s",
    }
    attrs.update(fields)
    if "importance" not in fields:
        attrs["importance"] = SCORER.score(score_inputs(attrs), scoring_window(attrs)[1])
    return attrs


def snapshot(
    nodes: dict[str, dict[str, Any]], edges: list[tuple[str, str, str]] = (), **kw: Any
) -> Snapshot:
    graph = nx.MultiDiGraph()
    graph.add_nodes_from(nodes.items())
    for u, kind, v in edges:
        graph.add_edge(u, v, key=kind, type=kind)
    kw.setdefault("sessions", {"s": SessionInfo("s")})
    return Snapshot(project_id="p", graph=graph, **kw)


def codes(snap: Snapshot, ctx: CheckContext = CTX) -> list[tuple[str, tuple[str, ...]]]:
    return [(f.code, f.memory_ids) for f in run_checks(snap, ctx)]


def clean() -> Snapshot:
    """Every relation type, a supersede chain, a promoted and an archived memory."""
    return snapshot(
        {
            "a": memory(),
            "b": memory(superseded_by="c"),
            "c": memory(superseded_by="d"),
            "d": memory(),
            "r1": memory(tier="procedural", memory_type="rule", pinned=True),
            "r2": memory(tier="procedural", memory_type="rule"),
            "p": memory(tier="episodic", promoted_at=NOW - HOUR / 2, updated_at=NOW - HOUR / 2),
            "x": memory(tier="archived", archived_at=NOW - 60, archived_from="working"),
            "cand": memory(status="candidate", tier="working", memory_type=None),
        },
        [
            ("d", "SUPERSEDES", "c"),
            ("c", "SUPERSEDES", "b"),
            ("r1", "CONSTRAINS", "r2"),
            ("r2", "ENABLES", "a"),
            ("a", "RELATED_TO", "d"),
        ],
        promotions=[PromotionRecord("e1", "p", "working", "episodic", NOW - HOUR / 2)],
    )


def test_a_clean_graph_has_no_findings():
    assert codes(clean()) == []


def test_every_code_has_a_severity_and_a_title():
    assert all(info.title and info.severity in Severity for info in CODES.values())


class TestSupersession:
    def test_self_supersession(self):
        snap = snapshot({"a": memory()}, [("a", "SUPERSEDES", "a")])
        assert codes(snap) == [("SUPERSEDES_SELF", ("a",))]

    def test_cycle_reports_its_members_and_order(self):
        snap = snapshot(
            {
                "a": memory(superseded_by="c"),
                "b": memory(superseded_by="a"),
                "c": memory(superseded_by="b"),
            },
            [("a", "SUPERSEDES", "b"), ("b", "SUPERSEDES", "c"), ("c", "SUPERSEDES", "a")],
        )
        (found,) = check_supersession_cycles(snap, CTX)
        assert found.code == "SUPERSEDES_CYCLE" and found.memory_ids == ("a", "b", "c")
        assert sorted(found.details["cycle"]) == ["a", "b", "c"]
        assert codes(snap) == [("SUPERSEDES_CYCLE", ("a", "b", "c"))]

    @pytest.mark.parametrize(
        "successor",
        [
            memory(status="candidate", tier="working"),
            memory(tier="archived", archived_at=NOW, archived_from="semantic"),
        ],
    )
    def test_inverted_when_the_successor_is_not_served(self, successor):
        snap = snapshot(
            {"old": memory(superseded_by="new"), "new": successor}, [("new", "SUPERSEDES", "old")]
        )
        assert codes(snap) == [("SUPERSESSION_INVERTED", ("new", "old"))]

    def test_not_inverted_when_the_old_one_is_archived_or_a_served_successor_exists(self):
        archived_old = snapshot(
            {
                "old": memory(
                    superseded_by="new", tier="archived", archived_at=NOW, archived_from="working"
                ),
                "new": memory(status="candidate"),
            },
            [("new", "SUPERSEDES", "old")],
        )
        assert list(check_inverted_supersession(archived_old, CTX)) == []

    def test_forked_only_without_an_order_between_the_successors(self):
        nodes = {"old": memory(superseded_by="n2"), "n1": memory(), "n2": memory()}
        forked = snapshot(nodes, [("n1", "SUPERSEDES", "old"), ("n2", "SUPERSEDES", "old")])
        assert codes(forked) == [("SUPERSESSION_FORKED", ("n1", "n2", "old"))]
        nodes["n1"] = memory(superseded_by="n2")
        ordered = snapshot(
            nodes,
            [("n1", "SUPERSEDES", "old"), ("n2", "SUPERSEDES", "old"), ("n2", "SUPERSEDES", "n1")],
        )
        assert list(check_forked_supersession(ordered, CTX)) == []

    def test_superseded_by_must_match_the_edges(self):
        missing = snapshot({"old": memory(), "new": memory()}, [("new", "SUPERSEDES", "old")])
        assert codes(missing) == [("SUPERSEDED_BY_MISMATCH", ("new", "old"))]
        wrong = snapshot({"old": memory(superseded_by="other"), "other": memory()})
        (found,) = check_superseded_by(wrong, CTX)
        assert found.memory_ids == ("old", "other")


class TestRelations:
    def test_constrains_and_enables_between_one_pair(self):
        snap = snapshot(
            {"a": memory(), "b": memory()}, [("a", "CONSTRAINS", "b"), ("a", "ENABLES", "b")]
        )
        assert codes(snap) == [("RELATION_CONFLICT", ("a", "b"))]
        opposite = snapshot(
            {"a": memory(), "b": memory()}, [("a", "CONSTRAINS", "b"), ("b", "ENABLES", "a")]
        )
        assert list(check_relation_conflicts(opposite, CTX)) == []

    def test_constrains_cycle_among_procedural_rules_only(self):
        rule = {"tier": "procedural", "memory_type": "rule"}
        edges = [("a", "CONSTRAINS", "b"), ("b", "CONSTRAINS", "c"), ("c", "CONSTRAINS", "a")]
        rules = snapshot({n: memory(**rule) for n in "abc"}, edges)
        assert codes(rules) == [("CONSTRAINS_CYCLE", ("a", "b", "c"))]
        facts = snapshot({n: memory() for n in "abc"}, edges)
        assert list(check_constrains_cycles(facts, CTX)) == []

    def test_a_memory_resting_only_on_gone_memories(self):
        nodes = {
            "gone": memory(tier="archived"),
            "old": memory(superseded_by="new"),
            "new": memory(),
            "b": memory(),  # rests on gone and old only
            "c": memory(),  # rests on gone and on b, which is current
            "d": memory(tier="archived"),  # rests on gone, but is not current itself
            "e": memory(),  # RELATED_TO gone: no dependency
        }
        edges = [
            ("gone", "ENABLES", "b"),
            ("old", "CONSTRAINS", "b"),
            ("gone", "ENABLES", "c"),
            ("b", "ENABLES", "c"),
            ("gone", "ENABLES", "d"),
            ("gone", "RELATED_TO", "e"),
        ]
        found = list(check_rests_on_nothing_current(snapshot(nodes, edges), CTX))
        assert [(f.code, f.memory_ids) for f in found] == [
            ("RESTS_ON_NOTHING_CURRENT", ("b", "gone", "old"))
        ]
        assert found[0].details == {"memory": "b", "rests_on": ["gone", "old"]}

    def test_near_duplicates_once_per_served_pair(self):
        nodes = {"a": memory(), "b": memory(), "z": memory(status="candidate")}
        same, said = "Nightly builds run at midnight.", "The nightly build runs at midnight."
        snap = snapshot(
            nodes,
            near_duplicates=[
                NearPair("a", "b", 0.97, same, said),
                NearPair("b", "a", 0.97, said, same),
                NearPair("a", "z", 0.99, same, same),
            ],
        )
        (found,) = run_checks(snap, CTX)
        assert (found.code, found.memory_ids) == ("NEAR_DUPLICATE", ("a", "b"))
        assert "graphmem consolidate --project p" in found.fix
        assert list(check_near_duplicates(snapshot(nodes), CTX)) == []

    def test_a_changed_value_or_a_superseded_memory_is_no_near_duplicate(self):
        old, new = "The pool size is 20.", "The pool size is 40."
        updated = snapshot(
            {"a": memory(superseded_by="b"), "b": memory()},
            [("b", "SUPERSEDES", "a")],
            near_duplicates=[NearPair("a", "b", 0.98, old, new)],
        )
        assert list(check_near_duplicates(updated, CTX)) == []
        # Even unlinked, a new value is not the same statement.
        apart = snapshot(
            {"a": memory(), "b": memory()}, near_duplicates=[NearPair("a", "b", 0.98, old, new)]
        )
        assert list(check_near_duplicates(apart, CTX)) == []

    def test_two_turns_a_day_apart_are_no_near_duplicate(self):
        turn = {"memory_type": "event"}
        nodes = {"a": memory(occurred_at=0.0, **turn), "b": memory(occurred_at=86_400.0, **turn)}
        said = NearPair("a", "b", 1.0, "Ben: Haha", "Ben: Haha")
        assert list(check_near_duplicates(snapshot(nodes, near_duplicates=[said]), CTX)) == []

    def test_dangling_and_cross_project_references(self):
        snap = snapshot(
            {"a": memory(superseded_by="gone"), "b": memory()},
            foreign=[ForeignRelation("b", "RELATED_TO", "q1", "other")],
        )
        found = list(check_references(snap, CTX))
        assert [(f.code, f.memory_ids) for f in found] == [
            ("DANGLING_REFERENCE", ("a",)),
            ("CROSS_PROJECT_RELATION", ("b", "q1")),
        ]
        assert codes(snap) == [
            ("CROSS_PROJECT_RELATION", ("b", "q1")),
            ("DANGLING_REFERENCE", ("a",)),
        ]


class TestInvariants:
    @pytest.mark.parametrize(
        ("field", "value", "code"),
        [
            ("importance", 1.5, "IMPORTANCE_OUT_OF_RANGE"),
            ("importance", None, "IMPORTANCE_OUT_OF_RANGE"),
            ("confidence", -0.1, "CONFIDENCE_OUT_OF_RANGE"),
            ("confidence", float("nan"), "CONFIDENCE_OUT_OF_RANGE"),
        ],
    )
    def test_values_outside_the_unit_interval(self, field, value, code):
        attrs = memory()
        attrs[field] = value
        assert codes(snapshot({"a": attrs})) == [(code, ("a",))]

    def test_a_change_that_was_not_rescored_is_stale(self):
        attrs = memory(access_count=5)  # scored with 5 accesses
        attrs["access_count"] = 9  # four more, never rescored
        (found,) = check_invariants(snapshot({"a": attrs}), CTX)
        assert found.code == "IMPORTANCE_STALE" and found.fixable
        assert found.details["expected_low"] > found.details["stored"]

    def test_writes_that_do_not_rescore_widen_the_window_instead_of_failing(self):
        # Scored at its last access; pinned an hour later (updated_at moves, importance not).
        accessed = NOW - 2 * HOUR
        attrs = memory(
            created_at=NOW - DAY, access_count=3, last_accessed_at=accessed, updated_at=accessed
        )
        attrs["updated_at"] = NOW - HOUR
        assert scoring_window(attrs) == (accessed, NOW - HOUR)
        assert list(check_invariants(snapshot({"a": attrs}), CTX)) == []
        # Scored later than anything recorded allows: too low for the window.
        attrs["importance"] = SCORER.score(score_inputs(attrs), NOW + DAY)
        assert [f.code for f in check_invariants(snapshot({"a": attrs}), CTX)] == [
            "IMPORTANCE_STALE"
        ]

    def test_tolerance_absorbs_rounding(self):
        attrs = memory()
        attrs["importance"] += 1e-9
        assert codes(snapshot({"a": attrs})) == []

    def test_pinned_must_be_procedural_and_active(self):
        snap = snapshot({"a": memory(pinned=True, tier="working")})
        assert codes(snap) == [("PINNED_NOT_PROCEDURAL", ("a",))]
        candidate = snapshot({"a": memory(pinned=True, tier="procedural", status="candidate")})
        assert codes(candidate) == [("PINNED_NOT_PROCEDURAL", ("a",))]

    def test_archived_without_archived_at(self):
        snap = snapshot({"a": memory(tier="archived", archived_from="working")})
        (found,) = run_checks(snap, CTX)
        assert found.code == "ARCHIVED_WITHOUT_TIMESTAMP" and found.fixable

    @pytest.mark.parametrize(
        "fields",
        [
            {"tier": "attic"},
            {"status": "maybe"},
            {"archived_at": NOW - 10},
            {"archived_from": "working"},
            {"merged_into": "b"},
            {"tier": "archived", "archived_at": NOW, "archived_from": "archived"},
        ],
    )
    def test_lifecycle_combinations_that_cannot_happen(self, fields):
        nodes = {"a": memory(**fields), "b": memory()}
        assert codes(snapshot(nodes)) == [("LIFECYCLE_INVALID", ("a",))]

    def test_promotion_log_against_the_tier(self):
        events = [
            PromotionRecord("e1", "a", "working", "episodic", NOW - 2 * HOUR),
            PromotionRecord("e2", "a", "episodic", "semantic", NOW - HOUR),
        ]
        assert codes(snapshot({"a": memory(tier="semantic")}, promotions=events)) == []
        archived = memory(tier="archived", archived_at=NOW, archived_from="semantic")
        assert codes(snapshot({"a": archived}, promotions=events)) == []
        assert codes(snapshot({"a": memory(tier="episodic")}, promotions=events)) == [
            ("PROMOTION_LOG_MISMATCH", ("a",))
        ]
        assert list(check_promotion_log(snapshot({}, promotions=events), CTX)) == []


class TestOrphansAndOverdue:
    def test_orphans_are_live_memories_outside_the_projects_sessions(self):
        snap = snapshot(
            {
                "none": memory(in_session=None),
                "unlinked": memory(in_session="loose"),
                "archived": memory(
                    in_session=None, tier="archived", archived_at=NOW, archived_from="working"
                ),
            },
            sessions={"loose": SessionInfo("loose", in_project=False)},
        )
        assert codes(snap) == [("ORPHAN_MEMORY", ("none",)), ("ORPHAN_MEMORY", ("unlinked",))]
        assert all(f.fixable for f in check_orphans(snap, CTX))

    def hot(self, age: float) -> dict[str, Any]:
        return memory(
            tier="working", memory_type="risk", confidence=1.0, access_count=10,
            created_at=NOW - age, updated_at=NOW - age,
        )  # fmt: skip

    def test_promotion_overdue_after_the_grace(self):
        assert codes(snapshot({"a": self.hot(3 * HOUR)})) == [("PROMOTION_OVERDUE", ("a",))]
        assert codes(snapshot({"a": self.hot(HOUR)})) == []
        paused = snapshot({"a": self.hot(3 * HOUR)}, sessions={"s": SessionInfo("s", "paused")})
        assert list(check_overdue(paused, CTX)) == []

    def test_archival_overdue_when_stale_and_low_for_the_grace(self):
        def stale(**fields: Any) -> dict[str, Any]:
            return memory(
                tier="working", memory_type="assumption", confidence=0.2,
                created_at=NOW - 3 * DAY, updated_at=NOW - 3 * DAY, **fields,
            )  # fmt: skip

        assert codes(snapshot({"a": stale()})) == [("ARCHIVAL_OVERDUE", ("a",))]
        assert codes(snapshot({"a": stale(pinned=True, status="active")})) == [
            ("PINNED_NOT_PROCEDURAL", ("a",))
        ]
        recent = memory(tier="working", memory_type="assumption", confidence=0.2)
        assert codes(snapshot({"a": recent})) == []

    def test_findings_are_ordered_most_severe_first(self):
        snap = snapshot(
            {"a": memory(importance=2.0), "b": memory(in_session=None), "c": self.hot(DAY)}
        )
        assert [f.severity for f in run_checks(snap, CTX)] == [
            Severity.ERROR,
            Severity.WARNING,
            Severity.INFO,
        ]


class TestMetrics:
    def random_snapshot(self, n: int = 200, m: int = 600) -> Snapshot:
        rnd = random.Random(3)
        nodes = {f"n{i:03d}": memory() for i in range(n)}
        edges = []
        for _ in range(m):
            kind = rnd.choice(["RELATED_TO", "ENABLES", "CONSTRAINS", "SUPERSEDES"])
            edges.append((f"n{rnd.randrange(n):03d}", kind, f"n{int(n * rnd.random() ** 2):03d}"))
        return snapshot(nodes, edges)

    def test_pagerank_is_networkx_pagerank_of_the_reversed_graph(self):
        snap = self.random_snapshot()
        ours = pagerank(Structure.of(snap))
        reference = nx.pagerank(snap.graph.reverse(copy=False))
        assert max(abs(ours[n] - reference[n]) for n in snap.graph) < 1e-12

    def test_structure_metrics_agree_with_networkx(self):
        snap = self.random_snapshot()
        structure = Structure.of(snap)
        metrics = compute_metrics(snap, NOW, structure, pagerank(structure))
        graph = snap.graph
        assert metrics["memories"] == graph.number_of_nodes()
        assert metrics["relations"] == graph.number_of_edges()
        assert metrics["graph"]["density"] == pytest.approx(nx.density(graph))
        assert metrics["graph"]["weak_components"] == nx.number_weakly_connected_components(graph)
        assert metrics["graph"]["degree"]["max"] == max(d for _, d in graph.degree())
        assert sum(metrics["graph"]["degree"]["histogram"].values()) == graph.number_of_nodes()
        top = metrics["pagerank_top"][0]
        assert top["in_degree"] == graph.in_degree(top["id"])

    def test_counts_rates_backlog_and_chains(self):
        snap = snapshot(
            {
                "a": memory(superseded_by="b", tier="archived", archived_at=NOW - HOUR,
                            archived_from="semantic"),
                "b": memory(superseded_by="c"),
                "c": memory(memory_type=None),
                "k": memory(status="candidate", tier="working", created_at=NOW - 8 * DAY),
            },
            [("c", "SUPERSEDES", "b"), ("b", "SUPERSEDES", "a")],
            promotions=[PromotionRecord("e", "b", "working", "semantic", NOW - 2 * DAY)],
        )  # fmt: skip
        structure = Structure.of(snap)
        m = compute_metrics(snap, NOW, structure, pagerank(structure))
        assert m["by_tier"]["archived"] == 1 and m["by_tier"]["semantic"] == 2
        assert m["by_status"] == {"candidate": 1, "active": 3}
        assert m["by_type"] == {"fact": 3, "untyped": 1}
        assert m["promotion"]["1d"]["count"] == 0 and m["promotion"]["7d"]["count"] == 1
        assert m["archival"]["1d"]["count"] == 1
        assert m["candidates"]["backlog"] == 1 and m["candidates"]["older_than_7d"] == 1
        assert m["supersede_chains"] == {
            "chains": 1,
            "max_length": 3,
            "mean_length": 3.0,
            "histogram": {"3": 1},
        }
        assert len(m["daily"]) == 30 and sum(d["promotions"] for d in m["daily"]) == 1

    def test_relevance_needs_served_neighbours(self):
        nodes = {n: memory() for n in ("hub", "x", "y", "z", "alone")}
        nodes["hub"] = memory(status="candidate", tier="working")
        edges = [
            ("x", "CONSTRAINS", "hub"),
            ("y", "ENABLES", "hub"),
            ("hub", "RELATED_TO", "z"),
            ("x", "RELATED_TO", "y"),
        ]
        snap = snapshot(nodes, edges)
        scores = relevance(snap, pagerank(Structure.of(snap)))
        assert scores["alone"] == 0.0
        assert scores["z"] == 0.0, "its one neighbour is a candidate, not served"
        assert scores["hub"] >= RetentionRules().relevance_threshold, "three served neighbours"
        assert 0 < scores["x"] < scores["hub"]


def test_report_json_round_trip_and_version_check():
    snap = snapshot({"a": memory(importance=3.0), "b": memory(in_session=None)})
    structure = Structure.of(snap)
    report = ConsistencyReport(
        id="r1",
        project_id="p",
        created_at=NOW,
        findings=run_checks(snap, CTX),
        metrics=compute_metrics(snap, NOW, structure, pagerank(structure)),
        notes=["a note"],
        memories=2,
    )
    data = report.to_dict()
    assert data["summary"]["errors"] == 1 and data["summary"]["warnings"] == 1
    again = ConsistencyReport.from_dict(data)
    assert again.to_dict() == data
    with pytest.raises(GraphMemError):
        ConsistencyReport.from_dict({**data, "schema_version": 99})


@pytest.mark.parametrize("preset", ["default", "jarvis"])
def test_scores_over_time_equal_the_scorer(preset):
    scorer = ImportanceScorer(preset)
    scores = CheckContext(now=NOW, scorer=scorer, rules=RetentionRules()).scores
    rnd = random.Random(5)
    for i in range(200):
        attrs = memory(
            memory_type=rnd.choice(["risk", "fact", None, "assumption"]),
            confidence=rnd.random(),
            access_count=rnd.randrange(30),
            feedback=rnd.choice([-2, 0, 3]),
            feedback_count=3,
            self_assessment=rnd.choice(["low", "high", None]),
            suggested_by=rnd.choice(["implicit"] * 5 + ["agent"]),
            last_accessed_at=NOW - rnd.uniform(0, 10 * DAY),
        )
        for when in (NOW - DAY, NOW, NOW + 7 * DAY):
            expected = scorer.score(score_inputs(attrs), when)
            assert scores.at(f"m{i}", attrs, when) == pytest.approx(expected, abs=1e-12)
