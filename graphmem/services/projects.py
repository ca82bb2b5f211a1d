"""Projects: the per-project settings (``ProjectSettings``), kept as properties
of the ``:Project`` node, read and changed through named statements."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphmem.domain.checks import parse
from graphmem.domain.projects import ProjectSettings, ProjectSettingsUpdate
from graphmem.services.base import Service


class Projects(Service):
    def settings(self, *, project_id: str) -> ProjectSettings:
        """The project's settings; the defaults for a project that never set them."""
        rows = self.store.read("project_settings", {"project_id": project_id})
        return ProjectSettings.stored(rows[0]["props"] if rows else None)

    def set_settings(
        self, update: ProjectSettingsUpdate | Mapping[str, Any], *, project_id: str
    ) -> ProjectSettings:
        """Change the settings given; the others keep their values. Validated
        before anything is written."""
        change = parse(ProjectSettingsUpdate, update)
        rows = self.store.write(
            "set_project_settings",
            {"project_id": project_id, "settings": change.stored_fields(), "now": self._now()},
        )
        return ProjectSettings.stored(rows[0]["props"])
