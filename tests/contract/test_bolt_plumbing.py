"""The Neo4j adapter's driver plumbing over real Bolt, against FalkorDB:
settings reach the driver, reads and writes take managed transactions of the
right access mode, and the driver's retry carries a statement across a
server restart."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem.config import Settings
from graphmem.errors import StoreUnavailableError
from graphmem.store.neo4j import Neo4jStore
from tests.contract.bolt import BoltFalkorDB


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[BoltFalkorDB]:
    """A server of this test's own, free to restart or wedge."""
    server = BoltFalkorDB(tmp_path)
    server.start()
    yield server
    server.stop()


def bolt_settings(uri: str, **overrides: object) -> Settings:
    return Settings(
        backend="neo4j",
        neo4j_uri=uri,
        neo4j_password=None,
        neo4j_database="",
        neo4j_pool_size=4,
        neo4j_connection_timeout=2,
        **overrides,
    )


def test_reads_and_writes_run_in_managed_transactions(
    bolt_store: Neo4jStore, caplog: pytest.LogCaptureFixture
):
    with caplog.at_level(logging.DEBUG, logger="neo4j"):
        bolt_store.write("set_schema_version", {"version": 7, "now": 1.0})
        bolt_store.read("schema_version")
    sent = [r.getMessage() for r in caplog.records if " C: " in r.getMessage()]
    begins = [message.split(" C: ", 1)[1] for message in sent if " C: BEGIN" in message]
    assert len(begins) == 2
    assert "'mode': 'r'" not in begins[0]  # the write
    assert "'mode': 'r'" in begins[1]  # the read
    assert sum(" C: COMMIT" in message for message in sent) == 2
    assert not any(" C: ROLLBACK" in message for message in sent)


def test_rows_map_to_plain_values(bolt_store: Neo4jStore):
    assert bolt_store.write("set_schema_version", {"version": 3, "now": 2.5}) == [{"version": 3}]
    assert bolt_store.read("schema_version") == [{"version": 3}]


def test_connect_takes_the_settings_and_retries_across_a_restart(own_server: BoltFalkorDB):
    store = Neo4jStore.connect(bolt_settings(own_server.uri, neo4j_retry_time=15))
    try:
        store.write("set_schema_version", {"version": 2, "now": 1.0})
        own_server.stop()
        restart = threading.Timer(0.5, own_server.start, kwargs={"port": own_server.port})
        started = time.monotonic()
        restart.start()
        # The pooled connection is dead and the port refuses for a while; the
        # managed transaction is retried until the new server answers (it
        # persists nothing, so it reports the empty graph's version).
        assert store.read("schema_version") == [{"version": 0}]
        assert time.monotonic() - started >= 0.5
        restart.join()
    finally:
        store.close()


def test_an_unreachable_server_is_store_unavailable(own_server: BoltFalkorDB):
    uri = own_server.uri
    own_server.stop()
    store = Neo4jStore.connect(bolt_settings(uri, neo4j_retry_time=0.2))
    try:
        with pytest.raises(StoreUnavailableError, match="did not answer"):
            store.read("schema_version")
    finally:
        store.close()
