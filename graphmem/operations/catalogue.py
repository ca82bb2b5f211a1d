"""Every operation of the catalogue, gathered: the class both clients are and
the entries by name and by GraphQL field."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from graphmem.operations.deliveries import DeliveryOperations
from graphmem.operations.entry import Entry, Operation
from graphmem.operations.evaluation import EvaluationOperations
from graphmem.operations.failures import FailureOperations
from graphmem.operations.memories import MemoryOperations, RelationOperations
from graphmem.operations.projects import ProjectOperations
from graphmem.operations.promotion import WHAT_IF, PromotionOperations
from graphmem.operations.retrieval import KNOWLEDGE_CONTEXT_TOOL, RetrievalOperations
from graphmem.operations.review import ReviewOperations
from graphmem.operations.sessions import SessionOperations
from graphmem.operations.sharing import SharingOperations


class Operations(
    MemoryOperations,
    SharingOperations,
    RelationOperations,
    SessionOperations,
    ProjectOperations,
    PromotionOperations,
    FailureOperations,
    ReviewOperations,
    EvaluationOperations,
    RetrievalOperations,
    DeliveryOperations,
):
    """Every operation a remote client sends, each one a method of its subclasses."""


SERVED_ONLY = (WHAT_IF, KNOWLEDGE_CONTEXT_TOOL)
"""Operations the server runs that no client sends."""


def _entries() -> Iterator[Entry]:
    for area in Operations.__mro__:
        for value in vars(area).values():
            if isinstance(value, Operation):
                yield value.entry
    yield from SERVED_ONLY


ENTRIES: Mapping[str, Entry] = {entry.name: entry for entry in _entries()}
"""Every entry, by operation name."""


def by_field() -> dict[str, Entry]:
    """The entry of each GraphQL root field. The operations one field runs must
    agree on who may run it."""
    found: dict[str, Entry] = {}
    for entry in ENTRIES.values():
        for field in entry.fields:
            known = found.setdefault(field, entry)
            if _access(known) != _access(entry):
                raise TypeError(f"{field}: {known.name} and {entry.name} disagree on access")
    return found


def _access(entry: Entry) -> tuple[object, ...]:
    return (entry.role, entry.whole_project, entry.cross_project, entry.target)
