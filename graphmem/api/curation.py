"""The half of GraphMem's facade that decides who sees memories and looks after
them over time, rather than writing or reading one: agents and sharing,
sessions and the promotion they trigger, archival and what-if, consolidation,
the review queue, failure capsules, consistency evaluation and per-project
settings.

``Curation`` is the services of ``graphmem.services.wiring`` (each reached as
its attribute: ``self.review``), with the store's life (warm, close), and
resolves the project of each call. A method that only hands its call to one
service is ``served`` (``graphmem.api.served``): its operation in the catalogue
gives its signature and docstring, so only the service call is written here.
``GraphMem`` extends it with the calls on memories themselves. Annotations
spell ``builtins.list`` because GraphMem has a ``list`` method, and the clients
(``graphmem.client``) have these signatures word for word.
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any, Self

from graphmem.api.agents import AgentScoped
from graphmem.api.served import served
from graphmem.domain.checks import check_identifier, parse
from graphmem.domain.consistency import ConsistencyReport
from graphmem.domain.deliveries import DeliveryStats
from graphmem.domain.kinds import Visibility
from graphmem.domain.models import Memory
from graphmem.domain.projects import ProjectSettings, ProjectSettingsUpdate
from graphmem.domain.results import Job
from graphmem.domain.review import ReviewFilter, ReviewPage
from graphmem.domain.sessions import PromotionStats
from graphmem.operations.deliveries import DeliveryOperations
from graphmem.operations.evaluation import EvaluationOperations
from graphmem.operations.failures import FailureOperations
from graphmem.operations.projects import ProjectOperations
from graphmem.operations.promotion import PromotionOperations
from graphmem.operations.review import ReviewOperations
from graphmem.operations.sessions import SessionOperations
from graphmem.operations.sharing import SharingOperations
from graphmem.services import heap
from graphmem.services.promotion import Trigger
from graphmem.services.whatif import WhatIfReport, WhatIfVariant
from graphmem.services.wiring import Services
from graphmem.store.migrations import MigrationReport, migrate


class Curation(Services, AgentScoped):
    """Services over one store, and the calls of this module on them."""

    default_project: str
    """The project of a call that names none (an identifier already checked)."""

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

    def default_visibility(self, project_id: str | None = None) -> Visibility:
        """Who sees a project's new memories when their writer does not say."""
        return self.sharing.default_visibility(self._project(project_id))

    share = served(
        SharingOperations.share,
        lambda gm: partial(gm.sharing.set_visibility, to=Visibility.SHARED),
    )
    unshare = served(
        SharingOperations.unshare,
        lambda gm: partial(gm.sharing.set_visibility, to=Visibility.PRIVATE),
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

    sharing_events = served(SharingOperations.sharing_events, lambda gm: gm.sharing.events)

    # -- sessions ---------------------------------------------------------

    open_session = served(SessionOperations.open_session, lambda gm: gm.sessions.open)
    pause_session = served(SessionOperations.pause_session, lambda gm: gm.sessions.pause)
    close_session = served(SessionOperations.close_session, lambda gm: gm.sessions.close)
    get_sessions = served(SessionOperations.get_sessions, lambda gm: gm.sessions.get_many)
    get_session = served(SessionOperations.get_session, lambda gm: gm.sessions.get)

    # -- project settings -------------------------------------------------

    project_ids = served(ProjectOperations.project_ids, lambda gm: gm.evaluator.projects)
    project_settings = served(ProjectOperations.project_settings, lambda gm: gm.projects.settings)

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

    run_promotion = served(
        PromotionOperations.run_promotion,
        lambda gm: partial(gm.promotion.run, trigger=Trigger.MANUAL),
    )
    promotion_stats = served(
        PromotionOperations.promotion_stats, lambda gm: gm.sessions.promotion_stats
    )
    promotion_events = served(
        PromotionOperations.promotion_events, lambda gm: gm.sessions.promotion_events
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

    archive_stale = served(PromotionOperations.archive_stale, lambda gm: gm.archiver.archive_stale)

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

    archive = served(PromotionOperations.archive, lambda gm: gm.archiver.archive)
    restore = served(PromotionOperations.restore, lambda gm: gm.archiver.restore)

    # -- consolidation ----------------------------------------------------

    consolidate = served(ReviewOperations.consolidate, lambda gm: gm.consolidator.run)

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

    approve = served(ReviewOperations.approve, lambda gm: gm.review.approve)
    reject = served(ReviewOperations.reject, lambda gm: gm.review.reject)
    needs_review = served(ReviewOperations.needs_review, lambda gm: gm.review.needs_review)
    deliveries = served(DeliveryOperations.deliveries, lambda gm: gm.delivery_record.page)

    def prune_deliveries(self, *, project_id: str | None = None) -> DeliveryStats:
        """Delete the deliveries past the project's ``deliveries`` bounds (the
        scheduler's project pass runs it hourly); says what is left and what went."""
        return self.delivery_record.prune(project_id=self._project(project_id))

    confirm = served(ReviewOperations.confirm, lambda gm: gm.review.confirm)
    undo = served(ReviewOperations.undo, lambda gm: gm.undoer.undo)
    check_expired = served(ReviewOperations.check_expired, lambda gm: gm.review.cascade.expired)
    merge_memories = served(ReviewOperations.merge_memories, lambda gm: gm.review.merge)
    bulk_review = served(ReviewOperations.bulk_review, lambda gm: gm.review.bulk)

    def record_evidence(
        self, memory_id: str, relevance: float, *, project_id: str | None = None
    ) -> Memory:
        """Evaluator relevance evidence for a memory, in [0, 1]; may activate a candidate."""
        return self.review.record_evidence(
            memory_id, relevance, project_id=self._project(project_id)
        )

    staging_events = served(ReviewOperations.staging_events, lambda gm: gm.review.staging_events)

    # -- failure capsules -------------------------------------------------

    record_failure = served(FailureOperations.record_failure, lambda gm: gm.failures.record)
    failure_capsules = served(FailureOperations.failure_capsules, lambda gm: gm.failures.list)
    failure_capsule = served(FailureOperations.failure_capsule, lambda gm: gm.failures.get)

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

    submit_consistency_check = served(
        EvaluationOperations.submit_consistency_check, lambda gm: gm.evaluator.submit
    )

    def consistency_job(self, job_id: str, *, project_id: str | None = None) -> Job | None:
        """A job this process started for the project; ``None`` for any other id."""
        job = self.evaluator.job(job_id)
        return job if job is not None and job.project_id == self._project(project_id) else None

    consistency_reports = served(
        EvaluationOperations.consistency_reports, lambda gm: gm.evaluator.reports
    )
