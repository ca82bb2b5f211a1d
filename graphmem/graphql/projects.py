"""Projects: which there are (``projects``, the ones the caller's key may read)
and how one runs (``ProjectSettings``), read by anyone who may read the project
and changed with an ``admin`` key."""

from __future__ import annotations

import dataclasses

import strawberry
from starlette.concurrency import run_in_threadpool

from graphmem.domain import kinds, projects
from graphmem.graphql.errors import parse_input
from graphmem.graphql.operations import ProjectId, write
from graphmem.graphql.types.common import Info
from graphmem.operations.access import readable
from graphmem.settings import env_name

strawberry.enum(
    kinds.AutoLink,
    description="A link graphmem writes itself when a memory is stored: RELATED_TO the "
    "previous turn of its session, or memories naming the same entity.",
)


@strawberry.type(description="How one project runs; a project that set nothing has the defaults.")
class ProjectSettings:
    project_id: strawberry.ID
    auto_links: list[kinds.AutoLink] = strawberry.field(
        description="Links written at ingest, as RELATED_TO with a rationale; none by default."
    )
    default_visibility: kinds.Visibility | None = strawberry.field(
        description="Who sees a new memory whose agent does not say; null: the server's "
        f"{env_name('default_visibility')}."
    )

    @classmethod
    def of(cls, settings: projects.ProjectSettings, project_id: str) -> ProjectSettings:
        return cls(
            project_id=strawberry.ID(project_id),
            auto_links=list(settings.auto_links),
            default_visibility=settings.default_visibility,
        )


@strawberry.input(description="Settings to change; a field left out or null keeps its value.")
class ProjectSettingsInput:
    auto_links: list[kinds.AutoLink] | None = strawberry.field(
        default=None, description="Which links to write at ingest; [] turns them all off."
    )
    default_visibility: kinds.Visibility | None = strawberry.field(
        default=None, description="Who sees a new memory whose agent does not say."
    )


@strawberry.type
class ProjectQuery:
    @strawberry.field(
        description="The projects this caller may read that hold memories, sessions or "
        "settings, sorted."
    )
    async def projects(self, info: Info) -> list[strawberry.ID]:
        known = await run_in_threadpool(info.context.gm.project_ids)
        return [strawberry.ID(p) for p in readable(info.context.principal, known)]

    @strawberry.field(description="The project's settings.")
    async def project_settings(self, info: Info, project_id: ProjectId = None) -> ProjectSettings:
        gm = info.context.gm
        settings = await run_in_threadpool(gm.project_settings, project_id=project_id)
        return ProjectSettings.of(settings, str(project_id))


@strawberry.type
class ProjectMutation:
    @strawberry.mutation(
        description="Change some of the project's settings; answers with all of them as they "
        "now stand."
    )
    async def set_project_settings(
        self, info: Info, input: ProjectSettingsInput, project_id: ProjectId = None
    ) -> ProjectSettings | None:
        change = parse_input(projects.ProjectSettingsUpdate, dataclasses.asdict(input), "input")
        gm = info.context.gm
        settings = await write(info, gm.set_project_settings, change, project_id=project_id)
        return ProjectSettings.of(settings, str(project_id))
