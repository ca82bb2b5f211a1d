"""Reading a project a page at a time, so exports of any size run in bounded memory."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from graphmem.domain.errors import InvalidInputError
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
        yield [{**row, "props": without_internal(row["props"])} for row in rows]
        after = rows[-1]["props"]["id"]
        if len(rows) < size:
            return


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
