"""A project with something of every kind a transfer must carry, a second
empty store of the same backend to move it to, and a snapshot to compare two
stores by."""

from __future__ import annotations

import re
import uuid
from array import array
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from falkordb import FalkorDB

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.store import Store
from graphmem.store.embedded import EmbeddedFalkorDB
from graphmem.store.falkordb import FalkorStore
from tests.conftest import cypher

Snapshot = tuple[list[str], list[str]]
IN_PROJECT = "(n.project_id = $p OR (n:Project AND n.id = $p))"
B_IN_PROJECT = "(b.project_id = $p OR (b:Project AND b.id = $p))"
AWKWARD = "quote \" apostrophe ' backslash \\ newline\ntab\tcr\r unicode é ß 漢字 😀 \\n literal"
"""Text that every format must carry unchanged."""
OTHER_PROJECT_TEXT = "another project's secret memory"


@contextmanager
def empty_store(server: EmbeddedFalkorDB, prefix: str = "import") -> Iterator[FalkorStore]:
    """A second, empty graph on the same server."""
    db = FalkorDB(unix_socket_path=str(server.socket_path), socket_timeout=30.0)
    store = FalkorStore(db, f"{prefix}-{uuid.uuid4().hex[:12]}")
    store.setup_schema()
    try:
        yield store
    finally:
        store.drop()
        db.close()


@contextmanager
def store_beside(
    store: Store, request: pytest.FixtureRequest, prefix: str = "import"
) -> Iterator[Store]:
    """A second, empty store of ``store``'s backend: another graph on the same
    FalkorDB, or the database of the worker's second Neo4j (the ``second_neo4j`` fixture)."""
    if isinstance(store, FalkorStore):
        with empty_store(request.getfixturevalue("falkordb_server"), prefix) as other:
            yield other
        return
    from graphmem.store.neo4j import Neo4jStore

    beside = Neo4jStore.connect(request.getfixturevalue("second_neo4j"))
    try:
        cypher(beside, "MATCH (n) DETACH DELETE n")
        yield beside
    finally:
        beside.close()


@contextmanager
def unique_constraint(store: Store, label: str, key: str) -> Iterator[None]:
    """A unique constraint on ``label``'s property ``key`` for the block, which
    the store then enforces on every write, as it would one graphmem lacks.
    ``key`` must be a property graphmem does not index: Neo4j refuses a
    constraint on an indexed one, and FalkorDB's needs an index made for it.
    Neo4j's is dropped after the block (the worker's database outlives the
    test); FalkorDB's goes with the test's graph."""
    if isinstance(store, FalkorStore):
        cypher(store, f"CREATE INDEX FOR (n:{label}) ON (n.{key})")
        store._db.connection.execute_command(
            "GRAPH.CONSTRAINT", "CREATE", store.graph_name, "UNIQUE", "NODE", label,
            "PROPERTIES", "1", key,
        )  # fmt: skip
        yield
        return
    name = f"test_unique_{label}_{key}".lower()
    cypher(store, f"CREATE CONSTRAINT {name} FOR (n:{label}) REQUIRE n.{key} IS UNIQUE")
    try:
        yield
    finally:
        cypher(store, f"DROP CONSTRAINT {name} IF EXISTS")


def refused_as_duplicate(reason: str, label: str, key: str) -> bool:
    """Whether ``reason`` is a skipped line's report of the store refusing a
    record that broke ``unique_constraint(store, label, key)``, in the words of
    either backend."""
    falkordb = f"unique constraint violation on node of type {label}"
    neo4j = rf"Node\(\d+\) already exists with label `{label}` and property `{key}` = .+"
    return (
        re.fullmatch(f"the store refused it: (?:{re.escape(falkordb)}|{neo4j})", reason) is not None
    )


def snapshot(store: Store, project: str = "default") -> Snapshot:
    """Every node (labels and properties) of a project, and every edge between
    two of them (type, properties, both ends)."""
    nodes = cypher(
        store, f"MATCH (n) WHERE {IN_PROJECT} RETURN labels(n), properties(n)", {"p": project}
    )
    edges = cypher(
        store,
        f"MATCH (n)-[r]->(b) WHERE {IN_PROJECT} AND {B_IN_PROJECT} "
        "RETURN type(r), properties(r), labels(n), n.id, labels(b), b.id",
        {"p": project},
    )
    return (
        sorted(repr((labels, sorted(props.items()))) for labels, props in nodes),
        sorted(repr((kind, sorted(props.items()), *ends)) for kind, props, *ends in edges),
    )


def build_project(gm: GraphMem, store: Store, clock: ManualClock) -> dict[str, str]:
    """Something of every kind export must carry; returns the memory ids by name."""
    gm.open_session("s-1", name="first thread", max_items=50)
    gm.enable_promotion("s-1", interval_seconds=60)
    rule = gm.remember(
        {"content": "Tests never call the network", "memory_type": "rule", "session_id": "s-1",
         "tags": ["ci", "tests"], "evidence": ["ADR-3"], "rationale": AWKWARD}
    )  # fmt: skip
    task = gm.remember({"content": "Add retries to the HTTP client", "session_id": "s-1"})
    old = gm.remember({"content": "Use SQLite", "memory_type": "decision", "session_id": "s-2"})
    new = gm.remember(
        {"content": "Use Postgres", "memory_type": "decision", "suggested_by": "agent"}
    )
    candidate = gm.remember({"content": "maybe cache it", "source": "auto_extracted"})
    rejected = gm.remember({"content": "wrong idea", "source": "auto_extracted"})
    twin = gm.remember({"content": "a twin of the rule", "source": "auto_extracted"})
    odd = gm.remember({"content": AWKWARD, "memory_type": "fact", "tags": ["ünï", 'q"t']})
    gm.relate(rule.id, task.id, "CONSTRAINS", rationale="CI", weight=0.5)
    gm.relate(task.id, old.id, "ENABLES")
    gm.relate(task.id, old.id, "RELATED_TO", rationale=AWKWARD)
    gm.relate(task.id, candidate.id, "RELATED_TO", weight=0.25)
    gm.supersede(old.id, new.id, rationale="scale")
    gm.record_access(task.id)
    gm.feedback(task.id, 1)
    gm.pin(rule.id)
    gm.reject(rejected.id, "not true")
    gm.merge_memories(candidate.id, twin.id)
    clock.advance(120)
    gm.run_promotion("s-1")
    gm.close_session("s-2")
    store.write(
        "set_embeddings",
        {
            "rows": [
                {"id": m.id, "project_id": "default", "embedding": array("f", [0.1 * i] * 384)}
                for i, m in enumerate((rule, task, new), start=1)
            ]
        },
    )
    other = gm.remember({"content": OTHER_PROJECT_TEXT}, project_id="elsewhere")
    elsewhere = gm.remember({"content": "another project's second memory"}, project_id="elsewhere")
    gm.relate(other.id, elsewhere.id, "ENABLES", project_id="elsewhere")
    return {"rule": rule.id, "task": task.id, "old": old.id, "new": new.id, "odd": odd.id,
            "candidate": candidate.id, "other": other.id}  # fmt: skip
