"""A page of prepared JSONL records written to the store, one statement per page.

Each statement merges the records by id and says, for each line, whether it
created or merged a record, or left it out because something it links to is
not in the project; that becomes the line's ``Outcome``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from graphmem.services.transfer.jsonl import LINKS
from graphmem.store import Store
from graphmem.store.queries import transfer_import

LINKED = {"session": "session", "memory": "session", "promotion_run": "session",
          "promotion_event": "memory", "staging_event": "memory",
          "archival_event": "memory"}  # fmt: skip
"""What each kind's link column names."""


class Outcome(NamedTuple):
    """What became of one line: ``created``, ``merged`` or ``skipped`` (with the reason)."""

    line: int
    result: str
    reason: str = ""


WritePage = Callable[[Store, str, list[dict[str, Any]]], list[Outcome]]
"""(store, target project, rows of one kind) -> each row's outcome."""


def _write_project(store: Store, target: str, rows: list[dict[str, Any]]) -> list[Outcome]:
    (row,) = rows
    fresh = transfer_import.project(store, target, row["props"])
    return [Outcome(row["line"], "created" if fresh else "merged")]


def _write_fresh(kind: str) -> WritePage:
    """Sessions and logs: the statement merges each row it can link and says
    whether it was new; a row it leaves out names something the project lacks."""

    def write(store: Store, target: str, rows: list[dict[str, Any]]) -> list[Outcome]:
        fresh = transfer_import.linked(store, kind, rows, target)
        return [
            Outcome(row["line"], "created" if fresh[row["line"]] else "merged")
            if row["line"] in fresh
            else _unlinked(kind, row, target)
            for row in rows
        ]

    return write


def _unlinked(kind: str, row: Mapping[str, Any], project: str) -> Outcome:
    if kind == "failure_capsule":
        return Outcome(
            row["line"],
            "skipped",
            f"for_sessions, in_context or taught: names a session or memory project {project} "
            "does not hold",
        )
    link = LINKS[kind]
    return Outcome(
        row["line"], "skipped", f"{link}: no {LINKED[kind]} {row[link]} in project {project}"
    )


def _write_memories(store: Store, target: str, rows: list[dict[str, Any]]) -> list[Outcome]:
    """Memories merge by id within the target project only: a row whose id
    another project holds is left out, the rest written in one statement."""
    ids = [row["props"]["id"] for row in rows]
    owners = transfer_import.owners(store, ids)
    # Placed just before (placing.Renames): an id held elsewhere now was taken
    # meanwhile, and is left out rather than merged into another project's memory.
    taken = [row for row in rows if owners.get(row["props"]["id"], target) != target]
    if not taken:
        return _write_owned(store, target, rows, owners)
    lines = {row["line"] for row in taken}
    kept = [row for row in rows if row["line"] not in lines]
    return [_taken(row) for row in taken] + (_write_memories(store, target, kept) if kept else [])


def _taken(row: Mapping[str, Any]) -> Outcome:
    again = "was taken while this import ran; import the file again"
    return Outcome(row["line"], "skipped", f"props.id: {row['props']['id']} {again}")


def _write_owned(
    store: Store, target: str, rows: list[dict[str, Any]], owners: Mapping[str, str]
) -> list[Outcome]:
    """Rows whose ids are new or already the target's: each merged or created,
    unless the statement left it out for a session the project lacks."""
    lines = transfer_import.memories(store, rows, target)
    marked = [row["props"]["id"] for row in rows if row["props"].get("review_change")]
    if marked:
        transfer_import.label_marks(store, marked, target)
    return [
        Outcome(row["line"], "merged" if row["props"]["id"] in owners else "created")
        if row["line"] in lines
        else _unlinked("memory", row, target)
        for row in rows
    ]


def _write_relations(store: Store, target: str, rows: list[dict[str, Any]]) -> list[Outcome]:
    written = transfer_import.relations(store, rows, target)
    by_line = {row["line"]: row for row in rows}
    outcomes = []
    for w in written:
        row = by_line[w.line]
        missing = [end for end, found in (("from_id", w.from_found), ("to_id", w.to_found))
                   if not found]  # fmt: skip
        if missing:
            ends = " and ".join(f"{end} {row[end]}" for end in missing)
            outcomes.append(Outcome(w.line, "skipped",
                                    f"unknown relation endpoint: {ends} is no memory of project "
                                    f"{target}"))  # fmt: skip
        else:
            outcomes.append(Outcome(w.line, "merged" if w.existed else "created"))
    return outcomes


WRITE: dict[str, WritePage] = {
    "project": _write_project,
    "session": _write_fresh("session"),
    "memory": _write_memories,
    "relation": _write_relations,
    "promotion_run": _write_fresh("promotion_run"),
    "promotion_event": _write_fresh("promotion_event"),
    "staging_event": _write_fresh("staging_event"),
    "archival_event": _write_fresh("archival_event"),
    "failure_capsule": _write_fresh("failure_capsule"),
    "delivery": _write_fresh("delivery"),
}
