"""What retrieval reads and writes of use and embeddings: a scope's highest
access count, a retrieval counted (and a delivery put on record), and the
memories still without a vector."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graphmem.store import Store
from graphmem.store.queries import first, records


@dataclass(frozen=True, slots=True)
class Unembedded:
    """A memory without a vector, with the text its vector is made of."""

    id: str
    project_id: str
    content: str
    rationale: str | None


def max_access(store: Store, project_id: str, session_id: str | None) -> int:
    """The highest access count in the session, or in the project with none."""
    if session_id is None:
        rows = store.read("max_access_project", {"project_id": project_id})
    else:
        rows = store.read(
            "max_access_session", {"project_id": project_id, "session_id": session_id}
        )
    return int(first(rows, "max_access_count", 0))


def record_context(store: Store, delivery: Mapping[str, Any], counts: Mapping[str, Any]) -> None:
    """Count a retrieval on ``counts["ids"]`` and put ``delivery`` on record, in one write."""
    store.write("record_context", {**delivery, **counts})


def record_delivery(store: Store, delivery: Mapping[str, Any]) -> None:
    """Put a delivery of nothing on record."""
    store.write("record_delivery", dict(delivery))


def record_retrievals(store: Store, counts: Mapping[str, Any]) -> None:
    """Count a retrieval on each memory of ``counts["ids"]``."""
    store.write("record_retrievals", counts)


def set_embeddings(store: Store, rows: Sequence[Mapping[str, Any]]) -> None:
    """Write ``{id, project_id, embedding}`` rows; a null embedding removes one."""
    store.write("set_embeddings", {"rows": list(rows)})


def count_unembedded(store: Store, project_id: str | None) -> int:
    """How many memories of the project (``None``: of every project) have no vector."""
    rows = store.read("count_missing_embeddings", {"project_id": project_id})
    return int(first(rows, "missing", 0))


def unembedded(store: Store, project_id: str | None, after: str, limit: int) -> list[Unembedded]:
    """The next ``limit`` memories without a vector, by id after ``after``."""
    rows = store.read(
        "missing_embeddings", {"project_id": project_id, "after": after, "limit": limit}
    )
    return records(Unembedded, rows)
