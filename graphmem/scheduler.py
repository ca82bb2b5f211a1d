"""Periodic jobs in the server: promotion per session, archival per project.

Due work is claimed in the graph (the claim moves the next run time forward
in the same write), so several server processes on one database share the
work instead of repeating it. Runs happen on a background thread; requests
never wait for them.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import TYPE_CHECKING

from graphmem.clock import stored_now
from graphmem.ids import new_id
from graphmem.promotion import Trigger

if TYPE_CHECKING:
    from graphmem.api import GraphMem

log = logging.getLogger(__name__)


class Scheduler:
    def __init__(
        self,
        gm: GraphMem,
        *,
        tick_seconds: float = 1.0,
        sessions_per_tick: int = 100,
        owner: str | None = None,
    ) -> None:
        self.gm = gm
        self.tick_seconds = tick_seconds
        self.sessions_per_tick = sessions_per_tick
        self.owner = owner or f"{os.uname().nodename}:{os.getpid()}:{new_id()[-6:]}"
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def tick(self) -> int:
        """Run everything due now; returns how many jobs ran. Tests call this directly."""
        now = stored_now(self.gm.clock)
        rules = self.gm.rules
        ran = 0
        claimed = self.gm.store.write(
            "claim_due_sessions",
            {
                "now": now,
                "limit": self.sessions_per_tick,
                "owner": self.owner,
                "default_interval": rules.promotion_interval_seconds,
            },
        )
        for row in claimed:
            if self._stop.is_set():
                break
            try:
                self.gm.promotion.run(
                    row["session_id"], project_id=row["project_id"], trigger=Trigger.PERIODIC
                )
                ran += 1
            except Exception:
                log.exception("periodic promotion of session %s failed", row["session_id"])
        projects = self.gm.store.write(
            "claim_due_projects",
            {"now": now, "owner": self.owner, "interval": rules.archive_interval_seconds},
        )
        for row in projects:
            if self._stop.is_set():
                break
            try:
                self.gm.archiver.archive_stale(project_id=row["project_id"])
                ran += 1
            except Exception:
                log.exception("archival of project %s failed", row["project_id"])
        return ran

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
            except Exception:
                log.exception("scheduler tick failed")
            self._stop.wait(self.tick_seconds)
