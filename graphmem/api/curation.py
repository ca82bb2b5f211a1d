"""The half of GraphMem's facade that decides who sees memories and looks after
them over time, rather than writing or reading one: agents and sharing,
sessions and the promotion they trigger, archival and what-if, consolidation,
the review queue, failure capsules, consistency evaluation and per-project
settings.

``Curation`` holds the services of ``graphmem.services.wiring`` as its attributes, and
with them the store's life (warm, close), and resolves the project of each
call. ``GraphMem`` extends it with the calls on memories themselves.
Annotations spell ``builtins.list`` because GraphMem has a ``list`` method, and
the clients (``graphmem.client``) mirror these signatures word for word.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Self, cast

from graphmem.domain import undo as undoing
from graphmem.domain.capsules import FailureCapsule, FailureOutcome, FailureReport
from graphmem.domain.checks import check_identifier, parse
from graphmem.domain.consistency import ConsistencyReport
from graphmem.domain.deliveries import DeliveryFilter, DeliveryPage, DeliveryStats
from graphmem.domain.kinds import Visibility
from graphmem.domain.models import Memory, Page
from graphmem.domain.projects import ProjectSettings, ProjectSettingsUpdate, SharingEvent
from graphmem.domain.results import Job
from graphmem.domain.review import BulkReviewResult, ReviewFilter, ReviewPage, StagingEvent
from graphmem.domain.sessions import PromotionEvent, PromotionStats, Session
from graphmem.services import heap
from graphmem.services.agents import AgentView
from graphmem.services.archival import ArchiveResult
from graphmem.services.consolidator import ConsolidationResult
from graphmem.services.promotion import RunResult, Trigger
from graphmem.services.whatif import WhatIfReport, WhatIfVariant
from graphmem.services.wiring import Services
from graphmem.store.migrations import MigrationReport, migrate


class Curation:
    """Services over one store, and the calls of this module on them."""

    def __init__(self, services: Services, default_project: str) -> None:
        """``default_project``: the project of a call that names none (an identifier
        already checked)."""
        self.store = services.store
        self.clock = services.clock
        self.scorer = services.scorer
        self.rules = services.rules
        self.telemetry = services.telemetry
        self.embedder = services.embedder
        """Embeds memories as they are written; ``None``: full text and relations only."""
        self.promotion = services.promotion
        self.archiver = services.archiver
        self.stager = services.stager
        self.retrieval = services.retrieval
        self.delivery_record = services.deliveries
        self.memories = services.memories
        self.projects = services.projects
        self.sharing = services.sharing
        self.writer = services.writer
        self.relation_edges = services.relation_edges
        self.consolidator = services.consolidator
        self.sessions = services.sessions
        self.review = services.review
        self.undoer = services.undo
        self.failures = services.failures
        self.whatif = services.whatif
        self.evaluator = services.evaluator
        self.keys = services.keys
        self.events = services.events
        """What happens to memories, for live subscribers (GraphQL subscriptions)."""
        self.default_project = default_project

    def warm(self) -> None:
        """Everything a server does once before its first request: load the
        embedding model and run it once (the first call is then as fast as the
        hundredth), then settle the heap (graphmem.services.heap) so a full garbage
        collection does not stall a request for tens of milliseconds."""
        if self.embedder is not None:
            self.embedder.warm()
        heap.settle()

    def close(self) -> None:
        # Queued evaluations finish before the store they write to closes.
        self.evaluator.close()
        self.store.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def migrate(self) -> builtins.list[MigrationReport]:
        """Bring the graph to the current schema version; safe to run again."""
        return migrate(self.store, self.clock)

    def _project(self, project_id: str | None) -> str:
        return (
            self.default_project
            if project_id is None
            else check_identifier("project_id", project_id)
        )

    # -- agents and sharing -----------------------------------------------

    def as_agent(self, agent_id: str | None) -> Self:
        """This store as one agent sees and acts: its own memories and the shared
        ones, its writes attributed to it. ``None``: the whole project, as now.
        (An ``AgentView``: it answers every method of GraphMem, as that agent.)"""
        return self if agent_id is None else cast(Self, AgentView(self, agent_id))

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

    # -- sessions ---------------------------------------------------------

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

    # -- project settings -------------------------------------------------

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

    # -- promotion and archival -------------------------------------------

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

    def archive(self, memory_id: str, reason: str, *, project_id: str | None = None) -> Memory:
        """Archive one memory by hand, with the reason (``restore`` brings it back);
        what rests on it is marked for review."""
        return self.archiver.archive(memory_id, reason, project_id=self._project(project_id))

    def restore(self, memory_id: str, *, project_id: str | None = None) -> Memory:
        """Back to its previous tier, counted as just used (and rescored so)."""
        return self.archiver.restore(memory_id, project_id=self._project(project_id))

    # -- consolidation ----------------------------------------------------

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

    # -- staging and review -----------------------------------------------

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
            near_duplicates=lambda memory: self.writer.near_matches.near_duplicates(
                memory, project=project
            ),
        )

    def approve(self, memory_id: str, *, project_id: str | None = None) -> Memory:
        """A reviewer's confirmation: candidate -> active (no-op if already active)."""
        return self.review.approve(memory_id, project_id=self._project(project_id))

    def reject(self, memory_id: str, reason: str, *, project_id: str | None = None) -> Memory:
        """Archive a candidate with the reviewer's reason; it stays retrievable."""
        return self.review.reject(memory_id, reason, project_id=self._project(project_id))

    def needs_review(
        self, *, first: int = 20, after: str | None = None, project_id: str | None = None
    ) -> Page:
        """Memories marked as needing review because a memory they rest on (by
        ENABLES or CONSTRAINS) stopped being current, newest mark first; each
        memory's ``review_mark`` says what changed and the path to it."""
        return self.review.needs_review(
            first=first, after=after, project_id=self._project(project_id)
        )

    def deliveries(
        self,
        filter: DeliveryFilter | Mapping[str, Any] | None = None,
        *,
        first: int = 20,
        after: str | None = None,
        project_id: str | None = None,
    ) -> DeliveryPage:
        """What knowledgeContext handed out, newest first: to a session or an agent
        between two times, the deliveries that gave a memory, or (``changed``) those
        that gave memories since superseded, archived, marked for review or forgotten."""
        return self.delivery_record.page(
            filter, first=first, after=after, project_id=self._project(project_id)
        )

    def prune_deliveries(self, *, project_id: str | None = None) -> DeliveryStats:
        """Delete the deliveries past the project's ``deliveries`` bounds (the
        scheduler's project pass runs it hourly); says what is left and what went."""
        return self.delivery_record.prune(project_id=self._project(project_id))

    def confirm(
        self, memory_id: str, reason: str | None = None, *, project_id: str | None = None
    ) -> Memory:
        """A reviewer says a marked memory still holds: its mark goes, logged with ``reason``."""
        return self.review.confirm(memory_id, reason, project_id=self._project(project_id))

    def undo(
        self,
        curation: undoing.Curation | str,
        memory_id: str,
        *,
        reason: str,
        by: str = "api",
        project_id: str | None = None,
    ) -> undoing.UndoResult:
        """Take back a curation of ``memory_id``, logged with who (``by``) and why:
        ``merge`` (the newest merge into it, or by the merged-away memory's id the
        merge that took it), ``supersede``, ``consolidation``, ``archive``,
        ``rejection`` or ``mark``. Refused with what blocks it where a later change
        rests on it (docs/undo.md)."""
        return self.undoer.undo(
            curation, memory_id, reason=reason, by=by, project_id=self._project(project_id)
        )

    def check_expired(self, *, project_id: str | None = None) -> builtins.list[str]:
        """Mark what rests on memories whose ``valid_to`` passed since the last
        check (the scheduler runs it with archival); returns the ids marked."""
        return self.review.cascade.expired(project_id=self._project(project_id))

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

    # -- failure capsules -------------------------------------------------

    def record_failure(
        self, report: FailureReport | Mapping[str, Any], *, project_id: str | None = None
    ) -> FailureOutcome:
        """Store a failure as a capsule (or count a recurrence of it) and derive its
        ``lesson_learned`` candidate into the review queue; recurrence or a fix
        activates the lesson. Nothing is written when the report is invalid.
        A call acting as an agent reports as that agent."""
        return self.failures.record(report, project_id=self._project(project_id))

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

    # -- consistency evaluation -------------------------------------------

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
