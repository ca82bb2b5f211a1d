"""Projects: the per-project settings (``ProjectSettings``), kept as properties
of the ``:Project`` node, read and changed through named statements."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphmem.domain.checks import parse
from graphmem.domain.projects import ProjectSettings, ProjectSettingsUpdate
from graphmem.services.base import Service
from graphmem.store.queries import projects


class Projects(Service):
    def settings(self, *, project_id: str) -> ProjectSettings:
        """The project's settings; the defaults for a project that never set them."""
        return projects.settings(self.store, project_id)

    def set_settings(
        self, update: ProjectSettingsUpdate | Mapping[str, Any], *, project_id: str
    ) -> ProjectSettings:
        """Change the settings given; the others keep their values. Validated
        before anything is written."""
        change = parse(ProjectSettingsUpdate, update)
        return projects.set_settings(self.store, project_id, change.stored_fields(), self._now())
