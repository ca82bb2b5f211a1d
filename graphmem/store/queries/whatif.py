"""What-if runs: the sessions a rules change is tried on."""

from __future__ import annotations

from graphmem.store import Store


def sessions(store: Store, project_id: str) -> list[str]:
    """The ids of the project's sessions, in id order."""
    return [row["id"] for row in store.read("whatif_sessions", {"project_id": project_id})]
