"""Sky-style short-term / long-term JSONL: mapped as documented, idempotent,
and a Sky export reads back into the same memories."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator

import pytest

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.domain.models import Memory
from graphmem.services.transfer.sky import Term, export_sky, import_sky
from graphmem.store import Store
from tests.integration.transfer_project import (
    AWKWARD,
    OTHER_PROJECT_TEXT,
    build_project,
    refused_as_duplicate,
    snapshot,
    store_beside,
    unique_constraint,
)

SHORT = [
    {"ts": "2025-01-02T10:00:00Z", "type": "decision", "content": "Use Postgres for the ledger",
     "tags": ["db"], "importance": 0.9, "promoted_at": None},
    {"ts": 1735812000, "type": "Fact", "content": "The CI runners have 2 cores", "tags": [],
     "importance": 0.4},
    {"ts": 1735812000500, "type": "lesson", "content": "Pin the torch version", "tags": ["deps"]},
    {"ts": "2025-01-02T11:00:00", "type": "todo", "content": AWKWARD, "importance": 0.5},
    {"ts": "2025-01-03T09:30:00+02:00", "type": "fact", "content": "Promoted already",
     "importance": 0.8, "promoted_at": "2025-01-04T00:00:00Z"},
]  # fmt: skip
LONG = [
    {"ts": "2024-12-01T08:00:00Z", "type": "constraint",
     "content": "Never call the network in tests", "tags": ["ci"], "importance": 1.0,
     "promoted_at": "2024-12-02T08:00:00Z"},
    {"ts": "2024-12-05T08:00:00Z", "type": "insight", "content": "Caching halves the latency",
     "importance": 0.7},
    # The short-term "Use Postgres" item, promoted by Sky: the same memory.
    {"ts": "2025-01-05T10:00:00Z", "type": "decision", "content": "use postgres for the LEDGER.",
     "tags": ["ledger"], "importance": 0.9, "promoted_at": "2025-01-05T10:00:00Z"},
]  # fmt: skip
NOW = 1_750_000_000.0


def jsonl(records: list[dict]) -> io.StringIO:
    return io.StringIO("".join(json.dumps(r) + "\n" for r in records))


def memories(gm: GraphMem, project: str = "default") -> dict[str, Memory]:
    page = gm.list(first=100, filter={"include_archived": True}, project_id=project)
    return {m.content: m for m in page.items}


@pytest.fixture
def other_store(store: Store, request: pytest.FixtureRequest) -> Iterator[Store]:
    """An empty store of the backend under test, to read an export back into."""
    with store_beside(store, request, "sky") as other:
        yield other


def test_short_and_long_term_records_map_as_documented(
    gm: GraphMem, store: Store, clock: ManualClock
):
    clock.set(NOW)
    short = import_sky(store, jsonl(SHORT), project_id="default", term=Term.SHORT, now=NOW)
    assert short.created["memory"] == 5 and short.complete
    got = memories(gm)
    ledger = got["Use Postgres for the ledger"]
    assert (ledger.tier, ledger.memory_type, ledger.status) == ("working", "decision", "active")
    assert ledger.created_at == ledger.occurred_at == 1735812000.0  # 2025-01-02T10:00:00Z
    assert ledger.confidence == 0.9 and ledger.tags == ["db"]
    assert ledger.source == "import" and ledger.session_id == "default"
    assert ledger.promoted_at is None
    assert 0 < ledger.importance < 1
    assert gm.importance_breakdown(ledger).total == pytest.approx(ledger.importance)
    cores = got["The CI runners have 2 cores"]
    assert (cores.memory_type, cores.tags, cores.confidence) == ("fact", [], 0.4)
    torch = got["Pin the torch version"]
    assert torch.created_at == 1735812000.5  # epoch milliseconds
    assert torch.memory_type == "lesson_learned"
    assert torch.tags == ["deps", "sky-type:lesson"]
    assert torch.confidence == 0.7  # Sky's default importance
    awkward = got[AWKWARD.strip()]
    assert awkward.memory_type is None and awkward.tags == ["sky-type:todo"]
    assert awkward.created_at == 1735815600.0  # a time without a zone is UTC
    promoted = got["Promoted already"]
    assert (promoted.tier, promoted.promoted_at) == ("semantic", 1735948800.0)
    assert promoted.created_at == 1735889400.0

    long = import_sky(store, jsonl(LONG), project_id="default", term=Term.LONG, now=NOW)
    assert (long.created["memory"], long.merged["memory"]) == (2, 1)
    got = memories(gm)
    assert len(got) == 7
    rule = got["Never call the network in tests"]
    assert (rule.tier, rule.memory_type, rule.promoted_at) == ("procedural", "rule", 1733126400.0)
    insight = got["Caching halves the latency"]
    assert (insight.tier, insight.promoted_at) == ("semantic", insight.created_at)
    # The promoted copy merged into the short-term item and lifted it.
    ledger = got["Use Postgres for the ledger"]
    assert (ledger.tier, ledger.promoted_at) == ("semantic", 1736071200.0)
    assert ledger.tags == ["db", "ledger"]


def test_importing_twice_adds_nothing(store: Store):
    for records, term in ((SHORT, Term.SHORT), (LONG, Term.LONG)):
        import_sky(store, jsonl(records), project_id="default", term=term, now=NOW)
    before = snapshot(store)
    for records, term in ((SHORT, Term.SHORT), (LONG, Term.LONG)):
        again = import_sky(store, jsonl(records), project_id="default", term=term, now=NOW + 60)
        assert not again.created and again.merged["memory"] == len(records)
        assert again.complete
    assert snapshot(store) == before


def test_a_record_repeating_a_memory_merges_into_it(gm: GraphMem, store: Store):
    native = gm.remember({"content": "The CI runners have 2 cores!", "tags": ["infra"]})
    report = import_sky(store, jsonl(SHORT[1:2]), project_id="default", term=Term.SHORT, now=NOW)
    assert report.merged["memory"] == 1 and not report.created
    merged = gm.get(native.id)
    assert merged.tags == ["infra"] and merged.occurrence_count == 1
    assert len(memories(gm)) == 1


def test_bad_lines_are_named_with_the_field_and_the_limit_and_nothing_is_written(
    gm: GraphMem, store: Store
):
    lines = [
        json.dumps(SHORT[0]),
        "{not json",
        json.dumps({"ts": "2025-01-02", "type": "fact"}),
        json.dumps({**SHORT[1], "importance": 1.5}),
        json.dumps({**SHORT[1], "ts": "yesterday"}),
        json.dumps({**SHORT[1], "content": "x" * 10_001}),
        json.dumps({**SHORT[1], "tags": ["t"] * 33}),
        "[1, 2]",
        "",
        json.dumps(SHORT[2]),
    ]
    report = import_sky(
        store, io.StringIO("\n".join(lines)), project_id="default", term=Term.SHORT, now=NOW
    )
    reasons = {s.line: s.reason for s in report.skipped}
    assert sorted(reasons) == [2, 3, 4, 5, 6, 7, 8]
    assert reasons[2].startswith("line: not JSON")
    assert reasons[3] == "content: Field required"
    assert reasons[4] == "importance: Input should be less than or equal to 1"
    assert reasons[5].startswith("ts: Value error, must be an ISO 8601 time")
    assert reasons[6] == "content: String should have at most 10000 characters"
    assert reasons[7] == "tags: List should have at most 32 items after validation, not 33"
    assert reasons[8] == "line: not a JSON object"
    # A file with a bad line writes nothing: the project stays as it was.
    assert report.refused and not report.created
    assert memories(gm) == {}
    fixed = [lines[0], lines[-1]]
    report = import_sky(
        store, io.StringIO("\n".join(fixed)), project_id="default", term=Term.SHORT, now=NOW
    )
    assert not report.refused and report.created["memory"] == 2
    assert set(memories(gm)) == {"Use Postgres for the ledger", "Pin the torch version"}


def test_an_export_reads_back_into_the_same_memories(
    gm: GraphMem, store: Store, other_store: Store
):
    import_sky(store, jsonl(SHORT), project_id="default", term=Term.SHORT, now=NOW)
    import_sky(store, jsonl(LONG), project_id="default", term=Term.LONG, now=NOW)
    gm.remember({"content": OTHER_PROJECT_TEXT}, project_id="elsewhere")
    out = io.StringIO()
    counts = export_sky(store, "default", out)
    assert counts.counts["memory"] == 7
    assert OTHER_PROJECT_TEXT not in out.getvalue()
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    torch = next(r for r in records if r["content"] == "Pin the torch version")
    assert torch == {"ts": "2025-01-02T10:00:00.500Z", "type": "lesson", "tags": ["deps"],
                     "content": "Pin the torch version", "importance": 0.7,
                     "promoted_at": None}  # fmt: skip
    short = io.StringIO()
    long = io.StringIO()
    assert export_sky(store, "default", short, term=Term.SHORT).counts["memory"] == 3
    assert export_sky(store, "default", long, term=Term.LONG).counts["memory"] == 4

    moved = GraphMem(other_store, clock=ManualClock(NOW))
    report = import_sky(other_store, io.StringIO(out.getvalue()), project_id="default",
                        term=Term.SHORT, now=NOW)  # fmt: skip
    assert report.created["memory"] == 7 and report.complete
    fields = ("content", "memory_type", "tier", "tags", "confidence", "created_at", "occurred_at")
    fields += ("promoted_at",)
    assert {c: tuple(getattr(m, f) for f in fields) for c, m in memories(moved).items()} == {
        c: tuple(getattr(m, f) for f in fields) for c, m in memories(gm).items()
    }
    again = io.StringIO()
    export_sky(other_store, "default", again)
    assert again.getvalue() == out.getvalue()


def test_a_graphmem_project_exports_its_live_memories(
    gm: GraphMem, store: Store, clock: ManualClock
):
    ids = build_project(gm, store, clock)
    out = io.StringIO()
    export_sky(store, "default", out)
    records = {r["content"]: r for r in map(json.loads, out.getvalue().splitlines())}
    assert "wrong idea" not in records  # archived
    assert OTHER_PROJECT_TEXT not in records
    rule = records["Tests never call the network"]
    assert rule["type"] == "rule" and rule["promoted_at"] is not None
    assert records["Add retries to the HTTP client"]["type"] is None
    assert records[AWKWARD]["tags"] == ["ünï", 'q"t']
    assert len(records) == len(gm.list(first=50).items) == 6
    assert ids["rule"] not in out.getvalue()


def test_a_record_the_store_refuses_is_skipped_alone(gm: GraphMem, store: Store):
    """A unique constraint the file breaks (two records at one time, here):
    the page is written again record by record and only the refused one is out."""
    records = [SHORT[0], {**SHORT[0], "content": "same time, other text"}, SHORT[2]]
    with unique_constraint(store, "Memory", "created_at"):
        report = import_sky(store, jsonl(records), project_id="default", term=Term.SHORT, now=NOW)
    ((line, reason),) = [(s.line, s.reason) for s in report.skipped]
    assert line == 2 and refused_as_duplicate(reason, "Memory", "created_at"), reason
    assert report.created["memory"] == 2
    assert set(memories(gm)) == {"Use Postgres for the ledger", "Pin the torch version"}
