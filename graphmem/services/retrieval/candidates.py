"""What the retrievers found for one query: each one's ranking, every candidate,
and their fused relevance.

A ranking runs deeper than the candidates: its deeper ids were scored only
(``Candidates.add_scores``), so they count in floors and in the fusion of
candidates the other retriever found, but are not ranked themselves.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from graphmem.domain.analysis import analyse
from graphmem.domain.models import Memory
from graphmem.domain.retrieval.answerable import Evidence, QueryWord
from graphmem.domain.retrieval.exchange import exchange_pairs, pool_exchanges
from graphmem.domain.retrieval.explain import Retriever, RetrieverHit
from graphmem.domain.retrieval.fusion import ScoreFusion
from graphmem.domain.retrieval.search import tie_order
from graphmem.domain.text import words
from graphmem.services.embeddings import memory_text
from graphmem.services.retrieval.recent import blend
from graphmem.services.retrieval.statistics import Scope
from graphmem.store.queries.candidates import Nearest


@dataclass
class Candidates:
    """What the retrievers found: each one's ranking and every candidate seen."""

    scope: Scope
    """Whose full-text statistics scored them (``TextStatistics.scope``)."""
    memories: dict[str, Memory] = field(default_factory=dict)
    """The candidates, with the fields scoring and filtering read."""
    rankings: dict[Retriever, list[str]] = field(default_factory=dict)
    hits: dict[str, list[tuple[Retriever, int, float]]] = field(default_factory=dict)
    """Each id's retrievers, with its rank and score in each; made into
    ``RetrieverHit`` models only for what is returned (``explained``)."""
    text: str = ""
    """The query the retrievers were asked."""
    documents: int = 0
    """How many memories of the project the viewer reads (its full-text corpus)."""
    stems: dict[str, list[str]] = field(default_factory=dict)
    """Each analysed candidate's stems (graphmem.domain.analysis.analyse), kept for the query:
    full text ranks by them and feedback scores the same memories again."""
    counts: dict[str, int] = field(default_factory=dict)
    """How many of the scope's memories hold each query word, as full text
    counted them (set when it ran): feedback weighs the same words alike."""
    words: tuple[QueryWord, ...] = ()
    """The query's content words as the project's full text holds them (set when
    full text ran), for the answerability gate."""
    recent: dict[str, float] | None = None
    """The cosine of the long query's last sentences per memory the vector index
    returned for them (recent.py); ``None`` when the query was not split."""
    recent_floor: float = 0.0
    recent_weight: float = 0.0
    exchanges: dict[str, str] = field(default_factory=dict)
    """The exchanges the last ``relevance`` scored as one, answer id -> question id."""
    slight: dict[str, float] = field(default_factory=dict)
    """The candidates the last ``relevance`` found saying little, with the share
    of their relevance each kept (``ScoreFusion.substance``)."""
    expired: list[tuple[Memory, list[tuple[Retriever, int, float]]]] = field(default_factory=list)
    """Candidates left out because their validity had ended, with their hits: a
    result without them says so rather than that nothing matched."""

    def expired_matches(self, min_relevance: float) -> list[Memory]:
        """The expired candidates that would have been answers: sharing a query
        word, or as close in meaning as ``min_relevance`` asks."""
        return [
            memory
            for memory, hits in self.expired
            if any(
                by is Retriever.FULLTEXT or (by is Retriever.VECTOR and score >= min_relevance)
                for by, _, score in hits
            )
        ]

    def evidence(self, time_words: str = "") -> Evidence | None:
        """What bears on whether anything answers the query; ``None`` unless both
        retrievers ran (the gate weighs meaning and words together). The words
        of the time the query names (``time_words``) are left out: a memory
        seldom says "May 2023", its time does, and the time channel (when.py)
        weighs that."""
        if Retriever.VECTOR not in self.rankings or Retriever.FULLTEXT not in self.rankings:
            return None
        closest = max((self.scores(Retriever.VECTOR) or {}).values(), default=0.0)
        apart = set(words(time_words))
        asked = tuple(word for word in self.words if word.word.lower() not in apart)
        weights = {word.stem: word.weight for word in asked}
        mass = sum(weights.values())
        covered = 0.0
        if mass > 0:
            for memory_id in self.rankings[Retriever.FULLTEXT]:
                held = set(self.stems.get(memory_id, ()))
                covered = max(covered, sum(w for s, w in weights.items() if s in held) / mass)
        return Evidence(closest=closest, words=asked, covered=covered, memories=self.documents)

    def add_recent(self, rows: Sequence[Nearest], fetch: int, weight: float) -> None:
        """The nearest memories of the query's last sentences, and their floor."""
        self.recent = {row.id: row.score for row in rows}
        self.recent_floor = min(self.recent.values()) if len(rows) >= fetch else 0.0
        self.recent_weight = weight

    def analysed(self, memory_id: str) -> list[str]:
        """The candidate's stems, analysed once per query."""
        stems = self.stems.get(memory_id)
        if stems is None:
            memory = self.memories[memory_id]
            stems = self.stems[memory_id] = analyse(memory_text(memory.content, memory.rationale))
        return stems

    def scores(self, retriever: Retriever) -> dict[str, float] | None:
        """The retriever's score per memory it returned; ``None`` when it did not run."""
        if retriever not in self.rankings:
            return None
        return {
            memory_id: score
            for memory_id in self.rankings[retriever]
            for by, _, score in self.hits[memory_id]
            if by is retriever
        }

    def explained(self, memory_id: str) -> list[RetrieverHit]:
        return [
            RetrieverHit(retriever=by, rank=rank, score=score)
            for by, rank, score in self.hits.get(memory_id, [])
        ]

    def floor(self, retriever: Retriever, fetch: int) -> float:
        """What a memory the retriever did not return scores at most: 0 when it
        returned fewer than asked (nothing else matched), else its lowest score."""
        scores = self.scores(retriever) or {}
        return min(scores.values()) if len(scores) >= fetch else 0.0

    def relevance(
        self,
        fusion: ScoreFusion,
        fetch: int,
        feedback_factor: float = 1.0,
        *,
        exchanges: bool = True,
    ) -> dict[str, float]:
        """Every candidate's fused relevance, the expanded query's full-text
        scores weighed in (``feedback_factor``) once feedback ran; when both
        retrievers ran, a long query's last sentences share its cosine
        (recent.py), a question turn and the turn after it share their mean
        (exchange.py), and then each is weighed by its substance (fusion.py)."""
        vector = self.scores(Retriever.VECTOR)
        fulltext = self.scores(Retriever.FULLTEXT)
        vector_floor = self.floor(Retriever.VECTOR, fetch)
        if vector is not None and fulltext is not None and self.recent is not None:
            vector, vector_floor = blend(
                vector,
                self.recent,
                whole_floor=vector_floor,
                recent_floor=self.recent_floor,
                weight=self.recent_weight,
                ids=set(self.memories),
            )
        fused = fusion.fuse(
            vector,
            fulltext,
            vector_floor=vector_floor,
            fulltext_floor=self.floor(Retriever.FULLTEXT, fetch),
            # Feedback scored every candidate: one it left out holds none of the words.
            feedback=self.scores(Retriever.FEEDBACK),
            feedback_floor=0.0,
            feedback_factor=feedback_factor,
        )
        fused = {i: value for i, value in fused.items() if i in self.memories}
        if vector is None or fulltext is None:
            self.exchanges, self.slight = {}, {}
            return fused
        self.exchanges = exchange_pairs(fused, self.memories) if exchanges else {}
        pooled = pool_exchanges(fused, self.exchanges)
        kept = {i: fusion.substance(len(set(self.analysed(i)))) for i in pooled}
        self.slight = {i: share for i, share in kept.items() if share < 1.0}
        return {i: value * kept[i] for i, value in pooled.items()}

    def keep(self, memories: Sequence[Memory]) -> None:
        """Only these candidates stay, each as given (a memory as it stood at a
        past time, for an ``as_of`` read); the rankings keep their order and
        their scored-only ids."""
        dropped = set(self.memories) - {m.id for m in memories}
        self.memories = {m.id: m for m in memories}
        for retriever, ranking in self.rankings.items():
            self.rankings[retriever] = [i for i in ranking if i not in dropped]
        self.hits = {i: hits for i, hits in self.hits.items() if i not in dropped}

    def score(self, retriever: Retriever, scores: Mapping[str, float]) -> None:
        """A retriever that scored memories already found (feedback), best first."""
        ranking = self.rankings.setdefault(retriever, [])
        for memory_id in sorted(scores, key=lambda i: (-scores[i], i)):
            ranking.append(memory_id)
            self.hits[memory_id].append((retriever, len(ranking), scores[memory_id]))

    def add(self, retriever: Retriever, found: Sequence[tuple[Memory, float]]) -> None:
        """The retriever's best, as candidates."""
        for memory, _ in found:
            self.memories.setdefault(memory.id, memory)
        self.add_scores(retriever, [(memory.id, score) for memory, score in found])

    def add_scores(self, retriever: Retriever, found: Sequence[tuple[str, float]]) -> None:
        """The retriever's next ids and scores, ranked after what it gave before."""
        ranking = self.rankings.setdefault(retriever, [])
        for memory_id, score in found:
            ranking.append(memory_id)
            self.hits.setdefault(memory_id, []).append((retriever, len(ranking), score))


def best_first(
    scores: Mapping[str, float],
    memories: Mapping[str, Memory],
    among: Iterable[str] | None = None,
) -> list[str]:
    """The ids of ``scores`` (or those ``among`` them), best first, equal scores
    in ``tie_order``."""
    return sorted(
        scores if among is None else among,
        key=lambda i: (-scores[i], *tie_order(memories[i])),
    )
