"""Embeddings for memories: a write's batch at once, and the backfill of the
memories written with embeddings off (or before they existed)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from graphmem.domain.checks import check_between
from graphmem.domain.errors import InvalidInputError
from graphmem.domain.retrieval.explain import BackfillResult
from graphmem.services.embeddings import Embedder, Vector, memory_text
from graphmem.store import Store
from graphmem.store.queries import retrieval as uses

MAX_BATCH = 5_000

Progress = Callable[[int, int], None]
"""Told how many memories are embedded so far and how many are to be."""


def embed_memories(embedder: Embedder | None, texts: Sequence[str]) -> list[Vector] | None:
    """Vectors for memories about to be written (one batch, one call); ``None``
    when embeddings are off."""
    return embedder.embed(texts) if embedder is not None else None


def store_embeddings(store: Store, rows: Sequence[dict[str, Any]]) -> None:
    """Write ``{id, project_id, embedding}`` rows; a null embedding removes one."""
    if rows:
        uses.set_embeddings(store, rows)


def backfill(
    store: Store,
    embedder: Embedder | None,
    *,
    project_id: str | None,
    batch_size: int = 256,
    limit: int | None = None,
    progress: Progress | None = None,
) -> BackfillResult:
    """Embed every memory that has no vector yet, a batch at a time;
    ``project_id=None``: all projects. ``progress`` is told how far it got
    before the first batch and after each (not at all when none is missing)."""
    if embedder is None:
        raise InvalidInputError(
            "embedder: embeddings are off (GRAPHMEM_EMBEDDER=none); nothing to backfill with",
            field="embedder",
        )
    check_between("batch_size", batch_size, 1, MAX_BATCH)
    started = time.perf_counter()
    total = uses.count_unembedded(store, project_id)
    goal = total if limit is None else min(limit, total)
    done = 0
    after = ""
    if progress is not None and goal > 0:
        progress(done, goal)
    while done < goal:
        batch = uses.unembedded(store, project_id, after, min(batch_size, goal - done))
        if not batch:
            break
        vectors = embedder.embed([memory_text(m.content, m.rationale) for m in batch])
        store_embeddings(
            store,
            [
                {"id": m.id, "project_id": m.project_id, "embedding": vector}
                for m, vector in zip(batch, vectors, strict=True)
            ],
        )
        done += len(batch)
        after = batch[-1].id
        if progress is not None:
            progress(done, goal)
    left = uses.count_unembedded(store, project_id)
    return BackfillResult(embedded=done, remaining=left, took_s=time.perf_counter() - started)
