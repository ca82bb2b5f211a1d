"""A project's memory graph, read from the store into networkx.

The evaluator works on a snapshot so that every check and metric sees one
consistent picture and runs without further round trips. The snapshot is
read in pages (keyset pagination over the indexed memory id, never SKIP), so
a project of a million memories is many small queries rather than one giant
reply, and only the properties the checks read are transferred: never the
content or the embedding.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from graphmem.store import Store
from graphmem.store.migrations import unshowable_times
from graphmem.store.queries import evaluator as queries
from graphmem.store.queries.evaluator import (  # the checks import the records from here
    NearPair,
    PromotionRecord,
    SessionInfo,
    SnapshotMemory,
    SnapshotPage,
)

DEFAULT_PAGE = 10_000
SEPARATOR = "\x1f"
"""ASCII unit separator between the fields of one relation row: it cannot
occur in ids, relation types or project ids."""


@dataclass(frozen=True, slots=True)
class ForeignRelation:
    """A relation from a memory of the project to a memory of another project."""

    from_id: str
    type: str
    to_id: str
    to_project: str | None


@dataclass
class Snapshot:
    """One project's memories and relations, plus what the checks need beside them.

    ``graph`` has one node per memory (keyed by id, its properties as node
    attributes, see ``MEMORY_FIELDS``) and one edge per relation between two
    memories of the project, keyed by relation type (``CONSTRAINS``,
    ``ENABLES``, ``SUPERSEDES``, ``RELATED_TO``), pointing the way the
    relation does: ``SUPERSEDES`` goes from the new memory to the old one.
    """

    project_id: str
    graph: nx.MultiDiGraph = field(default_factory=nx.MultiDiGraph)
    sessions: dict[str, SessionInfo] = field(default_factory=dict)
    promotions: list[PromotionRecord] = field(default_factory=list)
    foreign: list[ForeignRelation] = field(default_factory=list)
    near_duplicates: list[NearPair] | None = None
    """Pairs the vector index found at or over the dedup threshold, with their
    texts for the restatement judge; ``None`` when they could not be looked up."""
    unshowable_times: dict[str, dict[str, float]] = field(default_factory=dict)
    """The memories holding a time no surface can show, with those times by name
    (``graphmem.store.migrations.unshowable_times``)."""
    notes: list[str] = field(default_factory=list)
    """What the snapshot could not cover, and why (shown in the report)."""
    pages: int = 0
    _typed: dict[str, list[tuple[str, str]]] | None = field(default=None, repr=False)

    @property
    def relation_count(self) -> int:
        return self.graph.number_of_edges()

    def edges_of_type(self, relation: str) -> list[tuple[str, str]]:
        """The ``(from, to)`` pairs of one relation type.

        Several checks and metrics each need one type's edges; walking the
        multigraph's edge views for each costs more than the checks, so the
        pairs are grouped once (at load time, or on first use for a graph
        built by hand).
        """
        if self._typed is None:
            typed: dict[str, list[tuple[str, str]]] = {}
            for u, v, key in self.graph.edges(keys=True):
                typed.setdefault(key, []).append((u, v))
            self._typed = typed
        return self._typed.get(relation, [])

    def relation_types(self) -> list[str]:
        self.edges_of_type("")
        assert self._typed is not None
        return sorted(self._typed)


MEMORY_FIELDS = (
    "session_id",
    "memory_type",
    "tier",
    "status",
    "confidence",
    "importance",
    "access_count",
    "feedback",
    "feedback_count",
    "self_assessment",
    "suggested_by",
    "pinned",
    "created_at",
    "occurred_at",
    "updated_at",
    "last_accessed_at",
    "promoted_at",
    "archived_at",
    "archived_from",
    "superseded_by",
    "merged_into",
    "source",
    "archive_reason",
    "has_embedding",
    "in_session",
)
"""Node attributes of a snapshot memory. ``in_session`` is the id of the
session of the project the memory is linked to by ``IN_SESSION``, or ``None``."""


def load_snapshot(store: Store, project_id: str, *, page: int = DEFAULT_PAGE) -> Snapshot:
    """Read one project into a ``Snapshot``, ``page`` memories per query."""
    with no_gc_pauses():
        return _load(store, project_id, page)


@contextmanager
def no_gc_pauses() -> Iterator[None]:
    """Suspend the cyclic garbage collector (reference counting still frees).

    A snapshot is millions of objects and no garbage cycles; with the
    collector on, every few thousand allocations it walks the whole growing
    graph again, which costs more than the load itself, and then the checks
    and metrics pay the same again over the loaded graph.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _load(store: Store, project_id: str, page: int) -> Snapshot:
    snapshot = Snapshot(project_id=project_id)
    graph = snapshot.graph
    typed: dict[str, list[tuple[str, str]]] = {}
    for nodes, relations in _pages(store, project_id, page):
        graph.add_nodes_from(nodes)
        snapshot.pages += 1
        local = []
        for source, kind, target, other_project in relations:
            if other_project is None:
                local.append((source, target, kind, {"type": kind}))
                typed.setdefault(kind, []).append((source, target))
            else:
                snapshot.foreign.append(
                    ForeignRelation(source, kind, target, other_project or None)
                )
        # (u, v, key, data) is a MultiDiGraph edge; types-networkx only knows Graph's.
        graph.add_edges_from(local)  # type: ignore[arg-type]
    # A relation to a memory written after its page was read creates a node
    # with no properties; that memory is not part of this snapshot.
    unread = [n for n, attrs in graph.nodes(data=True) if not attrs]
    if unread:
        graph.remove_nodes_from(unread)
    elif sum(map(len, typed.values())) == graph.number_of_edges():
        snapshot._typed = typed
    snapshot.sessions = {s.id: s for s in _sessions(store, project_id, page)}
    snapshot.promotions = list(_promotions(store, project_id, page))
    snapshot.unshowable_times = unshowable_times(store, project_id)
    return snapshot


Relation = tuple[str, str, str, str | None]
"""``(from, type, to, other project)``; the project is ``None`` inside the
project and ``""`` for a target with no project at all."""
Page = tuple[list[tuple[str, dict[str, Any]]], list[Relation]]
"""One page: ``(memory id, attributes)`` per memory, and its outgoing relations."""


def _relation(source: str, text: str) -> Relation:
    """``type SEP to [SEP project]`` as the statements join it."""
    parts = text.split(SEPARATOR)
    return source, parts[0], parts[1], parts[2] if len(parts) == 3 else None


def _pages(store: Store, project_id: str, page: int) -> Iterator[Page]:
    after = ""
    while True:
        wanted = SnapshotPage(project_id, after, page, SEPARATOR)
        read = _json_page(store, wanted) if store.dialect.snapshot_json else None
        if read is None:
            read = _column_page(store, wanted)
        nodes, relations, count = read
        if not nodes:
            return
        after = max(memory_id for memory_id, _ in nodes)
        yield nodes, relations
        if count < page:
            return


def _json_page(store: Store, wanted: SnapshotPage) -> tuple[Any, list[Relation], int] | None:
    """A page read as one JSON text per memory, relations included; ``None`` if
    any row is unclean (see ``snapshot_memories_json``)."""
    texts = queries.memory_texts(store, wanted)
    nodes = []
    relations: list[Relation] = []
    decode = json.JSONDecoder(strict=False).decode  # relations hold the separator
    for text in texts:
        # Row by row: a row must be exactly one object whose last key is `clean`.
        try:
            fields = decode(text)
        except ValueError:
            return None
        if not isinstance(fields, dict) or fields.pop("clean", None) is not True:
            return None
        memory_id = fields.pop("id")
        relations += [_relation(memory_id, out) for out in fields.pop("out")]
        nodes.append((memory_id, fields))
    return nodes, relations, len(texts)


def _column_page(store: Store, wanted: SnapshotPage) -> tuple[Any, list[Relation], int]:
    """A page read column by column, its relations by a second query."""
    rows = queries.memory_columns(store, wanted)
    nodes = list(_memory_nodes(rows, wanted.project_id))
    if not nodes:
        return [], [], 0
    ids = [memory_id for memory_id, _ in nodes]
    texts = queries.relation_texts(store, wanted.project_id, min(ids), max(ids), SEPARATOR)
    joined = []
    for text in texts:
        source, _, rest = text.partition(SEPARATOR)
        joined.append(_relation(source, rest))
    return nodes, joined, len(nodes)


def _memory_nodes(
    rows: list[SnapshotMemory], project_id: str
) -> Iterator[tuple[str, dict[str, Any]]]:
    """One node per memory; of several session links, one inside the project wins.

    The rows' field dicts become the node attribute dicts.
    """
    current: dict[str, Any] | None = None
    current_id = ""
    for row in rows:
        linked = row.linked_session
        in_session = linked if linked is not None and row.linked_project == project_id else None
        if row.id == current_id and current is not None:
            current["in_session"] = current["in_session"] or in_session
            continue
        if current is not None:
            yield current_id, current
        row.fields["in_session"] = in_session
        current, current_id = row.fields, row.id
    if current is not None:
        yield current_id, current


def _sessions(store: Store, project_id: str, page: int) -> Iterator[SessionInfo]:
    after = ""
    while True:
        found = queries.sessions(store, project_id, after, page)
        yield from found
        if len(found) < page:
            return
        after = found[-1].id


def _promotions(store: Store, project_id: str, page: int) -> Iterator[PromotionRecord]:
    after = ""
    while True:
        found = queries.promotions(store, project_id, after, page)
        yield from found
        if len(found) < page:
            return
        after = found[-1].id


def load_near_duplicates(
    store: Store, snapshot: Snapshot, *, threshold: float, k: int = 10, batch: int = 500
) -> None:
    """Ask the vector index for each served memory's nearest neighbours.

    Each memory's own vector is the query, so the cost grows with the number
    of memories times ``k``, not with the number of pairs. Memories without
    an embedding cannot be compared; the snapshot notes how many.
    """
    served = [
        node
        for node, attrs in snapshot.graph.nodes(data=True)
        if (attrs.get("tier") or "working") != "archived"
        and (attrs.get("status") or "active") == "active"
    ]
    embedded = [node for node in served if snapshot.graph.nodes[node].get("has_embedding")]
    if not embedded:
        if served:
            snapshot.notes.append(
                "near-duplicate check skipped: no active memory has an embedding "
                "(run with an embedder, or graphmem backfill-embeddings)"
            )
        return
    if len(embedded) < len(served):
        snapshot.notes.append(
            f"near-duplicate check covered {len(embedded)} of {len(served)} active memories: "
            "the others have no embedding"
        )
    pairs: list[NearPair] = []
    for start in range(0, len(embedded), batch):
        ids = embedded[start : start + batch]
        pairs += queries.near_duplicates(store, snapshot.project_id, ids, k=k, threshold=threshold)
    snapshot.near_duplicates = pairs
