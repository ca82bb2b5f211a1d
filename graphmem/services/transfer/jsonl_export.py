"""Export to graphmem's own JSONL (``graphmem.services.transfer.jsonl``): pages
through the store and writes line by line, holding no more than a page plus
a spool file of relations."""

from __future__ import annotations

import tempfile
from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict
from typing import IO, Any

from graphmem.services.transfer.jsonl import COUNTED, FORMAT, VERSION
from graphmem.services.transfer.lines import write_line
from graphmem.services.transfer.paging import READ_PAGE, pages, project_summary, relations_of
from graphmem.services.transfer.report import Progress, TransferCounts
from graphmem.store import Store
from graphmem.store.queries.transfer_export import Exported


def export_project(
    store: Store,
    project_id: str,
    out: IO[str],
    *,
    page_size: int = READ_PAGE,
    progress: Progress | None = None,
) -> TransferCounts:
    """Write project ``project_id`` of ``store`` to ``out``; returns what was written."""
    project = project_summary(store, project_id)
    counts = TransferCounts(Counter(dict.fromkeys(COUNTED, 0)))
    write_line(
        out, {"kind": "header", "format": FORMAT, "version": VERSION, "project_id": project_id}
    )
    write_line(out, {"kind": "project", "props": _sorted(project.props or {"id": project_id})})
    with tempfile.TemporaryFile("w+", encoding="utf-8") as relations:
        for kind in ("session", "memory"):
            for rows in pages(store, kind, project_id, page_size):
                for row in rows:
                    write_line(out, _record(kind, row))
                counts.add(kind, len(rows))
                if kind == "memory":
                    # Relations may point at memories of later pages, and import
                    # needs both ends in place: they follow all memories.
                    found = relations_of(store, project_id, rows)
                    for relation in found:
                        line = {**asdict(relation), "props": _sorted(relation.props)}
                        write_line(relations, {"kind": "relation", **line})
                    counts.add("relation", len(found))
                    if progress is not None:
                        progress(len(rows))
        relations.seek(0)
        for text in relations:
            out.write(text)
    for kind in (
        "promotion_run",
        "promotion_event",
        "staging_event",
        "archival_event",
        "failure_capsule",
        "delivery",
    ):
        for rows in pages(store, kind, project_id, page_size):
            for row in rows:
                write_line(out, _record(kind, row))
            counts.add(kind, len(rows))
    write_line(out, {"kind": "end", "counts": dict(counts.counts)})
    return counts


def _sorted(props: Mapping[str, Any]) -> dict[str, Any]:
    """Properties in name order: the store keeps them in the order they were
    first set, and an export should not depend on that."""
    return dict(sorted(props.items()))


def _record(kind: str, row: Exported) -> dict[str, Any]:
    props = _sorted(row.props)
    record: dict[str, Any] = {"kind": kind, "props": props}
    if kind == "memory":
        embedding = props.pop("embedding", None)
        record["embedding"] = None if embedding is None else [float(x) for x in embedding]
    record.update(row.links())  # a delivery names its memories by id, in its props
    return record
