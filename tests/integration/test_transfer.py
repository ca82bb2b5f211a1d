"""graphmem's own JSONL: a project survives a round trip unchanged, import is
idempotent, and bad lines are reported one by one, after which the import
takes back what it created."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator

import pytest

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.domain.errors import InvalidInputError
from graphmem.services.transfer import export_project, import_project
from graphmem.services.transfer.placing import derived
from graphmem.store import Store
from tests.conftest import cypher
from tests.integration.transfer_project import (
    OTHER_PROJECT_TEXT,
    build_project,
    refused_as_duplicate,
    snapshot,
    store_beside,
    unique_constraint,
)


@pytest.fixture
def other_store(store: Store, request: pytest.FixtureRequest) -> Iterator[Store]:
    """An empty store of the backend under test, to move the project into."""
    with store_beside(store, request) as other:
        yield other


def exported(store: Store, project: str = "default", page_size: int = 500) -> str:
    out = io.StringIO()
    export_project(store, project, out, page_size=page_size)
    return out.getvalue()


@pytest.mark.parametrize("page_size", [2, 500])
def test_round_trip_changes_nothing(
    gm: GraphMem, store: Store, other_store: Store, clock: ManualClock, page_size
):
    build_project(gm, store, clock)
    first = exported(store, page_size=page_size)
    report = import_project(other_store, io.StringIO(first), page_size=page_size)
    assert report.project_id == "default"
    assert report.complete, report
    assert not report.merged
    assert exported(other_store, page_size=page_size) == first
    records = [json.loads(line) for line in first.splitlines()]
    kinds = {r["kind"] for r in records}
    assert kinds == {"header", "project", "session", "memory", "relation", "promotion_run",
                     "promotion_event", "staging_event", "archival_event", "end"}  # fmt: skip
    assert sum(r["embedding"] is not None for r in records if r["kind"] == "memory") == 3
    held = {k: sum(r["kind"] == k for r in records) for k in report.created}
    assert dict(report.created) == held
    # The graphs themselves agree, node for node and edge for edge (structural
    # links included), apart from the project that was not exported.
    assert snapshot(other_store) == snapshot(store)
    assert len(snapshot(store)[1]) > 10


def test_an_export_holds_no_other_project(gm: GraphMem, store: Store, clock: ManualClock):
    ids = build_project(gm, store, clock)
    text = exported(store)
    assert OTHER_PROJECT_TEXT not in text
    assert ids["other"] not in text
    assert "elsewhere" not in text
    elsewhere = exported(store, "elsewhere")
    assert OTHER_PROJECT_TEXT in elsewhere
    assert ids["rule"] not in elsewhere
    assert [json.loads(line)["kind"] for line in elsewhere.splitlines()].count("relation") == 1


def test_the_imported_project_works(
    gm: GraphMem, store: Store, other_store: Store, clock: ManualClock
):
    build_project(gm, store, clock)
    import_project(other_store, io.StringIO(exported(store)))
    moved = GraphMem(other_store, clock=clock)
    original = {m.id: m for m in gm.list(first=50, filter={"include_archived": True}).items}
    copied = {m.id: m for m in moved.list(first=50, filter={"include_archived": True}).items}
    assert copied == original
    task = next(m for m in copied.values() if m.content.startswith("Add retries"))
    assert sorted(map(repr, *moved.relations([task.id]))) == sorted(
        map(repr, *gm.relations([task.id]))
    )
    assert moved.promotion_events(session_id="s-1") == gm.promotion_events(session_id="s-1")
    assert moved.promotion_stats("s-1") == gm.promotion_stats("s-1")


def test_importing_twice_adds_nothing(
    gm: GraphMem, store: Store, other_store: Store, clock: ManualClock
):
    build_project(gm, store, clock)
    text = exported(store)
    first = import_project(other_store, io.StringIO(text), page_size=3)
    before = snapshot(other_store)
    again = import_project(other_store, io.StringIO(text), page_size=3)
    assert not again.created
    assert again.merged == first.created
    assert again.complete
    assert snapshot(other_store) == before
    # Into the project it came from, too: everything is there already.
    onto_itself = import_project(store, io.StringIO(text))
    assert not onto_itself.created and onto_itself.complete
    assert snapshot(store) == before


def test_a_merged_memory_takes_the_file_s_properties(
    gm: GraphMem, store: Store, clock: ManualClock
):
    ids = build_project(gm, store, clock)
    text = exported(store)
    gm.update(ids["task"], {"content": "edited after the export", "tags": ["later"]})
    gm.forget(ids["old"])
    report = import_project(store, io.StringIO(text))
    assert report.created["memory"] == 1  # the forgotten one is back
    assert gm.get(ids["task"]).content == "Add retries to the HTTP client"
    assert gm.get(ids["old"]).content == "Use SQLite"
    assert exported(store) == text


def test_bad_lines_are_skipped_and_reported(
    gm: GraphMem, store: Store, other_store: Store, clock: ManualClock
):
    ids = build_project(gm, store, clock)
    lines = exported(store).splitlines()
    memory_at = next(i for i, line in enumerate(lines) if ids["odd"] in line and '"memory"' in line)
    bad_tier = json.loads(lines[memory_at])
    bad_tier["props"]["tier"] = "forever"
    lines[memory_at] = json.dumps(bad_tier)
    relation_at = next(i for i, line in enumerate(lines) if '"kind":"relation"' in line)
    dangling = json.loads(lines[relation_at])
    dangling["to_id"] = "no-such-memory"
    lines.insert(relation_at + 1, json.dumps(dangling))
    homeless = json.loads(lines[memory_at - 1])
    homeless["props"]["id"] = "0000homeless"
    homeless["in_session"] = "s-9"
    lines.insert(3, '{"kind": "memory", "props": {"id": "x"')  # cut JSON
    # A relation ahead of the memories it joins: they are not there yet.
    lines.insert(4, lines[relation_at + 2])
    lines.insert(len(lines) - 1, json.dumps(homeless))
    lines.insert(len(lines) - 1, '{"kind": "mystery"}')
    lines.append('{"kind": "memory"}')
    report = import_project(other_store, io.StringIO("\n".join(lines) + "\n"))

    reasons = {s.line: s.reason for s in report.skipped}
    assert sorted(reasons) == sorted(
        [4, 5, memory_at + 3, relation_at + 4, len(lines) - 3, len(lines) - 2, len(lines)]
    ), reasons
    assert reasons[4].startswith("line: not JSON")
    assert reasons[5].startswith("relation: unknown relation endpoint: from_id ")
    assert reasons[memory_at + 3].startswith("memory: props.tier: Input should be 'working'")
    assert "unknown relation endpoint: to_id no-such-memory" in reasons[relation_at + 4]
    assert reasons[len(lines) - 3] == "memory: in_session: no session s-9 in project default"
    assert "unknown kind 'mystery'" in reasons[len(lines) - 2]
    assert "after the end line" in reasons[len(lines)]
    # The end line's counts no longer match what the file holds.
    assert len(report.warnings) == 1 and "end line counts" in report.warnings[0]
    # A file with bad lines leaves nothing behind: what went in was taken back.
    assert snapshot(other_store) == ([], [])
    assert not report.created and not report.merged
    assert report.rolled_back["memory"] == 7  # of the project's eight, all but the bad tier
    assert report.rolled_back["project"] == 1 and report.rolled_back["session"] >= 1


def test_a_file_whose_later_lines_are_bad_leaves_nothing_behind(
    gm: GraphMem, store: Store, other_store: Store, clock: ManualClock
):
    ids = build_project(gm, store, clock)
    lines = exported(store).splitlines()
    last = max(i for i, line in enumerate(lines) if '"kind":"staging_event"' in line)
    broken = json.loads(lines[last])
    broken["props"]["id"] = 7
    lines[last] = json.dumps(broken)
    report = import_project(other_store, io.StringIO("\n".join(lines) + "\n"), project_id="copy")
    assert [s.line for s in report.skipped] == [last + 1]
    assert not report.complete and not report.created
    assert snapshot(other_store, "copy") == ([], [])
    assert snapshot(other_store) == ([], [])
    # Fixed, the same file lands whole.
    lines[last] = exported(store).splitlines()[last]
    fixed = import_project(other_store, io.StringIO("\n".join(lines) + "\n"), project_id="copy")
    assert fixed.complete and not fixed.rolled_back
    moved = GraphMem(other_store, clock=clock, project_id="copy")
    assert moved.get(ids["rule"]).content == gm.get(ids["rule"]).content


def test_a_cut_off_file_is_imported_and_reported(
    gm: GraphMem, store: Store, other_store: Store, clock: ManualClock
):
    build_project(gm, store, clock)
    lines = exported(store).splitlines()
    report = import_project(other_store, io.StringIO("\n".join(lines[:6])))
    assert not report.skipped
    assert report.warnings == [
        "the file has no end line: it may be cut off (the lines it held were imported)"
    ]
    assert sum(report.created.values()) == 5


def test_a_file_that_is_no_export_is_refused_whole(other_store: Store):
    for text in ('{"kind": "memory"}\n', "not json\n", ""):
        with pytest.raises(InvalidInputError, match="not a graphmem export"):
            import_project(other_store, io.StringIO(text))
    assert snapshot(other_store) == ([], [])


def test_importing_under_another_project_name(
    gm: GraphMem, store: Store, other_store: Store, clock: ManualClock
):
    ids = build_project(gm, store, clock)
    text = exported(store)
    report = import_project(other_store, io.StringIO(text), project_id="copy")
    assert report.complete and report.project_id == "copy"
    moved = GraphMem(other_store, clock=clock, project_id="copy")
    assert moved.get(ids["rule"]).content == gm.get(ids["rule"]).content
    assert moved.get(ids["rule"]).project_id == "copy"
    assert moved.get_session("s-1").project_id == "copy"
    assert snapshot(other_store, "default") == ([], [])
    # In the same store the ids are the original project's, which the import
    # leaves alone and never names: each memory takes an id of its own in the
    # new project (and every record naming it follows), so the import reads as
    # into a store without those ids.
    before = snapshot(store)
    beside = import_project(store, io.StringIO(text), project_id="copy")
    assert beside.complete and beside.created == report.created and not beside.merged
    assert snapshot(store) == before
    copy = snapshot(store, "copy")
    records = [json.loads(line) for line in text.splitlines()]
    original = [r["props"]["id"] for r in records if r["kind"] == "memory"]
    assert not [i for i in original if i in repr(copy)]

    def placed(line: str) -> str:
        for memory_id in original:
            line = line.replace(memory_id, derived(memory_id, "copy"))
        return line

    nodes, edges = snapshot(other_store, "copy")
    assert copy == (sorted(map(placed, nodes)), sorted(map(placed, edges)))
    again = import_project(store, io.StringIO(text), project_id="copy")
    assert again.complete and not any(again.created.values())
    assert snapshot(store, "copy") == copy and snapshot(store) == before
    with pytest.raises(InvalidInputError, match="project"):
        import_project(other_store, io.StringIO(text), project_id="no spaces allowed")


def test_a_record_the_store_refuses_is_skipped_alone(
    gm: GraphMem, store: Store, other_store: Store, clock: ManualClock
):
    """The target graph has a unique constraint the file breaks (as an id taken
    meanwhile would break Neo4j's): the page is written again record by record,
    only the record the database refuses is reported, and then the import takes
    back everything it created."""
    ids = build_project(gm, store, clock)
    lines = exported(store).splitlines()
    at = next(i for i, line in enumerate(lines) if ids["task"] in line and '"memory"' in line)
    record = json.loads(lines[at])
    rule = json.loads(next(line for line in lines if ids["rule"] in line and '"memory"' in line))
    record["props"]["content"] = rule["props"]["content"]
    lines[at] = json.dumps(record)
    surrogate = json.loads(lines[at + 1])
    surrogate["props"]["content"] = "broken \ud800 text"
    lines[at + 1] = json.dumps(surrogate)
    with unique_constraint(other_store, "Memory", "content"):
        report = import_project(other_store, io.StringIO("\n".join(lines) + "\n"))
    reasons = {s.line: s.reason for s in report.skipped}
    assert reasons[at + 1].startswith("memory: "), reasons
    assert refused_as_duplicate(reasons[at + 1].removeprefix("memory: "), "Memory", "content")
    assert reasons[at + 2] == (
        "memory: props.content: must be valid Unicode (it holds a lone surrogate)"
    )
    moved = GraphMem(other_store, clock=clock)
    assert moved.get_many([ids["task"], ids["rule"]]) == [None, None], "nothing is left"
    assert not report.created and report.rolled_back["memory"] == 6
    # What hangs off the refused memory is reported, not written half-way.
    assert any(r.startswith("relation: unknown relation endpoint") for r in reasons.values())


def test_an_export_leaves_out_lease_owners(
    gm: GraphMem, store: Store, other_store: Store, clock: ManualClock
):
    """A claim names the server that holds it: it must not travel with the project."""
    build_project(gm, store, clock)
    cypher(
        store,
        "MATCH (p:Project {id: 'default'}) "
        "SET p.archival_lease_owner = 'host-a', p.evaluation_lease_owner = 'host-a'",
    )
    cypher(
        store, "MATCH (s:Session {project_id: 'default'}) SET s.promotion_lease_owner = 'host-a'"
    )
    text = exported(store)
    assert "lease_owner" not in text and "host-a" not in text
    assert import_project(other_store, io.StringIO(text)).complete
    assert "lease_owner" not in exported(other_store)


def with_failures(gm: GraphMem) -> str:
    """A failure reported twice with a fix (its lesson active), one memory in context."""
    context = gm.remember({"content": "The importer reads files in chunks", "session_id": "s-1"})
    report = {
        "error": "MemoryError while importing dump.sql",
        "tool": "Bash",
        "session_id": "s-1",
        "context_memory_ids": [context.id],
    }
    gm.record_failure(report)
    return gm.record_failure(report | {"session_id": "s-2", "fix": "stream the file"}).capsule.id


def test_failure_capsules_round_trip_with_their_links(
    gm: GraphMem, store: Store, other_store: Store, clock: ManualClock
):
    build_project(gm, store, clock)
    capsule_id = with_failures(gm)
    text = exported(store)
    records = [json.loads(line) for line in text.splitlines()]
    (record,) = [r for r in records if r["kind"] == "failure_capsule"]
    assert record["props"]["id"] == capsule_id and record["for_sessions"] == ["s-1", "s-2"]
    assert len(record["in_context"]) == 1 and record["taught"] is not None
    report = import_project(other_store, io.StringIO(text))
    assert report.complete and report.created["failure_capsule"] == 1
    assert snapshot(other_store) == snapshot(store)
    moved = GraphMem(other_store, clock=clock)
    assert moved.failure_capsules() == gm.failure_capsules()
    again = moved.record_failure({"error": "MemoryError while importing dump.sql", "tool": "Bash"})
    assert not again.created and again.capsule.id == capsule_id, "still one capsule a failure"
    assert again.capsule.occurrence_count == 3
    twice = import_project(other_store, io.StringIO(text))
    assert twice.merged["failure_capsule"] == 1 and not twice.created


def test_a_capsule_naming_a_missing_session_is_reported_and_rolled_back(
    gm: GraphMem, store: Store, other_store: Store, clock: ManualClock
):
    build_project(gm, store, clock)
    with_failures(gm)
    lines = exported(store).splitlines()
    at = next(i for i, line in enumerate(lines) if '"kind":"failure_capsule"' in line)
    broken = json.loads(lines[at])
    broken["for_sessions"].append("s-9")
    lines[at] = json.dumps(broken)
    report = import_project(other_store, io.StringIO("\n".join(lines) + "\n"))
    assert [(s.line, s.reason) for s in report.skipped] == [
        (
            at + 1,
            "failure_capsule: for_sessions, in_context or taught: names a session or memory "
            "project default does not hold",
        )
    ]
    assert snapshot(other_store) == ([], [])


def test_a_review_mark_comes_back_with_its_label(gm: GraphMem, store: Store, other_store: Store):
    base = gm.remember({"content": "The release train leaves on Thursdays."})
    rests = gm.remember({"content": "We deploy on Fridays, after the train."})
    gm.relate(base.id, rests.id, "ENABLES")
    gm.archive(base.id, reason="the train moved")
    assert gm.get(rests.id).review_change is not None
    import_project(other_store, io.StringIO(exported(store)))
    rows = cypher(other_store, "MATCH (m:NeedsReview) RETURN m.id, m.review_cause")
    assert rows == [[rests.id, base.id]]
