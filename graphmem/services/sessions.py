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
from dataclasses import fields

from graphmem.domain.checks import MAX_PAGE_SIZE, check_between, check_identifier, check_text
from graphmem.domain.errors import InvalidInputError
from graphmem.domain.ids import new_id
from graphmem.domain.kinds import SessionState
from graphmem.domain.sessions import PromotionEvent, PromotionStats, Session
from graphmem.domain.viewer import acting_agent
from graphmem.services.base import Basics, Service
from graphmem.services.promotion import CLOSE_LIMIT, PromotionEngine, Trigger, missing_session
from graphmem.store.queries import sessions

MAX_SESSION_ITEMS = 1_000_000
"""The largest working tier a session may ask for."""


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
        if max_items is not None:
            check_between("max_items", max_items, 1, MAX_SESSION_ITEMS)
        if self._hidden(session_id, project_id):
            # It cannot be another one of the same id, and is not this agent's to reopen.
            raise missing_session(session_id, project_id)
        return sessions.open(
            self.store,
            session_id,
            name=name,
            max_items=max_items,
            project_id=project_id,
            now=self._now(),
        )

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
        session = sessions.set_state(
            self.store, session_id, state, project_id=project_id, now=self._now()
        )
        if session is None:
            raise missing_session(session_id, project_id)
        return session

    def get_many(self, session_ids: Iterable[str], *, project_id: str) -> list[Session | None]:
        """Sessions in the order asked for; ``None`` for an unknown id, and for a
        session the acting agent may not see."""
        ids = list(session_ids)
        found = {session.id: session for session in sessions.get(self.store, ids, project_id)}
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
        record = sessions.record(self.store, session_id, project_id)
        if record is None or self._hidden(session_id, project_id):
            raise missing_session(session_id, project_id)
        seen: sessions.Seen | None = None
        if acting_agent() is not None:
            seen = sessions.seen(self.store, session_id, project_id)
        return _stats(record, seen, self.rules.promotion_interval_seconds)

    def promotion_events(
        self, *, memory_id: str | None, session_id: str | None, limit: int, project_id: str
    ) -> list[PromotionEvent]:
        """The promotion log of a memory or a session, newest first."""
        if (memory_id is None) == (session_id is None):
            raise InvalidInputError(
                "memory_id: name exactly one of memory_id and session_id", field="memory_id"
            )
        check_between("limit", limit, 1, MAX_PAGE_SIZE)
        if session_id is not None and self._hidden(session_id, project_id):
            return []  # as for an unknown session
        return sessions.promotion_events(
            self.store,
            memory_id=memory_id,
            session_id=session_id,
            limit=limit,
            project_id=project_id,
        )

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
        found = sessions.set_promotion(
            self.store,
            session_id,
            enabled=enabled,
            interval=interval,
            default_interval=self.rules.promotion_interval_seconds,
            project_id=project_id,
            now=self._now(),
        )
        if not found:
            raise missing_session(session_id, project_id)
        return self.promotion_stats(session_id, project_id=project_id)


def _stats(
    record: sessions.Record, seen: sessions.Seen | None, default_interval: float
) -> PromotionStats:
    """The record as a viewer reads it: with ``seen`` (a call acting as an agent)
    its counts are of the memories that agent may read, the last run's only
    where there was one; what the node never set takes its default."""
    last = {f.name: getattr(record, f.name) for f in fields(record) if f.name.startswith("last_")}
    total = record.promotion_total
    if seen is not None:
        total = seen.total_promoted
        if record.last_run_id is not None:  # a session never run has no last run to count
            last.update(
                last_promoted=seen.last_promoted,
                last_failed=seen.last_failed,
                last_rotated=seen.last_rotated,
                last_remaining=seen.last_remaining,
            )
    return PromotionStats(
        session_id=record.id,
        project_id=record.project_id,
        enabled=True if record.promotion_enabled is None else record.promotion_enabled,
        interval_seconds=(
            default_interval
            if record.promotion_interval_seconds is None
            else record.promotion_interval_seconds
        ),
        next_run_at=record.next_promotion_at,
        runs=record.promotion_runs or 0,
        total_promoted=total or 0,
        **{k: v for k, v in last.items() if v is not None},
    )
