"""What ``/metrics`` counts in the graph at scrape time."""

from __future__ import annotations

from dataclasses import dataclass

from graphmem.store import Store
from graphmem.store.queries import records


@dataclass(frozen=True, slots=True)
class Waiting:
    project_id: str
    candidates: int


def candidates_waiting(store: Store) -> dict[str, int]:
    """Candidate memories awaiting activation or review (archived ones aside),
    per project; a project with none is left out."""
    return {
        waiting.project_id: waiting.candidates
        for waiting in records(Waiting, store.read("count_candidates"))
    }
