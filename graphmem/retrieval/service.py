"""Retrieval against the store: knowledgeContext, hybrid search, neighbourhoods
and the embedding backfill.

Candidates always come from the native indexes (vector kNN, full text), over-
fetched and filtered in the database, and the exact scoring formulas run on
those candidates only: nothing scans a project's memories in Python, which
keeps a call at 100,000 memories to a few milliseconds of database work.

The vector side (embedding the query, ~4 ms on a CPU, then the kNN) runs on a
worker thread while full text runs on the caller's, so the two overlap.
"""

from __future__ import annotations

import contextvars
import json
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from graphmem.agents import acting_agent
from graphmem.clock import Clock, stored_now
from graphmem.embeddings import Embedder, Vector, memory_text
from graphmem.errors import InvalidInputError, NotFoundError
from graphmem.events import ChangeKind
from graphmem.history import History
from graphmem.models import (
    Memory,
    Relation,
    RelationType,
    Status,
    Tier,
    memory_from_fields,
    parse,
)
from graphmem.policy import InjectionPolicy
from graphmem.retrieval import context as ctx
from graphmem.retrieval.exchange import exchange_pairs, pool_exchanges
from graphmem.retrieval.explain import (
    BackfillResult,
    ContextItem,
    ContextResult,
    Explanation,
    GraphPath,
    Neighborhood,
    PathStep,
    Retriever,
    RetrieverHit,
    SearchHit,
    SearchResult,
    expired_note,
)
from graphmem.retrieval.feedback import LexicalFeedback, expanded_weights, relevance_model
from graphmem.retrieval.fulltext import (
    PROBE_SLOTS,
    Corpus,
    TermCounts,
    analyse,
    bm25,
    build_query,
    query_terms,
    query_weights,
    relaxations,
    stem,
)
from graphmem.retrieval.fusion import ScoreFusion, nothing_relevant
from graphmem.retrieval.recent import RecentPart, blend, recent_part
from graphmem.retrieval.search import (
    MAX_DEPTH,
    TRAVERSED,
    RankWeights,
    RelationFactors,
    SearchFilters,
    SearchMode,
    SearchRequest,
    rank_score,
    rank_total,
    tie_order,
)
from graphmem.scoring import ImportanceScorer
from graphmem.store import Row, Store
from graphmem.telemetry import Event, Telemetry
from graphmem.validity import check_as_of

VECTOR_WORKERS = 4
"""Concurrent searches' vector sides run side by side; their query embeddings
meet in the embedder, which runs the model once for all that wait."""

EMBEDDINGS_OFF = (
    "embeddings are off (GRAPHMEM_EMBEDDER=none): vector retrieval skipped, "
    "results come from full text and relations only"
)


@dataclass(frozen=True)
class RetrievalConfig:
    fusion: ScoreFusion = field(default_factory=ScoreFusion)
    """How vector and full-text scores become one relevance (see fusion.py)."""
    context_overfetch: int = 10
    """knowledgeContext asks each index for this many times ``max_results`` candidates."""
    search_overfetch: int = 10
    """Search asks each retriever for this many times ``limit`` scores (at least 20),
    as knowledgeContext does: a candidate one retriever missed gets that retriever's
    lowest score, and a deeper list makes that closer to its own (docs/retrieval.md:
    madial HYBRID recall@10 0.722 at 5x, 0.740 at 10x and 20x; the others unchanged)."""
    candidate_overfetch: int = 5
    """Of each retriever's scores (``search_overfetch``, ``context_overfetch``), the
    best this many times the limit are candidates: their fields and text are read,
    and they are ranked. The deeper ones only lend their scores to candidates the
    other retriever found and set the floor; they hold what scoring needs most
    (the floor, a candidate's own score) for half the reading (docs/retrieval.md:
    the dev sets' figures are unchanged, where asking 5x deep lost madial HYBRID
    0.007 of recall@10)."""
    feedback: LexicalFeedback = field(default_factory=LexicalFeedback)
    """Lexical pseudo-relevance feedback (RM3) for short queries in HYBRID, GRAPH
    and knowledgeContext: see feedback.py, and docs/retrieval.md for the figures
    that chose it and for what was tried beside it (``docs=0`` turns it off)."""
    recent: RecentPart = field(default_factory=RecentPart)
    """A long query's last sentences as a second query vector in HYBRID, GRAPH and
    knowledgeContext: see recent.py, and docs/retrieval.md for its figures
    (``RecentPart(sentences=0)`` turns it off)."""
    exchanges: bool = True
    """HYBRID, GRAPH and knowledgeContext score a question turn and the turn after
    it in the same session as one exchange (exchange.py; docs/retrieval.md)."""
    exact_vector_below: int = 5_000
    """A project the viewer reads at most this many memories of is scored whole by
    exact cosine instead of through the vector index (``Retrieval._vector``)."""
    index_k_max: int = 4_000
    """Both indexes span every project: each is asked for its best k, the project
    and filters apply to those, and when they leave too few, k grows fourfold up
    to this cap."""
    common_term_docs: int = 1_000
    """A word matching at least this many memories is "common" (see fulltext.py)."""
    term_count_cap: int = 20_000
    """Document frequencies are counted up to this many matches (the count's cost);
    a word matching more is treated as matching this many."""
    fulltext_rescore: int = 250
    """Full text asks the index for up to this many matches and ranks them by BM25
    (more while the filters leave fewer than it keeps). At 100,000 memories the
    best ten by BM25 were as good at 250 as at 1,000 or 4,000, for a third off
    the slowest searches (docs/retrieval.md)."""
    corpus_sample: int = 5_000
    """Memories sampled (uniformly) for the mean memory length BM25 normalises by,
    and for the counts of common words in a larger store (``Corpus.estimate``)."""
    term_cache_seconds: float = 300.0
    recount_below: int = 1_000
    """A write to a project of fewer memories than this drops its cached full-text
    statistics at once (``Retrieval._on_event``); a larger one's expire."""
    max_access_cache_seconds: float = 5.0
    """How long a scope's maximum access count is reused; finding it reads every
    memory of the scope (~12 ms at 100,000), too slow for every call. 0: always read."""
    context_text_scorer: str = ctx.HYBRID
    """knowledgeContext's text similarity: ``hybrid`` (the fused relevance of
    search) or ``word_overlap`` (seed 002's literal formula, kept to compare)."""
    context_depth: int = 1
    """knowledgeContext walks this many relations from its best ``max_results``
    hits, as HYBRID search does (0: none): a rule that CONSTRAINS what the hint
    is about belongs in what an agent is told before it acts."""
    graph_seeds: int = 3
    """GRAPH mode: hits that traversal starts from; the other direct hits fill
    what traversal leaves of ``limit``."""
    traversal_share: float = 0.3
    """HYBRID: memories reached only by traversal take at most this share of
    ``limit`` (at least one slot), so strong direct hits stay in the results."""
    max_paths: int = 2_000
    neighborhood_max_nodes: int = 200
    weights: RankWeights = field(default_factory=RankWeights)
    factors: RelationFactors = field(default_factory=RelationFactors)
    record_access: bool = True
    """knowledgeContext counts a retrieval on each memory it returns (``retrieval_count``,
    apart from accesses: what retrieval returns must not raise its own frequency)."""


class Scope(NamedTuple):
    """What full text counts a project's statistics over: the project as one
    viewer may read it (graphmem.textscope), and the project's generation
    (``Retrieval._on_event``), so cached statistics of a scope are dropped by
    moving to the next."""

    project_id: str
    viewer: str | None
    generation: int


MAX_SCOPES = 10_000
"""Scopes whose statistics are kept at once; beyond, the expired go first."""

_RECOUNTED = frozenset({ChangeKind.CREATED, ChangeKind.UPDATED, ChangeKind.FORGOTTEN})
"""Changes that can move a project's full-text statistics."""


@dataclass
class _Candidates:
    """What the retrievers found: each one's ranking and every candidate seen.

    A ranking runs deeper than the candidates: its deeper ids were scored only
    (``add_scores``), so they count in floors and in the fusion of candidates the
    other retriever found, but are not ranked themselves."""

    scope: Scope
    """Whose full-text statistics scored them (``Retrieval._scope``)."""
    memories: dict[str, Memory] = field(default_factory=dict)
    """The candidates, with the fields scoring and filtering read."""
    rankings: dict[Retriever, list[str]] = field(default_factory=dict)
    hits: dict[str, list[tuple[Retriever, int, float]]] = field(default_factory=dict)
    """Each id's retrievers, with its rank and score in each; made into
    ``RetrieverHit`` models only for what is returned (``explained``)."""
    text: str = ""
    """The query the retrievers were asked."""
    stems: dict[str, list[str]] = field(default_factory=dict)
    """Each analysed candidate's stems (fulltext.analyse), kept for the query:
    full text ranks by them and feedback scores the same memories again."""
    recent: dict[str, float] | None = None
    """The cosine of the long query's last sentences per memory the vector index
    returned for them (recent.py); ``None`` when the query was not split."""
    recent_floor: float = 0.0
    recent_weight: float = 0.0
    exchanges: dict[str, str] = field(default_factory=dict)
    """The exchanges the last ``relevance`` scored as one, answer id -> question id."""
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

    def add_recent(self, rows: Sequence[Row], fetch: int, weight: float) -> None:
        """The nearest memories of the query's last sentences, and their floor."""
        self.recent = {row["id"]: row["score"] for row in rows}
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
        (recent.py) and a question turn and the turn after it share their mean
        (exchange.py)."""
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
        if not exchanges or vector is None or fulltext is None:
            self.exchanges = {}
            return fused
        self.exchanges = exchange_pairs(fused, self.memories)
        return pool_exchanges(fused, self.exchanges)

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


class Retrieval:
    """The retrieval service of one GraphMem: its store, clock, scorer, telemetry,
    embedder (``None``: no embeddings) and injection policy."""

    def __init__(
        self,
        store: Store,
        *,
        clock: Clock,
        scorer: ImportanceScorer,
        telemetry: Telemetry,
        embedder: Embedder | None,
        policy: InjectionPolicy | None = None,
        config: RetrievalConfig | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.scorer = scorer
        self.telemetry = telemetry
        self.embedder = embedder
        self.policy = policy or InjectionPolicy()
        self.config = config or RetrievalConfig()
        self.terms = TermCounts(self.term_matches, ttl=self.config.term_cache_seconds)
        self._corpus: dict[Scope, tuple[Corpus, float]] = {}
        self._sizes: dict[str, int] = {}
        """Per project, its size when its statistics were last read (``_on_event``)."""
        self._generations: dict[str, int] = {}
        """Per project, how many times its cached statistics were dropped: part of
        each scope's key, so a write to a small project is counted at once."""
        self._max_access: dict[tuple[str, str | None], tuple[int, float]] = {}
        self._lock = threading.Lock()
        self._executor: ThreadPoolExecutor | None = None
        self.history = History(store)
        telemetry.subscribe(self._on_event)

    # -- embeddings ----------------------------------------------------------

    def embed_memories(self, texts: Sequence[str]) -> list[Vector] | None:
        """Vectors for memories about to be written (one batch, one call)."""
        return self.embedder.embed(texts) if self.embedder is not None else None

    def store_embeddings(self, rows: Sequence[dict[str, Any]]) -> None:
        """Write ``{id, project_id, embedding}`` rows; a null embedding removes one."""
        if rows:
            self.store.write("set_embeddings", {"rows": list(rows)})

    def backfill(
        self,
        *,
        project_id: str | None,
        batch_size: int = 256,
        limit: int | None = None,
        progress: bool = False,
    ) -> BackfillResult:
        """Embed every memory that has no vector yet (written with embeddings off,
        or before they existed), a batch at a time; ``project_id=None``: all projects."""
        if self.embedder is None:
            raise InvalidInputError(
                "embedder: embeddings are off (GRAPHMEM_EMBEDDER=none); nothing to backfill with",
                field="embedder",
            )
        if not 1 <= batch_size <= 5_000:
            raise InvalidInputError("batch_size: must be between 1 and 5000", field="batch_size")
        started = time.perf_counter()
        (total,) = self.store.read("count_missing_embeddings", {"project_id": project_id})
        goal = total["missing"] if limit is None else min(limit, total["missing"])
        done = 0
        after = ""
        with _progress(progress and goal > 0, goal) as advance:
            while done < goal:
                rows = self.store.read(
                    "missing_embeddings",
                    {
                        "project_id": project_id,
                        "after": after,
                        "limit": min(batch_size, goal - done),
                    },
                )
                if not rows:
                    break
                vectors = self.embedder.embed(
                    [memory_text(row["content"], row["rationale"]) for row in rows]
                )
                self.store_embeddings(
                    [
                        {"id": row["id"], "project_id": row["project_id"], "embedding": vector}
                        for row, vector in zip(rows, vectors, strict=True)
                    ]
                )
                done += len(rows)
                after = rows[-1]["id"]
                advance(len(rows))
        (left,) = self.store.read("count_missing_embeddings", {"project_id": project_id})
        return BackfillResult(
            embedded=done, remaining=left["missing"], took_s=time.perf_counter() - started
        )

    # -- knowledgeContext ----------------------------------------------------

    def knowledge_context(
        self,
        arguments: ctx.ContextRequest | Mapping[str, Any],
        *,
        project_id: str,
        record_access: bool | None = None,
    ) -> ContextResult:
        """Seed 002's knowledgeContext over index candidates (see module docstring).

        Only what the injection policy allows is returned: active, not
        archived, not superseded (unless ``include_superseded``); candidates
        only in the policy's candidate slots. Every call, rejected ones
        included, emits a ``knowledge.context`` event with its status and
        duration.
        """
        started = time.perf_counter()
        with self.telemetry.timed(
            "knowledge.context", self.clock, project_id=project_id, results=0, candidates=0
        ) as event:
            request = ctx.parse_request(arguments)
            result = self._knowledge_context(request, project_id, record_access, started)
            event.update(results=len(result.items), candidates=result.candidates)
            return result

    def _knowledge_context(
        self,
        request: ctx.ContextRequest,
        project_id: str,
        record_access: bool | None,
        started: float,
    ) -> ContextResult:
        now = stored_now(self.clock)
        at = None if request.as_of is None else check_as_of(request.as_of, now)
        if at is not None:  # scored as of then
            now = at
        filters = SearchFilters(
            types=request.include_types or [],
            session_id=request.session_id,
            min_confidence=request.min_confidence,
            statuses=[] if self.policy.candidate_slots else [Status.ACTIVE],
            include_candidates=self.policy.candidate_slots > 0,
            include_superseded=request.include_superseded,
            include_archived=request.include_archived,
            occurred_after=request.occurred_after,
            occurred_before=request.occurred_before,
        )
        fetch = request.max_results * self.config.context_overfetch
        detail = request.max_results * self.config.candidate_overfetch
        # Superseded memories are fetched so that they can be replaced by their
        # successors, as search does.
        fetch_filters = filters.model_copy(update={"include_superseded": True})
        if at is not None:
            fetch_filters = _as_of_fetch(fetch_filters, at)
        found = self._candidates(
            request.context_hint,
            fetch_filters,
            project_id,
            fetch,
            detail,
            vector=True,
            fulltext=True,
            recent=self.config.context_text_scorer == ctx.HYBRID,
        )
        self._held(found, filters, now, project_id, as_of=at is not None)
        if self.config.context_text_scorer == ctx.HYBRID:
            self._feedback(found, fetch, request.min_relevance)
        max_access = self._scope_max_access(project_id, request.session_id)
        weights = ctx.context_weights(request.recency_weight)
        text = self._context_text(request.context_hint, found, fetch)
        notes = [] if self.embedder is not None else [EMBEDDINGS_OFF]
        relevance = {i: r for i, r in text.items() if r >= request.min_relevance}
        expired = found.expired_matches(request.min_relevance)
        if found.memories and not relevance:
            notes.append(nothing_relevant(max(text.values()), request.min_relevance))
        elif not found.memories:
            notes.append(nothing_relevant(None, request.min_relevance, expired=bool(expired)))
        if expired:
            notes.append(expired_note(expired))
        memories = found.memories
        # As of a past time a superseded memory had stopped holding (graphmem.validity).
        if not request.include_superseded and at is None:
            self._replace_superseded(relevance, memories, {}, filters, notes, project_id)
        paths: dict[str, GraphPath] = {}
        if self.config.context_depth:
            seeds = _best_first(relevance, memories)
            self._expand(
                seeds[: request.max_results],
                self.config.context_depth,
                TRAVERSED,
                relevance,
                memories,
                paths,
                filters,
                project_id,
                at,
            )
        scores = {
            memory_id: ctx.score_total(
                memories[memory_id], rel, now=now, max_access_count=max_access, weights=weights
            )
            for memory_id, rel in relevance.items()
        }
        ranked = _best_first(scores, memories)
        # As in HYBRID search, memories reached only by a relation take at most a
        # share of the results.
        only_reached = set(paths) - set(found.hits)
        reached = [i for i in ranked if i in only_reached]
        dropped = set(reached[self._traversal_slots(request.max_results) :])
        chosen = self.policy.select(
            [i for i in ranked if i not in dropped],
            memory=lambda i: _as_current(memories[i], request),
            score=lambda i: scores[i],
            limit=request.max_results,
        )
        full = self._full(chosen, project_id, at)
        items = [
            ContextItem(
                memory=full[memory_id],
                score=scores[memory_id],
                components=ctx.score_memory(
                    memories[memory_id],
                    relevance[memory_id],
                    now=now,
                    max_access_count=max_access,
                    weights=weights,
                )[1],
                retrievers=found.explained(memory_id),
                path=paths.get(memory_id),
            )
            for memory_id in chosen
            if memory_id in full
        ]
        if at is not None:
            record_access = False  # reading the past is not using a memory now
        if self.config.record_access if record_access is None else record_access:
            # An archived memory shown on request is not put back to use by being
            # read: restoring it is what counts as its use.
            live = [item.memory for item in items if item.memory.tier is not Tier.ARCHIVED]
            self._record_retrievals(live, project_id, now)
        return ContextResult(
            items=items,
            weights=weights,
            max_access_count=max_access,
            candidates=len(found.memories),
            notes=notes,
            took_ms=(time.perf_counter() - started) * 1000.0,
        )

    def _context_text(self, hint: str, found: _Candidates, fetch: int) -> dict[str, float]:
        """Each candidate's text similarity to the hint, by the configured scorer."""
        if self.config.context_text_scorer == ctx.WORD_OVERLAP:
            words = ctx.words(hint)
            return {
                memory_id: ctx.text_similarity(words, ctx.memory_words(memory))
                for memory_id, memory in found.memories.items()
            }
        return found.relevance(
            self.config.fusion,
            fetch,
            self.config.feedback.factor,
            exchanges=self.config.exchanges,
        )

    def _full(self, ids: Sequence[str], project_id: str, at: float | None) -> dict[str, Memory]:
        """Every field of the memories that made the cut (candidates carry a few),
        as they stood at ``at`` for an ``as_of`` read."""
        if at is not None:
            then = self.history.get_many(ids, at, project_id=project_id)
            return {m.id: m for m in then if m is not None}
        rows = self.store.read("get_memories", {"ids": list(ids), "project_id": project_id})
        return {row["memory"]["id"]: memory_from_fields(row["memory"]) for row in rows}

    def _held(
        self, found: _Candidates, filters: SearchFilters, at: float, project_id: str, *, as_of: bool
    ) -> None:
        """Leave out the candidates whose validity had ended by ``at`` (a
        superseded one is left to search's replacement), unless superseded
        ones were asked for. For an ``as_of`` read, each candidate
        is taken as it stood then and the filters apply to that."""
        memories = list(found.memories.values())
        if as_of:
            memories = self.history.at(memories, at, project_id=project_id)
            memories = [m for m in memories if filters.allows(m)]
        if not filters.include_superseded:

            def kept(m: Memory) -> bool:
                if as_of:
                    return m.held_at(at)
                return m.superseded_by is not None or _open(m, at)

            found.expired = [
                (m, found.hits.get(m.id, []))
                for m in memories
                if not kept(m) and not _open(m, at) and m.superseded_by is None
            ]
            memories = [m for m in memories if kept(m)]
        found.keep(memories)

    def _scope_max_access(self, project_id: str, session_id: str | None) -> int:
        key = (project_id, session_id)
        ttl = self.config.max_access_cache_seconds
        with self._lock:
            cached = self._max_access.get(key)
        if cached is not None and cached[1] > time.monotonic():
            return cached[0]
        if session_id is None:
            rows = self.store.read("max_access_project", {"project_id": project_id})
        else:
            rows = self.store.read(
                "max_access_session", {"project_id": project_id, "session_id": session_id}
            )
        value = int(rows[0]["max_access_count"]) if rows else 0
        if ttl > 0:
            with self._lock:
                self._max_access[key] = (value, time.monotonic() + ttl)
        return value

    def _record_retrievals(self, memories: Sequence[Memory], project_id: str, now: float) -> None:
        """Count a retrieval on each memory returned; accesses (use) stay as they are."""
        if memories:
            self.store.write(
                "record_retrievals",
                {"ids": [m.id for m in memories], "project_id": project_id, "now": now},
            )

    # -- search --------------------------------------------------------------

    def search(
        self, arguments: SearchRequest | Mapping[str, Any], *, project_id: str
    ) -> SearchResult:
        """Hybrid search (see ``graphmem.retrieval.search``); emits ``retrieval.search``."""
        started = time.perf_counter()
        with self.telemetry.timed(
            "retrieval.search", self.clock, project_id=project_id, mode=None, results=0
        ) as event:
            request = parse(SearchRequest, arguments)
            event["mode"] = request.mode.value
            result = self._search(request, project_id, started)
            event["results"] = len(result.hits)
            return result

    def _search(self, request: SearchRequest, project_id: str, started: float) -> SearchResult:
        mode = request.mode
        now = stored_now(self.clock)
        at = None if request.as_of is None else check_as_of(request.as_of, now)
        notes: list[str] = []
        if self.embedder is None:
            if mode is SearchMode.VECTOR:
                raise InvalidInputError(
                    "mode: VECTOR search needs embeddings, which are off "
                    "(GRAPHMEM_EMBEDDER=none); use HYBRID, FULLTEXT or GRAPH",
                    field="mode",
                )
            notes.append(EMBEDDINGS_OFF)
        use_vector = mode is not SearchMode.FULLTEXT and self.embedder is not None
        use_fulltext = mode is not SearchMode.VECTOR
        filters = request.filters
        # Superseded hits are fetched so that they can be replaced by their successors.
        fetch_filters = filters.model_copy(update={"include_superseded": True})
        if at is not None:
            fetch_filters = _as_of_fetch(filters, at)
        fetch = max(request.limit * self.config.search_overfetch, 20)
        detail = max(request.limit * self.config.candidate_overfetch, 10)
        found = self._candidates(
            request.query,
            fetch_filters,
            project_id,
            fetch,
            detail,
            vector=use_vector,
            fulltext=use_fulltext,
            recent=True,
        )
        self._held(found, filters, now if at is None else at, project_id, as_of=at is not None)
        self._feedback(found, fetch, request.min_relevance)
        fused = found.relevance(
            self.config.fusion,
            fetch,
            self.config.feedback.factor,
            exchanges=self.config.exchanges,
        )
        relevance = {i: r for i, r in fused.items() if r >= request.min_relevance}
        expired = found.expired_matches(request.min_relevance)
        if not relevance:
            best = max(fused.values(), default=None)
            notes.append(nothing_relevant(best, request.min_relevance, expired=bool(expired)))
        if expired:
            notes.append(expired_note(expired))
        memories = found.memories
        seeds_kept = request.limit
        if mode is SearchMode.GRAPH:
            seeds_kept = self.config.graph_seeds
        replaces: dict[str, list[str]] = {}
        # As of a past time a superseded memory had stopped holding and is left out
        # (graphmem.validity): there is nothing to replace.
        if not filters.include_superseded and at is None:
            self._replace_superseded(relevance, memories, replaces, filters, notes, project_id)
        paths: dict[str, GraphPath] = {}
        depth = max(request.depth, 1) if mode is SearchMode.GRAPH else request.depth
        if depth and mode in (SearchMode.HYBRID, SearchMode.GRAPH):
            seeds = _best_first(relevance, memories)[:seeds_kept]
            self._expand(
                seeds,
                depth,
                request.relation_types,
                relevance,
                memories,
                paths,
                filters,
                project_id,
                at,
            )
        if at is not None:  # ranked as of then
            now = at
        weights = self.config.weights.normalised()
        scores = {
            memory_id: rank_total(memories[memory_id], rel, now=now, weights=weights)
            for memory_id, rel in relevance.items()
        }
        ranked = _best_first(scores, memories)
        reached = self._traversal_slots(request.limit) if mode is SearchMode.HYBRID else None
        kept = _cut(
            ranked, request.limit, traversed=set(paths) - set(found.hits), reached_at_most=reached
        )
        full = self._full(kept, project_id, at)
        exchanged = _exchange_notes(found.exchanges)
        hits = [
            SearchHit(
                memory=full[memory_id],
                score=scores[memory_id],
                explanation=Explanation(
                    components=rank_score(
                        memories[memory_id], relevance[memory_id], now=now, weights=weights
                    )[1],
                    retrievers=found.explained(memory_id),
                    path=paths.get(memory_id),
                    replaces=replaces.get(memory_id, []),
                    notes=exchanged.get(memory_id, []),
                ),
            )
            for memory_id in kept
            if memory_id in full
        ]
        retrievers = [
            r
            for r, used in (
                (Retriever.VECTOR, use_vector),
                (Retriever.FULLTEXT, use_fulltext),
                (Retriever.FEEDBACK, Retriever.FEEDBACK in found.rankings),
            )
            if used
        ]
        return SearchResult(
            hits=hits,
            mode=mode.value,
            retrievers=retrievers,
            notes=notes,
            took_ms=(time.perf_counter() - started) * 1000.0,
        )

    def _traversal_slots(self, limit: int) -> int:
        return max(1, int(limit * self.config.traversal_share))

    def _replace_superseded(
        self,
        relevance: dict[str, float],
        memories: dict[str, Memory],
        replaces: dict[str, list[str]],
        filters: SearchFilters,
        notes: list[str],
        project_id: str,
    ) -> None:
        """Swap each superseded hit for the newest memory of its chain that the
        filters allow; the successor keeps the better of the two relevances."""
        superseded = [i for i in relevance if memories[i].superseded_by is not None]
        if not superseded:
            return
        rows = self.store.read("supersede_heads", {"ids": superseded, "project_id": project_id})
        options: dict[str, list[tuple[list[str], Memory]]] = {}
        for row in rows:
            successor = memory_from_fields(row["memory"])
            if filters.allows(successor):
                chain = list(reversed(row["chain"]))  # old ... successor
                options.setdefault(row["old_id"], []).append((chain, successor))
        for old_id in superseded:
            rel = relevance.pop(old_id)
            if old_id not in options:
                notes.append(
                    f"{old_id} was found but is superseded and no successor passes the filters"
                )
                continue
            chain, successor = max(options[old_id], key=lambda o: (len(o[0]), o[1].created_at))
            memories.setdefault(successor.id, successor)
            relevance[successor.id] = max(relevance.get(successor.id, 0.0), rel)
            stands_for = replaces.setdefault(successor.id, [])
            stands_for.extend(i for i in chain[:-1] if i not in stands_for)

    def _expand(
        self,
        seeds: list[str],
        depth: int,
        relation_types: Sequence[RelationType],
        relevance: dict[str, float],
        memories: dict[str, Memory],
        paths: dict[str, GraphPath],
        filters: SearchFilters,
        project_id: str,
        at: float | None,
    ) -> None:
        """Pull in what the seeds relate to, each at its best inherited relevance;
        for an ``as_of`` read, along the relations and memories of then."""
        if not seeds or not relation_types:
            return
        if at is not None:
            rows = self._expansion_as_of(seeds, depth, relation_types, filters, project_id, at)
        else:
            rows = self.store.read(
                "expand_relations",
                {
                    "seed_ids": seeds,
                    "project_id": project_id,
                    "depth": min(depth, MAX_DEPTH),
                    "relation_types": [t.value for t in relation_types],
                    "max_paths": self.config.max_paths,
                },
            )
        base = {seed: relevance[seed] for seed in seeds}
        for row in rows:
            memory = memory_from_fields(row["memory"])
            if not filters.allows(memory):
                continue
            steps = [PathStep(**step) for step in row["steps"]]
            factor = self.config.factors.along(steps, row["node_ids"])
            inherited = base[row["seed_id"]] * factor
            if inherited <= relevance.get(memory.id, 0.0):
                continue  # found directly, or by a better path, already
            memories.setdefault(memory.id, memory)
            relevance[memory.id] = inherited
            paths[memory.id] = GraphPath(seed_id=row["seed_id"], steps=steps, factor=factor)

    def _expansion_as_of(
        self,
        seeds: list[str],
        depth: int,
        relation_types: Sequence[RelationType],
        filters: SearchFilters,
        project_id: str,
        at: float,
    ) -> list[Row]:
        """``expand_relations``' rows as the graph stood at ``at``: paths along the
        relations of then, to memories that held then."""
        paths, nodes = self.history.walk(
            seeds,
            min(depth, MAX_DEPTH),
            relation_types,
            at,
            project_id=project_id,
            max_paths=self.config.max_paths,
        )
        return [
            {
                "seed_id": path.seed_id,
                "memory": nodes[path.node_ids[-1]].model_dump(),
                "node_ids": path.node_ids,
                "steps": [
                    {"type": s.type, "from_id": s.from_id, "to_id": s.to_id} for s in path.steps
                ],
            }
            for path in paths
            if filters.include_superseded or nodes[path.node_ids[-1]].held_at(at)
        ]

    # -- candidates ----------------------------------------------------------

    def _candidates(
        self,
        text: str,
        filters: SearchFilters,
        project_id: str,
        fetch: int,
        detail: int,
        *,
        vector: bool,
        fulltext: bool,
        recent: bool = False,
    ) -> _Candidates:
        """Each retriever's filtered top ``fetch``, its best ``detail`` as candidates
        and the rest as scores (``_Candidates``). The vector side (embedding the
        query, then the kNN) runs on a worker while full text runs here: each
        takes a few milliseconds, and side by side a search waits for the
        slower one only. With ``recent`` and both retrievers, a long query's
        last sentences (recent.py) are embedded in the same model run as the
        query and looked up beside it."""
        scope = self._scope(project_id)
        found = _Candidates(scope=scope, text=text)
        params = {"project_id": project_id, **filters.params()}
        pending: Future[_Nearest] | None = None
        if vector and self.embedder is not None:
            texts = [text]
            if recent and fulltext and (tail := recent_part(text, self.config.recent)):
                texts.append(tail)
            # In the caller's context: the acting agent ($viewer) and the trace go along.
            pending = self._pool().submit(
                contextvars.copy_context().run,
                self._nearest,
                self.embedder,
                texts,
                params,
                fetch,
                detail,
                self._corpus_stats(scope),
            )
        if fulltext:
            best, deeper = self._fulltext(text, filters, params, scope, fetch, detail, found.stems)
            found.add(Retriever.FULLTEXT, best)
            found.add_scores(Retriever.FULLTEXT, deeper)
        if pending is not None:
            nearest, deeper, last = pending.result()
            found.add(Retriever.VECTOR, nearest)
            found.add_scores(Retriever.VECTOR, deeper)
            if last:
                found.add_recent(last[0], fetch, self.config.recent.weight)
        return found

    def _feedback(self, found: _Candidates, fetch: int, min_relevance: float) -> None:
        """Score the candidates again by BM25, the query expanded by the words most
        typical of the best ``feedback.docs`` memories of the fused first pass
        that reach ``min_relevance`` (feedback.py). Only when both retrievers ran,
        the query is short enough and a first hit is relevant: words taken from
        irrelevant memories would make an off-topic query look answered."""
        config = self.config.feedback
        if (
            config.docs <= 0
            or Retriever.VECTOR not in found.rankings
            or Retriever.FULLTEXT not in found.rankings
            or len(query_terms(found.text)) > config.max_query_terms
        ):
            return
        first = found.relevance(self.config.fusion, fetch, exchanges=self.config.exchanges)
        relevant = [i for i in first if first[i] >= min_relevance]
        best = _best_first(first, found.memories, among=relevant)
        model = relevance_model(
            [
                (first[i], memory_text(found.memories[i].content, found.memories[i].rationale))
                for i in best[: config.docs]
            ],
            terms=config.terms,
        )
        if model:
            found.score(Retriever.FEEDBACK, self._rescore(found, model))

    def _rescore(self, found: _Candidates, expansion: Mapping[str, float]) -> dict[str, float]:
        """Every candidate's BM25 for the query expanded by ``expansion`` (word ->
        P(w|R), from ``relevance_model``; RM3's weights, ``expanded_weights``),
        over the query's total IDF as full text scores. Only the candidates the
        retrievers already found are scored: no further index query, whose
        union of added words would read a large share of a big store."""
        terms = query_terms(found.text)
        own = {stem(t) for t in terms}
        added = [w for w in expansion if stem(w) not in own]
        scope = found.scope
        counts = self.terms.counts(terms + added, scope)
        corpus = self._corpus_stats(scope)
        weights = expanded_weights(
            query_weights(terms + added, counts, corpus),
            [stem(t) for t in terms],
            expansion,
            original_weight=self.config.feedback.original_weight,
        )
        mass = sum(weights.values()) or 1.0
        scores = bm25(
            weights,
            ((memory_id, found.analysed(memory_id)) for memory_id in found.memories),
            mean_length=corpus.mean_length,
        )
        return {i: min(1.0, score / mass) for i, score in scores.items() if score > 0}

    def _nearest(
        self,
        embedder: Embedder,
        texts: list[str],
        params: dict[str, Any],
        fetch: int,
        detail: int,
        corpus: Corpus,
    ) -> _Nearest:
        """The first text's filtered nearest ``fetch``: the best ``detail`` as
        candidates, the rest as ids, each with its cosine; then the other texts'
        rows (ids and scores: they rescore what is already found). The texts are
        embedded in one model run.

        The candidates are decoded and analysed here (fulltext.analyse keeps each
        text's stems, which feedback reads): on this worker that runs while the
        caller's thread waits on its full-text statements."""
        vectors = embedder.embed(texts)
        first, *others = (
            self._vector(vector, params, fetch, corpus, detailed=detail if index == 0 else 0)
            for index, vector in enumerate(vectors)
        )
        nearest = [(_candidate(row), row["score"]) for row in first[:detail]]
        for memory, _ in nearest:
            analyse(memory_text(memory.content, memory.rationale))
        return nearest, [(row["id"], row["score"]) for row in first[detail:]], others

    def _vector(
        self, vector: Vector, params: dict[str, Any], fetch: int, corpus: Corpus, *, detailed: int
    ) -> list[Row]:
        """The nearest ``fetch`` memories of the project that pass the filters, the
        first ``detailed`` with their fields and text.

        A project the viewer reads no more than ``exact_vector_below`` memories of
        is scored whole, exactly (``vector_scan``): the vector index spans every
        project, and its best ``k`` held too few of a small project in a store of
        many (madial's 160 memories beside 7,000 chat turns: HYBRID recall@10
        0.726 against 0.748 alone), so another project's memories changed the
        answer. Scoring 2,000 vectors costs about 3 ms, 10,000 about 11.

        A larger project asks the index for its best ``k``, filtered; k grows
        while the filters leave fewer than ``fetch`` and the index has more.

        An index that gives fewer than ``k`` may still hold more: FalkorDB 4.16
        leaves a memory's old vector in its index each time any property of the
        memory is written (an access, a retrieval, a promotion), and those
        shadow live vectors, so a kNN of ``k`` returns fewer (docs/retrieval.md).
        Unless it gave every memory the store holds (``documents``), it is asked
        once more, for four times as many: that finds what the shadows hid
        (measured), where asking until it gives ``k`` cost a fifth of the
        throughput of a store written to all the time."""
        if corpus.documents <= self.config.exact_vector_below:
            return self.store.read(
                "vector_scan", {**params, "vector": vector, "detailed": detailed, "limit": fetch}
            )
        documents = corpus.indexed
        k = fetch * 2
        asked_again = False
        while True:
            rows = self.store.read(
                "vector_candidates",
                {**params, "vector": vector, "detailed": detailed, "k": k, "limit": fetch},
            )
            if len(rows) >= fetch or k >= self.config.index_k_max:
                return rows
            if rows and rows[0]["seen"] < k:  # the index gave fewer than asked
                if asked_again or rows[0]["seen"] >= documents:
                    return rows
                asked_again = True
            k = min(k * 4, self.config.index_k_max)

    def _fulltext(
        self,
        text: str,
        filters: SearchFilters,
        params: dict[str, Any],
        scope: Scope,
        fetch: int,
        detail: int,
        stems: dict[str, list[str]],
    ) -> tuple[list[tuple[Memory, float]], list[tuple[str, float]]]:
        """Full text's best ``fetch`` by BM25 over the query's total IDF (see
        ``fusion``): the index's matches (up to ``fulltext_rescore``) are ranked by
        their text, then the fields of the best are read and filtered until
        ``detail`` pass. Those are the candidates; the matches ranked after them,
        their fields unread, come as ids and scores up to ``fetch`` in all.
        ``stems`` keeps each match's analysed text."""
        terms = query_terms(text)
        if not terms:
            return [], []
        counts = self.terms.counts(terms, scope)
        k = self.config.fulltext_rescore
        dialect, common = self.store.dialect, self.config.common_term_docs
        # No memory holding every common word: ask for those holding fewer of them,
        # each statement carrying the next relaxation in case the index matches nothing.
        queries = [
            self._scoped(query, scope)
            for query in (
                build_query(terms, counts, common=common, dialect=dialect),
                *relaxations(terms, counts, common=common, dialect=dialect),
            )
        ]
        position = 0
        while position < len(queries):
            query = queries[position]
            fallback = queries[position + 1] if position + 1 < len(queries) else None
            matches, seen, fell_back = self._fulltext_matches(query, params, k, fallback)
            if fell_back and fallback is not None:
                query, position = fallback, position + 1
            if matches:
                break
            position += 1
        corpus = self._corpus_stats(scope)
        weights = query_weights(terms, counts, corpus)
        # BM25 over the query's total IDF: the share of what the query says that the
        # memory holds, on [0, 1] whatever the store's size or the query's length.
        mass = sum(weights.values()) or 1.0
        allowed: dict[str, Memory | None] = {}
        while True:
            for row in matches:
                if row["id"] not in stems:
                    stems[row["id"]] = analyse(memory_text(row["content"] or "", row["rationale"]))
            scores = bm25(
                weights,
                ((row["id"], stems[row["id"]]) for row in matches),
                mean_length=corpus.mean_length,
            )
            ranked = sorted(
                matches,
                key=lambda row: (-scores[row["id"]], -(row["created_at"] or 0.0), row["id"]),
            )
            ids = [row["id"] for row in ranked]
            kept = self._allowed(ids, filters, detail, allowed, params)
            # Ranked after the candidates: matches whose fields were read and pass
            # the filters, or were not read. Those are taken to pass: their scores
            # go only to vector candidates (which passed the same filters) and
            # into the floor, which a filtered-out one leaves a little high.
            candidates = {memory.id for memory in kept}
            deeper = [
                i
                for i in ids
                if i not in candidates and (i not in allowed or allowed[i] is not None)
            ][: fetch - len(kept)]
            # The filters left too few, and the index has more: ask it for more.
            if len(kept) + len(deeper) >= fetch or seen < k or k >= self.config.index_k_max:
                return (
                    [(memory, min(1.0, scores[memory.id] / mass)) for memory in kept],
                    [(i, min(1.0, scores[i] / mass)) for i in deeper],
                )
            k = min(k * 4, self.config.index_k_max)
            matches, seen, _ = self._fulltext_matches(query, params, k)

    def _fulltext_matches(
        self, query: str, params: dict[str, Any], k: int, fallback: str | None = None
    ) -> tuple[list[Row], int, bool]:
        """The index's best ``k`` matches of the project the viewer may see, with
        their text; how many the index gave (fewer than ``k``: no more); and
        whether they answer ``fallback``, asked when ``query`` matched nothing."""
        if not query:
            return [], 0, False
        rows = self.store.read(
            "fulltext_candidates", {**params, "query": query, "fallback": fallback, "k": k}
        )
        if not rows:
            return [], 0, False
        return (
            [row for row in rows if row["id"] is not None],
            rows[-1]["seen"],
            rows[-1]["fell_back"],
        )

    def _allowed(
        self,
        ranked: Sequence[str],
        filters: SearchFilters,
        fetch: int,
        allowed: dict[str, Memory | None],
        params: dict[str, Any],
    ) -> list[Memory]:
        """The first ``fetch`` of ``ranked`` that pass ``filters``, their fields read
        a few more than still needed at a time. ``allowed`` keeps each id read: its
        memory when the filters allow it, else ``None`` (or not visible at all)."""
        kept: list[Memory] = []
        position = 0
        while len(kept) < fetch and position < len(ranked):
            wanted = fetch - len(kept)
            chunk = ranked[position : position + wanted + wanted // 4 + 4]
            position += len(chunk)
            missing = [i for i in chunk if i not in allowed]
            if missing:
                rows = self.store.read(
                    "candidate_memories", {"ids": missing, "project_id": params["project_id"]}
                )
                allowed.update(dict.fromkeys(missing))
                allowed.update(
                    (memory.id, memory)
                    for memory in map(_candidate, rows)
                    if filters.allows(memory)
                )
            kept += [m for i in chunk if (m := allowed[i]) is not None]
        return kept[:fetch]

    def _scope(self, project_id: str) -> Scope:
        """What full-text statistics are counted over for the acting agent in
        ``project_id`` (graphmem.textscope), keyed by the project's generation."""
        return Scope(project_id, acting_agent(), self._generations.get(project_id, 0))

    def project_term_counts(self, terms: Sequence[str], project_id: str) -> dict[str, int]:
        """How many of ``project_id``'s memories (as the acting agent sees them)
        the full-text index matches per word, counted now."""
        return self.term_matches(terms, self._scope(project_id))

    def scoped(self, query: str, project_id: str) -> str:
        """A full-text index query held to what the acting agent may read of ``project_id``."""
        return self._scoped(query, self._scope(project_id))

    def _scoped(self, query: str, scope: Scope) -> str:
        return self.store.dialect.scoped(query, scope.project_id, scope.viewer)

    def _on_event(self, event: Event) -> None:
        """A write to a small project drops its cached statistics: there, one memory
        moves its IDFs. A large one keeps them until they expire, as a write
        moves them by little (a write elsewhere reaches them then too)."""
        if event.name != "memory.changed" or event.fields.get("kind") not in _RECOUNTED:
            return
        project_id = event.fields.get("project_id")
        if not isinstance(project_id, str):
            return
        with self._lock:
            if self._sizes.get(project_id, 0) < self.config.recount_below:
                if len(self._generations) >= MAX_SCOPES:
                    # Generations start again at 0: nothing cached under one may stay.
                    self._generations.clear()
                    self._corpus.clear()
                    self.terms.clear()
                self._generations[project_id] = self._generations.get(project_id, 0) + 1

    def _corpus_stats(self, scope: Scope) -> Corpus:
        """The scope's size, mean memory length and a uniform sample's word counts,
        re-read every ``term_cache_seconds``."""
        with self._lock:
            cached = self._corpus.get(scope)
        if cached is not None and cached[1] > time.monotonic():
            return cached[0]
        rows = self.store.read(
            "fulltext_corpus",
            {"project_id": scope.project_id, "sample": self.config.corpus_sample},
        )
        row: Row = rows[0] if rows else {"indexed": 0, "documents": 0, "texts": []}
        if row["texts"]:
            corpus = Corpus.from_sample(int(row["documents"]), row["texts"], int(row["indexed"]))
        else:
            corpus = Corpus(documents=0, mean_length=1.0, indexed=int(row["indexed"]))
        with self._lock:
            if len(self._corpus) >= MAX_SCOPES:
                self._corpus = {
                    key: value for key, value in self._corpus.items() if value[1] > time.monotonic()
                }
                if len(self._corpus) >= MAX_SCOPES:
                    self._corpus.clear()
            self._corpus[scope] = (corpus, time.monotonic() + self.config.term_cache_seconds)
            if len(self._sizes) >= MAX_SCOPES:
                self._sizes.clear()
            self._sizes[scope.project_id] = corpus.documents
        return corpus

    def term_matches(self, terms: Sequence[str], scope: Scope) -> dict[str, int]:
        """How many of the scope's memories the full-text index matches per word:
        estimated from the corpus sample for a word it holds often enough, else
        counted by the index now (capped at ``term_count_cap``); ``terms`` holds
        the cached counts."""
        corpus = self._corpus_stats(scope)
        counts: dict[str, int] = {}
        counted: list[str] = []
        for term in terms:
            estimate = corpus.estimate(term)
            if estimate is None:
                counted.append(term)
            else:
                counts[term] = estimate
        for start in range(0, len(counted), PROBE_SLOTS):
            chunk = counted[start : start + PROBE_SLOTS]
            slots = [self._scoped(term, scope) for term in chunk]
            slots += [""] * (PROBE_SLOTS - len(chunk))
            rows = self.store.read(
                "fulltext_term_counts", {"slots": slots, "cap": self.config.term_count_cap}
            )
            for row in rows:
                counts[chunk[row["slot"]]] = row["matches"]
        return counts

    def _pool(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(
                    VECTOR_WORKERS, thread_name_prefix="graphmem-vector"
                )
            return self._executor

    # -- neighbourhood -------------------------------------------------------

    def neighborhood(
        self,
        memory_id: str,
        *,
        project_id: str,
        depth: int = 1,
        relation_types: Sequence[RelationType | str] | None = None,
        as_of: Any = None,
    ) -> Neighborhood:
        """A memory and what lies within ``depth`` relations of it. With
        ``as_of``: the memories and relations that existed then, as they stood
        (a centre not yet written then has an empty neighbourhood)."""
        if not 1 <= depth <= MAX_DEPTH:
            raise InvalidInputError(f"depth: must be between 1 and {MAX_DEPTH}", field="depth")
        try:
            types = [
                RelationType(t) for t in (relation_types or [*TRAVERSED, RelationType.SUPERSEDES])
            ]
        except ValueError:
            allowed = ", ".join(t.value for t in RelationType)
            raise InvalidInputError(
                f"relation_types: each must be one of {allowed}", field="relation_types"
            ) from None
        type_names = [t.value for t in dict.fromkeys(types)]
        if as_of is not None:
            at = check_as_of(as_of, stored_now(self.clock))
            return self._neighborhood_as_of(
                memory_id, depth, list(dict.fromkeys(types)), project_id, at
            )
        rows = self.store.read(
            "neighborhood",
            {
                "id": memory_id,
                "project_id": project_id,
                "depth": depth,
                "relation_types": type_names,
                "max_nodes": self.config.neighborhood_max_nodes,
            },
        )
        if not rows:
            raise NotFoundError(
                f"id: no memory {memory_id!r} in project {project_id!r}", field="id"
            )
        (row,) = rows
        nodes = [memory_from_fields(row["center"])]
        nodes += [memory_from_fields(fields) for fields in row["nodes"]]
        ids = [node.id for node in nodes]
        edges = self.store.read(
            "edges_between",
            {"ids": ids, "project_id": project_id, "relation_types": type_names},
        )
        return Neighborhood(
            center_id=memory_id,
            depth=depth,
            nodes=nodes,
            edges=[Relation(**edge) for edge in edges],
            truncated=row["reachable"] > self.config.neighborhood_max_nodes,
        )

    def _neighborhood_as_of(
        self,
        memory_id: str,
        depth: int,
        types: list[RelationType],
        project_id: str,
        at: float,
    ) -> Neighborhood:
        """``neighborhood`` as the graph stood at ``at``, walked breadth first."""
        (center,) = self.history.get_many([memory_id], at, project_id=project_id)
        if center is None:
            if not self.store.read("get_memories", {"ids": [memory_id], "project_id": project_id}):
                raise NotFoundError(
                    f"id: no memory {memory_id!r} in project {project_id!r}", field="id"
                )
            return Neighborhood(center_id=memory_id, depth=depth, nodes=[], edges=[])
        nodes = {center.id: center}
        frontier = [center.id]
        for _ in range(depth):
            relations = self.history.relations(frontier, types, at, project_id=project_id)
            ends = sorted({e for r in relations for e in (r.from_id, r.to_id)} - nodes.keys())
            reached = self.history.get_many(ends, at, project_id=project_id)
            frontier = [m.id for m in reached if m is not None]
            nodes.update({m.id: m for m in reached if m is not None})
            if not frontier:
                break
        limit = self.config.neighborhood_max_nodes
        kept = list(nodes.values())[: limit + 1]
        ids = {m.id for m in kept}
        edges = [
            r
            for r in self.history.relations(sorted(ids), types, at, project_id=project_id)
            if r.from_id in ids and r.to_id in ids
        ]
        return Neighborhood(
            center_id=memory_id,
            depth=depth,
            nodes=kept,
            edges=edges,
            truncated=len(nodes) - 1 > limit,
        )


_decode = json.JSONDecoder(strict=False).decode

_Nearest = tuple[list[tuple[Memory, float]], list[tuple[str, float]], list[list[Row]]]
"""The vector side's candidates and deeper scores, and the other query vectors' rows."""


def _candidate(row: Row) -> Memory:
    """A candidate statement's memory: its fields as one JSON text (``fields``,
    FalkorDB) or a map (``memory``), and its text beside them."""
    fields = _decode(row["fields"]) if row["fields"] is not None else dict(row["memory"])
    fields["content"] = row["content"]
    fields["rationale"] = row["rationale"]
    return memory_from_fields(fields)


def _best_first(
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


def _open(memory: Memory, at: float) -> bool:
    """Its validity had not ended by ``at``."""
    return memory.valid_to is None or memory.valid_to > at


def _as_of_fetch(filters: SearchFilters, at: float) -> SearchFilters:
    """The candidate statements' filters for an ``as_of`` read: tiers, statuses
    and supersession were other then, so they are checked afterwards on each
    memory as it stood; only memories written by then are fetched (times are
    kept to the millisecond)."""
    before = at + 0.001
    if filters.created_before is not None:
        before = min(before, filters.created_before)
    return filters.model_copy(
        update={
            "tiers": [],
            "statuses": [],
            "include_candidates": True,
            "include_archived": True,
            "include_superseded": True,
            "created_before": before,
        }
    )


def _exchange_notes(pairs: Mapping[str, str]) -> dict[str, list[str]]:
    """What a hit scored as one exchange with another turn says (exchange.py)."""
    notes: dict[str, list[str]] = {}
    for answer, asked in pairs.items():
        notes.setdefault(answer, []).append(
            f"scored as one exchange with {asked}, the question before it in its "
            "session: both take the mean of their relevances"
        )
        notes.setdefault(asked, []).append(
            f"scored as one exchange with {answer}, the turn after this question: "
            "both take the mean of their relevances"
        )
    return notes


def _cut(
    ranked: list[str], limit: int, *, traversed: set[str], reached_at_most: int | None
) -> list[str]:
    """The best ``limit`` of ``ranked``, of which at most ``reached_at_most`` (``None``:
    any number) were reached only by traversal; the order is kept."""
    if reached_at_most is None:
        return ranked[:limit]
    kept: list[str] = []
    reached = 0
    for memory_id in ranked:
        if memory_id in traversed:
            if reached >= reached_at_most:
                continue
            reached += 1
        kept.append(memory_id)
        if len(kept) == limit:
            break
    return kept


def _as_current(memory: Memory, request: ctx.ContextRequest) -> Memory:
    """The memory as the injection policy should judge it: with
    ``include_superseded`` or ``include_archived`` the caller asked for
    superseded or archived memories too (an archived one is judged as the
    tier it left)."""
    update: dict[str, Any] = {}
    if request.include_superseded and memory.superseded_by is not None:
        update["superseded_by"] = None
    if request.include_archived and memory.tier is Tier.ARCHIVED:
        update["tier"] = memory.archived_from or Tier.WORKING
    return memory.model_copy(update=update) if update else memory


@contextmanager
def _progress(show: bool, total: int) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr when asked for; the callback advances it."""
    if not show:
        yield lambda _n: None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True)) as progress:
        task = progress.add_task("embedding memories", total=total)
        yield lambda n: progress.advance(task, n)
