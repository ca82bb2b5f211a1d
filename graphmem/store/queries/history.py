"""The logs read back for ``as_of``: each memory's logged changes, and the
relations as they stood at a time."""

from __future__ import annotations

from collections.abc import Sequence

from graphmem.domain.kinds import RelationType
from graphmem.domain.relations import Relation
from graphmem.domain.validity import Change, histories
from graphmem.store import Store


def changes(store: Store, ids: Sequence[str], project_id: str) -> dict[str, list[Change]]:
    """The logged changes of the memories ``ids`` (promotions, archivals and
    restores, activations, supersessions), per memory, oldest first."""
    return histories(store.read("memory_history", {"ids": list(ids), "project_id": project_id}))


def relations_at(
    store: Store,
    ids: Sequence[str],
    types: Sequence[RelationType],
    at: float,
    project_id: str,
) -> list[Relation]:
    """The relations of ``types`` touching ``ids`` as they stood at ``at``: those
    made by then and still there, and those removed since. An edge between two
    of ``ids`` comes twice."""
    rows = store.read(
        "relations_as_of",
        {
            "ids": list(ids),
            "project_id": project_id,
            "relation_types": [t.value for t in types],
            "as_of": at,
        },
    )
    return [Relation(**{k: v for k, v in row.items() if v is not None}) for row in rows]
