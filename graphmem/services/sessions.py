"""Sessions: threads of work that memories are written in, and their promotion
settings (the periodic trigger, its record and log).

Pausing and closing a session run promotion first, so what is worth keeping
moves to long-term tiers before the session stops taking writes.

Sessions are one namespace per project, seen through what they hold. For a call
acting as an agent, a session holding memories or failure capsules none of which
it may read is a session that does not exist: reading it is ``None``, steering it
(pause, close, promotion runs and settings, statistics) is ``NotFoundError`` as
for an unknown id, and its promotion log is empty; opening it, or writing a
memory or a failure report into it (``Sharing.attributed``), is ``NotFoundError``
too, and changes nothing: a write would otherwise make the session the writer's
to see, its name and runs included. A session holding anything the agent may read is
one it sees and steers, but its counts and the runs it starts cover only what
the agent may read. An empty session is every agent's.
"""

from __future__ import annotations

from collections.abc import Iterable

from graphmem.domain.checks import MAX_PAGE_SIZE, check_identifier, check_text
from graphmem.domain.errors import InvalidInputError
from graphmem.domain.ids import new_id
from graphmem.domain.kinds import SessionState
from graphmem.domain.sessions import PromotionEvent, PromotionStats, Session
from graphmem.domain.viewer import acting_agent
from graphmem.services.base import Basics, Service
from graphmem.services.promotion import CLOSE_LIMIT, PromotionEngine, Trigger, missing_session
from graphmem.store import Row


def _session(row: Row) -> Session:
    return Session.model_validate({k: v for k, v in row["session"].items() if v is not None})


class Sessions(Service):
    def __init__(
        self,
        basics: Basics,
        *,
        promotion: PromotionEngine,
    ) -> None:
        super().__init__(basics)
        self.promotion = promotion

    def open(
        self,
        session_id: str | None,
        *,
        name: str | None,
        max_items: int | None,
        project_id: str,
    ) -> Session:
        session_id = check_identifier("session_id", session_id) if session_id else new_id()
        if name is not None:
            name = check_text("name", name, max_chars=200)
        if max_items is not None and not 1 <= max_items <= 1_000_000:
            raise InvalidInputError("max_items: must be between 1 and 1000000", field="max_items")
        if self._hidden(session_id, project_id):
            # It cannot be another one of the same id, and is not this agent's to reopen.
            raise missing_session(session_id, project_id)
        rows = self.store.write(
            "open_session",
            {
                "project_id": project_id,
                "session_id": session_id,
                "name": name,
                "max_items": max_items,
                "now": self._now(),
            },
        )
        return _session(rows[0])

    def pause(self, session_id: str, *, project_id: str) -> Session:
        """Promote what is worth keeping, then pause: the run finishes before the pause does."""
        self.get(session_id, project_id=project_id)
        self.promotion.run(session_id, project_id=project_id, trigger=Trigger.PAUSE)
        return self._set_state(session_id, SessionState.PAUSED, project_id)

    def close(self, session_id: str, *, project_id: str) -> Session:
        """A final, uncapped promotion run, then close: every pending item gets its chance."""
        self.get(session_id, project_id=project_id)
        self.promotion.run(
            session_id, project_id=project_id, trigger=Trigger.CLOSE, limit=CLOSE_LIMIT
        )
        return self._set_state(session_id, SessionState.CLOSED, project_id)

    def _set_state(self, session_id: str, state: SessionState, project_id: str) -> Session:
        rows = self.store.write(
            "set_session_state",
            {
                "project_id": project_id,
                "session_id": session_id,
                "state": state.value,
                "now": self._now(),
            },
        )
        if not rows:
            raise missing_session(session_id, project_id)
        return _session(rows[0])

    def get_many(self, session_ids: Iterable[str], *, project_id: str) -> list[Session | None]:
        """Sessions in the order asked for; ``None`` for an unknown id, and for a
        session the acting agent may not see."""
        ids = list(session_ids)
        rows = self.store.read("get_sessions", {"ids": ids, "project_id": project_id})
        found = {row["session"]["id"]: _session(row) for row in rows}
        for hidden in self.promotion.hidden_sessions(list(found), project_id=project_id):
            del found[hidden]
        return [found.get(session_id) for session_id in ids]

    def _hidden(self, session_id: str, project_id: str) -> bool:
        return bool(self.promotion.hidden_sessions([session_id], project_id=project_id))

    def get(self, session_id: str, *, project_id: str) -> Session:
        (session,) = self.get_many([session_id], project_id=project_id)
        if session is None:
            raise missing_session(session_id, project_id)
        return session

    # -- promotion settings, record and log ---------------------------------

    def promotion_stats(self, session_id: str, *, project_id: str) -> PromotionStats:
        """The session's promotion record. For a call acting as an agent its
        counts of memories (promoted, failed, rotated, remaining) are of those
        the agent may read, and the remaining ones are counted now."""
        rows = self.store.read(
            "session_stats", {"project_id": project_id, "session_id": session_id}
        )
        if not rows or self._hidden(session_id, project_id):
            raise missing_session(session_id, project_id)
        stats = {k: v for k, v in rows[0]["stats"].items() if v is not None}
        if acting_agent() is not None:
            (seen,) = self.store.read(
                "session_stats_seen", {"project_id": project_id, "session_id": session_id}
            )
            stats["promotion_total"] = seen["total_promoted"]
            if "last_run_id" in stats:  # a session never run has no last run to count
                stats.update((k, v) for k, v in seen.items() if k.startswith("last_"))
        return PromotionStats(
            session_id=stats["id"],
            project_id=stats["project_id"],
            enabled=stats.get("promotion_enabled", True),
            interval_seconds=stats.get(
                "promotion_interval_seconds", self.rules.promotion_interval_seconds
            ),
            next_run_at=stats.get("next_promotion_at"),
            runs=stats.get("promotion_runs", 0),
            total_promoted=stats.get("promotion_total", 0),
            **{k: v for k, v in stats.items() if k.startswith("last_")},
        )

    def promotion_events(
        self, *, memory_id: str | None, session_id: str | None, limit: int, project_id: str
    ) -> list[PromotionEvent]:
        """The promotion log of a memory or a session, newest first."""
        if (memory_id is None) == (session_id is None):
            raise InvalidInputError(
                "memory_id: name exactly one of memory_id and session_id", field="memory_id"
            )
        if not 1 <= limit <= MAX_PAGE_SIZE:
            raise InvalidInputError(f"limit: must be between 1 and {MAX_PAGE_SIZE}", field="limit")
        if session_id is not None and self._hidden(session_id, project_id):
            return []  # as for an unknown session
        rows = self.store.read(
            "promotion_events",
            {
                "project_id": project_id,
                "memory_id": memory_id,
                "session_id": session_id,
                "limit": limit,
            },
        )
        return [PromotionEvent.model_validate(row["event"]) for row in rows]

    def set_promotion(
        self, session_id: str, enabled: bool, interval: float | None, *, project_id: str
    ) -> PromotionStats:
        """Turn the periodic trigger on (the next run one interval from now) or off."""
        if interval is not None and not 1 <= interval <= 86_400:
            raise InvalidInputError(
                "interval_seconds: must be between 1 and 86400", field="interval_seconds"
            )
        if self._hidden(session_id, project_id):
            raise missing_session(session_id, project_id)
        rows = self.store.write(
            "set_promotion_enabled",
            {
                "project_id": project_id,
                "session_id": session_id,
                "enabled": enabled,
                "interval_seconds": interval,
                "default_interval": self.rules.promotion_interval_seconds,
                "now": self._now(),
            },
        )
        if not rows:
            raise missing_session(session_id, project_id)
        return self.promotion_stats(session_id, project_id=project_id)
