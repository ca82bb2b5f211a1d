"""The live memories nearest a batch's new ones, for the restatement check:
from the vector index, or without embeddings from the full-text index."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graphmem.store import Store
from graphmem.store.queries import records


@dataclass(frozen=True, slots=True)
class Near:
    """One item's matches, in no particular order: each a map of the match's
    ``id``, ``content``, ``agent_id``, ``source``, ``visibility``, ``confidence``,
    ``memory_type`` and ``occurred_at`` (and ``similarity``, its cosine, from the
    vector index). Kept as maps: the restatement check reads a match beside
    the write row it may merge into, through the same keys."""

    index: int
    hits: list[Mapping[str, Any]]
    seen: int = 0
    """How many the vector index gave before the filters (the full-text one: 0)."""


def by_vector(
    store: Store,
    items: Sequence[Mapping[str, Any]],
    project_id: str,
    *,
    threshold: float,
    k: int,
    exact: bool = False,
) -> list[Near]:
    """Per ``{index, vector}`` item, the live memories of the project among the
    index's nearest ``k`` at ``threshold`` cosine or above (``near_duplicates``),
    or with ``exact`` the ``k`` nearest of every memory of the project, scored
    without the index (``near_duplicates_scan``: a small project's answer, final);
    an item nothing was found for has no answer."""
    rows = store.read(
        "near_duplicates_scan" if exact else "near_duplicates",
        {"items": list(items), "project_id": project_id, "threshold": threshold, "k": k},
    )
    return records(Near, rows)


def project_size(store: Store, project_id: str) -> int:
    """How many memories the project holds (``project_memory_count``)."""
    rows = store.read("project_memory_count", {"project_id": project_id})
    return int(rows[0]["memories"]) if rows else 0


def by_words(
    store: Store, items: Sequence[Mapping[str, Any]], project_id: str, *, k: int
) -> list[Near]:
    """Per ``{index, query}`` item, the full-text index's best ``k`` live memories
    of the project (``near_duplicates_text``)."""
    rows = store.read(
        "near_duplicates_text", {"items": list(items), "project_id": project_id, "k": k}
    )
    return records(Near, rows)
