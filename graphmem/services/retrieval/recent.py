"""A long query's last sentences as a second query vector.

A query of a few dozen words is often a conversation so far, and what it is
about now is in its last few sentences: one embedding of the whole passage
weighs an opening remark as much as the line that needs a memory, and MiniLM
reads every word of it into one direction. So for a long query (more content
words than ``RecentPart.min_query_terms``; shorter queries are what lexical
feedback expands instead) the last ``sentences`` sentences are embedded too,
the vector index is asked for their nearest memories, and a candidate's
cosine in the fusion becomes ``(1 - weight) * cosine(query) + weight *
cosine(last sentences)`` (``blend``). A candidate the second list does not
hold gets that list's floor, as in the fusion. Only the candidates the two
retrievers found are scored: the second list adds no memory of its own, so
every result still names the retriever that found it.

The cost, for a long query only: a second text in the query's model run and
one more vector index query (the index's best ``fetch``, as for the query),
both on the worker that runs the vector side beside full text. VECTOR mode keeps the
query's own cosine: this is part of HYBRID's fusion, like feedback.
docs/retrieval.md has the figures that chose the settings.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from graphmem.services.retrieval.fulltext import query_terms

_SENTENCE_END = re.compile(r"(?<=[.!?])[\"']?\s+")
"""A sentence ends at ``.``, ``!`` or ``?``, a closing quote aside, before white space."""


@dataclass(frozen=True)
class RecentPart:
    """Whether and how a long query's last sentences join its embedding in the fusion."""

    sentences: int = 3
    """How many of the query's last sentences make the second vector (0: off)."""
    weight: float = 0.2
    """Their cosine's share of the vector similarity; the whole query's has the rest."""
    min_query_terms: int = 11
    """Only a query of at least this many content words (stop words out, one per
    stem) is split: one just past what feedback expands."""


def recent_part(text: str, setting: RecentPart) -> str | None:
    """The query's last ``setting.sentences`` sentences, or ``None`` when it is
    too short to split or has no more sentences than that."""
    if setting.sentences <= 0 or len(query_terms(text)) < setting.min_query_terms:
        return None
    parts = [p for p in _SENTENCE_END.split(text.strip()) if p.strip()]
    if len(parts) <= setting.sentences:
        return None
    return " ".join(parts[-setting.sentences :])


def blend(
    whole: Mapping[str, float],
    recent: Mapping[str, float],
    *,
    whole_floor: float,
    recent_floor: float,
    weight: float,
    ids: set[str],
) -> tuple[dict[str, float], float]:
    """Each of ``ids``' vector similarity mixed from the whole query's cosine and the
    last sentences' (each list's floor for a memory it does not hold), and the
    floor of a memory neither list holds: what ``ScoreFusion.fuse`` takes."""
    mixed = {
        i: (1.0 - weight) * whole.get(i, whole_floor) + weight * recent.get(i, recent_floor)
        for i in ids
        if i in whole or i in recent
    }
    return mixed, (1.0 - weight) * whole_floor + weight * recent_floor
