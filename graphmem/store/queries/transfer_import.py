"""Writing an import into a project: graphmem's JSONL a page of records at a
time, Sky's memory files, and taking back what a failed import created.

Each page statement merges its rows by id and answers per line (a row carries
the number of the file line it came from), so an import can say what became
of every line.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graphmem.store import Store
from graphmem.store.queries import first, records
from graphmem.store.queries.memories import same_text

IMPORTS = {
    "session": "import_sessions",
    "promotion_run": "import_promotion_runs",
    "promotion_event": "import_promotion_events",
    "staging_event": "import_staging_events",
    "archival_event": "import_archival_events",
    "failure_capsule": "import_failure_capsules",
    "delivery": "import_deliveries",
}
"""The kinds whose statement merges each row it can link and says whether it was new."""


def project(store: Store, project_id: str, props: Mapping[str, Any]) -> bool:
    """Merge the project node's properties; whether the node was new."""
    (row,) = store.write("import_project", {"project_id": project_id, "props": props})
    fresh: bool = row["fresh"]
    return fresh


def linked(
    store: Store, kind: str, rows: Sequence[Mapping[str, Any]], project_id: str
) -> dict[int, bool]:
    """Merge rows of ``kind`` (one of ``IMPORTS``): for each line written, whether
    it was new. A line left out names something the project does not hold."""
    written = store.write(IMPORTS[kind], {"rows": rows, "project_id": project_id})
    return {row["line"]: row["fresh"] for row in written}


def owners(store: Store, ids: Sequence[str]) -> dict[str, str]:
    """The project holding each of memories ``ids``, in any project of the store;
    an id no memory has is left out."""
    found = store.read("import_existing_memories", {"ids": ids})
    return {row["id"]: row["project_id"] for row in found}


def memories(store: Store, rows: Sequence[Mapping[str, Any]], project_id: str) -> set[int]:
    """Merge memory rows by id; the lines written (a row whose session the
    project lacks is left out)."""
    (written,) = store.write("import_memories", {"rows": rows, "project_id": project_id})
    return set(written["written"])


def label_marks(store: Store, ids: Sequence[str], project_id: str) -> int:
    """Label ``:NeedsReview`` the imported memories of ``ids`` that carry a review
    mark (an import copies properties, not labels); how many were labelled."""
    rows = store.write("label_imported_marks", {"ids": ids, "project_id": project_id})
    labelled: int = first(rows, "labelled", 0)
    return labelled


@dataclass(frozen=True, slots=True)
class ImportedRelation:
    """What became of one relation line: whether each end is a memory of the
    project and, when both are, whether the relation was there already."""

    line: int
    from_found: bool
    to_found: bool
    existed: bool


def relations(
    store: Store, rows: Sequence[Mapping[str, Any]], project_id: str
) -> list[ImportedRelation]:
    """Merge relation rows between memories of the project, a record per line."""
    written = store.write("import_relations", {"rows": rows, "project_id": project_id})
    return records(ImportedRelation, written)


def roll_back(store: Store, project_id: str, created: Mapping[str, Sequence[Any]]) -> None:
    """Delete what an import created: ``created`` holds each kind's record keys
    (a relation's is its type and ends), and the project only if it was made."""
    store.write(
        "import_rollback",
        {
            "project_id": project_id,
            "project_created": bool(created.get("project")),
            "session_ids": created.get("session", []),
            "memory_ids": created.get("memory", []),
            "relations": [
                {"type": kind, "from_id": from_id, "to_id": to_id}
                for kind, from_id, to_id in created.get("relation", [])
            ],
            "run_ids": created.get("promotion_run", []),
            "event_ids": [
                *created.get("promotion_event", []),
                *created.get("staging_event", []),
                *created.get("archival_event", []),
            ],
            "capsule_ids": created.get("failure_capsule", []),
        },
    )


def oldest_by_text(store: Store, keys: Collection[str], project_id: str) -> dict[str, str]:
    """For each normalised text of ``keys`` (``content_key``) an unarchived memory
    of the project holds, the id of the oldest such memory the viewer sees."""
    oldest: dict[str, str] = {}
    for same in same_text(store, keys, project_id):  # oldest first
        oldest.setdefault(same.key, same.id)
    return oldest


def sky_memories(
    store: Store,
    *,
    project_id: str,
    session_id: str,
    now: float,
    rows: Sequence[Mapping[str, Any]],
    merges: Sequence[Mapping[str, Any]],
    max_tags: int,
) -> None:
    """Create the memories ``rows`` of a Sky file and merge ``merges`` (an id, tags
    to join and a long-term tier to lift to) into memories of the project."""
    store.write(
        "import_sky_memories",
        {
            "project_id": project_id,
            "session_id": session_id,
            "now": now,
            "rows": rows,
            "merges": merges,
            "max_tags": max_tags,
        },
    )
