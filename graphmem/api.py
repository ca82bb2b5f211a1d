"""The Python API: every surface (GraphQL, CLI, MCP, benchmarks) calls this.

``GraphMem`` assembles the services over one store, clock, scorer and set of
retention rules, resolves the project of each call, and delegates: the
remember pipeline is in ``writer``, single memories in ``memories``, edges in
``relations``, sessions in ``sessions``, review in ``review``, failure
capsules in ``failures``, retrieval in ``retrieval``, per-project settings in
``projects``. Each operation is scoped to one project; an id from another
project behaves exactly like an id that does not exist. Inputs are validated
before anything is written, so a rejected call leaves the store unchanged.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

from graphmem import heap
from graphmem.agents import AgentView, acting_as, attribute
from graphmem.archival import Archiver, ArchiveResult
from graphmem.autolinks import AutoLinker
from graphmem.capsules import FailureCapsule, FailureOutcome, FailureReport
from graphmem.clock import Clock, SystemClock, stored_now
from graphmem.config import Settings
from graphmem.consolidator import ConsolidationResult, Consolidator
from graphmem.embeddings import Embedder, embedder_named
from graphmem.errors import InvalidInputError
from graphmem.evaluator import ConsistencyReport, Evaluator, Job
from graphmem.events import EventBus
from graphmem.failures import Failures
from graphmem.inputs import retrieval_request, validate_batch
from graphmem.keys import ApiKeys
from graphmem.memories import Memories, missing
from graphmem.migrations import MigrationReport, migrate
from graphmem.models import (
    BulkReviewResult,
    Memory,
    MemoryFilter,
    MemoryInput,
    MemoryUpdate,
    Page,
    ProjectSettings,
    ProjectSettingsUpdate,
    PromotionEvent,
    PromotionStats,
    Relation,
    RelationEvent,
    RelationType,
    ReviewFilter,
    ReviewPage,
    Session,
    SharingEvent,
    StagingEvent,
    Visibility,
    WriteOutcome,
    check_identifier,
    parse,
)
from graphmem.policy import InjectionPolicy
from graphmem.projects import Projects
from graphmem.promotion import PromotionEngine, RunResult, Trigger
from graphmem.relations import Relations
from graphmem.retention import RetentionRules
from graphmem.retrieval import (
    BackfillResult,
    ContextRequest,
    ContextResult,
    Neighborhood,
    Retrieval,
    SearchRequest,
    SearchResult,
)
from graphmem.review import Review
from graphmem.scoring import ImportanceBreakdown, ImportanceScorer
from graphmem.sessions import Sessions
from graphmem.sharing import Sharing
from graphmem.staging import Stager
from graphmem.store import Store
from graphmem.telemetry import Telemetry
from graphmem.whatif import WhatIf, WhatIfReport, WhatIfVariant
from graphmem.writer import Writer


class GraphMem:
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
        self.store = store
        self.clock = clock or SystemClock()
        self.scorer = scorer or ImportanceScorer()
        self.rules = rules or RetentionRules()
        self.telemetry = telemetry or Telemetry()
        self.default_project = check_identifier("project_id", project_id)
        services: dict[str, Any] = {
            "clock": self.clock,
            "scorer": self.scorer,
            "rules": self.rules,
            "telemetry": self.telemetry,
        }
        self.promotion = PromotionEngine(store, **services)
        self.archiver = Archiver(store, **services)
        self.stager = Stager(store, **services)
        self.embedder = embedder
        """Embeds memories as they are written; ``None``: full text and relations only."""
        self.retrieval = Retrieval(
            store,
            clock=self.clock,
            scorer=self.scorer,
            telemetry=self.telemetry,
            embedder=embedder,
            policy=InjectionPolicy(candidate_min_score=self.rules.candidate_slot_min_score),
        )
        embed = self.retrieval.embed_memories
        self.memories = Memories(store, **services, stager=self.stager, embed=embed)
        self.projects = Projects(store, **services)
        self.writer = Writer(
            store,
            **services,
            stager=self.stager,
            promotion=self.promotion,
            memories=self.memories,
            embed=embed,
            projects=self.projects,
            links=AutoLinker(store, self.retrieval.project_term_counts, self.retrieval.scoped),
        )
        self.relation_edges = Relations(store, **services)
        self.sharing = Sharing(
            store,
            **services,
            memories=self.memories,
            projects=self.projects,
            default_visibility=Visibility(default_visibility),
        )
        self.consolidator = Consolidator(store, **services, embed=embed)
        self.sessions = Sessions(store, **services, promotion=self.promotion)
        self.review = Review(store, **services, stager=self.stager, memories=self.memories)
        self.failures = Failures(
            store,
            **services,
            writer=self.writer,
            memories=self.memories,
            stager=self.stager,
            sharing=self.sharing,
        )
        self.whatif = WhatIf(store, clock=self.clock, scorer=self.scorer, rules=self.rules)
        self.evaluator = Evaluator(store, **services, record_evidence=self.record_evidence)
        self.keys = ApiKeys(store, self.clock)
        self.events = EventBus(self.telemetry)
        """What happens to memories, for live subscribers (GraphQL subscriptions)."""

    @classmethod
    def open(cls, settings: Settings | None = None, *, clock: Clock | None = None) -> GraphMem:
        """Open the store the settings describe (the embedded one by default)."""
        from graphmem.store.factory import open_store

        settings = settings or Settings()
        # Everything that can refuse the settings is read before the store opens:
        # a refused start must not leave a database running behind it.
        scorer = ImportanceScorer(settings.scoring_preset)
        rules = RetentionRules.load(settings.retention_file)
        embedder = embedder_named(settings.embedder, threads=settings.embedder_threads)
        store = open_store(settings)
        try:
            return cls(
                store,
                clock=clock,
                scorer=scorer,
                rules=rules,
                project_id=settings.project,
                embedder=embedder,
                default_visibility=settings.default_visibility,
            )
        except BaseException:
            store.close()
            raise

    def warm(self) -> None:
        """Everything a server does once before its first request: load the
        embedding model and run it once (the first call is then as fast as the
        hundredth), then settle the heap (graphmem.heap) so a full garbage
        collection does not stall a request for tens of milliseconds."""
        if self.embedder is not None:
            self.embedder.warm()
        heap.settle()

    def close(self) -> None:
        # Queued evaluations finish before the store they write to closes.
        self.evaluator.close()
        self.store.close()

    def __enter__(self) -> GraphMem:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- memories ----------------------------------------------------------

    def remember(
        self, item: MemoryInput | Mapping[str, Any], *, project_id: str | None = None
    ) -> Memory:
        return self.remember_detailed(item, project_id=project_id)[0]

    def remember_detailed(
        self, item: MemoryInput | Mapping[str, Any], *, project_id: str | None = None
    ) -> tuple[Memory, WriteOutcome]:
        """Like ``remember``, also saying whether it created a memory or merged into one."""
        project = self._project(project_id)
        written = self.writer.write(
            self._attributed([parse(MemoryInput, item)], project), project_id=project
        )
        (outcome,) = written.outcomes
        memory = written.memory(outcome.id) or self.memories.get(outcome.id, project_id=project)
        return memory, outcome

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
        inputs = self._attributed(validate_batch(items), project)
        return self.writer.write(inputs, project_id=project, dedup=dedup).outcomes

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

    def get_many(
        self, memory_ids: Sequence[str], *, project_id: str | None = None, as_of: Any = None
    ) -> list[Memory | None]:
        """Memories in the order asked for, ``None`` where an id is unknown (DataLoader
        shape); with ``as_of``, as they stood then (``None`` where not yet written)."""
        return self.memories.get_many(memory_ids, project_id=self._project(project_id), as_of=as_of)

    def list(
        self,
        filter: MemoryFilter | Mapping[str, Any] | None = None,
        *,
        first: int = 20,
        after: str | None = None,
        project_id: str | None = None,
        as_of: Any = None,
    ) -> Page:
        """A page of memories, newest first, continued with ``after=page.end_cursor``;
        with ``as_of`` (a time), the memories that held then, with their tiers and
        statuses then (docs/validity.md)."""
        return self.memories.list(
            filter, first=first, after=after, project_id=self._project(project_id), as_of=as_of
        )

    def update(
        self,
        memory_id: str,
        changes: MemoryUpdate | Mapping[str, Any],
        *,
        project_id: str | None = None,
    ) -> Memory:
        return self.memories.update(memory_id, changes, project_id=self._project(project_id))

    def record_access(self, memory_id: str, *, project_id: str | None = None) -> Memory:
        """Count one use of a memory and rescore it."""
        return self.memories.record_access(memory_id, project_id=self._project(project_id))

    def feedback(self, memory_id: str, value: int, *, project_id: str | None = None) -> Memory:
        """Record +1 (useful), 0 (neutral) or -1 (wrong or unhelpful)."""
        return self.memories.feedback(memory_id, value, project_id=self._project(project_id))

    def pin(self, memory_id: str, *, project_id: str | None = None) -> Memory:
        return self.memories.set_pinned(memory_id, True, project_id=self._project(project_id))

    def unpin(self, memory_id: str, *, project_id: str | None = None) -> Memory:
        return self.memories.set_pinned(memory_id, False, project_id=self._project(project_id))

    def importance_breakdown(self, memory: Memory) -> ImportanceBreakdown:
        """The score as of now, factor by factor (stored scores age between writes)."""
        return self.scorer.score_with_breakdown(memory, stored_now(self.clock))

    def forget(self, memory_id: str, *, project_id: str | None = None) -> None:
        """Delete a memory and its edges: the only path that deletes anything."""
        self.memories.forget(memory_id, project_id=self._project(project_id))

    # -- agents and sharing --------------------------------------------------

    def as_agent(self, agent_id: str | None) -> GraphMem:
        """This store as one agent sees and acts: its own memories and the shared
        ones, its writes attributed to it. ``None``: the whole project, as now.
        (An ``AgentView``: it answers every method of GraphMem, as that agent.)"""
        return self if agent_id is None else cast(GraphMem, AgentView(self, agent_id))

    def default_visibility(self, project_id: str | None = None) -> Visibility:
        """Who sees a project's new memories when their writer does not say."""
        return self.sharing.default_visibility(self._project(project_id))

    def share(self, memory_id: str, *, project_id: str | None = None) -> Memory:
        """Let every agent of the project see a memory (its own agent, or a caller
        bound to none, may); logged as a sharing event."""
        return self.sharing.set_visibility(
            memory_id, Visibility.SHARED, project_id=self._project(project_id)
        )

    def unshare(self, memory_id: str, *, project_id: str | None = None) -> Memory:
        """Make a memory private to the agent that wrote it; logged as a sharing event."""
        return self.sharing.set_visibility(
            memory_id, Visibility.PRIVATE, project_id=self._project(project_id)
        )

    def copy_memory(
        self, memory_id: str, to_project_id: str, *, project_id: str | None = None
    ) -> Memory:
        """A new memory in ``to_project_id`` copying this one, naming where it came
        from; the source stays as it is. The caller must be allowed in both."""
        return self.sharing.copy(
            memory_id,
            check_identifier("toProjectId", to_project_id),
            project_id=self._project(project_id),
        )

    def sharing_events(
        self, *, memory_id: str | None = None, limit: int = 50, project_id: str | None = None
    ) -> builtins.list[SharingEvent]:
        """Who shared, unshared or copied which memory, newest first."""
        return self.sharing.events(
            memory_id=memory_id, limit=limit, project_id=self._project(project_id)
        )

    def _attributed(
        self, items: builtins.list[MemoryInput], project: str
    ) -> builtins.list[MemoryInput]:
        """Each new memory's agent (the acting one) and visibility (the project's
        default when not given; shared when it has no agent). The default is
        read only for a batch that needs it: most writes have no agent."""
        attributed = [attribute(i) for i in items]
        needs_default = any(i.agent_id is not None and i.visibility is None for i in attributed)
        default = self.sharing.default_visibility(project) if needs_default else None
        ready = []
        for index, item in enumerate(attributed):
            if item.agent_id is None and item.visibility is Visibility.PRIVATE:
                field = "visibility" if len(items) == 1 else f"items[{index}].visibility"
                raise InvalidInputError(
                    f"{field}: a memory without an agent is always shared; give its agentId",
                    field=field,
                )
            if item.visibility is None:
                visibility = default if item.agent_id is not None else Visibility.SHARED
                item = item.model_copy(update={"visibility": visibility})
            ready.append(item)
        return ready

    # -- relations ---------------------------------------------------------

    def relate(
        self,
        from_id: str,
        to_id: str,
        type: RelationType | str,
        *,
        rationale: str | None = None,
        weight: float = 1.0,
        project_id: str | None = None,
    ) -> Relation:
        """Add (or update) a typed edge between two memories of one project."""
        return self.relation_edges.relate(
            from_id,
            to_id,
            type,
            rationale=rationale,
            weight=weight,
            project_id=self._project(project_id),
        )

    def supersede(
        self,
        old_id: str,
        new_id: str,
        *,
        rationale: str | None = None,
        project_id: str | None = None,
    ) -> Relation:
        """Mark ``new_id`` as replacing ``old_id``; the old memory is kept, not deleted."""
        return self.relation_edges.supersede(
            old_id, new_id, rationale=rationale, project_id=self._project(project_id)
        )

    def unrelate(
        self,
        from_id: str,
        to_id: str,
        type: RelationType | str,
        *,
        reason: str,
        removed_by: str = "api",
        project_id: str | None = None,
    ) -> Relation:
        """Remove one edge, logged as an event with who removed it (``removed_by``)
        and why; returns the edge as it was. Removing a SUPERSEDES edge restores
        the older memory. No such edge: ``NotFoundError``, nothing written."""
        return self.relation_edges.unrelate(
            from_id,
            to_id,
            type,
            reason=reason,
            removed_by=removed_by,
            project_id=self._project(project_id),
        )

    def relation_events(
        self, memory_id: str, *, limit: int = 50, project_id: str | None = None
    ) -> builtins.list[RelationEvent]:
        """Relations removed from or to a memory, newest first, with who and why."""
        return self.relation_edges.events(
            memory_id, limit=limit, project_id=self._project(project_id)
        )

    def relations(
        self, memory_ids: Sequence[str], *, project_id: str | None = None
    ) -> builtins.list[builtins.list[Relation]]:
        """Edges touching each memory, grouped per id in the order asked for."""
        return self.relation_edges.of(memory_ids, project_id=self._project(project_id))

    # -- sessions ----------------------------------------------------------

    def open_session(
        self,
        session_id: str | None = None,
        *,
        name: str | None = None,
        max_items: int | None = None,
        project_id: str | None = None,
    ) -> Session:
        return self.sessions.open(
            session_id, name=name, max_items=max_items, project_id=self._project(project_id)
        )

    def pause_session(self, session_id: str, *, project_id: str | None = None) -> Session:
        """Promote what is worth keeping, then pause: the run finishes before the pause does."""
        return self.sessions.pause(session_id, project_id=self._project(project_id))

    def close_session(self, session_id: str, *, project_id: str | None = None) -> Session:
        """A final, uncapped promotion run, then close: every pending item gets its chance."""
        return self.sessions.close(session_id, project_id=self._project(project_id))

    def get_sessions(
        self, session_ids: Iterable[str], *, project_id: str | None = None
    ) -> builtins.list[Session | None]:
        return self.sessions.get_many(session_ids, project_id=self._project(project_id))

    def get_session(self, session_id: str, *, project_id: str | None = None) -> Session:
        return self.sessions.get(session_id, project_id=self._project(project_id))

    # -- project settings ---------------------------------------------------

    def project_ids(self) -> builtins.list[str]:
        """Every project holding memories, sessions or settings, sorted: the
        projects a caller can name. A project is never created by naming it, so
        this is how a typo is told from an empty project."""
        return self.evaluator.projects()

    def project_settings(self, *, project_id: str | None = None) -> ProjectSettings:
        """The project's settings (the defaults until some are set)."""
        return self.projects.settings(project_id=self._project(project_id))

    def set_project_settings(
        self,
        update: ProjectSettingsUpdate | Mapping[str, Any] | None = None,
        *,
        project_id: str | None = None,
        **settings: Any,
    ) -> ProjectSettings:
        """Change some of the project's settings, given as a ``ProjectSettingsUpdate``
        (or its mapping) or as keywords (``auto_links=["previous_turn"]``); the
        settings not named keep their values. Returns them all as they now stand."""
        if update is not None and settings:
            raise TypeError("pass a whole ProjectSettingsUpdate or keyword settings, not both")
        return self.projects.set_settings(
            settings if update is None else update, project_id=self._project(project_id)
        )

    # -- promotion and archival ---------------------------------------------

    def run_promotion(
        self, session_id: str, *, dry_run: bool = False, project_id: str | None = None
    ) -> RunResult:
        """Promote a session's worthy short-term memories now (or show what would move)."""
        return self.promotion.run(
            session_id,
            project_id=self._project(project_id),
            trigger=Trigger.MANUAL,
            dry_run=dry_run,
        )

    def promotion_stats(self, session_id: str, *, project_id: str | None = None) -> PromotionStats:
        return self.sessions.promotion_stats(session_id, project_id=self._project(project_id))

    def promotion_events(
        self,
        *,
        memory_id: str | None = None,
        session_id: str | None = None,
        limit: int = 50,
        project_id: str | None = None,
    ) -> builtins.list[PromotionEvent]:
        """The promotion log of a memory or a session, newest first."""
        return self.sessions.promotion_events(
            memory_id=memory_id,
            session_id=session_id,
            limit=limit,
            project_id=self._project(project_id),
        )

    def enable_promotion(
        self,
        session_id: str,
        *,
        interval_seconds: float | None = None,
        project_id: str | None = None,
    ) -> PromotionStats:
        """Turn the periodic trigger on; the next run is one interval from now."""
        return self.sessions.set_promotion(
            session_id, True, interval_seconds, project_id=self._project(project_id)
        )

    def disable_promotion(
        self, session_id: str, *, project_id: str | None = None
    ) -> PromotionStats:
        return self.sessions.set_promotion(
            session_id, False, None, project_id=self._project(project_id)
        )

    def archive_stale(
        self, *, dry_run: bool = False, project_id: str | None = None
    ) -> ArchiveResult:
        return self.archiver.archive_stale(project_id=self._project(project_id), dry_run=dry_run)

    def what_if(
        self,
        variant: WhatIfVariant | Mapping[str, Any] | None = None,
        *,
        rules_file: Path | str | None = None,
        project_id: str | None = None,
    ) -> WhatIfReport:
        """Which memories promotion and archival would move, keep or archive under
        other rules, beside what the rules in force do; writes nothing."""
        return self.whatif.run(
            parse(WhatIfVariant, variant or {}),
            rules_file=rules_file,
            project_id=self._project(project_id),
        )

    def restore(self, memory_id: str, *, project_id: str | None = None) -> Memory:
        """Back to its previous tier, counted as just used (and rescored so)."""
        return self.archiver.restore(memory_id, project_id=self._project(project_id))

    # -- consolidation -------------------------------------------------------

    def consolidate(
        self,
        *,
        dry_run: bool = False,
        fingerprints: Sequence[str] | None = None,
        project_id: str | None = None,
    ) -> ConsolidationResult:
        """Write one consolidated memory per group of related memories, superseding
        and archiving the group (``restore`` brings a source back); ``dry_run``
        shows the groups and writes nothing. ``fingerprints``: only these groups
        of a dry run, each skipped with a note if it changed since."""
        return self.consolidator.run(
            project_id=self._project(project_id), dry_run=dry_run, fingerprints=fingerprints
        )

    # -- staging and review --------------------------------------------------

    def review_queue(
        self,
        filter: ReviewFilter | Mapping[str, Any] | None = None,
        *,
        order: str = "oldest",
        first: int = 20,
        after: str | None = None,
        project_id: str | None = None,
    ) -> ReviewPage:
        """Candidates awaiting review, ``oldest`` or most-``evidence`` first, each
        with the live memories whose text is close to it."""
        project = self._project(project_id)
        return self.review.queue(
            filter,
            order=order,
            first=first,
            after=after,
            project_id=project,
            near_duplicates=lambda memory: self.writer.near_duplicates(memory, project=project),
        )

    def approve(self, memory_id: str, *, project_id: str | None = None) -> Memory:
        """A reviewer's confirmation: candidate -> active (no-op if already active)."""
        return self.review.approve(memory_id, project_id=self._project(project_id))

    def reject(self, memory_id: str, reason: str, *, project_id: str | None = None) -> Memory:
        """Archive a candidate with the reviewer's reason; it stays retrievable."""
        return self.review.reject(memory_id, reason, project_id=self._project(project_id))

    def merge_memories(
        self, into_id: str, from_id: str, *, project_id: str | None = None
    ) -> Memory:
        """Fold ``from_id`` into ``into_id``; the absorbed memory is archived, not deleted."""
        return self.review.merge(into_id, from_id, project_id=self._project(project_id))

    def bulk_review(
        self,
        filter: ReviewFilter | Mapping[str, Any] | None,
        action: str,
        *,
        reason: str | None = None,
        dry_run: bool = True,
        project_id: str | None = None,
    ) -> BulkReviewResult:
        """Approve or reject every candidate the filter selects; a dry run by default."""
        return self.review.bulk(
            filter, action, reason=reason, dry_run=dry_run, project_id=self._project(project_id)
        )

    def record_evidence(
        self, memory_id: str, relevance: float, *, project_id: str | None = None
    ) -> Memory:
        """Evaluator relevance evidence for a memory, in [0, 1]; may activate a candidate."""
        return self.review.record_evidence(
            memory_id, relevance, project_id=self._project(project_id)
        )

    def staging_events(
        self, memory_id: str, *, limit: int = 50, project_id: str | None = None
    ) -> builtins.list[StagingEvent]:
        return self.review.staging_events(
            memory_id, limit=limit, project_id=self._project(project_id)
        )

    # -- failure capsules ------------------------------------------------------

    def record_failure(
        self, report: FailureReport | Mapping[str, Any], *, project_id: str | None = None
    ) -> FailureOutcome:
        """Store a failure as a capsule (or count a recurrence of it) and derive its
        ``lesson_learned`` candidate into the review queue; recurrence or a fix
        activates the lesson. Nothing is written when the report is invalid.
        A call acting as an agent reports as that agent."""
        attributed = attribute(parse(FailureReport, report))
        return self.failures.record(attributed, project_id=self._project(project_id))

    def failure_capsules(
        self,
        *,
        session_id: str | None = None,
        limit: int = 20,
        project_id: str | None = None,
    ) -> builtins.list[FailureCapsule]:
        """Failure capsules, most recently seen first."""
        return self.failures.list(
            project_id=self._project(project_id), session_id=session_id, limit=limit
        )

    def failure_capsule(self, capsule_id: str, *, project_id: str | None = None) -> FailureCapsule:
        return self.failures.get(capsule_id, project_id=self._project(project_id))

    # -- consistency evaluation ---------------------------------------------

    def evaluate(
        self,
        *,
        fix: bool = False,
        dry_run: bool = False,
        evidence: bool = False,
        project_id: str | None = None,
    ) -> ConsistencyReport:
        """Run the consistency evaluator over the project and store its report.

        ``fix`` applies the safe fixes (``dry_run``: only lists them);
        ``evidence`` writes each candidate's relevance through ``record_evidence``.
        """
        return self.evaluator.evaluate(
            self._project(project_id), fix=fix, dry_run=dry_run, evidence=evidence
        )

    def submit_consistency_check(
        self, *, fix: bool = False, evidence: bool = False, project_id: str | None = None
    ) -> Job:
        """Evaluate the project on a background thread; poll ``evaluator.job(id)``."""
        return self.evaluator.submit(self._project(project_id), fix=fix, evidence=evidence)

    def consistency_job(self, job_id: str, *, project_id: str | None = None) -> Job | None:
        """A job this process started for the project; ``None`` for any other id."""
        job = self.evaluator.job(job_id)
        return job if job is not None and job.project_id == self._project(project_id) else None

    def consistency_reports(
        self,
        *,
        limit: int = 20,
        before: float | None = None,
        report_id: str | None = None,
        full: bool = True,
        project_id: str | None = None,
    ) -> builtins.list[ConsistencyReport]:
        """Stored evaluator reports, newest first (``full=False``: summaries only)."""
        return self.evaluator.reports(
            self._project(project_id), limit=limit, before=before, report_id=report_id, full=full
        )

    def migrate(self) -> builtins.list[MigrationReport]:
        """Bring the graph to the current schema version; safe to run again."""
        return migrate(self.store, self.clock)

    def _project(self, project_id: str | None) -> str:
        return (
            self.default_project
            if project_id is None
            else check_identifier("project_id", project_id)
        )

    # -- retrieval -----------------------------------------------------------

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
        (``graphmem.retrieval.tool_definition``) as a mapping, validated the
        same way. Counts a retrieval (``retrieval_count``) on each memory
        returned unless ``record_access=False``; retrieval is not use, so
        access counts, recency and importance stay as they are. ``agent_id``:
        only what that agent sees (its own memories and the shared ones).
        """
        request = retrieval_request(ContextRequest, "context_hint", context_hint, options)
        project = self._project(project_id)
        with acting_as(agent_id):
            result = self.retrieval.knowledge_context(
                request, project_id=project, record_access=record_access
            )
            return self.failures.explain_lessons(result, project_id=project)

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

    def neighborhood(
        self,
        memory_id: str,
        *,
        depth: int = 1,
        relation_types: Sequence[RelationType | str] | None = None,
        project_id: str | None = None,
        as_of: Any = None,
    ) -> Neighborhood:
        """The memories within ``depth`` relations of one, and the relations between
        them; with ``as_of`` (a time), those that existed then, as they stood."""
        return self.retrieval.neighborhood(
            memory_id,
            project_id=self._project(project_id),
            depth=depth,
            relation_types=relation_types,
            as_of=as_of,
        )

    def backfill_embeddings(
        self,
        *,
        batch_size: int = 256,
        limit: int | None = None,
        progress: bool = False,
        all_projects: bool = False,
        project_id: str | None = None,
    ) -> BackfillResult:
        """Embed the memories that have no embedding yet (``progress``: a bar on stderr)."""
        return self.retrieval.backfill(
            project_id=None if all_projects else self._project(project_id),
            batch_size=batch_size,
            limit=limit,
            progress=progress,
        )
