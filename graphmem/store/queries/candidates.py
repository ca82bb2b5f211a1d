"""Retrieval's candidates: a query vector's nearest memories of a project, and
the fields of full-text matches that a query's filters read."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graphmem.domain.models import Memory, memory_from_fields
from graphmem.store import Row, Store
from graphmem.store.knn import Answer, Reach, nearest


@dataclass(frozen=True, slots=True)
class Nearest:
    """One memory near a query vector: its cosine, and how many the index gave
    before the filters (``seen``); ``memory`` only for the first ``detailed``,
    else ``None`` (its fields were not read)."""

    id: str
    score: float
    seen: int
    memory: Memory | None


def _nearest(row: Row) -> Nearest:
    """A vector statement's row: the memory's fields, with its text beside them."""
    fields = row.get("memory")
    memory = (
        None
        if fields is None
        else memory_from_fields(
            {**fields, "content": row["content"], "rationale": row["rationale"]}
        )
    )
    return Nearest(id=row["id"], score=row["score"], seen=row["seen"], memory=memory)


def _candidate(row: Row) -> Memory:
    """A candidate statement's memory: its fields (``memory``) with its text beside them."""
    return memory_from_fields(
        {**row["memory"], "content": row["content"], "rationale": row["rationale"]}
    )


def scan(
    store: Store, params: Mapping[str, Any], vector: Sequence[float], *, detailed: int, limit: int
) -> list[Nearest]:
    """Every memory of the project that passes the filters scored exactly against
    ``vector``: the best ``limit``, nearest first (``vector_scan``)."""
    rows = store.read(
        "vector_scan", {**params, "vector": vector, "detailed": detailed, "limit": limit}
    )
    return [_nearest(row) for row in rows]


def from_index(
    store: Store,
    params: Mapping[str, Any],
    vector: Sequence[float],
    *,
    detailed: int,
    limit: int,
    reach: Reach,
) -> list[Nearest]:
    """The vector index's nearest ``limit`` that pass the filters, asked again at
    a larger ``k`` as far as ``reach`` says (``graphmem.store.knn``); the last
    answer's, nearest first (``vector_candidates``)."""

    def ask(k: int, _: list[int]) -> dict[int, Answer]:
        rows = store.read(
            "vector_candidates",
            {**params, "vector": vector, "detailed": detailed, "k": k, "limit": limit},
        )
        return {0: Answer(rows, rows[0]["seen"] if rows else None)}

    rows: list[Row] = []
    for _, answer in nearest(store, ask, [0], reach):
        rows = answer.rows
    return [_nearest(row) for row in rows]


def memories(store: Store, ids: Sequence[str], project_id: str) -> list[Memory]:
    """The fields the filters and scoring read of the memories ``ids`` the viewer
    may see, with their text (``candidate_memories``); in no particular order."""
    rows = store.read("candidate_memories", {"ids": list(ids), "project_id": project_id})
    return [_candidate(row) for row in rows]
