"""The Python API: every surface (GraphQL, CLI, MCP, benchmarks) calls this.

``GraphMem`` is a facade over the services of ``graphmem.services.wiring``, built over
one store, clock, scorer and set of retention rules: it is those services (a
surface reaches one as its attribute, ``gm.retrieval``), resolves the project of
each call and delegates. A call that only hands itself to one service is
``served`` (``graphmem.api.served``): its signature and docstring are its
operation's in the catalogue (``graphmem.operations``), and only the service call
is written here. ``gm.as_agent(agent_id)`` is the same facade acting as one agent
(``graphmem.api.agents``). The calls that write, read, relate and retrieve
memories are here; who sees them, and the calls that look after them over
time (sessions and promotion, archival, consolidation, review, failure
capsules, evaluation, project settings), are in ``graphmem.api.curation``, which
GraphMem extends. Each operation is scoped to one project; an id from another
project behaves exactly like an id that does not exist. Inputs are validated
before anything is written, so a rejected call leaves the store unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from graphmem.api.curation import Curation
from graphmem.api.served import check as check_served
from graphmem.api.served import served
from graphmem.domain.checks import check_identifier, parse
from graphmem.domain.clock import Clock, SystemClock, stored_now
from graphmem.domain.inputs import retrieval_request, validate_batch
from graphmem.domain.kinds import Visibility
from graphmem.domain.models import (
    Memory,
    MemoryInput,
    WriteOutcome,
)
from graphmem.domain.retention import RetentionRules
from graphmem.domain.retrieval import (
    BackfillResult,
    ContextRequest,
    ContextResult,
    SearchRequest,
    SearchResult,
)
from graphmem.domain.scoring import ImportanceBreakdown, ImportanceScorer
from graphmem.domain.viewer import acting_as
from graphmem.operations.memories import MemoryOperations, RelationOperations
from graphmem.operations.retrieval import RetrievalOperations
from graphmem.services.embeddings import Embedder, embedder_named
from graphmem.services.embeddings import space as embedding_space
from graphmem.services.memories import missing
from graphmem.services.retrieval.service import Deliver
from graphmem.services.telemetry import Telemetry
from graphmem.settings import Settings
from graphmem.settings.retention import load_rules
from graphmem.store import Store


class GraphMem(Curation):
    """A memory store bound to one backend, one clock and one scorer."""

    def __init__(
        self,
        store: Store,
        *,
        clock: Clock | None = None,
        scorer: ImportanceScorer | None = None,
        rules: RetentionRules | None = None,
        telemetry: Telemetry | None = None,
        project_id: str = "default",
        embedder: Embedder | None = None,
        default_visibility: Visibility | str = Visibility.SHARED,
    ) -> None:
        default_project = check_identifier("project_id", project_id)
        super().__init__(
            store,
            clock=clock or SystemClock(),
            scorer=scorer or ImportanceScorer(),
            rules=rules or load_rules(),
            telemetry=telemetry or Telemetry(),
            embedder=embedder,
            default_visibility=Visibility(default_visibility),
        )
        self.default_project = default_project
        check_served(self)

    @classmethod
    def open(cls, settings: Settings | None = None, *, clock: Clock | None = None) -> GraphMem:
        """Open the store the settings describe (the embedded one by default)."""
        from graphmem.store.factory import open_store

        settings = settings or Settings()
        # Everything that can refuse the settings is read before the store opens:
        # a refused start must not leave a database running behind it.
        scorer = ImportanceScorer(settings.defaults.scoring_preset)
        rules = load_rules(settings.retention.file)
        embedder = embedder_named(settings.embedding.model, threads=settings.embedding.threads)
        store = open_store(settings)
        try:
            if embedder is not None:
                embedding_space.claim(store, embedder.name)
            return cls(
                store,
                clock=clock,
                scorer=scorer,
                rules=rules,
                project_id=settings.defaults.project,
                embedder=embedder,
                default_visibility=settings.defaults.default_visibility,
            )
        except BaseException:
            store.close()
            raise

    # -- memories ---------------------------------------------------------

    def remember(
        self, item: MemoryInput | Mapping[str, Any], *, project_id: str | None = None
    ) -> Memory:
        return self.remember_detailed(item, project_id=project_id)[0]

    def remember_detailed(
        self, item: MemoryInput | Mapping[str, Any], *, project_id: str | None = None
    ) -> tuple[Memory, WriteOutcome]:
        """Like ``remember``, also saying whether it created a memory or merged into one."""
        return self.writer.write_one(parse(MemoryInput, item), project_id=self._project(project_id))

    def remember_many(
        self,
        items: Sequence[MemoryInput | Mapping[str, Any]],
        *,
        project_id: str | None = None,
        dedup: bool = True,
    ) -> list[str]:
        """Write a batch; returns each item's memory id (an existing one where it merged)."""
        outcomes = self.remember_many_detailed(items, project_id=project_id, dedup=dedup)
        return [outcome.id for outcome in outcomes]

    def remember_many_detailed(
        self,
        items: Sequence[MemoryInput | Mapping[str, Any]],
        *,
        project_id: str | None = None,
        dedup: bool = True,
    ) -> list[WriteOutcome]:
        """Write a batch in one statement; duplicates merge instead of creating nodes.

        The whole batch is validated first: one bad item rejects the batch and
        nothing is written. With ``dedup``, an item whose normalised text
        matches a live memory of the project (or an earlier item of the same
        batch) counts as another occurrence of it.
        """
        project = self._project(project_id)
        return self.writer.write(validate_batch(items), project_id=project, dedup=dedup).outcomes

    def get(self, memory_id: str, *, project_id: str | None = None, as_of: Any = None) -> Memory:
        """One memory; with ``as_of`` (a time), as it stood then (docs/validity.md):
        ``NotFoundError`` when it was not yet written."""
        project = self._project(project_id)
        if as_of is None:
            return self.memories.get(memory_id, project_id=project)
        (memory,) = self.memories.get_many([memory_id], project_id=project, as_of=as_of)
        if memory is None:
            raise missing(memory_id, project)
        return memory

    get_many = served(MemoryOperations.get_many, lambda gm: gm.memories.get_many)
    list = served(MemoryOperations.list, lambda gm: gm.memories.list)
    update = served(MemoryOperations.update, lambda gm: gm.memories.update)
    record_access = served(MemoryOperations.record_access, lambda gm: gm.memories.record_access)
    feedback = served(MemoryOperations.feedback, lambda gm: gm.memories.feedback)
    pin = served(MemoryOperations.pin, lambda gm: partial(gm.memories.set_pinned, pinned=True))
    unpin = served(MemoryOperations.unpin, lambda gm: partial(gm.memories.set_pinned, pinned=False))

    def importance_breakdown(self, memory: Memory) -> ImportanceBreakdown:
        """The score as of now, factor by factor (stored scores age between writes)."""
        return self.scorer.score_with_breakdown(memory, stored_now(self.clock))

    forget = served(MemoryOperations.forget, lambda gm: gm.memories.forget)

    # -- relations --------------------------------------------------------

    relate = served(RelationOperations.relate, lambda gm: gm.relation_edges.relate)
    supersede = served(RelationOperations.supersede, lambda gm: gm.relation_edges.supersede)
    unrelate = served(RelationOperations.unrelate, lambda gm: gm.relation_edges.unrelate)
    relation_events = served(
        RelationOperations.relation_events, lambda gm: gm.relation_edges.events
    )
    relations = served(RelationOperations.relations, lambda gm: gm.relation_edges.of)

    # -- retrieval --------------------------------------------------------

    def knowledge_context(
        self,
        context_hint: str | ContextRequest | Mapping[str, Any],
        *,
        record_access: bool | None = None,
        project_id: str | None = None,
        agent_id: str | None = None,
        **options: Any,
    ) -> ContextResult:
        """What an agent should know right now (seed 002's knowledgeContext), best first.

        ``context_hint`` is the hint, with any other field of ``ContextRequest``
        as a keyword option (``max_results=3``); or the whole request: a
        ``ContextRequest`` as a surface builds it, or the LLM tool's arguments
        (``graphmem.domain.retrieval.tool_definition``) as a mapping, validated the
        same way. Counts a retrieval (``retrieval_count``) on each memory
        returned unless ``record_access=False``; retrieval is not use, so
        access counts, recency and importance stay as they are. ``agent_id``:
        only what that agent sees (its own memories and the shared ones). The
        answer is put on record as a delivery (``deliveries``) unless
        ``deliveries.enabled`` is off.
        """
        request = retrieval_request(ContextRequest, "context_hint", context_hint, options)
        project = self._project(project_id)
        with acting_as(agent_id):
            return self.answer_context(
                request,
                project_id=project,
                record_access=record_access,
                deliver=lambda asked, given: self.delivery_record.fields(
                    asked, given, project_id=project
                ),
            )

    def answer_context(
        self,
        request: ContextRequest | Mapping[str, Any],
        *,
        project_id: str,
        record_access: bool | None,
        deliver: Deliver | None = None,
    ) -> ContextResult:
        """knowledgeContext's answer, put on record as ``deliver`` says (nothing
        without it: the server's warm-up)."""
        result = self.retrieval.knowledge_context(
            request, project_id=project_id, record_access=record_access, deliver=deliver
        )
        return self.failures.explain_lessons(result, project_id=project_id)

    def search(
        self,
        query: str | SearchRequest | Mapping[str, Any],
        *,
        project_id: str | None = None,
        agent_id: str | None = None,
        **options: Any,
    ) -> SearchResult:
        """Hybrid search over vectors, full text and relations; every hit explains itself.

        ``query`` is the text, with any other field of ``SearchRequest`` as a
        keyword option (``mode="FULLTEXT"``, ``limit=5``, ``filters={...}``);
        or the whole request, as a surface builds it. ``agent_id``: only what that
        agent sees (its own memories and the shared ones).
        """
        request = retrieval_request(SearchRequest, "query", query, options)
        with acting_as(agent_id):
            return self.retrieval.search(request, project_id=self._project(project_id))

    neighborhood = served(
        RetrievalOperations.neighborhood, lambda gm: gm.retrieval.traversal.neighborhood
    )

    def backfill_embeddings(
        self,
        *,
        batch_size: int = 256,
        limit: int | None = None,
        progress: Callable[[int, int], None] | None = None,
        all_projects: bool = False,
        project_id: str | None = None,
    ) -> BackfillResult:
        """Embed the memories that have no embedding yet; ``progress(done, goal)``
        is told how many are embedded of how many, before the first batch and after each."""
        return self.retrieval.backfill(
            project_id=None if all_projects else self._project(project_id),
            batch_size=batch_size,
            limit=limit,
            progress=progress,
        )
