"""Full text for retrieval: the index's matches of a query with their text, and
the statistics BM25 reads of a project (its size, a sample of its texts, and
how many memories a word matches)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graphmem.store import Store
from graphmem.store.queries import records


@dataclass(frozen=True, slots=True)
class Match:
    """A memory the full-text index matched, with its content and rationale as one text."""

    id: str
    text: str


@dataclass(frozen=True, slots=True)
class Matches:
    """The index's best matches of a query that the viewer may see; how many the
    index gave before that (fewer than ``k``: no more); and whether they answer
    the fallback query, asked when the query matched nothing."""

    matches: list[Match]
    seen: int
    fell_back: bool


@dataclass(frozen=True, slots=True)
class CorpusSample:
    """How many memories the store holds (``indexed``), how many of the project
    the viewer may read (``documents``) and their analysed lengths summed
    (``length``), and, in a project larger than the sample, a uniform sample of
    their texts."""

    indexed: int
    documents: int
    length: int
    texts: list[str]


def every_match(store: Store, params: Mapping[str, Any], query: str) -> list[Match]:
    """Every match of ``query`` in the project the viewer may see (``fulltext_matches``)."""
    return records(Match, store.read("fulltext_matches", {**params, "query": query}))


def best_matches(
    store: Store, params: Mapping[str, Any], query: str, k: int, fallback: str | None
) -> Matches:
    """The index's best ``k`` matches of ``query`` (or of ``fallback`` when it
    matched nothing) in one round trip (``fulltext_candidates``); the statement's
    last row, of no memory, says how many there were."""
    rows = store.read(
        "fulltext_candidates", {**params, "query": query, "fallback": fallback, "k": k}
    )
    if not rows:
        return Matches([], 0, False)
    return Matches(
        [Match(id=row["id"], text=row["text"]) for row in rows if row["id"] is not None],
        rows[-1]["seen"],
        rows[-1]["fell_back"],
    )


def corpus(store: Store, project_id: str, sample: int) -> CorpusSample:
    """The project's size and length as the viewer reads it, and about ``sample``
    of its texts drawn uniformly when it holds more (``fulltext_corpus``)."""
    rows = store.read("fulltext_corpus", {"project_id": project_id, "sample": sample})
    if not rows:
        return CorpusSample(indexed=0, documents=0, length=0, texts=[])
    row = rows[0]
    return CorpusSample(
        indexed=int(row["indexed"]),
        documents=int(row["documents"]),
        length=int(row["length"]),
        texts=row["texts"],
    )


def term_counts(store: Store, slots: Sequence[str], cap: int) -> dict[int, int]:
    """Per slot, how many memories its query matches, counted to ``cap`` at most
    (``fulltext_term_counts``); an empty slot is not counted."""
    rows = store.read("fulltext_term_counts", {"slots": list(slots), "cap": cap})
    return {row["slot"]: row["matches"] for row in rows}
