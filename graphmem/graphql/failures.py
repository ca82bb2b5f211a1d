"""Failure capsules: report a failure (``recordFailure``), look capsules up.

A report is stored as a capsule linked to its session and the memories that
were in context; its lesson (a ``lesson_learned`` candidate) goes to the
review queue, and the same failure reported again counts on both.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime

import strawberry
from starlette.concurrency import run_in_threadpool

from graphmem.domain import capsules, kinds
from graphmem.domain.clock import to_datetime
from graphmem.graphql.errors import parse_input
from graphmem.graphql.operations import ProjectId, write
from graphmem.graphql.types.common import Info
from graphmem.graphql.types.memory import Memory


@strawberry.input(description="A failure an agent or a hook reports; error is required.")
class FailureReportInput:
    error: str = strawberry.field(description="The error text as the tool gave it.")
    attempted: str | None = strawberry.field(
        default=None, description="What the agent was trying to do."
    )
    tool: str | None = strawberry.field(default=None, description="The tool that failed.")
    command: str | None = None
    files: list[str] = strawberry.field(
        default_factory=list, description="Files the step worked on."
    )
    context_memory_ids: list[strawberry.ID] = strawberry.field(
        default_factory=list,
        description="Memories that were in context when it failed; linked to the capsule.",
    )
    fix: str | None = strawberry.field(
        default=None, description="What fixed it, when known; activates the lesson."
    )
    session_id: strawberry.ID | None = None
    agent_id: strawberry.ID | None = strawberry.field(
        default=None,
        description="Who reports it; a key bound to an agent reports as that agent only.",
    )
    visibility: kinds.Visibility | None = strawberry.field(
        default=None,
        description="Who may read the capsule and its lesson: PRIVATE to its agent or SHARED "
        "with the project; the project's default when absent (always SHARED without an agent).",
    )
    tags: list[str] = strawberry.field(default_factory=list)


@strawberry.type(
    description="A failure and its recurrences; its lesson explains it. Read only by those "
    "who may read it and its lesson."
)
class FailureCapsule:
    model: strawberry.Private[capsules.FailureCapsule]
    id: strawberry.ID
    project_id: strawberry.ID
    signature: str = strawberry.field(
        description="What makes two reports the same failure: the tool and the error "
        "with run-specific parts (numbers, paths, ids, times) taken out."
    )
    error: str = strawberry.field(description="The error of the latest report.")
    attempted: str | None
    tool: str | None
    command: str | None
    files: list[str]
    fix: str | None
    occurrence_count: int = strawberry.field(description="Reports of this failure so far.")
    session_ids: list[strawberry.ID]
    context_memory_ids: list[strawberry.ID]
    lesson_id: strawberry.ID | None
    first_seen_at: datetime
    last_seen_at: datetime
    fixed_at: datetime | None
    agent_id: strawberry.ID | None = strawberry.field(description="The agent of its first report.")
    visibility: kinds.Visibility = strawberry.field(
        description="PRIVATE to its agent or SHARED with the project, as its report said; a "
        "capsule stored before capsules kept visibility is SHARED."
    )

    viewer: strawberry.Private[str | None] = None
    """The agent view its lesson and context memories are read in (see ``Memory.viewer``)."""

    @classmethod
    def of(cls, capsule: capsules.FailureCapsule, viewer: str | None = None) -> FailureCapsule:
        return cls(
            viewer=viewer,
            model=capsule,
            id=strawberry.ID(capsule.id),
            project_id=strawberry.ID(capsule.project_id),
            signature=capsule.signature,
            error=capsule.error,
            attempted=capsule.attempted,
            tool=capsule.tool,
            command=capsule.command,
            files=list(capsule.files),
            fix=capsule.fix,
            occurrence_count=capsule.occurrence_count,
            session_ids=[strawberry.ID(s) for s in capsule.session_ids],
            context_memory_ids=[strawberry.ID(m) for m in capsule.context_memory_ids],
            lesson_id=strawberry.ID(capsule.lesson_id) if capsule.lesson_id else None,
            first_seen_at=to_datetime(capsule.first_seen_at) or datetime.min,
            last_seen_at=to_datetime(capsule.last_seen_at) or datetime.min,
            fixed_at=to_datetime(capsule.fixed_at),
            agent_id=strawberry.ID(capsule.agent_id) if capsule.agent_id else None,
            visibility=capsule.visibility,
        )

    @strawberry.field(description="The lesson_learned memory derived from this failure.")
    async def lesson(self, info: Info) -> Memory | None:
        if self.model.lesson_id is None:
            return None
        loader = info.context.loaders.view(self.viewer).memories(self.model.project_id)
        found = await loader.load(self.model.lesson_id)
        return Memory.of(found, self.viewer) if found else None

    @strawberry.field(description="The memories that were in context when it failed.")
    async def context_memories(self, info: Info) -> list[Memory]:
        loader = info.context.loaders.view(self.viewer).memories(self.model.project_id)
        found = await loader.load_many(self.model.context_memory_ids)
        return [Memory.of(memory, self.viewer) for memory in found if memory]


@strawberry.type(description="What recording a failure did.")
class RecordFailureResult:
    capsule: FailureCapsule
    created: bool = strawberry.field(
        description="False: the same failure was seen before and counted on its capsule."
    )
    lesson_status: str | None = strawberry.field(
        description="The lesson's status after this report: candidate or active."
    )


@strawberry.type
class FailureQuery:
    @strawberry.field(description="Failure capsules, most recently seen first.")
    async def failure_capsules(
        self,
        info: Info,
        session_id: strawberry.ID | None = None,
        limit: int = 20,
        project_id: ProjectId = None,
    ) -> list[FailureCapsule]:
        found = await run_in_threadpool(
            info.context.gm.failure_capsules,
            session_id=session_id,
            limit=limit,
            project_id=project_id,
        )
        return [FailureCapsule.of(capsule) for capsule in found]

    @strawberry.field(description="One failure capsule by id.")
    async def failure_capsule(
        self, info: Info, id: strawberry.ID, project_id: ProjectId = None
    ) -> FailureCapsule:
        found = await run_in_threadpool(
            info.context.gm.failure_capsule, str(id), project_id=project_id
        )
        return FailureCapsule.of(found)


@strawberry.type
class FailureMutation:
    @strawberry.mutation(
        description="Report a failure: stored as a capsule (or counted on the existing one "
        "when the same failure was seen before), with a lesson_learned candidate in the "
        "review queue that recurrence or a fix activates."
    )
    async def record_failure(
        self, info: Info, input: FailureReportInput, project_id: ProjectId = None
    ) -> RecordFailureResult | None:
        report = parse_input(capsules.FailureReport, dataclasses.asdict(input), "input")
        outcome = await write(info, info.context.gm.record_failure, report, project_id=project_id)
        return RecordFailureResult(
            capsule=FailureCapsule.of(outcome.capsule),
            created=outcome.created,
            lesson_status=outcome.lesson_status,
        )
