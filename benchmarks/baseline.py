"""The raw FalkorDB side of every comparison.

The baseline does what a hand-written FalkorDB application would do to store
the same graph: the same indexes, one batched ``CREATE`` of nodes carrying the
same properties graphmem stores, each linked to its session, and point reads
by the ``id`` index. It skips everything graphmem adds on top of that graph
(validation, scoring, dedup, triggers, its parameter encoding); the ratio
between the two is that addition's price.
"""

from __future__ import annotations

import hashlib
import os
import random
import time
from collections.abc import Sequence
from typing import Any

import redis
from falkordb import Graph

from graphmem.domain.analysis import indexed_fields
from graphmem.store.statements import Statements

RAW_WRITE = (
    "UNWIND $sessions AS sid MERGE (:Session {project_id: $project, id: sid}) "
    "WITH count(*) AS opened "
    "UNWIND $rows AS r MATCH (s:Session {project_id: $project, id: r.session_id}) "
    "CREATE (m:Memory) SET m = r CREATE (m)-[:IN_SESSION]->(s)"
)
RAW_READ = (
    "MATCH (m:Memory {id: $id}) "
    "RETURN m.id, m.content, m.memory_type, m.tier, m.status, m.importance"
)
FACTORS = ("recency", "frequency", "confidence", "salience")


def raw_rows(
    items: Sequence[dict[str, Any]], *, project: str, seed: int = 11
) -> list[dict[str, Any]]:
    """Node properties of the shape graphmem stores for these inputs.

    Values are plausible rather than computed: the baseline must move the same
    bytes to the server, not repeat graphmem's scoring.
    """
    rng = random.Random(seed)
    now = round(time.time(), 3)
    rows = []
    for item in items:
        contributions = {f"importance_{f}": rng.uniform(0.0, 0.25) for f in FACTORS}
        row = {
            "id": f"{time.time_ns() // 1_000_000:012x}{os.urandom(10).hex()}",
            "project_id": project,
            "session_id": item.get("session_id", "default"),
            "content": item["content"],
            "content_key": hashlib.blake2b(item["content"].encode(), digest_size=16).hexdigest(),
            "memory_type": item.get("memory_type"),
            "tier": "working",
            "status": "candidate" if item.get("source") == "auto_extracted" else "active",
            "confidence": item.get("confidence", 0.7),
            "access_count": 0,
            "occurrence_count": 1,
            "feedback": 0,
            "feedback_count": 0,
            "pinned": False,
            "source": item.get("source", "agent"),
            "suggested_by": "implicit",
            "self_assessment": item.get("self_assessment"),
            "tags": item.get("tags", []),
            "rationale": item.get("rationale"),
            "evidence": item.get("evidence", []),
            "agent_id": item.get("agent_id"),
            "visibility": item.get("visibility", "shared"),
            **indexed_fields(
                project,
                item.get("agent_id"),
                item.get("visibility"),
                item["content"],
                item.get("rationale"),
            ),
            "created_at": now,
            "occurred_at": now,
            "valid_from": now,
            "updated_at": now,
            **contributions,
            "importance": sum(contributions.values()),
        }
        rows.append({key: value for key, value in row.items() if value is not None})
    return rows


def prepare(graph: Graph) -> None:
    """The indexes graphmem keeps, so both sides pay for the same index upkeep."""
    for ddl in Statements("falkordb").script("schema"):
        create_index(graph, ddl)


def create_index(graph: Graph, ddl: str) -> None:
    """One statement of the schema script, which adds a field to an index made
    before the field existed: in a graph made now, the field is already there."""
    try:
        graph.query(ddl)
    except redis.ResponseError as exc:
        if "already indexed" not in str(exc):
            raise


def write(graph: Graph, rows: list[dict[str, Any]]) -> None:
    sessions = sorted({row["session_id"] for row in rows})
    graph.query(RAW_WRITE, {"rows": rows, "sessions": sessions, "project": rows[0]["project_id"]})


def read(graph: Graph, memory_id: str) -> list[list[Any]]:
    return graph.ro_query(RAW_READ, {"id": memory_id}).result_set
