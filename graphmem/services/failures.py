"""Failure capsules against the store: record a report, derive its lesson into
the review queue, count recurrences, list capsules.

A report is validated before anything is written. The capsule (created or
counted) and its links are one write; the first report of a failure then
writes the lesson through the remember pipeline (a ``lesson_learned``
candidate, embedded and deduplicated like any memory) and links it, and
every later report counts on the capsule and the lesson in the same write
that counts the capsule. Recurrence, or a fix recorded with a report,
activates the lesson under the staging rules; either is logged.

A report follows remember's rule (``Sharing.attributed``): it is the acting
agent's, and seen as it says, else as the project's default when it has an
agent, else by everyone. The capsule and its lesson (written through the
writer, which applies the same rule) take that visibility; a capsule is read
only by those who may read it and its lesson (shared, or private to the
caller's agent, or a caller bound to none). A lesson is counted into an
existing memory of its text only within its own audience: never across
visibilities, nor into another agent's private one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphmem.domain.capsules import (
    MAX_LIST,
    FailureCapsule,
    FailureOutcome,
    FailureReport,
    lesson_content,
)
from graphmem.domain.checks import MAX_TAGS, check_between, parse
from graphmem.domain.errors import NotFoundError
from graphmem.domain.ids import new_id
from graphmem.domain.kinds import MemoryType, Source, Status, Tier, Visibility
from graphmem.domain.models import Memory, MemoryInput
from graphmem.domain.retrieval import ContextResult
from graphmem.domain.sessions import DEFAULT_SESSION
from graphmem.domain.text import content_key
from graphmem.services.base import Basics, Service
from graphmem.services.memories import Memories
from graphmem.services.sharing import Sharing
from graphmem.services.staging import Signal, Stager
from graphmem.services.writer import Writer
from graphmem.store.queries import failures

LESSON_CLAIM_SECONDS = 60.0
"""A report that claimed the writing of a lesson and did not link one within
this long (it crashed) leaves the claim to the next report."""
LESSON_CONFIDENCE = 0.6
LESSON_TAG = "failure"


class Failures(Service):
    def __init__(
        self,
        basics: Basics,
        *,
        writer: Writer,
        memories: Memories,
        stager: Stager,
        sharing: Sharing,
    ) -> None:
        super().__init__(basics)
        self.writer = writer
        self.memories = memories
        self.stager = stager
        self.sharing = sharing

    def record(
        self, report: FailureReport | Mapping[str, Any], *, project_id: str
    ) -> FailureOutcome:
        """Record a report as the acting agent makes it (``Sharing.attributed``)."""
        (report,) = self.sharing.attributed([parse(FailureReport, report)], project_id)
        visibility = report.visibility or Visibility.SHARED
        now = self._now()
        report_id = new_id()
        recorded = failures.record(
            self.store,
            report,
            report_id=report_id,
            session_id=report.session_id or DEFAULT_SESSION,
            visibility=visibility,
            event_id=new_id(),
            claim_before=now - LESSON_CLAIM_SECONDS,
            project_id=project_id,
            now=now,
        )
        capsule = recorded.capsule
        lesson_id = capsule.lesson_id
        if lesson_id is None and recorded.claimed:
            lesson_id = self._write_lesson(report, capsule, project_id)
        lesson = self._activate(lesson_id, capsule, project_id) if lesson_id else None
        self.telemetry.emit(
            "failure.recorded",
            now,
            project_id=project_id,
            capsule_id=capsule.id,
            created=recorded.created,
            occurrences=capsule.occurrence_count,
        )
        return FailureOutcome(
            capsule=capsule.model_copy(update={"lesson_id": lesson_id}),
            created=recorded.created,
            lesson_id=lesson_id,
            lesson_status=lesson.status.value if lesson else None,
        )

    def _write_lesson(
        self, report: FailureReport, capsule: FailureCapsule, project_id: str
    ) -> str | None:
        lesson = MemoryInput(
            content=lesson_content(report),
            memory_type=MemoryType.LESSON_LEARNED,
            source=Source.AUTO_EXTRACTED,
            confidence=LESSON_CONFIDENCE,
            tags=list(dict.fromkeys([LESSON_TAG, *report.tags]))[:MAX_TAGS],
            rationale=f"derived from failure capsule {capsule.id}",
            session_id=report.session_id,
            agent_id=report.agent_id,
            visibility=report.visibility,
        )
        dedup = not self._repeats_across_audiences(lesson, project_id)
        (outcome,) = self.writer.write([lesson], project_id=project_id, dedup=dedup).outcomes
        linked = failures.link_lesson(
            self.store, capsule.id, outcome.id, project_id=project_id, now=self._now()
        )
        return linked if linked is not None else self._linked_lesson(capsule.id, project_id)

    def _repeats_across_audiences(self, lesson: MemoryInput, project_id: str) -> bool:
        """Whether the lesson's text repeats a live memory of another audience (the
        other visibility, or private to another agent). remember counts an exact
        repeat into any memory its writer sees; a lesson is not counted so: a
        private report would raise another agent's shared lesson (its count, its
        activation), and a shared one would teach a lesson only its agent reads.
        Such a lesson is written as a memory of its own."""
        found = self.stager.exact_duplicates([content_key(lesson.content)], project_id=project_id)
        ids = [same.id for repeats in found.values() for same in repeats]
        audience = _audience(lesson.visibility, lesson.agent_id)
        return any(
            memory is not None and _audience(memory.visibility, memory.agent_id) != audience
            for memory in self.memories.get_many(ids, project_id=project_id)
        )

    def _linked_lesson(self, capsule_id: str, project_id: str) -> str | None:
        """The lesson another report linked while this one wrote its own."""
        (capsule,) = self.list(project_id=project_id, capsule_id=capsule_id)
        return capsule.lesson_id

    def _activate(self, lesson_id: str, capsule: FailureCapsule, project_id: str) -> Memory:
        """Recurrence or a recorded fix activates the lesson (staging rules, logged);
        a lesson a reviewer rejected (archived) stays as the reviewer left it."""
        lesson = self.memories.get(lesson_id, project_id=project_id)
        if lesson.status is not Status.CANDIDATE or lesson.tier is Tier.ARCHIVED:
            return lesson
        activated = self.stager.activate_earned([lesson], project_id=project_id)
        if not activated and capsule.fix is not None:
            activated = self.stager.activate([(lesson.id, Signal.FIX)], project_id=project_id)
        return self.memories.get(lesson_id, project_id=project_id) if activated else lesson

    def list(
        self,
        *,
        project_id: str,
        session_id: str | None = None,
        capsule_id: str | None = None,
        lesson_ids: list[str] | None = None,
        limit: int = 20,
    ) -> list[FailureCapsule]:
        """Capsules, most recently seen first."""
        check_between("limit", limit, 1, MAX_LIST)
        return failures.capsules(
            self.store,
            session_id=session_id,
            capsule_id=capsule_id,
            lesson_ids=lesson_ids,
            limit=limit,
            project_id=project_id,
        )

    def get(self, capsule_id: str, *, project_id: str) -> FailureCapsule:
        found = self.list(project_id=project_id, capsule_id=capsule_id, limit=1)
        if not found:
            raise NotFoundError(
                f"id: no failure capsule {capsule_id!r} in project {project_id!r}", field="id"
            )
        return found[0]

    def explain_lessons(self, result: ContextResult, *, project_id: str) -> ContextResult:
        """A knowledge context whose lessons learned from failures carry their
        capsule: what failed, how often, and what fixed it."""
        lessons = [
            item.memory.id
            for item in result.items
            if item.memory.memory_type is MemoryType.LESSON_LEARNED
        ]
        if not lessons:
            return result
        found = self.list(project_id=project_id, lesson_ids=lessons, limit=MAX_LIST)
        taught = {capsule.lesson_id: capsule for capsule in found}
        if not taught:
            return result
        items = [
            item.model_copy(update={"failure": taught[item.memory.id]})
            if item.memory.id in taught
            else item
            for item in result.items
        ]
        return result.model_copy(update={"items": items})


def _audience(visibility: Visibility | None, agent_id: str | None) -> tuple[str, str | None]:
    """Who reads a memory: everyone when shared, else its agent alone."""
    if visibility is Visibility.PRIVATE and agent_id is not None:
        return (Visibility.PRIVATE.value, agent_id)
    return (Visibility.SHARED.value, None)
