"""graphmem's own format: a whole project as JSONL, lossless, both ways streaming.

One JSON object per line, so export and import both stream: export pages
through the store and writes line by line, import reads line by line and
writes a page of ``page_size`` records at a time; neither holds more than a
page (plus, on export, a spool file of relations). Lines come in this order:

    {"kind": "header", "format": "graphmem-export", "version": 1, "project_id": ...}
    {"kind": "project", "props": {...}}
    {"kind": "session", "props": {...}, "in_project": ...}            (each session)
    {"kind": "memory", "props": {...}, "embedding": [...], "in_session": ...}
    {"kind": "relation", "type": ..., "from_id": ..., "to_id": ..., "props": {...}}
    {"kind": "promotion_run", "props": {...}, "for_session": ...}
    {"kind": "promotion_event", "props": {...}, "promoted": ...}
    {"kind": "staging_event", "props": {...}, "changed": ...}
    {"kind": "archival_event", "props": {...}, "moved": ...}
    {"kind": "failure_capsule", "props": {...}, "for_sessions": [...], "in_context": [...],
     "taught": ...}
    {"kind": "delivery", "props": {...}}                               (each delivery)
    {"kind": "end", "counts": {...}}

Every property is carried as the store returns it (nothing is picked by
name, so properties added later move too), and so are the structural links
(a memory's session, an event's memory), read from the graph rather than
inferred from ids: an orphan stays an orphan. Embeddings travel as lists of
floats and are stored as each backend's vector type.

Export is ``graphmem.services.transfer.jsonl_export``, import
``graphmem.services.transfer.jsonl_import``.
"""

FORMAT = "graphmem-export"
VERSION = 1
LINKS = {
    "session": "in_project",
    "memory": "in_session",
    "promotion_run": "for_session",
    "promotion_event": "promoted",
    "staging_event": "changed",
    "archival_event": "moved",
}
"""Each kind's structural link: the id of the node it hangs off, read from the graph."""
KINDS = ("project", "session", "memory", "relation", "promotion_run", "promotion_event",
         "staging_event", "archival_event", "failure_capsule", "delivery")  # fmt: skip
COUNTED = KINDS[1:]
"""The kinds the end line counts (there is one project line)."""
