"""The scheduler's claims: due work is claimed in the graph, the claim moving
the next run time forward in the same write, so servers sharing one database
share the work instead of repeating it."""

from __future__ import annotations

from dataclasses import dataclass

from graphmem.store import Store
from graphmem.store.queries import records


@dataclass(frozen=True, slots=True)
class DueSession:
    project_id: str
    session_id: str


@dataclass(frozen=True, slots=True)
class DueEvaluation:
    project_id: str
    due: bool
    """``False``: the project was seen for the first time and only scheduled, one
    interval ahead, so a server starting does not evaluate every project at once."""


def claim_sessions(
    store: Store, *, now: float, limit: int, owner: str, default_interval: float
) -> list[DueSession]:
    """At most ``limit`` active sessions whose periodic promotion is due, the most
    overdue first, each next due one interval from ``now`` (its own, else
    ``default_interval``) and leased to ``owner``."""
    rows = store.write(
        "claim_due_sessions",
        {"now": now, "limit": limit, "owner": owner, "default_interval": default_interval},
    )
    return records(DueSession, rows)


def claim_projects(store: Store, *, now: float, owner: str, interval: float) -> list[str]:
    """The projects whose archival jobs are due, each next due ``interval`` from
    ``now`` and leased to ``owner``."""
    rows = store.write("claim_due_projects", {"now": now, "owner": owner, "interval": interval})
    return [row["project_id"] for row in rows]


def claim_evaluations(
    store: Store, *, now: float, owner: str, interval: float
) -> list[DueEvaluation]:
    """The projects whose consistency evaluation is due (or never scheduled),
    each next due ``interval`` from ``now`` and leased to ``owner``."""
    rows = store.write("claim_due_evaluations", {"now": now, "owner": owner, "interval": interval})
    return records(DueEvaluation, rows)
