"""Failure capsules through the Python API against a real FalkorDB (and the real
embedding model where retrieval is involved): one capsule per failure,
recurrence counted exactly on it and on its lesson, the lesson staged and
activated by recurrence or a fix, explained in knowledgeContext, and bad
reports rejected with nothing written."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from graphmem.api import GraphMem
from graphmem.capsules import MAX_ERROR_CHARS, MAX_FILES
from graphmem.clock import ManualClock
from graphmem.errors import InvalidInputError, NotFoundError
from graphmem.models import MemoryType, Source, Status
from tests.integration.test_concurrency import all_at_once

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
