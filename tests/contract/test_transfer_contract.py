"""Migration onto each backend: a project exported from the embedded FalkorDB
and imported into the backend under test exports again record for record."""

from __future__ import annotations

import io
import json
import uuid
from collections.abc import Iterator

import pytest
from falkordb import FalkorDB

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.services.transfer import export_project, import_project
from graphmem.store import Store
from graphmem.store.embedded import EmbeddedFalkorDB
from graphmem.store.falkordb import FalkorStore


@pytest.fixture
def source(falkordb_server: EmbeddedFalkorDB) -> Iterator[FalkorStore]:
    db = FalkorDB(unix_socket_path=str(falkordb_server.socket_path), socket_timeout=30.0)
    store = FalkorStore(db, f"source-{uuid.uuid4().hex[:12]}")
    store.setup_schema()
    yield store
    store.drop()
    db.close()


def records(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


def test_a_project_migrates_unchanged(source: FalkorStore, store: Store, clock: ManualClock):
    gm = GraphMem(source, clock=clock)
    gm.open_session("s-1", name="thread")
    rule = gm.remember({"content": "Tests never call the network", "memory_type": "rule",
                        "session_id": "s-1", "tags": ["ci"]})  # fmt: skip
    task = gm.remember({"content": "Add retries", "session_id": "s-1", "confidence": 0.35})
    old = gm.remember({"content": "Use SQLite", "memory_type": "decision"})
    gm.relate(rule.id, task.id, "CONSTRAINS", rationale="CI", weight=0.5)
    gm.supersede(old.id, task.id)
    gm.approve(gm.remember({"content": "maybe", "source": "auto_extracted"}).id)
    gm.record_access(task.id)
    clock.advance(90)
    gm.run_promotion("s-1")

    exported = io.StringIO()
    export_project(source, "default", exported, page_size=2)
    exported.seek(0)
    import_project(store, exported, page_size=2)
    again = io.StringIO()
    export_project(store, "default", again, page_size=2)
    assert records(again.getvalue()) == records(exported.getvalue())
    moved = GraphMem(store, clock=clock)
    assert moved.get(task.id).content == gm.get(task.id).content
    assert [e.memory_id for e in moved.promotion_events(session_id="s-1")] == [
        e.memory_id for e in gm.promotion_events(session_id="s-1")
    ]
