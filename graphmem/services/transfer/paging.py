"""Reading a project a page at a time, so exports of any size run in bounded memory."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from graphmem.domain.errors import InvalidInputError
from graphmem.domain.viewer import acting_agent
from graphmem.services.memories import REASONS, REFERENCES, named_ids, unreadable, without_ids
from graphmem.store import Row, Store

READ_PAGE = 2_000
"""Records per read of an export. Each page's query finds the project's
memories past the last id and sorts them, so a page costs about as much as
the project is large: few large pages beat many small ones (2,000 memories
with embeddings are ~16 MB in flight)."""
WRITE_PAGE = 500
"""Records per write of an import (and per statement of a Cypher script)."""


def pages(
    store: Store, statement: str, project_id: str, size: int = READ_PAGE
) -> Iterator[list[Row]]:
    """The rows of an ``export_*`` statement, page by page in id order."""
    after = ""
    while rows := store.read(statement, {"project_id": project_id, "after": after, "limit": size}):
        page = [{**row, "props": without_internal(row["props"])} for row in rows]
        yield readable(store, statement, page, project_id) if acting_agent() else page
        after = rows[-1]["props"]["id"]
        if len(rows) < size:
            return


SESSION_OF = {"export_sessions": None, "export_promotion_runs": "for_session"}
"""Statements whose rows are of a session: the row's own id, or the column naming it."""
NAMING = {
    "export_memories": ((), ()),
    "export_memory_fields": ((), ()),
    "export_staging_events": (("merged_from",), ()),
    "export_archival_events": (("other_id",), ("reason",)),
}
"""Statements whose rows name memories, with the id fields and texts naming them
beyond a memory's own (``graphmem.services.memories.REFERENCES``)."""


def readable(store: Store, statement: str, rows: list[Row], project_id: str) -> list[Row]:
    """A page as the acting agent may read it: without the sessions it cannot see
    (nor their runs), and naming only memories it may read. The statements
    already leave out what is another agent's private memory."""
    if statement in SESSION_OF:
        column = SESSION_OF[statement]
        sessions = {row[column] if column else row["props"]["id"] for row in rows}
        found = store.read(
            "hidden_sessions",
            {"ids": sorted(s for s in sessions if s), "project_id": project_id},
        )
        hidden = {row["id"] for row in found}
        return [r for r in rows if (r[column] if column else r["props"]["id"]) not in hidden]
    if statement not in NAMING:
        return rows
    extra_ids, extra_texts = NAMING[statement]
    ids = (*extra_ids, *REFERENCES)
    texts = (*extra_texts, *REASONS)
    named = set().union(*(named_ids(row["props"], ids, texts) for row in rows))
    unseen = unreadable(store, named)
    if not unseen:
        return rows
    return [{**row, "props": without_ids(row["props"], unseen, ids, texts)} for row in rows]


def relations_of(store: Store, project_id: str, rows: list[Row]) -> list[Row]:
    """The relations leaving a page of memories for memories of the same project."""
    ids = [row["props"]["id"] for row in rows]
    return store.read("export_relations", {"ids": ids, "project_id": project_id})


def project_summary(store: Store, project_id: str) -> Row:
    """The project node's properties and how many sessions and memories it holds;
    a project with none of them is not there to export."""
    (project,) = store.read("export_project", {"project_id": project_id})
    if project["props"] is None and not project["memories"] and not project["sessions"]:
        raise InvalidInputError(f"project: no project {project_id!r} to export", field="project")
    if project["props"] is not None:
        project = {**project, "props": without_internal(project["props"])}
    return project


INTERNAL = re.compile(r"^_|_lease_owner$")
"""Properties that say which server holds a scheduler lease (``*_lease_owner``)
or are a lock's leftovers (``_lock``): they describe this deployment, not the
project, and an import elsewhere must not inherit another server's claims."""


def without_internal(props: Mapping[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in props.items() if not INTERNAL.search(name)}
