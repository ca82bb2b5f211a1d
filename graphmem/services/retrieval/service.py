"""The retrieval service of one GraphMem: knowledgeContext, hybrid search,
neighbourhoods and the embedding backfill, over the parts that do the work.

Search and knowledgeContext are two plans (plans.py) of one pipeline
(pipeline.py) over the retrievers (retrievers.py), full text's statistics
(statistics.py) and the walk along relations (neighbourhood.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from graphmem.domain.checks import parse
from graphmem.domain.clock import Clock
from graphmem.domain.kinds import Tier
from graphmem.domain.models import Memory
from graphmem.domain.policy import InjectionPolicy
from graphmem.domain.retrieval import context as ctx
from graphmem.domain.retrieval.explain import (
    BackfillResult,
    ContextItem,
    ContextResult,
    SearchResult,
)
from graphmem.domain.retrieval.search import SearchRequest
from graphmem.domain.scoring import ImportanceScorer
from graphmem.services.embeddings import Embedder, Vector
from graphmem.services.history import History
from graphmem.services.retrieval import plans
from graphmem.services.retrieval.access import AccessCounts
from graphmem.services.retrieval.backfill import (
    Progress,
    backfill,
    embed_memories,
    store_embeddings,
)
from graphmem.services.retrieval.config import RetrievalConfig
from graphmem.services.retrieval.fulltext import TermCounts
from graphmem.services.retrieval.neighbourhood import Traversal
from graphmem.services.retrieval.pipeline import Pipeline
from graphmem.services.retrieval.retrievers import Retrievers
from graphmem.services.retrieval.statistics import Scope, TextStatistics
from graphmem.services.telemetry import Telemetry
from graphmem.store import Store

Deliver = Callable[[ctx.ContextRequest, Sequence[ContextItem]], Mapping[str, Any] | None]
"""An answer's delivery record as statement parameters (``None``: not recorded)."""


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
        self.history = History(store)
        settings = self._settings
        self.statistics = TextStatistics(store, settings)
        self.traversal = Traversal(store, self.history, clock, settings)
        self.access = AccessCounts(store, settings)
        self.pipeline = Pipeline(
            store,
            self.history,
            Retrievers(store, embedder, self.statistics, settings),
            self.traversal,
            settings,
        )
        telemetry.subscribe(self.statistics.on_event)

    def _settings(self) -> RetrievalConfig:
        """The configuration as it is now: it may be replaced while the service runs."""
        return self.config

    @property
    def terms(self) -> TermCounts[Scope]:
        """The cached full-text match counts per word and scope."""
        return self.statistics.terms

    # -- embeddings ----------------------------------------------------------

    def embed_memories(self, texts: Sequence[str]) -> list[Vector] | None:
        """Vectors for memories about to be written (one batch, one call)."""
        return embed_memories(self.embedder, texts)

    def store_embeddings(self, rows: Sequence[dict[str, Any]]) -> None:
        """Write ``{id, project_id, embedding}`` rows; a null embedding removes one."""
        store_embeddings(self.store, rows)

    def backfill(
        self,
        *,
        project_id: str | None,
        batch_size: int = 256,
        limit: int | None = None,
        progress: Progress | None = None,
    ) -> BackfillResult:
        """Embed every memory that has no vector yet (written with embeddings off,
        or before they existed), a batch at a time; ``project_id=None``: all
        projects. ``progress(done, goal)`` is told how far it got."""
        return backfill(
            self.store,
            self.embedder,
            project_id=project_id,
            batch_size=batch_size,
            limit=limit,
            progress=progress,
        )

    # -- knowledgeContext ----------------------------------------------------

    def knowledge_context(
        self,
        arguments: ctx.ContextRequest | Mapping[str, Any],
        *,
        project_id: str,
        record_access: bool | None = None,
        deliver: Deliver | None = None,
    ) -> ContextResult:
        """Seed 002's knowledgeContext over index candidates (see plans.py).

        ``deliver`` gives the answer's delivery record (statement parameters,
        or ``None`` when the record is off); it is written in the statement
        that counts the retrievals, one write per answer.

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
            plan, scoring = plans.context_plan(
                request,
                self.config,
                self.clock,
                self.policy,
                lambda session_id: self.access.max_access(project_id, session_id),
            )
            outcome = self.pipeline.run(plan, project_id)
            items = plans.context_items(plan, outcome)
            if plan.at is not None:
                record_access = False  # reading the past is not using a memory now
            live: list[Memory] = []
            if self.config.record_access if record_access is None else record_access:
                # An archived memory shown on request is not put back to use by being
                # read: restoring it is what counts as its use.
                live = [item.memory for item in items if item.memory.tier is not Tier.ARCHIVED]
            delivery = deliver(request, items) if deliver is not None else None
            self.access.record_retrievals(live, project_id, plan.now, delivery=delivery)
            result = plans.context_result(scoring, items, outcome, started)
            event.update(results=len(result.items), candidates=result.candidates)
            return result

    # -- search --------------------------------------------------------------

    def search(
        self, arguments: SearchRequest | Mapping[str, Any], *, project_id: str
    ) -> SearchResult:
        """Hybrid search (see ``graphmem.domain.retrieval.search``); emits ``retrieval.search``."""
        started = time.perf_counter()
        with self.telemetry.timed(
            "retrieval.search", self.clock, project_id=project_id, mode=None, results=0
        ) as event:
            request = parse(SearchRequest, arguments)
            event["mode"] = request.mode.value
            plan = plans.search_plan(
                request, self.config, self.clock, embeddings=self.embedder is not None
            )
            result = plans.search_result(
                request, plan, self.pipeline.run(plan, project_id), started
            )
            event["results"] = len(result.hits)
            return result

    # -- full-text scopes ------------------------------------------------------

    def project_term_counts(self, terms: Sequence[str], project_id: str) -> dict[str, int]:
        """How many of ``project_id``'s memories (as the acting agent sees them)
        the full-text index matches per word, counted now."""
        return self.statistics.term_matches(terms, self.statistics.scope(project_id))

    def scoped(self, query: str, project_id: str) -> str:
        """A full-text index query held to what the acting agent may read of ``project_id``."""
        return self.statistics.scoped(query, self.statistics.scope(project_id))
