"""The consistency evaluator: an offline job that checks a project's memory graph.

It reads a snapshot of one project into networkx (``snapshot``), runs pure
checks over it (``checks``), computes metrics (``metrics``) and writes one
report (``graphmem.domain.consistency``; ``table`` and ``page`` render it) as
a ``:ConsistencyReport`` node. It writes nothing else
unless asked: ``fix`` applies the safe fixes (``fixes``), ``evidence``
reports each candidate's relevance through the review's ``record_evidence``,
the one interface by which evaluator evidence reaches staging.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from graphmem.domain.checks import MAX_PAGE_SIZE, check_between
from graphmem.domain.clock import stored_now
from graphmem.domain.consistency import ConsistencyReport
from graphmem.domain.errors import InvalidInputError, NotFoundError
from graphmem.domain.ids import new_id
from graphmem.domain.kinds import Status
from graphmem.domain.models import Memory
from graphmem.domain.results import Job
from graphmem.services.base import Basics, Service
from graphmem.services.evaluator import fixes
from graphmem.services.evaluator.checks import run_checks
from graphmem.services.evaluator.context import LIVE_TIERS, CheckContext
from graphmem.services.evaluator.metrics import Structure, compute_metrics, pagerank, relevance
from graphmem.services.evaluator.snapshot import (
    DEFAULT_PAGE,
    Snapshot,
    load_near_duplicates,
    load_snapshot,
    no_gc_pauses,
)
from graphmem.services.review import Review
from graphmem.store.queries import evaluator as queries

__all__ = ["Evaluator", "EvaluatorSettings", "Snapshot"]

log = logging.getLogger(__name__)

EvidenceSink = Callable[..., Memory]
"""``record_evidence(memory_id, relevance, project_id=...)``: ``Review.record_evidence``."""


@dataclass(frozen=True)
class EvaluatorSettings:
    page_size: int = DEFAULT_PAGE
    """Memories per snapshot query."""
    importance_tolerance: float = 1e-3
    """How far stored importance may sit outside its recomputed window (see
    ``scores.scoring_window``); covers float rounding and millisecond clocks."""
    overdue_after_seconds: float = 7_200.0
    near_duplicate_k: int = 10
    """Neighbours asked of the vector index per memory."""
    stored_findings: int = 1_000
    """Findings kept in a stored report; the summary still counts all of them."""


class Evaluator(Service):
    def __init__(
        self,
        basics: Basics,
        *,
        review: Review | None = None,
        settings: EvaluatorSettings | None = None,
    ) -> None:
        super().__init__(basics)
        self.record_evidence: EvidenceSink | None = (
            None if review is None else review.record_evidence
        )
        self.settings = settings or EvaluatorSettings()
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._jobs_lock = threading.Lock()
        self._worker: ThreadPoolExecutor | None = None

    def snapshot(self, project_id: str) -> Snapshot:
        """The project's graph as networkx, with near duplicates looked up."""
        snap = load_snapshot(self.store, project_id, page=self.settings.page_size)
        load_near_duplicates(
            self.store,
            snap,
            threshold=self.rules.dedup_similarity,
            k=self.settings.near_duplicate_k,
        )
        return snap

    def projects(self) -> list[str]:
        return queries.project_ids(self.store)

    def evaluate(
        self,
        project_id: str,
        *,
        fix: bool = False,
        dry_run: bool = False,
        evidence: bool = False,
        report_id: str | None = None,
    ) -> ConsistencyReport:
        """Check one project and store the report.

        ``fix`` plans the safe fixes and, unless ``dry_run``, applies them;
        ``evidence`` writes each live candidate's relevance through
        ``record_evidence`` (which may activate it). The report describes the
        graph as the snapshot saw it, before any fix.
        """
        if dry_run and not fix:
            raise InvalidInputError("dry_run: only meaningful with fix", field="dry_run")
        if evidence and self.record_evidence is None:
            raise InvalidInputError("evidence: no evidence sink is configured", field="evidence")
        with no_gc_pauses():
            return self._evaluate(project_id, fix, dry_run, evidence, report_id)

    def _evaluate(
        self, project_id: str, fix: bool, dry_run: bool, evidence: bool, report_id: str | None
    ) -> ConsistencyReport:
        started = time.perf_counter()
        now = stored_now(self.clock)
        timings: dict[str, float] = {}

        def lap(name: str, since: float) -> float:
            moment = time.perf_counter()
            timings[name] = round((moment - since) * 1000, 1)
            return moment

        snap = load_snapshot(self.store, project_id, page=self.settings.page_size)
        mark = lap("snapshot", started)
        load_near_duplicates(
            self.store,
            snap,
            threshold=self.rules.dedup_similarity,
            k=self.settings.near_duplicate_k,
        )
        mark = lap("near_duplicates", mark)
        context = CheckContext(
            now=now,
            scorer=self.scorer,
            rules=self.rules,
            importance_tolerance=self.settings.importance_tolerance,
            overdue_after_seconds=self.settings.overdue_after_seconds,
        )
        findings = run_checks(snap, context)
        mark = lap("checks", mark)
        structure = Structure.of(snap)
        ranks = pagerank(structure)
        metrics = compute_metrics(snap, now, structure, ranks)
        mark = lap("metrics", mark)
        report = ConsistencyReport(
            id=report_id or new_id(),
            project_id=project_id,
            created_at=now,
            findings=findings,
            metrics=metrics,
            notes=snap.notes,
            memories=snap.graph.number_of_nodes(),
            relations=snap.relation_count,
            timings_ms=timings,
            settings={
                "page_size": self.settings.page_size,
                "importance_tolerance": self.settings.importance_tolerance,
                "overdue_after_seconds": self.settings.overdue_after_seconds,
                "near_duplicate_k": self.settings.near_duplicate_k,
                "dedup_similarity": self.rules.dedup_similarity,
                "scoring_preset": self.scorer.preset.name,
            },
        )
        if fix:
            planned = fixes.plan(findings, snap, self.scorer, now)
            applied = [] if dry_run else fixes.apply(self.store, project_id, planned, now)
            report.fixes = {
                "dry_run": dry_run,
                "planned": [action.to_dict() for action in planned],
                "applied": applied,
            }
            mark = lap("fixes", mark)
        if evidence:
            report.evidence = self._write_evidence(snap, ranks)
            mark = lap("evidence", mark)
        report.duration_ms = round((time.perf_counter() - started) * 1000, 1)
        queries.store_report(self.store, report, self.settings.stored_findings)
        counts = report.counts()
        self.telemetry.emit(
            "evaluator.completed",
            now,
            project_id=project_id,
            report_id=report.id,
            memories=report.memories,
            relations=report.relations,
            findings=len(findings),
            errors=counts["error"],
            warnings=counts["warning"],
            infos=counts["info"],
            fixes_applied=len(report.fixes["applied"]) if report.fixes else 0,
            evidence_written=report.evidence["written"] if report.evidence else 0,
            duration_ms=report.duration_ms,
        )
        return report

    def _write_evidence(self, snap: Snapshot, ranks: dict[str, float]) -> dict[str, Any]:
        """Each live candidate with any relevance reports it through ``record_evidence``."""
        assert self.record_evidence is not None
        nodes = snap.graph.nodes
        written = 0
        activated = []
        for memory_id, value in sorted(relevance(snap, ranks).items()):
            attrs = nodes[memory_id]
            if value <= 0 or attrs.get("status") != Status.CANDIDATE.value:
                continue
            if (attrs.get("tier") or "working") not in LIVE_TIERS:
                continue
            try:
                memory = self.record_evidence(memory_id, value, project_id=snap.project_id)
            except NotFoundError:
                continue  # forgotten since the snapshot
            written += 1
            if memory.status is Status.ACTIVE:
                activated.append(memory_id)
        return {"written": written, "activated": activated}

    def reports(
        self,
        project_id: str,
        *,
        limit: int = 20,
        before: float | None = None,
        report_id: str | None = None,
        full: bool = True,
    ) -> list[ConsistencyReport]:
        """Past runs, newest first. Without ``full`` only the summaries are read:
        the findings, metrics and notes come back empty (for trends)."""
        check_between("limit", limit, 1, MAX_PAGE_SIZE)
        return queries.reports(
            self.store, project_id, report_id=report_id, before=before, limit=limit, full=full
        )

    # -- background jobs -------------------------------------------------------

    def submit(self, project_id: str, *, fix: bool = False, evidence: bool = False) -> Job:
        """Evaluate on a background thread (off any request path); poll ``job(id)``.

        Jobs run one at a time, in order; the job id is the id of the report
        the run stores, so a finished job's report is in ``reports``.
        """
        job = Job(id=new_id(), project_id=project_id, submitted_at=stored_now(self.clock))
        with self._jobs_lock:
            self._jobs[job.id] = job
            while len(self._jobs) > 100:
                self._jobs.popitem(last=False)
            if self._worker is None:
                self._worker = ThreadPoolExecutor(1, thread_name_prefix="graphmem-evaluator")
            worker = self._worker
        worker.submit(self._run_job, job, fix, evidence)
        return job

    def job(self, job_id: str) -> Job | None:
        """A job this process submitted (the last 100 are remembered)."""
        with self._jobs_lock:
            return self._jobs.get(job_id)

    def _run_job(self, job: Job, fix: bool, evidence: bool) -> None:
        job.state = "running"
        try:
            self.evaluate(job.project_id, fix=fix, evidence=evidence, report_id=job.id)
            job.state = "succeeded"
        except Exception as exc:  # the job reports any failure; the worker lives on
            log.exception("consistency evaluation of project %s failed", job.project_id)
            job.state = "failed"
            job.error = str(exc)
        job.finished_at = stored_now(self.clock)

    def close(self) -> None:
        """Finish the queued jobs, then stop the worker thread (call before closing the store)."""
        with self._jobs_lock:
            worker, self._worker = self._worker, None
        if worker is not None:
            worker.shutdown(wait=True)
