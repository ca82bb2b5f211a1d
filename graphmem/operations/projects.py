"""Operations on projects: which there are, and each one's settings."""

from __future__ import annotations

import builtins
from collections.abc import Mapping
from typing import Any

from graphmem.domain.auth import Role
from graphmem.domain.checks import parse
from graphmem.domain.projects import ProjectSettings, ProjectSettingsUpdate
from graphmem.operations import documents as doc
from graphmem.operations.codec import encode, read
from graphmem.operations.entry import operation
from graphmem.operations.requests import Call


class ProjectOperations:
    @operation(Role.READ, "projects", cross_project=True)
    def project_ids() -> Call[builtins.list[str]]:
        """Every project holding memories, sessions or settings that the caller may
        read, sorted: the projects a caller can name. A project is never created
        by naming it, so this is how a typo is told from an empty project."""
        return Call("query { projects }", {}, lambda data: list(data["projects"]))

    @operation(Role.READ)
    def project_settings(*, project_id: str | None = None) -> Call[ProjectSettings]:
        """The project's settings (the defaults until some are set)."""
        document = "query($p: ID) { projectSettings(projectId: $p) { ...G } }"
        return Call(
            document + doc.PROJECT,
            {"p": project_id},
            lambda data: read(ProjectSettings, data["projectSettings"]),
        )

    @operation(Role.ADMIN, whole_project=True)
    def set_project_settings(
        update: ProjectSettingsUpdate | Mapping[str, Any] | None = None,
        *,
        project_id: str | None = None,
        **settings: Any,
    ) -> Call[ProjectSettings]:
        """Change some of the project's settings (an admin key's call); the others
        keep their values."""
        if update is not None and settings:
            raise TypeError("pass a whole ProjectSettingsUpdate or keyword settings, not both")
        document = """mutation($input: ProjectSettingsInput!, $p: ID) {
          setProjectSettings(input: $input, projectId: $p) { ...G }
        }"""
        change = parse(ProjectSettingsUpdate, settings if update is None else update)
        return Call(
            document + doc.PROJECT,
            {"input": encode(change), "p": project_id},
            lambda data: read(ProjectSettings, data["setProjectSettings"]),
        )
