"""Sessions: opening one, its state, who may see it, and its promotion
settings, record and log."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from graphmem.domain.kinds import SessionState
from graphmem.domain.sessions import PromotionEvent, Session
from graphmem.store import Store
from graphmem.store.queries import records


def _session(fields: Mapping[str, Any]) -> Session:
    """A session from its node's properties; one never set takes the model's default."""
    return Session.model_validate({k: v for k, v in fields.items() if v is not None})


def open(
    store: Store,
    session_id: str,
    *,
    name: str | None,
    max_items: int | None,
    project_id: str,
    now: float,
) -> Session:
    """Open the session, or reactivate it (its memories untouched); a name or a
    size given replaces the one it had."""
    rows = store.write(
        "open_session",
        {
            "project_id": project_id,
            "session_id": session_id,
            "name": name,
            "max_items": max_items,
            "now": now,
        },
    )
    return _session(rows[0]["session"])


def set_state(
    store: Store, session_id: str, state: SessionState, *, project_id: str, now: float
) -> Session | None:
    """The session in its new state; ``None`` when there is no such session."""
    rows = store.write(
        "set_session_state",
        {"project_id": project_id, "session_id": session_id, "state": state.value, "now": now},
    )
    return _session(rows[0]["session"]) if rows else None


def get(store: Store, ids: Iterable[str], project_id: str) -> list[Session]:
    """The sessions of ``ids`` that exist, in no particular order (key them by id).
    Who may see them is ``hidden``'s to say."""
    rows = store.read("get_sessions", {"ids": list(ids), "project_id": project_id})
    return [_session(row["session"]) for row in rows]


def hidden(store: Store, ids: Iterable[str], project_id: str) -> set[str]:
    """The sessions of ``ids`` the viewer may not see: each holds memories or
    failure capsules, and none it may read."""
    rows = store.read("hidden_sessions", {"ids": list(ids), "project_id": project_id})
    return {row["id"] for row in rows}


# -- promotion settings, record and log -------------------------------------


@dataclass(frozen=True, slots=True)
class Record:
    """A session's promotion record as its node keeps it, every viewer's counts;
    ``None``: never set (a session never run has no ``last_*``)."""

    id: str
    project_id: str
    promotion_enabled: bool | None
    promotion_interval_seconds: float | None
    next_promotion_at: float | None
    promotion_runs: int | None
    promotion_total: int | None
    last_run_at: float | None
    last_run_id: str | None
    last_trigger: str | None
    last_promoted: int | None
    last_failed: int | None
    last_rotated: int | None
    last_remaining: int | None
    last_threshold: float | None


@dataclass(frozen=True, slots=True)
class Seen:
    """The counts of a session's record taken over the memories the viewer may
    read alone; the remaining ones are counted now."""

    total_promoted: int
    last_promoted: int
    last_failed: int
    last_rotated: int
    last_remaining: int


def record(store: Store, session_id: str, project_id: str) -> Record | None:
    """The session's promotion record; ``None`` when there is no such session."""
    rows = store.read("session_stats", {"project_id": project_id, "session_id": session_id})
    return Record(**rows[0]["stats"]) if rows else None


def seen(store: Store, session_id: str, project_id: str) -> Seen:
    """The record's counts as the viewer may see them (``Seen``)."""
    rows = store.read("session_stats_seen", {"project_id": project_id, "session_id": session_id})
    (counts,) = records(Seen, rows)
    return counts


def promotion_events(
    store: Store, *, memory_id: str | None, session_id: str | None, limit: int, project_id: str
) -> list[PromotionEvent]:
    """The promotion log of a memory or a session, newest first."""
    rows = store.read(
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
    store: Store,
    session_id: str,
    *,
    enabled: bool,
    interval: float | None,
    default_interval: float,
    project_id: str,
    now: float,
) -> bool:
    """Turn the periodic trigger on (the next run one interval from now, the
    session's own interval or else ``default_interval``) or off; whether there
    was such a session."""
    rows = store.write(
        "set_promotion_enabled",
        {
            "project_id": project_id,
            "session_id": session_id,
            "enabled": enabled,
            "interval_seconds": interval,
            "default_interval": default_interval,
            "now": now,
        },
    )
    return bool(rows)
