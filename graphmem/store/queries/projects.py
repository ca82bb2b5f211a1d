"""A project's settings, kept as properties of its ``:Project`` node."""

from __future__ import annotations

from typing import Any

from graphmem.domain.projects import ProjectSettings
from graphmem.store import Store
from graphmem.store.queries import first


def settings(store: Store, project_id: str) -> ProjectSettings:
    """The project's settings; the defaults for a project that never set them."""
    return ProjectSettings.stored(
        first(store.read("project_settings", {"project_id": project_id}), "props")
    )


def set_settings(
    store: Store, project_id: str, fields: dict[str, Any], now: float
) -> ProjectSettings:
    """Set ``fields`` on the project node (made if need be); the settings after."""
    rows = store.write(
        "set_project_settings", {"project_id": project_id, "settings": fields, "now": now}
    )
    return ProjectSettings.stored(rows[0]["props"])
