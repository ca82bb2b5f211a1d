"""Moving a whole project between stores (FalkorDB <-> Neo4j) as graphmem's own JSONL.

The file is one JSON object per line, so export and import both stream: a
project of any size moves in pages of ``page_size`` records and neither side
holds more than a page (plus, on export, a spool file of relations). Lines
come in this order, which import checks:

    {"kind": "header", "format": "graphmem-export", "version": 1, "project_id": ...}
    {"kind": "project", "props": {...}}
    {"kind": "session", "props": {...}, "in_project": ...}            (each session)
    {"kind": "memory", "props": {...}, "embedding": [...], "in_session": ...}
    {"kind": "relation", "type": ..., "from_id": ..., "to_id": ..., "props": {...}}
    {"kind": "promotion_run", "props": {...}, "for_session": ...}
    {"kind": "promotion_event", "props": {...}, "promoted": ...}
    {"kind": "staging_event", "props": {...}, "changed": ...}
    {"kind": "end", "counts": {...}}

Every property is carried as the store returns it (nothing is picked by
name, so properties added later move too), and so are the structural links
(a memory's session, an event's memory), read from the graph rather than
inferred from ids: an orphan stays an orphan. Embeddings travel as lists of
floats and are stored as each backend's vector type. The closing ``end``
line holds the counts, so a cut-off file is reported rather than taken as
the whole project.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import IO, Any

from graphmem.errors import ConflictError, InvalidInputError
from graphmem.models import RelationType
from graphmem.store import Row, Store

FORMAT = "graphmem-export"
VERSION = 1
PAGE = 500
RELATION_TYPES = {t.value for t in RelationType}
"""The relations between memories import writes (import_relations has a branch for
each: a relationship type cannot be a Cypher parameter)."""

# kind -> (export statement, import statement, the link column each carries)
PAGED: dict[str, tuple[str, str, str]] = {
    "session": ("export_sessions", "import_sessions", "in_project"),
    "memory": ("export_memories", "import_memories", "in_session"),
    "promotion_run": ("export_promotion_runs", "import_promotion_runs", "for_session"),
    "promotion_event": ("export_promotion_events", "import_promotion_events", "promoted"),
    "staging_event": ("export_staging_events", "import_staging_events", "changed"),
}
ORDER = ("project", "session", "memory", "relation", "promotion_run", "promotion_event",
         "staging_event", "end")  # fmt: skip


@dataclass
class TransferCounts:
    """How many records of each kind moved."""

    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(ORDER[1:-1], 0))

    def add(self, kind: str, n: int) -> None:
        self.counts[kind] += n


def export_project(
    store: Store, project_id: str, out: IO[str], *, page_size: int = PAGE
) -> TransferCounts:
    """Write project ``project_id`` of ``store`` to ``out``; returns what was written."""
    (project,) = store.read("export_project", {"project_id": project_id})
    if project["props"] is None and not project["memories"] and not project["sessions"]:
        raise InvalidInputError(f"project: no project {project_id!r} to export", field="project")
    counts = TransferCounts()
    _line(out, {"kind": "header", "format": FORMAT, "version": VERSION, "project_id": project_id})
    _line(out, {"kind": "project", "props": dict(project["props"] or {"id": project_id})})
    with tempfile.TemporaryFile("w+", encoding="utf-8") as relations:
        for kind in ("session", "memory"):
            for rows in _pages(store, PAGED[kind][0], project_id, page_size):
                for row in rows:
                    _line(out, _record(kind, row))
                counts.add(kind, len(rows))
                if kind == "memory":
                    # Relations may point at memories of later pages, and import
                    # needs both ends in place: they follow all memories.
                    ids = [row["props"]["id"] for row in rows]
                    found = store.read("export_relations", {"ids": ids, "project_id": project_id})
                    for relation in found:
                        _line(
                            relations,
                            {"kind": "relation", **relation, "props": dict(relation["props"])},
                        )
                    counts.add("relation", len(found))
        relations.seek(0)
        for text in relations:
            out.write(text)
    for kind in ("promotion_run", "promotion_event", "staging_event"):
        for rows in _pages(store, PAGED[kind][0], project_id, page_size):
            for row in rows:
                _line(out, _record(kind, row))
            counts.add(kind, len(rows))
    _line(out, {"kind": "end", "counts": counts.counts})
    return counts


def import_project(
    store: Store, lines: IO[str], *, page_size: int = PAGE
) -> tuple[str, TransferCounts]:
    """Load an export into ``store``; the project must not hold sessions or memories yet.

    Returns the project id and what was written. Records are written a page
    at a time as they are read; a file that breaks off or whose counts do not
    match its ``end`` line is an error (what was read before stays written,
    in a project that was empty, so deleting it undoes the attempt).
    """
    records = _records(lines)
    header = next(records, None)
    if header is None or header.get("kind") != "header" or header.get("format") != FORMAT:
        raise InvalidInputError("file: not a graphmem export (no header line)", field="file")
    if header.get("version") != VERSION:
        raise InvalidInputError(
            f"file: export version {header.get('version')} is not {VERSION}", field="file"
        )
    project_id = header["project_id"]
    (existing,) = store.read("export_project", {"project_id": project_id})
    if existing["sessions"] or existing["memories"]:
        raise ConflictError(
            f"project: {project_id!r} already holds sessions or memories; "
            "import into an empty store or project",
            field="project",
        )
    counts = TransferCounts()
    batch: list[dict[str, Any]] = []
    kind = "project"
    position = 0
    end: dict[str, Any] | None = None
    for record in records:
        if end is not None:
            raise InvalidInputError("file: lines after the end line", field="file")
        next_kind = record.get("kind")
        if next_kind not in ORDER or ORDER.index(next_kind) < position:
            raise InvalidInputError(f"file: a {next_kind!r} line out of order", field="file")
        if next_kind != kind or len(batch) >= page_size:
            _flush(store, kind, batch, project_id, counts)
            batch = []
        kind, position = next_kind, ORDER.index(next_kind)
        if kind == "end":
            end = record
        else:
            batch.append(record)
    _flush(store, kind, batch, project_id, counts)
    if end is None:
        raise InvalidInputError("file: the export is cut off (no end line)", field="file")
    if end["counts"] != counts.counts:
        raise InvalidInputError(
            f"file: the end line counts {end['counts']} but the file held {counts.counts}",
            field="file",
        )
    return project_id, counts


def _flush(
    store: Store, kind: str, batch: list[dict[str, Any]], project_id: str, counts: TransferCounts
) -> None:
    if not batch:
        return
    if kind == "project":
        store.write("import_project", {"project_id": project_id, "props": batch[-1]["props"]})
        return
    if kind == "relation":
        unknown = {r["type"] for r in batch} - RELATION_TYPES
        if unknown:
            raise InvalidInputError(f"file: unknown relation types {sorted(unknown)}", field="file")
        rows = [{k: r[k] for k in ("type", "from_id", "to_id", "props")} for r in batch]
        statement = "import_relations"
    else:
        link = PAGED[kind][2]
        rows = [{"props": r["props"], link: r[link]} for r in batch]
        if kind == "memory":
            for row, record in zip(rows, batch, strict=True):
                row["embedding"] = record["embedding"]
        statement = PAGED[kind][1]
    (written,) = store.write(statement, {"rows": rows, "project_id": project_id})
    if written["written"] != len(rows):
        raise ConflictError(
            f"file: {len(rows) - written['written']} of {len(rows)} {kind} records were not "
            "written: a memory they connect is not in the project",
            field="file",
        )
    counts.add(kind, len(rows))


def _pages(store: Store, statement: str, project_id: str, size: int) -> Iterator[list[Row]]:
    after = ""
    while rows := store.read(statement, {"project_id": project_id, "after": after, "limit": size}):
        yield rows
        after = rows[-1]["props"]["id"]
        if len(rows) < size:
            return


def _record(kind: str, row: Row) -> dict[str, Any]:
    props = dict(row["props"])
    record: dict[str, Any] = {"kind": kind, "props": props}
    if kind == "memory":
        embedding = props.pop("embedding", None)
        record["embedding"] = None if embedding is None else [float(x) for x in embedding]
    link = PAGED[kind][2]
    record[link] = row[link]
    return record


def _line(out: IO[str], record: Mapping[str, Any]) -> None:
    out.write(json.dumps(record, ensure_ascii=False, allow_nan=False, separators=(",", ":")))
    out.write("\n")


def _records(lines: IO[str]) -> Iterator[dict[str, Any]]:
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            record = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidInputError(
                f"file: line {number} is not JSON ({exc.msg})", field="file"
            ) from None
        if not isinstance(record, dict):
            raise InvalidInputError(f"file: line {number} is not a JSON object", field="file")
        yield record
