"""The retrieval pipeline: one run of steps that search and knowledgeContext
each configure with a ``Plan`` (plans.py).

1. candidates from the retrievers (retrievers.py), fetched with superseded
   memories too (to be replaced) and, for an ``as_of`` read, as written by then;
   a question that asks for a time alone ("What happened on March 4, 2025?")
   also has the memories of that time, from the time retriever;
2. a time the query names (when.py), resolved against the candidates, and
   each candidate's nearness to it (when the plan reads time: ``TimeUse``);
3. held: candidates whose validity had ended are left out (and named in a
   note) unless they held in the past time the query names; for ``as_of``
   each taken as it stood then;
4. lexical feedback scores them again (when the plan asks for it);
5. their text relevance: the fused relevance, or seed 002's word overlap,
   weighed by nearness in time where the plan weighs it (for a time asked
   alone, the nearness of that time's memories and their cosine); below
   ``min_relevance`` a candidate is no answer, and none is when the query as
   a whole is not answerable (answerable.py);
6. a superseded hit replaced by its newest successor the filters allow,
   unless it held in the past time the query names;
7. expanded along relations from the best ``seeds`` (``depth`` 0: not at all);
8. scored by the plan's formula and ranked, ties in ``tie_order``;
9. memories reached only by a relation capped to a share of the results,
   then the best ``limit`` taken, by the injection policy when the plan has one;
10. what made the cut read in full (as it stood then, for ``as_of``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol

from graphmem.domain.kinds import RelationType, Tier
from graphmem.domain.models import Memory
from graphmem.domain.policy import InjectionPolicy
from graphmem.domain.retrieval import context as ctx
from graphmem.domain.retrieval.answerable import Evidence, unanswered_note
from graphmem.domain.retrieval.explain import GraphPath, Retriever, expired_note
from graphmem.domain.retrieval.fusion import nothing_relevant
from graphmem.domain.retrieval.search import SearchFilters
from graphmem.domain.retrieval.when import (
    Period,
    Timed,
    TimeReference,
    alone_note,
    asks_time_alone,
    nearness,
)
from graphmem.domain.scoring import ScoreComponent
from graphmem.domain.text import tokens
from graphmem.services.history import History
from graphmem.services.memories import readable_references
from graphmem.services.retrieval.candidates import Candidates, best_first
from graphmem.services.retrieval.config import RetrievalConfig
from graphmem.services.retrieval.neighbourhood import Traversal
from graphmem.services.retrieval.retrievers import Retrievers
from graphmem.store import Store
from graphmem.store.queries import memories as stored

EMBEDDINGS_OFF = (
    "embeddings are off (GRAPHMEM_EMBEDDER=none): vector retrieval skipped, "
    "results come from full text and relations only"
)


KEPT_THEN = (
    "it is past: superseded memories that held then are kept "
    "(supersededBy names what replaced each)"
)


class TimeUse(Enum):
    """What a plan does with a time its query names."""

    IGNORED = "ignored"
    PAST = "past"
    """A past time reads the project as it was then (superseded memories that
    held then are kept); relevance stays the retriever's own."""
    WEIGHED = "weighed"
    """As ``PAST``, and each candidate's relevance is weighed by how near its time is."""


class Scoring(Protocol):
    """How a plan scores a candidate from its relevance: the total ranks every
    candidate, the components explain the few returned."""

    def total(self, memory: Memory, relevance: float, *, now: float) -> float: ...

    def components(
        self, memory: Memory, relevance: float, *, now: float
    ) -> list[ScoreComponent]: ...


@dataclass(frozen=True)
class Plan:
    """One retrieval, declared: what the pipeline runs, over what, with which scoring."""

    text: str
    """The query (or hint) the retrievers are asked."""
    filters: SearchFilters
    """What a result may be."""
    now: float
    """When candidates are held and scored: ``at`` for an ``as_of`` read."""
    at: float | None
    """The past time of an ``as_of`` read."""
    limit: int
    min_relevance: float
    fetch: int
    """Scores asked of each retriever (the floor of what it did not return)."""
    detail: int
    """Of those, the best this many are candidates, read and ranked."""
    vector: bool
    fulltext: bool
    recent: bool
    """A long query's last sentences join the vector side (recent.py)."""
    feedback: bool
    """Lexical feedback scores the candidates again (feedback.py)."""
    time: TimeUse
    """What a time the text names does (when.py)."""
    word_overlap: bool
    """Text relevance is seed 002's word overlap instead of the fused relevance."""
    depth: int
    """Relations walked from the seeds (0: no expansion)."""
    relation_types: Sequence[RelationType]
    seeds: int
    """The best hits expansion starts from."""
    reached_at_most: int | None
    """Results reached only by a relation, at most (``None``: any number)."""
    scoring: Scoring
    policy: InjectionPolicy | None = None
    """Chooses the results when given (knowledgeContext); else the best ``limit``."""


@dataclass
class Outcome:
    """What a run found and kept, for the entry point to explain."""

    found: Candidates
    """What the retrievers found; its ``memories`` grew by successors and expansion."""
    relevance: dict[str, float]
    scores: dict[str, float]
    chosen: list[str]
    """The results' ids, best first."""
    full: dict[str, Memory]
    """Every field of the results still there to read."""
    paths: dict[str, GraphPath]
    replaces: dict[str, list[str]]
    notes: list[str]
    timed: Timed | None = None
    """The time the question named and each candidate's nearness, when it weighed."""
    evidence: Evidence | None = None
    """What the answerability gate weighed (both retrievers ran)."""

    @property
    def memories(self) -> dict[str, Memory]:
        return self.found.memories

    def results(self) -> list[str]:
        """The chosen ids whose fields were read, best first."""
        return [i for i in self.chosen if i in self.full]


class Pipeline:
    """Runs plans against one store; ``config`` is read at each call."""

    def __init__(
        self,
        store: Store,
        history: History,
        retrievers: Retrievers,
        traversal: Traversal,
        config: Callable[[], RetrievalConfig],
    ) -> None:
        self.store = store
        self.history = history
        self.retrievers = retrievers
        self.traversal = traversal
        self._config = config

    def run(self, plan: Plan, project_id: str) -> Outcome:
        """The steps of the module's docstring, in order: each reads what the
        ones before it left in ``found``, the relevance and the notes."""
        found = self._gather(plan, project_id)
        notes = [] if self.retrievers.embedder is not None else [EMBEDDINGS_OFF]
        reference = self._reference(plan)
        alone = self._alone(plan, found, reference, project_id, notes)
        # A time asked alone weighs by its own rule (``_of_the_time``): what the
        # channel would say of weighing it is no note of this answer.
        timed = self._timed(plan, found, reference, notes if alone is None else [])
        past = timed.period if timed is not None and timed.past(plan.now) else None
        if past is not None and not plan.filters.include_superseded:
            notes.append(KEPT_THEN)
        self._held(found, plan.filters, plan.now, project_id, as_of=plan.at is not None, past=past)
        if plan.feedback:
            self.retrievers.feedback(found, plan.fetch, plan.min_relevance)
        if alone is not None:
            relevance, evidence = self._of_the_time(plan, found, alone), None
        else:
            relevance, evidence = self._relevant(plan, found, timed, notes)
        memories = found.memories
        # A question about a past time keeps what held then (``past``).
        kept: set[str] = set()
        if timed is not None and past is not None:
            kept = _held_then(relevance, memories, timed, self._config().time.min_near)
        replaces = self._replaced(plan, relevance, memories, notes, project_id, kept)
        paths = self._expanded(plan, relevance, memories, project_id)
        scores = {
            memory_id: plan.scoring.total(memories[memory_id], rel, now=plan.now)
            for memory_id, rel in relevance.items()
        }
        chosen = self._chosen(plan, scores, found, paths, kept)
        return Outcome(
            found=found,
            relevance=relevance,
            scores=scores,
            chosen=chosen,
            full=self._full(chosen, project_id, plan.at),
            paths=paths,
            replaces=replaces,
            notes=notes,
            timed=timed,
            evidence=evidence,
        )

    def _gather(self, plan: Plan, project_id: str) -> Candidates:
        """The retrievers' candidates."""
        return self.retrievers.gather(
            plan.text,
            _fetched(plan),
            project_id,
            plan.fetch,
            plan.detail,
            vector=plan.vector,
            fulltext=plan.fulltext,
            recent=plan.recent,
            lexical=self._lexical(plan),
        )

    def _reference(self, plan: Plan) -> TimeReference | None:
        """The time the query names, when the plan reads time and the channel is on."""
        if plan.time is TimeUse.IGNORED:
            return None
        return self._config().time.reference(plan.text, plan.now)

    def _alone(
        self,
        plan: Plan,
        found: Candidates,
        reference: TimeReference | None,
        project_id: str,
        notes: list[str],
    ) -> Period | None:
        """The period a question names and asks for alone ("What happened on
        March 4, 2025?": ``asks_time_alone``), with the memories of that time
        added as the ``TIME`` retriever's candidates (a day or month named
        without a year is the latest one that holds any); ``None`` for any
        other question, and where the plan does not weigh time or both
        retrievers did not run (there are no query words to read)."""
        if plan.time is not TimeUse.WEIGHED or not (plan.vector and plan.fulltext):
            return None
        if reference is None or self.retrievers.embedder is None:
            return None
        if not asks_time_alone((w.word for w in found.words), reference):
            return None
        # A day or month named without a year: the latest one that holds memories.
        first = reference.resolve(m.occurred for m in found.memories.values())
        periods = [first, *(p for p in reference.periods if p != first)]
        held = self.retrievers.during(
            plan.text, periods, _fetched(plan), project_id, plan.detail, found
        )
        notes.append(alone_note(reference, held or first, len(found.rankings[Retriever.TIME])))
        return held or first

    def _of_the_time(self, plan: Plan, found: Candidates, period: Period) -> dict[str, float]:
        """A question asking for a time alone: the relevance of each memory of
        that time is its nearness to it (when.py), times the mean of 1 and its
        cosine to the question, so the memories nearest its words lead; the
        other retrievers' candidates answer nothing (no word of theirs was asked)."""
        relevance = {
            memory_id: nearness(found.memories[memory_id], period) * (1.0 + cosine) / 2.0
            for memory_id, cosine in (found.scores(Retriever.TIME) or {}).items()
            if memory_id in found.memories
        }
        return {i: r for i, r in relevance.items() if r >= plan.min_relevance}

    def _lexical(self, plan: Plan) -> str | None:
        """The query as full text reads it, when the plan reads time
        (``TimeChannel.lexical``)."""
        if plan.time is TimeUse.IGNORED:
            return None
        return self._config().time.lexical(plan.text, plan.now)

    def _relevant(
        self, plan: Plan, found: Candidates, timed: Timed | None, notes: list[str]
    ) -> tuple[dict[str, float], Evidence | None]:
        """The candidates relevant enough to answer, with the evidence the
        answerability gate weighed. None is when the gate judges the query
        unanswered; a note says why nothing is, and which expired memories
        matched."""
        text = self._text_relevance(plan, found)
        if timed is not None and plan.time is TimeUse.WEIGHED:
            text = self._config().time.weigh(text, timed)
        relevance = {i: r for i, r in text.items() if r >= plan.min_relevance}
        expired = found.expired_matches(plan.min_relevance)
        evidence = found.evidence(timed.words if timed is not None else "")
        unanswered = self._unanswered(plan, evidence)
        if unanswered is not None:
            relevance = {}
            notes.append(unanswered)
        elif not relevance:
            best = max(text.values(), default=None)
            notes.append(nothing_relevant(best, plan.min_relevance, expired=bool(expired)))
        if expired:
            notes.append(expired_note(expired))
        return relevance, evidence

    def _replaced(
        self,
        plan: Plan,
        relevance: dict[str, float],
        memories: dict[str, Memory],
        notes: list[str],
        project_id: str,
        kept: set[str],
    ) -> dict[str, list[str]]:
        """Superseded hits replaced by their successors, but those ``kept``:
        what each successor replaces. As of a past time a superseded memory had
        stopped holding and is left out (graphmem.domain.validity): there is
        nothing to replace; nor when superseded memories were asked for."""
        replaces: dict[str, list[str]] = {}
        if not plan.filters.include_superseded and plan.at is None:
            self.traversal.replace_superseded(
                relevance, memories, replaces, plan.filters, notes, project_id, keep=kept
            )
        return replaces

    def _expanded(
        self,
        plan: Plan,
        relevance: dict[str, float],
        memories: dict[str, Memory],
        project_id: str,
    ) -> dict[str, GraphPath]:
        """The path to each memory reached along relations from the best seeds
        (none at depth 0); the reached ones join ``relevance`` and ``memories``."""
        paths: dict[str, GraphPath] = {}
        if plan.depth:
            self.traversal.expand(
                best_first(relevance, memories)[: plan.seeds],
                plan.depth,
                plan.relation_types,
                relevance,
                memories,
                paths,
                plan.filters,
                project_id,
                plan.at,
            )
        return paths

    def _chosen(
        self,
        plan: Plan,
        scores: dict[str, float],
        found: Candidates,
        paths: dict[str, GraphPath],
        kept: set[str],
    ) -> list[str]:
        """The results, best first: ranked by score with those reached only by
        a relation capped, then the best ``limit``, or what the injection
        policy selects (judging each memory as current where it was asked for)."""
        memories = found.memories
        ranked = _capped(
            best_first(scores, memories),
            traversed=set(paths) - set(found.hits),
            at_most=plan.reached_at_most,
        )
        if plan.policy is None:
            return ranked[: plan.limit]
        return plan.policy.select(
            ranked,
            memory=lambda i: _as_current(memories[i], plan.filters, kept),
            score=lambda i: scores[i],
            limit=plan.limit,
        )

    def _unanswered(self, plan: Plan, evidence: Evidence | None) -> str | None:
        """The note saying no memory answers the query, when the gate judges so.
        Only where both retrievers ran (``evidence``), and never at minRelevance 0,
        which asks for the closest memories whatever they are."""
        if evidence is None or plan.min_relevance <= 0:
            return None
        gate = self._config().answerability
        probability = gate.probability(evidence)
        return (
            None if gate.answers(probability) else unanswered_note(evidence, probability, gate.cut)
        )

    def _timed(
        self,
        plan: Plan,
        found: Candidates,
        reference: TimeReference | None,
        notes: list[str],
    ) -> Timed | None:
        """The time the question names (``reference``), when some candidate is
        near it (else a note says why it did not weigh)."""
        channel = self._config().time
        timed = channel.timed(reference, found.memories)
        if isinstance(timed, str):
            notes.append(timed)
            return None
        if timed is not None:
            weighed = plan.time is TimeUse.WEIGHED
            notes.append(timed.note(channel.weight if weighed else 0.0))
        return timed

    def _text_relevance(self, plan: Plan, found: Candidates) -> dict[str, float]:
        """Each candidate's text relevance, by the plan's measure."""
        if plan.word_overlap:
            words = tokens(plan.text)
            return {
                memory_id: ctx.text_similarity(words, ctx.memory_words(memory))
                for memory_id, memory in found.memories.items()
            }
        config = self._config()
        return found.relevance(
            config.fusion, plan.fetch, config.feedback.factor, exchanges=config.exchanges
        )

    def _held(
        self,
        found: Candidates,
        filters: SearchFilters,
        at: float,
        project_id: str,
        *,
        as_of: bool,
        past: Period | None,
    ) -> None:
        """Leave out the candidates whose validity had ended by ``at`` (a
        superseded one is left to its replacement), unless superseded
        ones were asked for or the question is about a ``past`` period in
        which they held. For an ``as_of`` read, each candidate
        is taken as it stood then and the filters apply to that."""
        memories = list(found.memories.values())
        if as_of:
            memories = self.history.at(memories, at, project_id=project_id)
            memories = [m for m in memories if filters.allows(m)]
        if not filters.include_superseded:

            def kept(m: Memory) -> bool:
                if as_of:
                    return m.held_at(at)
                if past is not None and past.overlap(m.valid_since, m.valid_to) > 0.0:
                    return True
                return m.superseded_by is not None or _open(m, at)

            found.expired = [
                (m, found.hits.get(m.id, []))
                for m in memories
                if not kept(m) and not _open(m, at) and m.superseded_by is None
            ]
            memories = [m for m in memories if kept(m)]
        found.keep(memories)

    def _full(self, ids: Sequence[str], project_id: str, at: float | None) -> dict[str, Memory]:
        """Every field of the memories that made the cut (candidates carry a few),
        as they stood at ``at`` for an ``as_of`` read, naming only what the
        acting agent may read."""
        if at is not None:
            then = [m for m in self.history.get_many(ids, at, project_id=project_id) if m]
        else:
            then = stored.get(self.store, ids, project_id)
        return {m.id: m for m in readable_references(self.store, then)}


def _fetched(plan: Plan) -> SearchFilters:
    """What the retrievers fetch: superseded memories too, so that they can be
    replaced by their successors; for an ``as_of`` read, what was written by
    then, whatever it has become since."""
    filters = plan.filters.model_copy(update={"include_superseded": True})
    return filters if plan.at is None else _as_of_fetch(filters, plan.at)


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


def _held_then(
    relevance: dict[str, float], memories: dict[str, Memory], timed: Timed, near: float
) -> set[str]:
    """The superseded hits at least ``near`` the past time a question names:
    they answer it and are not replaced by their successors."""
    return {
        memory_id
        for memory_id in relevance
        if memories[memory_id].superseded_by is not None and timed.near.get(memory_id, 0.0) >= near
    }


def _capped(ranked: list[str], *, traversed: set[str], at_most: int | None) -> list[str]:
    """``ranked`` with at most ``at_most`` (``None``: any number) of those reached
    only by traversal, the best of them; the order is kept."""
    if at_most is None:
        return ranked
    kept: list[str] = []
    reached = 0
    for memory_id in ranked:
        if memory_id in traversed:
            if reached >= at_most:
                continue
            reached += 1
        kept.append(memory_id)
    return kept


def _as_current(memory: Memory, filters: SearchFilters, kept: set[str]) -> Memory:
    """The memory as the injection policy should judge it: with
    ``include_superseded`` or ``include_archived`` the caller asked for
    superseded or archived memories too (an archived one is judged as the
    tier it left); a superseded memory ``kept`` for a question about the time
    it held is judged as current."""
    update: dict[str, Any] = {}
    superseded_wanted = filters.include_superseded or memory.id in kept
    if superseded_wanted and memory.superseded_by is not None:
        update["superseded_by"] = None
    if filters.include_archived and memory.tier is Tier.ARCHIVED:
        update["tier"] = memory.archived_from or Tier.WORKING
    return memory.model_copy(update=update) if update else memory
