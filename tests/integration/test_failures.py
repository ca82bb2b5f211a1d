"""Failure capsules through the Python API against a real FalkorDB (and the real
embedding model where retrieval is involved): one capsule per failure,
recurrence counted exactly on it and on its lesson, the lesson staged and
activated by recurrence or a fix, explained in knowledgeContext, and bad
reports rejected with nothing written."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from mcp_types import CallToolResult
from typer.testing import CliRunner

from graphmem.api import GraphMem
from graphmem.cli import app
from graphmem.domain.capsules import MAX_ERROR_CHARS, MAX_FILES
from graphmem.domain.clock import ManualClock
from graphmem.domain.errors import InvalidInputError, NotFoundError
from graphmem.domain.kinds import MemoryType, Source, Status
from graphmem.graphql.app import create_app
from graphmem.settings import Settings
from tests.integration.conftest import GraphQLClient, Rejected, serve
from tests.integration.test_concurrency import all_at_once
from tests.integration.test_mcp import http_server, over_http

ERROR = (
    "Traceback (most recent call last):\n"
    '  File "/work/app/importer.py", line 12, in <module>\n'
    "ModuleNotFoundError: No module named 'requests'"
)


def report(**extra: Any) -> dict[str, Any]:
    return {
        "attempted": "run the CSV importer",
        "tool": "Bash",
        "command": "python importer.py --input data.csv",
        "error": ERROR,
        "session_id": "s1",
        **extra,
    }


def test_a_failure_becomes_a_capsule_linked_to_its_session_context_and_lesson(gm: GraphMem):
    rule = gm.remember({"content": "The importer runs in the project's virtualenv"})
    outcome = gm.record_failure(
        report(files=["importer.py", "importer.py"], context_memory_ids=[rule.id, "unknown"])
    )
    capsule = outcome.capsule
    assert outcome.created and capsule.occurrence_count == 1
    assert capsule.session_ids == ["s1"] and capsule.files == ["importer.py"]
    assert capsule.context_memory_ids == [rule.id]  # ids not in the project are not linked
    assert (capsule.tool, capsule.command) == ("Bash", "python importer.py --input data.csv")

    lesson = gm.get(outcome.lesson_id)
    assert (lesson.memory_type, lesson.status, lesson.source) == (
        MemoryType.LESSON_LEARNED,
        Status.CANDIDATE,
        Source.AUTO_EXTRACTED,
    )
    assert "run the CSV importer" in lesson.content
    assert "No module named 'requests'" in lesson.content
    assert "failure" in lesson.tags and lesson.session_id == "s1"
    queue = gm.review_queue()
    assert [item.memory.id for item in queue.items] == [lesson.id]
    assert capsule.lesson_id == lesson.id
    assert gm.failure_capsule(capsule.id) == capsule


def test_recurrence_counts_on_the_capsule_and_the_lesson_and_activates_it(
    gm: GraphMem, clock: ManualClock
):
    first = gm.record_failure(report())
    clock.advance(60)
    # The same failure from another checkout: paths and line numbers differ.
    again = gm.record_failure(
        report(
            session_id="s2",
            error=ERROR.replace("/work/app", "/home/me/app").replace("12", "40"),
        )
    )
    assert not again.created and again.capsule.id == first.capsule.id
    assert again.capsule.occurrence_count == 2
    assert again.capsule.session_ids == ["s1", "s2"]
    assert again.lesson_id == first.lesson_id and again.lesson_status == "active"
    lesson = gm.get(first.lesson_id)
    assert lesson.occurrence_count == 2 and lesson.status is Status.ACTIVE
    signals = [(e.kind, e.signal) for e in gm.staging_events(lesson.id)]
    assert ("activated", "recurrence") in signals and ("merged", "failure") in signals
    assert len(gm.failure_capsules()) == 1

    other = gm.record_failure(report(error="ModuleNotFoundError: No module named 'numpy'"))
    assert other.created and other.capsule.id != first.capsule.id
    assert len(gm.failure_capsules()) == 2


def test_a_recorded_fix_activates_the_lesson_and_is_kept(gm: GraphMem):
    first = gm.record_failure(report(tool="pytest", error="E   AssertionError: 3 != 4"))
    assert first.lesson_status == "candidate"
    # A later report of a different failure with the fix in hand, then the fix
    # for the first failure: the lesson learns it as evidence.
    fixed = gm.record_failure(
        report(tool="pytest", error="E   AssertionError: 5 != 7", fix="pin the clock in the test")
    )
    assert fixed.capsule.id == first.capsule.id  # numbers differ: the same failure
    assert fixed.capsule.fix == "pin the clock in the test"
    assert fixed.capsule.fixed_at is not None
    lesson = gm.get(first.lesson_id)
    assert "fix: pin the clock in the test" in lesson.evidence

    fresh = gm.record_failure(
        report(tool="make", error="make: *** No rule to make target 'dist'", fix="run make build")
    )
    assert fresh.created and fresh.lesson_status == "active"
    assert "Fix: run make build" in gm.get(fresh.lesson_id).content
    signals = [e.signal for e in gm.staging_events(fresh.lesson_id) if e.kind == "activated"]
    assert signals == ["fix"]


def test_recurrence_is_counted_exactly_under_8_concurrent_reports(gm: GraphMem):
    outcomes = all_at_once(8, lambda i: gm.record_failure(report(session_id=f"s{i}")), threads=8)
    assert sum(o.created for o in outcomes) == 1
    (capsule,) = gm.failure_capsules()
    assert capsule.occurrence_count == 8
    assert capsule.session_ids == sorted(f"s{i}" for i in range(8))
    lesson_ids = {o.lesson_id for o in outcomes if o.lesson_id}
    assert lesson_ids == {capsule.lesson_id}
    lessons = gm.list({"memory_type": "lesson_learned", "include_archived": True}).items
    assert [m.id for m in lessons] == [capsule.lesson_id]
    assert lessons[0].occurrence_count == 8 and lessons[0].status is Status.ACTIVE
    activations = [e for e in gm.staging_events(capsule.lesson_id) if e.kind == "activated"]
    assert len(activations) == 1


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        ({"error": None}, "error"),
        ({"error": "   "}, "error"),
        ({"error": "..."}, "error"),
        ({"error": "x" * (MAX_ERROR_CHARS + 1)}, "error"),
        ({"files": [f"f{i}.py" for i in range(MAX_FILES + 1)]}, "files"),
        ({"fix": "y" * 4_001}, "fix"),
        ({"context_memory_ids": ["not an id!"]}, "context_memory_ids.0"),
        ({"surprise": 1}, "surprise"),
    ],
)
def test_bad_reports_name_the_field_and_write_nothing(
    gm: GraphMem, graph_snapshot: Callable[[], Any], bad: dict[str, Any], field: str
):
    gm.record_failure(report())
    before = graph_snapshot()
    data = {k: v for k, v in {**report(), **bad}.items() if v is not None}
    with pytest.raises(InvalidInputError) as raised:
        gm.record_failure(data)
    assert raised.value.field == field, raised.value.message
    assert raised.value.message.startswith(f"{field}:")
    assert graph_snapshot() == before


def test_capsules_are_listed_per_session_and_scoped_to_their_project(gm: GraphMem):
    gm.record_failure(report(session_id="a"))
    gm.record_failure(report(session_id="b", error="PermissionError: [Errno 13] denied"))
    assert [c.session_ids for c in gm.failure_capsules(session_id="b")] == [["b"]]
    assert len(gm.failure_capsules()) == 2
    assert gm.failure_capsules(project_id="elsewhere") == []
    (capsule, _) = gm.failure_capsules()
    with pytest.raises(NotFoundError):
        gm.failure_capsule(capsule.id, project_id="elsewhere")
    with pytest.raises(InvalidInputError):
        gm.failure_capsules(limit=0)


def test_knowledge_context_brings_the_active_lesson_with_its_capsule(egm: GraphMem):
    egm.remember({"content": "Deploys go out on Tuesdays"})
    first = egm.record_failure(report())
    egm.record_failure(report(fix="install requests into the virtualenv first"))

    context = egm.knowledge_context("run the CSV importer on the new data file")
    (item,) = [i for i in context.items if i.memory.id == first.lesson_id]
    assert item.failure is not None and item.failure.id == first.capsule.id
    assert item.failure.occurrence_count == 2
    assert item.failure.fix == "install requests into the virtualenv first"
    others = [i for i in context.items if i.memory.id != first.lesson_id]
    assert all(i.failure is None for i in others)


RECORD = """mutation($input: FailureReportInput!) {
  recordFailure(input: $input) {
    created lessonStatus
    capsule { id occurrenceCount sessionIds contextMemoryIds tool fix
              lesson { id memoryType status occurrenceCount }
              contextMemories { id } }
  }
}"""
CAPSULES = """query($session: ID) {
  failureCapsules(sessionId: $session) { id occurrenceCount lessonId lastSeenAt }
}"""
CONTEXT_FAILURE = """query($hint: String!) {
  knowledgeContext(contextHint: $hint, recordAccess: false) {
    items { memory { id } failure { id occurrenceCount fix error } }
  }
}"""


def graphql_report(**extra: Any) -> dict[str, Any]:
    fields = report(**extra)
    return {
        "error": fields["error"],
        "attempted": fields["attempted"],
        "tool": fields["tool"],
        "command": fields["command"],
        "sessionId": fields["session_id"],
        **{k: v for k, v in extra.items() if k in ("fix", "contextMemoryIds")},
    }


def test_graphql_record_failure_counts_recurrence_and_lists_capsules(
    gm: GraphMem, gql: GraphQLClient, rejected: Rejected
):
    rule = gm.remember({"content": "The importer runs in the project's virtualenv"})
    first = gql.data(RECORD, {"input": graphql_report(contextMemoryIds=[rule.id])})
    made = first["recordFailure"]
    assert made["created"] is True and made["lessonStatus"] == "candidate"
    assert made["capsule"]["contextMemories"] == [{"id": rule.id}]
    lesson = made["capsule"]["lesson"]
    assert (lesson["memoryType"], lesson["status"]) == ("LESSON_LEARNED", "CANDIDATE")

    again = gql.data(RECORD, {"input": graphql_report(fix="pip install requests")})
    counted = again["recordFailure"]
    assert counted["created"] is False and counted["lessonStatus"] == "active"
    assert counted["capsule"]["id"] == made["capsule"]["id"]
    assert counted["capsule"]["occurrenceCount"] == 2
    assert counted["capsule"]["lesson"]["occurrenceCount"] == 2
    assert counted["capsule"]["fix"] == "pip install requests"

    listed = gql.data(CAPSULES, {"session": "s1"})["failureCapsules"]
    assert [(c["id"], c["occurrenceCount"], c["lessonId"]) for c in listed] == [
        (made["capsule"]["id"], 2, lesson["id"])
    ]
    assert gql.data(CAPSULES, {"session": "other"})["failureCapsules"] == []

    too_long = graphql_report(error="x" * (MAX_ERROR_CHARS + 1))
    rejected(RECORD, {"input": too_long}, "INVALID_INPUT", "input.error")
    rejected(RECORD, {"input": graphql_report(error="  ")}, "INVALID_INPUT", "input.error")


def test_graphql_knowledge_context_explains_a_lesson_by_its_capsule(egm: GraphMem):
    first = egm.record_failure(report())
    egm.record_failure(report(fix="install requests into the virtualenv first"))
    with serve(create_app(egm)) as http:
        body = GraphQLClient(http).data(
            CONTEXT_FAILURE, {"hint": "run the CSV importer on the new data file"}
        )
    items = {i["memory"]["id"]: i["failure"] for i in body["knowledgeContext"]["items"]}
    assert items[first.lesson_id]["id"] == first.capsule.id
    assert items[first.lesson_id]["occurrenceCount"] == 2
    assert items[first.lesson_id]["fix"] == "install requests into the virtualenv first"


def test_mcp_record_failure_counts_recurrence_and_rejects_a_report_without_error(
    gm: GraphMem, graph_snapshot: Callable[[], Any]
):
    with http_server(gm) as url:

        async def scenario(session: ClientSession) -> None:
            fields = {k: v for k, v in report().items() if k != "error"}

            async def record(**arguments: Any) -> CallToolResult:
                # Not the suite's call(): this tool has an argument named "tool".
                return await session.call_tool("record_failure", {**fields, **arguments})

            first = (await record(error=ERROR)).structured_content
            assert first["created"] is True and first["lesson_status"] == "candidate"
            again = (await record(error=ERROR, fix="pip install")).structured_content
            assert again["created"] is False and again["lesson_status"] == "active"
            assert again["capsule"]["occurrence_count"] == 2
            assert again["capsule"]["id"] == first["capsule"]["id"]
            assert again["lesson"]["id"] == first["capsule"]["lesson_id"]
            assert again["lesson"]["memory_type"] == "lesson_learned"
            assert "No module named 'requests'" in again["lesson"]["content"]

            before = graph_snapshot()
            for bad in ({}, {"error": "?!"}, {"error": "x" * (MAX_ERROR_CHARS + 1)}):
                result = await record(**bad)
                assert result.is_error, bad
                error = result.structured_content["error"]
                assert (error["code"], error["field"]) == ("INVALID_INPUT", "error"), bad
            assert graph_snapshot() == before

        over_http(url, scenario)


def test_cli_failures_lists_capsules_with_their_lesson():
    data_dir = Path(tempfile.mkdtemp(dir="/tmp", prefix="gmfl-"))
    try:
        with GraphMem.open(Settings(data_dir=data_dir, embedder="none")) as gm:
            first = gm.record_failure(report())
            gm.record_failure(report(fix="pip install requests"))
            gm.record_failure(report(session_id="s9", error="PermissionError: denied"))
        unset: dict[str, str | None] = {k: None for k in os.environ if k.startswith("GRAPHMEM_")}
        env = {**unset, "GRAPHMEM_DATA_DIR": str(data_dir), "GRAPHMEM_EMBEDDER": "none"}
        shown = CliRunner().invoke(app, ["failures", "--session", "s1"], env=env)
        assert shown.exit_code == 0, shown.output
        assert "1 failure capsule\n" in shown.stdout
        assert f"{first.capsule.id}  seen 2x  [Bash]" in shown.stdout
        assert "error: ModuleNotFoundError: No module named 'requests'" in shown.stdout
        assert "fix: pip install requests" in shown.stdout
        assert f"lesson {first.lesson_id} (active)" in shown.stdout

        as_json = CliRunner().invoke(app, ["failures", "--json"], env=env)
        assert as_json.exit_code == 0, as_json.output
        listed = json.loads(as_json.stdout)
        assert sorted(c["occurrence_count"] for c in listed) == [1, 2]

        context = CliRunner().invoke(
            app, ["context", "run the CSV importer", "--no-record-access"], env=env
        )
        assert context.exit_code == 0, context.output
        assert "learned from failure" in context.stdout
        as_json = CliRunner().invoke(
            app, ["context", "run the CSV importer", "--no-record-access", "--json"], env=env
        )
        (item,) = json.loads(as_json.stdout)["items"]
        assert (item["memory"]["id"], item["failure"]["id"]) == (
            first.lesson_id,
            first.capsule.id,
        )
        assert item["failure"]["occurrence_count"] == 2

        bad = CliRunner().invoke(app, ["failures", "--limit", "0"], env=env)
        assert bad.exit_code != 0 and "limit" in bad.output
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def test_a_rejected_lesson_stays_rejected_and_a_forgotten_one_leaves_the_capsule_counting(
    gm: GraphMem,
):
    first = gm.record_failure(report())
    gm.reject(first.lesson_id, "too specific")
    again = gm.record_failure(report())
    assert again.lesson_status == "candidate"
    assert gm.get(first.lesson_id).tier.value == "archived"

    other = gm.record_failure(report(tool="make", error="make: *** No rule to make target"))
    gm.forget(other.lesson_id)
    later = gm.record_failure(report(tool="make", error="make: *** No rule to make target"))
    assert later.capsule.occurrence_count == 2
    assert later.lesson_id is None and later.capsule.lesson_id is None
    assert gm.failure_capsule(other.capsule.id).lesson_id is None
