"""The retrievers: vector kNN, full text and lexical feedback, each asking the
store for a query's best and handing them to one ``Candidates``.

A project of up to a few thousand memories is ranked whole on both sides:
every vector is scored and every full-text match is read, so no index's
approximation or scorer chooses what another ranking never sees. A larger
project's candidates come from the native indexes (vector kNN, full text),
over-fetched and filtered in the database, and the exact scoring formulas run
on those candidates only, which keeps a call at 100,000 memories to a few
milliseconds of database work.

The vector side (embedding the query, ~4 ms on a CPU, then the kNN) runs on a
worker thread while full text runs on the caller's, so the two overlap.
"""

from __future__ import annotations

import contextvars
import math
import threading
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from graphmem.domain.models import Memory
from graphmem.domain.retrieval.explain import Retriever
from graphmem.domain.retrieval.search import SearchFilters
from graphmem.domain.retrieval.when import Period
from graphmem.domain.text import names
from graphmem.services.embeddings import Embedder, Vector, memory_text
from graphmem.services.retrieval.candidates import Candidates, best_first
from graphmem.services.retrieval.config import RetrievalConfig
from graphmem.services.retrieval.feedback import expanded_weights, relevance_model
from graphmem.services.retrieval.fulltext import (
    Corpus,
    analyse,
    bm25,
    build_query,
    lexical_share,
    query_terms,
    query_weights,
    query_words,
    relaxations,
    stem,
)
from graphmem.services.retrieval.recent import recent_part
from graphmem.services.retrieval.statistics import Scope, TextStatistics
from graphmem.store import Store
from graphmem.store.knn import Reach
from graphmem.store.queries import candidates
from graphmem.store.queries.candidates import Nearest
from graphmem.store.queries.fulltext import Match, Matches, best_matches, every_match

VECTOR_WORKERS = 4
"""Concurrent searches' vector sides run side by side; their query embeddings
meet in the embedder, which runs the model once for all that wait."""

_Nearest = tuple[list[tuple[Memory, float]], list[tuple[str, float]], list[list[Nearest]]]
"""The vector side's candidates and deeper scores, and the other query vectors' rows."""


class Retrievers:
    """The retrievers of one store, its embedder (``None``: no vectors) and its
    full-text statistics; ``config`` is read at each call."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder | None,
        statistics: TextStatistics,
        config: Callable[[], RetrievalConfig],
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.statistics = statistics
        self._config = config
        self._lock = threading.Lock()
        self._executor: ThreadPoolExecutor | None = None

    def gather(
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
        lexical: str | None = None,
    ) -> Candidates:
        """Each retriever's filtered top ``fetch``, its best ``detail`` as candidates
        and the rest as scores (``Candidates``). The vector side (embedding the
        query, then the kNN) runs on a worker while full text runs here: each
        takes a few milliseconds, and side by side a search waits for the
        slower one only. With ``recent`` and both retrievers, a long query's
        last sentences (recent.py) are embedded in the same model run as the
        query and looked up beside it. Full text (and feedback) read ``lexical``
        when given: the query without the words that only say when."""
        config = self._config()
        scope = self.statistics.scope(project_id)
        corpus = self.statistics.corpus(scope)
        words = text if lexical is None else lexical
        found = Candidates(scope=scope, text=words, documents=corpus.documents)
        params = {"project_id": project_id, **filters.params()}
        pending: Future[_Nearest] | None = None
        if vector and self.embedder is not None:
            texts = [text]
            if recent and fulltext and (tail := recent_part(text, config.recent)):
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
                corpus,
            )
        if fulltext:
            best, deeper = self._fulltext(words, filters, params, scope, fetch, detail, found)
            found.add(Retriever.FULLTEXT, best)
            found.add_scores(Retriever.FULLTEXT, deeper)
        if pending is not None:
            closest, deeper, last = pending.result()
            found.add(Retriever.VECTOR, closest)
            found.add_scores(Retriever.VECTOR, deeper)
            if last:
                found.add_recent(last[0], fetch, config.recent.weight)
        return found

    def during(
        self,
        text: str,
        periods: Sequence[Period],
        filters: SearchFilters,
        project_id: str,
        limit: int,
        found: Candidates,
    ) -> Period | None:
        """The memories that happened in the first of ``periods`` that holds any
        (their ``occurredAt``) and pass the filters, the ``limit`` nearest
        ``text`` in meaning, as the ``TIME`` retriever's candidates: what a
        question asking for a time alone is answered from. Returns that period
        (``None``: none holds any). Each is scored exactly (``vector_scan``): a
        time holds few memories beside the project's whole, and no index is
        asked of it."""
        if self.embedder is None:
            return None
        (vector,) = self.embedder.embed([text])
        params = {"project_id": project_id, **filters.params()}
        after, before = params["occurred_after"], params["occurred_before"]
        held: list[tuple[Memory, float]] = []
        for period in periods:
            params["occurred_after"] = period.start if after is None else max(after, period.start)
            params["occurred_before"] = period.end if before is None else min(before, period.end)
            rows = candidates.scan(self.store, params, vector, detailed=limit, limit=limit)
            held = [(row.memory, row.score) for row in rows if row.memory]
            if held:
                break
        found.add(Retriever.TIME, held)
        return period if held else None

    def feedback(self, found: Candidates, fetch: int, min_relevance: float) -> None:
        """Score the candidates again by BM25, the query expanded by the words most
        typical of the best ``feedback.docs`` memories of the fused first pass
        that reach ``min_relevance`` (feedback.py). Only when both retrievers ran,
        the query is short enough and a first hit is relevant: words taken from
        irrelevant memories would make an off-topic query look answered."""
        config = self._config()
        setting = config.feedback
        if (
            setting.docs <= 0
            or Retriever.VECTOR not in found.rankings
            or Retriever.FULLTEXT not in found.rankings
            or len(query_terms(found.text)) > setting.max_query_terms
        ):
            return
        first = found.relevance(config.fusion, fetch, exchanges=config.exchanges)
        relevant = [i for i in first if first[i] >= min_relevance]
        best = best_first(first, found.memories, among=relevant)
        model = relevance_model(
            [
                (first[i], memory_text(found.memories[i].content, found.memories[i].rationale))
                for i in best[: setting.docs]
            ],
            terms=setting.terms,
        )
        if model:
            found.score(Retriever.FEEDBACK, self._rescore(found, model))

    def _rescore(self, found: Candidates, expansion: Mapping[str, float]) -> dict[str, float]:
        """Every candidate's BM25 for the query expanded by ``expansion`` (word ->
        P(w|R), from ``relevance_model``; RM3's weights, ``expanded_weights``),
        over the query's total IDF as full text scores. Only the candidates the
        retrievers already found are scored: no further index query, whose
        union of added words would read a large share of a big store."""
        terms = query_terms(found.text)
        own = {stem(t) for t in terms}
        added = [w for w in expansion if stem(w) not in own]
        scope = found.scope
        unknown = [w for w in terms + added if w not in found.counts]
        counts = {**self.statistics.terms.counts(unknown, scope), **found.counts}
        corpus = self.statistics.corpus(scope)
        weights = expanded_weights(
            query_weights(query_words(terms + added, counts, corpus.documents)),
            [stem(t) for t in terms],
            expansion,
            original_weight=self._config().feedback.original_weight,
        )
        mass = sum(weights.values()) or 1.0
        scores = bm25(
            weights,
            ((memory_id, found.analysed(memory_id)) for memory_id in found.memories),
            mean_length=corpus.mean_length,
        )
        return {i: lexical_share(score, mass) for i, score in scores.items() if score > 0}

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

        The candidates are decoded and analysed here (graphmem.domain.analysis.analyse keeps each
        text's stems, which feedback reads): on this worker that runs while the
        caller's thread waits on its full-text statements."""
        vectors = embedder.embed(texts)
        first, *others = (
            self._vector(vector, params, fetch, corpus, detailed=detail if index == 0 else 0)
            for index, vector in enumerate(vectors)
        )
        closest = [(row.memory, row.score) for row in first[:detail] if row.memory is not None]
        for memory, _ in closest:
            analyse(memory_text(memory.content, memory.rationale))
        return closest, [(row.id, row.score) for row in first[detail:]], others

    def _vector(
        self, vector: Vector, params: dict[str, Any], fetch: int, corpus: Corpus, *, detailed: int
    ) -> list[Nearest]:
        """The nearest ``fetch`` memories of the project that pass the filters, the
        first ``detailed`` with their fields and text.

        A project the viewer reads no more than ``exact_vector_below`` memories of
        is scored whole, exactly (``vector_scan``): the vector index spans every
        project, and its best ``k`` held too few of a small project in a store of
        many (madial's 160 memories beside 7,000 chat turns: HYBRID recall@10
        0.726 against 0.748 alone), so another project's memories changed the
        answer. Scoring 2,000 vectors costs about 3 ms, 10,000 about 11.

        A larger project asks the index for twice ``fetch``, filtered, and more
        while the filters leave too few (``graphmem.store.knn``). An index that
        may hide vectors (FalkorDB's shadows) and gave fewer than asked is
        asked once more, unless it gave every memory the store holds: that
        finds what the shadows hid (measured), where asking until it gives
        ``k`` cost a fifth of the throughput of a store written to all the time."""
        config = self._config()
        if corpus.documents <= config.exact_vector_below:
            return candidates.scan(self.store, params, vector, detailed=detailed, limit=fetch)
        reach = Reach(k=fetch * 2, most=config.index_k_max, enough=fetch, stored=corpus.indexed)
        return candidates.from_index(
            self.store, params, vector, detailed=detailed, limit=fetch, reach=reach
        )

    def _fulltext(
        self,
        text: str,
        filters: SearchFilters,
        params: dict[str, Any],
        scope: Scope,
        fetch: int,
        detail: int,
        found: Candidates,
    ) -> tuple[list[tuple[Memory, float]], list[tuple[str, float]]]:
        """Full text's best ``fetch`` by BM25 over the query's total IDF (see
        ``fusion``): the index's matches are ranked by their text, then the
        fields of the best are read and filtered until ``detail`` pass. Those
        are the candidates; the matches ranked after them, their fields unread,
        come as ids and scores up to ``fetch`` in all. ``found`` keeps each
        match's analysed text and the query's words as the project holds them.

        A project the viewer reads at most ``exact_fulltext_below`` memories of
        is ranked whole: every word is asked as an alternative and every match
        is read, so the ranking is BM25's over the project and nothing else. The
        index's own scores, which a write to any memory's properties moves (the
        document is indexed again, and the index's garbage collection of the old
        one moves them once more seconds later), and which count other
        projects' memories, choose nothing there. A larger project asks for the
        index's best ``fulltext_rescore`` of a query whose common words are
        required together (fulltext.py): reading every match of a word held by
        a tenth of 100,000 memories is the cost that rule avoids."""
        terms = query_terms(text)
        if not terms:
            return [], []
        config = self._config()
        corpus = self.statistics.corpus(scope)
        if corpus.documents <= config.exact_fulltext_below:
            query, matches, seen, k = self._whole_matches(terms, scope, params)
            counts = held_by(terms, matches, found.stems)
        else:
            counts = self.statistics.terms.counts(terms, scope)
            query, matches, seen, k = self._index_matches(terms, counts, corpus, scope, params)
        found.counts = dict(counts)
        found.words = query_words(terms, counts, corpus.documents, names(text))
        weights = query_weights(found.words)
        # BM25 over the query's total IDF: the share of what the query says that the
        # memory holds, on [0, 1] whatever the store's size or the query's length.
        mass = sum(weights.values()) or 1.0
        allowed: dict[str, Memory | None] = {}
        while True:
            scores, ids = _ranked(matches, weights, found.stems, corpus.mean_length)
            kept = self._allowed(ids, filters, detail, allowed, params)
            deeper = _deeper(ids, kept, allowed, fetch)
            # The filters left too few, and the index has more: ask it for more.
            if len(kept) + len(deeper) >= fetch or seen < k or k >= config.index_k_max:
                return (
                    [(memory, lexical_share(scores[memory.id], mass)) for memory in kept],
                    [(i, lexical_share(scores[i], mass)) for i in deeper],
                )
            k = min(k * 4, config.index_k_max)
            more = self._fulltext_matches(query, params, k)
            matches, seen = more.matches, more.seen

    def _whole_matches(
        self, terms: list[str], scope: Scope, params: dict[str, Any]
    ) -> tuple[str, list[Match], int, int]:
        """A small project's candidates: every match of a query where every
        word is an alternative (no word is common to a project ranked whole);
        the query, its matches, how many there were and a ``k`` above that,
        since there is none left to ask for. No word is counted first: every
        memory holding one is read, and those say how many hold each
        (``held_by``)."""
        query = self.statistics.scoped(self.store.dialect.fulltext_query(terms), scope)
        rows = every_match(self.store, params, query) if query else []
        return query, rows, len(rows), len(rows) + 1

    def _index_matches(
        self,
        terms: list[str],
        counts: Mapping[str, int],
        corpus: Corpus,
        scope: Scope,
        params: dict[str, Any],
    ) -> tuple[str, list[Match], int, int]:
        """A large project's candidates: the index's best ``fulltext_rescore`` of a
        query whose common words are required together, relaxed while it matches
        nothing; the query answered, its matches, how many the index gave, and
        the ``k`` asked."""
        config = self._config()
        dialect = self.store.dialect
        common = max(1, math.ceil(config.common_term_share * corpus.documents))
        k = config.fulltext_rescore
        # No memory holding every common word: ask for those holding fewer of them,
        # each statement carrying the next relaxation in case the index matches nothing.
        queries = [
            self.statistics.scoped(query, scope)
            for query in (
                build_query(terms, counts, common=common, dialect=dialect),
                *relaxations(terms, counts, common=common, dialect=dialect),
            )
        ]
        position, query, seen = 0, "", 0
        matches: list[Match] = []
        while position < len(queries):
            query = queries[position]
            fallback = queries[position + 1] if position + 1 < len(queries) else None
            answer = self._fulltext_matches(query, params, k, fallback)
            matches, seen = answer.matches, answer.seen
            if answer.fell_back and fallback is not None:
                query, position = fallback, position + 1
            if matches:
                break
            position += 1
        return query, matches, seen, k

    def _fulltext_matches(
        self, query: str, params: dict[str, Any], k: int, fallback: str | None = None
    ) -> Matches:
        """The index's best ``k`` matches of the project the viewer may see, with
        their text; how many the index gave (fewer than ``k``: no more); and
        whether they answer ``fallback``, asked when ``query`` matched nothing."""
        if not query:
            return Matches([], 0, False)
        return best_matches(self.store, params, query, k, fallback)

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
                read = candidates.memories(self.store, missing, params["project_id"])
                allowed.update(dict.fromkeys(missing))
                allowed.update((memory.id, memory) for memory in read if filters.allows(memory))
            kept += [m for i in chunk if (m := allowed[i]) is not None]
        return kept[:fetch]

    def _pool(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(
                    VECTOR_WORKERS, thread_name_prefix="graphmem-vector"
                )
            return self._executor


def held_by(
    terms: Sequence[str], matches: Sequence[Match], stems: dict[str, list[str]]
) -> dict[str, int]:
    """How many of ``matches`` hold each of ``terms`` by graphmem's own analysis:
    a word's document count where the matches are every memory of the scope
    holding a word of the query, so exact, read with the matches and never
    stale (``stems`` keeps each text's analysis for the rest of the query)."""
    _analysed(matches, stems)
    wanted = {stem(term) for term in terms}
    held: Counter[str] = Counter()
    for match in matches:
        held.update(wanted.intersection(stems[match.id]))
    return {term: held[stem(term)] for term in terms}


def _analysed(matches: Sequence[Match], stems: dict[str, list[str]]) -> None:
    """Each match's stems into ``stems``, a text analysed once per query."""
    for match in matches:
        if match.id not in stems:
            stems[match.id] = analyse(match.text)


def _ranked(
    matches: list[Match],
    weights: Mapping[str, float],
    stems: dict[str, list[str]],
    mean_length: float,
) -> tuple[dict[str, float], list[str]]:
    """Each match's BM25 score and the match ids best first (ties by id, so a
    ranking never depends on the index's order); ``stems`` keeps each text's
    analysis for the rest of the query."""
    _analysed(matches, stems)
    scores = bm25(weights, ((m.id, stems[m.id]) for m in matches), mean_length=mean_length)
    ranked = sorted(matches, key=lambda m: (-scores[m.id], m.id))
    return scores, [m.id for m in ranked]


def _deeper(
    ids: list[str], kept: list[Memory], allowed: dict[str, Memory | None], fetch: int
) -> list[str]:
    """Ranked after the candidates, up to ``fetch`` in all: matches whose fields
    were read and pass the filters, or were not read. Those are taken to pass:
    their scores go only to vector candidates (which passed the same filters)
    and into the floor, which a filtered-out one leaves a little high."""
    candidates = {memory.id for memory in kept}
    return [i for i in ids if i not in candidates and (i not in allowed or allowed[i] is not None)][
        : fetch - len(kept)
    ]
