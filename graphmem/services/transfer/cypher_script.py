"""A Cypher script that recreates a project's memories and relations in Neo4j.

The script needs no parameters (``cypher-shell -f project.cypher``, or
Neo4j Browser with multi-statement editing on): every value is written as a
Cypher literal, in ``UNWIND [...] AS row`` batches of ``page_size`` rows.
Statements ``MERGE`` by id, so running a script twice changes nothing. It
holds the project node, the sessions (with ``IN_PROJECT``), the memories
(with every property, the embedding as a list of floats, which Neo4j's
vector index reads, and ``IN_SESSION``) and the relations between them; the
promotion and staging logs are not in it (graphmem's JSONL carries those).

Literals are escaped so that Neo4j and FalkorDB both read back exactly the
stored value: in a double-quoted string, backslash and double quote are
escaped, newline, carriage return and tab are written as ``\\n``, ``\\r``
and ``\\t``, and every other character (any Unicode) as itself. Property
names are always backtick-quoted, so names that are Cypher keywords stay
names (a name holding a backtick cannot be quoted for FalkorDB and is
refused; graphmem never writes one). Labels and relationship types are
graphmem's own, never read from data. The script is written as the store
is read, a page at a time.
"""

from __future__ import annotations

import json
import math
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict
from typing import IO, Any

from graphmem.domain.errors import InvalidInputError
from graphmem.domain.kinds import RelationType
from graphmem.services.transfer.paging import WRITE_PAGE, pages, project_summary, relations_of
from graphmem.services.transfer.report import Progress, TransferCounts
from graphmem.store import Store
from graphmem.store.queries.transfer_export import Exported

SESSIONS = (
    "MERGE (s:Session {project_id: row.props.project_id, id: row.props.id})\n"
    "SET s += row.props\n"
    "WITH s, row\n"
    "OPTIONAL MATCH (p:Project {id: row.in_project})\n"
    "FOREACH (_ IN CASE WHEN p IS NULL THEN [] ELSE [1] END | MERGE (s)-[:IN_PROJECT]->(p));\n"
)
MEMORIES = (
    "MERGE (m:Memory {id: row.props.id})\n"
    "SET m += row.props\n"
    "WITH m, row\n"
    "OPTIONAL MATCH (s:Session {project_id: row.props.project_id, id: row.in_session})\n"
    "FOREACH (_ IN CASE WHEN s IS NULL THEN [] ELSE [1] END | MERGE (m)-[:IN_SESSION]->(s));\n"
)
RELATION = (
    "MATCH (a:Memory {{id: row.from_id}})\n"
    "MATCH (b:Memory {{id: row.to_id}})\n"
    "MERGE (a)-[r:{type}]->(b)\n"
    "SET r += row.props;\n"
)
RELATION_TYPES = frozenset(t.value for t in RelationType)


def export_cypher(
    store: Store,
    project_id: str,
    out: IO[str],
    *,
    page_size: int = WRITE_PAGE,
    progress: Progress | None = None,
) -> TransferCounts:
    """Write a script recreating the project's memories and relations to ``out``."""
    project = project_summary(store, project_id)
    counts = TransferCounts()
    out.write(
        f"// graphmem project {literal(project_id)}: its sessions, memories and the relations\n"
        "// between them. Statements MERGE by id: running the script twice changes nothing.\n"
    )
    props = dict(project.props or {"id": project_id})
    out.write(f"MERGE (p:Project {{id: {literal(project_id)}}})\nSET p += {literal(props)};\n")
    for rows in pages(store, "session", project_id):
        sessions = [{"props": r.props, **r.links()} for r in rows]
        for batch in batched(sessions, page_size):
            _unwind(out, batch, SESSIONS)
        counts.add("session", len(rows))
    with tempfile.TemporaryFile("w+", encoding="utf-8") as spool:
        for rows in pages(store, "memory", project_id):
            for batch in batched(rows, page_size):
                _unwind(out, [_memory(r) for r in batch], MEMORIES)
            counts.add("memory", len(rows))
            # Both ends of a relation must exist first: relations follow all memories.
            for relation in relations_of(store, project_id, rows):
                spool.write(json.dumps(asdict(relation), ensure_ascii=False) + "\n")
            if progress is not None:
                progress(len(rows))
        spool.seek(0)
        counts.add("relation", _relations(out, spool, page_size))
    return counts


def batched(items: Sequence[Any], size: int) -> Iterator[list[Any]]:
    for start in range(0, len(items), size):
        yield list(items[start : start + size])


def _memory(row: Exported) -> dict[str, Any]:
    props = dict(row.props)
    if props.get("embedding") is not None:
        props["embedding"] = [float(x) for x in props["embedding"]]
    return {"props": props, **row.links()}


def _relations(out: IO[str], spool: Iterable[str], page_size: int) -> int:
    """Relations grouped by type (a type cannot come from a row), a page per statement."""
    batches: dict[str, list[dict[str, Any]]] = {t: [] for t in sorted(RELATION_TYPES)}
    written = 0
    for text in spool:
        relation = json.loads(text)
        if relation["type"] not in RELATION_TYPES:
            continue  # a type is statement text: only graphmem's own are ever written
        batch = batches[relation["type"]]
        batch.append({k: relation[k] for k in ("from_id", "to_id", "props")})
        written += 1
        if len(batch) >= page_size:
            _unwind(out, batch, RELATION.format(type=relation["type"]))
            batch.clear()
    for kind, batch in batches.items():
        if batch:
            _unwind(out, batch, RELATION.format(type=kind))
    return written


def _unwind(out: IO[str], rows: list[dict[str, Any]], body: str) -> None:
    if not rows:
        return
    out.writelines(("UNWIND [\n", ",\n".join(literal(row) for row in rows), "\n] AS row\n", body))


def literal(value: Any) -> str:
    """``value`` as a Cypher literal that Neo4j and FalkorDB read back unchanged."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidInputError("a Cypher literal cannot be NaN or infinite", field="value")
        return repr(value)
    if isinstance(value, str):
        return '"' + value.translate(_ESCAPES) + '"'
    if isinstance(value, list | tuple):
        return "[" + ", ".join(literal(item) for item in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_name(k)}: {literal(v)}" for k, v in value.items()) + "}"
    raise InvalidInputError(f"a {type(value).__name__} has no Cypher literal", field="value")


_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"})


def _name(key: str) -> str:
    # FalkorDB has no escape for a backtick inside a quoted name.
    if not isinstance(key, str) or not key or "`" in key:
        raise InvalidInputError(
            f"property name {key!r}: must be non-empty text without backticks", field="property"
        )
    return f"`{key}`"
