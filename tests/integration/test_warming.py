"""The store's warm-up before a server listens (``graphmem.server.warming``):
it runs the retrieval's reads and the retrieval count's write, and writes nothing."""

from __future__ import annotations

import logging

import pytest

from graphmem.api import GraphMem
from graphmem.server.warming import warm_store
from graphmem.store import Store
from tests.conftest import cypher


def test_the_warm_up_runs_its_statements_and_writes_nothing(
    store: Store, egm: GraphMem, caplog: pytest.LogCaptureFixture
):
    memory = egm.remember({"content": "deploys run from the release branch"})
    before = cypher(store, "MATCH (m:Memory) RETURN m.id, m.retrieval_count, m.access_count")
    deliveries = cypher(store, "MATCH (d:Delivery) RETURN count(d)")
    with caplog.at_level(logging.WARNING, logger="graphmem.server.warming"):
        warm_store(egm)
    # A failing statement is only logged (a warm-up never keeps a server from starting).
    assert not caplog.records, [r.getMessage() for r in caplog.records]
    assert cypher(store, "MATCH (m:Memory) RETURN m.id, m.retrieval_count, m.access_count") == (
        before
    )
    assert cypher(store, "MATCH (d:Delivery) RETURN count(d)") == deliveries
    assert before[0][0] == memory.id
