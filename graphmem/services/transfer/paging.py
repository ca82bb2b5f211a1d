"""Reading a project a page at a time, so exports of any size run in bounded memory."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any

from graphmem.domain.errors import InvalidInputError
from graphmem.domain.viewer import acting_agent
from graphmem.services.memories import REASONS, REFERENCES, named_ids, unreadable, without_ids
from graphmem.store import Store
from graphmem.store.queries import sessions, transfer_export
from graphmem.store.queries.transfer_export import (
    Exported,
    ExportedProject,
    ExportedRelation,
    ExportedRun,
)

READ_PAGE = 2_000
"""Records per read of an export. Each page's query finds the project's
memories past the last id and sorts them, so a page costs about as much as
the project is large: few large pages beat many small ones (2,000 memories
with embeddings are ~16 MB in flight)."""
WRITE_PAGE = 500
"""Records per write of an import (and per statement of a Cypher script)."""


def pages(
    store: Store, kind: str, project_id: str, size: int = READ_PAGE
) -> Iterator[list[Exported]]:
    """The records of ``kind`` (``transfer_export.EXPORTS``), page by page in id order."""
    after = ""
    while rows := transfer_export.page(store, kind, project_id, after, size):
        page = [replace(row, props=without_internal(row.props)) for row in rows]
        yield readable(store, kind, page, project_id) if acting_agent() else page
        after = rows[-1].props["id"]
        if len(rows) < size:
            return


OF_SESSIONS = frozenset({"session", "promotion_run"})
"""Kinds whose records are of a session: a session itself, or a run naming it."""
NAMING = {
    "memory": ((), ()),
    "memory_fields": ((), ()),
    "staging_event": (("merged_from",), ()),
    "archival_event": (("other_id",), ("reason",)),
}
"""Kinds whose records name memories, with the id fields and texts naming them
beyond a memory's own (``graphmem.services.memories.REFERENCES``)."""


def readable(store: Store, kind: str, rows: list[Exported], project_id: str) -> list[Exported]:
    """A page as the acting agent may read it: without the sessions it cannot see
    (nor their runs), and naming only memories it may read. The statements
    already leave out what is another agent's private memory."""
    if kind in OF_SESSIONS:
        of_rows = {_session_of(row) for row in rows}
        hidden = sessions.hidden(store, sorted(s for s in of_rows if s), project_id)
        return [row for row in rows if _session_of(row) not in hidden]
    if kind not in NAMING:
        return rows
    extra_ids, extra_texts = NAMING[kind]
    ids = (*extra_ids, *REFERENCES)
    texts = (*extra_texts, *REASONS)
    named = set().union(*(named_ids(row.props, ids, texts) for row in rows))
    unseen = unreadable(store, named)
    if not unseen:
        return rows
    return [replace(row, props=without_ids(row.props, unseen, ids, texts)) for row in rows]


def _session_of(row: Exported) -> str | None:
    """The session a record is of: a run's, or a session's own id."""
    return row.for_session if isinstance(row, ExportedRun) else row.props["id"]


def relations_of(store: Store, project_id: str, rows: list[Exported]) -> list[ExportedRelation]:
    """The relations leaving a page of memories for memories of the same project."""
    return transfer_export.relations(store, [row.props["id"] for row in rows], project_id)


def project_summary(store: Store, project_id: str) -> ExportedProject:
    """The project node's properties and how many sessions and memories it holds;
    a project with none of them is not there to export."""
    project = transfer_export.project(store, project_id)
    if project.props is None and not project.memories and not project.sessions:
        raise InvalidInputError(f"project: no project {project_id!r} to export", field="project")
    if project.props is not None:
        project = replace(project, props=without_internal(project.props))
    return project


INTERNAL = re.compile(r"^_|_lease_owner$")
"""Properties that say which server holds a scheduler lease (``*_lease_owner``)
or are a lock's leftovers (``_lock``): they describe this deployment, not the
project, and an import elsewhere must not inherit another server's claims."""


def without_internal(props: Mapping[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in props.items() if not INTERNAL.search(name)}
