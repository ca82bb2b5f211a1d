"""Periodic jobs in the server: promotion per session; per project, the
promotion pass over episodic memories whose evidence arrived after their
session's runs, memory consolidation (when ``consolidation.enabled``),
archival, archive expiry and the pruning of old deliveries; the nightly
consistency evaluation per project.

Due work is claimed in the graph (the claim moves the next run time forward
in the same write), so several server processes on one database share the
work instead of repeating it. Runs happen on a background thread; requests
never wait for them.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import TYPE_CHECKING

from graphmem.domain.clock import stored_now
from graphmem.domain.errors import StoreUnavailableError
from graphmem.domain.ids import new_id
from graphmem.services.promotion import Trigger
from graphmem.store.queries import schedule

if TYPE_CHECKING:
    from graphmem.api import GraphMem

log = logging.getLogger(__name__)


class Scheduler:
    def __init__(
        self,
        gm: GraphMem,
        *,
        tick_seconds: float = 1.0,
        busy_fraction: float = 0.25,
        sessions_per_tick: int = 100,
        owner: str | None = None,
        evaluation_interval_seconds: float | None = 86_400.0,
    ) -> None:
        self.gm = gm
        self.tick_seconds = tick_seconds
        self.busy_fraction = busy_fraction
        self.sessions_per_tick = sessions_per_tick
        self.evaluation_interval_seconds = evaluation_interval_seconds
        """How often each project's consistency evaluation runs; ``None``: never."""
        self.owner = owner or f"{os.uname().nodename}:{os.getpid()}:{new_id()[-6:]}"
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def tick(self) -> int:
        """Run everything due now; returns how many jobs ran. Tests call this directly."""
        now = stored_now(self.gm.clock)
        rules = self.gm.rules
        ran = 0
        claimed = schedule.claim_sessions(
            self.gm.store,
            now=now,
            limit=self.sessions_per_tick,
            owner=self.owner,
            default_interval=rules.promotion_interval_seconds,
        )
        for due in claimed:
            if self._stop.is_set():
                break
            began = time.perf_counter()
            try:
                self.gm.promotion.run(
                    due.session_id, project_id=due.project_id, trigger=Trigger.PERIODIC
                )
                ran += 1
            except Exception:
                log.exception("periodic promotion of session %s failed", due.session_id)
            self._pace(began)
        projects = schedule.claim_projects(
            self.gm.store, now=now, owner=self.owner, interval=rules.archive_interval_seconds
        )
        for project_id in projects:
            if self._stop.is_set():
                break
            began = time.perf_counter()
            try:
                self.gm.promotion.consolidate(project_id=project_id)
                if rules.consolidation.enabled:
                    self.gm.consolidator.run(project_id=project_id)
                self.gm.archiver.archive_stale(project_id=project_id)
                self.gm.archiver.expire_archived(project_id=project_id)
                self.gm.check_expired(project_id=project_id)
                self.gm.prune_deliveries(project_id=project_id)
                ran += 1
            except Exception:
                log.exception("archival of project %s failed", project_id)
            self._pace(began)
        if self.evaluation_interval_seconds is not None:
            ran += self._evaluate_due(now, self.evaluation_interval_seconds)
        return ran

    def _evaluate_due(self, now: float, interval: float) -> int:
        """The nightly consistency evaluation of each due project (it stores its report)."""
        ran = 0
        due = schedule.claim_evaluations(
            self.gm.store, now=now, owner=self.owner, interval=interval
        )
        for project in due:
            if self._stop.is_set():
                break
            if not project.due:
                continue
            try:
                self.gm.evaluator.evaluate(project.project_id)
                ran += 1
            except Exception:
                log.exception("consistency evaluation of project %s failed", project.project_id)
        return ran

    def _pace(self, began: float) -> None:
        """Rest in proportion to the job just done (``rest_after``)."""
        if self.busy_fraction < 1.0:
            self._stop.wait(rest_after(time.perf_counter() - began, self.busy_fraction))

    def start(self) -> None:
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="graphmem-scheduler", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        """Finish the job in progress, then stop."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.tick()
            except StoreUnavailableError as exc:
                # The database is down: one line a tick, not a traceback; /readyz says why.
                log.warning("scheduler tick skipped: %s", exc)
            except Exception:
                log.exception("scheduler tick failed")
            self._stop.wait(self.tick_seconds)


def rest_after(spent: float, busy_fraction: float) -> float:
    """How long to rest after a job of ``spent`` seconds, so periodic work never
    takes more than ``busy_fraction`` of the process: requests share its
    interpreter and the database with it (1: never rest)."""
    if busy_fraction >= 1.0:
        return 0.0
    return max(spent, 0.0) * (1.0 / busy_fraction - 1.0)
