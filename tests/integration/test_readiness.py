"""``/healthz`` is liveness, ``/readyz`` readiness: it fails, with the reason,
when the store or the embedder cannot serve."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from pathlib import Path

import pytest
from falkordb import FalkorDB

from graphmem.api import GraphMem
from graphmem.domain.errors import StoreUnavailableError
from graphmem.graphql.app import create_app
from graphmem.services.embeddings import MiniLMEmbedder, Vector
from graphmem.settings import Settings
from graphmem.store.embedded import EmbeddedFalkorDB
from graphmem.store.falkordb import FalkorStore
from tests.integration.conftest import serve

KEYS_REQUIRED = Settings.model_validate(dict(auth="required", host="0.0.0.0", mode="production"))


def test_ready_without_an_embedder(gm: GraphMem):
    with serve(create_app(gm)) as http:
        response = http.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {"status": "ready", "checks": {"store": "ok", "embedder": "off"}}


def test_ready_with_the_model_loaded(egm: GraphMem, embedder: MiniLMEmbedder):
    embedder.embed(["load the model"])
    assert embedder.ready()
    with serve(create_app(egm)) as http:
        response = http.get("/readyz")
    assert response.status_code == 200
    assert response.json()["checks"] == {"store": "ok", "embedder": "ok"}


def test_probes_need_no_key_where_keys_are_required(gm: GraphMem):
    with serve(create_app(gm, KEYS_REQUIRED)) as http:
        assert http.post("/graphql", json={"query": "{ __typename }"}).status_code == 401
        assert http.get("/healthz").status_code == 200
        assert http.get("/readyz").status_code == 200


class Loading:
    """An embedder whose model is not loaded yet."""

    name = "loading"
    dimension = 384

    def ready(self) -> bool:
        return False

    def embed(self, texts: Sequence[str]) -> list[Vector]:
        raise AssertionError("a readiness probe must not load the model")


class Broken(Loading):
    """Loaded, but every call fails."""

    def ready(self) -> bool:
        return True

    def embed(self, texts: Sequence[str]) -> list[Vector]:
        raise RuntimeError("/opt/models/x: cannot allocate")


@pytest.mark.parametrize(
    ("embedder", "reason"),
    [(Loading(), "the embedding model is still loading"), (Broken(), "the embedder cannot embed")],
)
def test_an_embedder_that_cannot_serve_is_not_ready(gm: GraphMem, embedder: Loading, reason: str):
    gm.embedder = embedder
    with serve(create_app(gm)) as http:
        response = http.get("/readyz")
        liveness = http.get("/healthz")
    assert response.status_code == 503
    assert response.json() == {
        "status": "unavailable",
        "checks": {"store": "ok", "embedder": reason},
    }
    assert "/opt/models" not in response.text
    assert liveness.status_code == 200


def test_a_store_that_is_down_is_not_ready_but_alive(data_dir: Path):
    server = EmbeddedFalkorDB(data_dir / "db")
    socket_path = server.start()
    db = FalkorDB(unix_socket_path=str(socket_path), socket_timeout=5.0)
    store = FalkorStore(db, "ready")
    store.setup_schema()
    gm = GraphMem(store)
    with serve(create_app(gm)) as http:
        assert http.get("/readyz").status_code == 200
        assert server.stop()
        response = http.get("/readyz")
        liveness = http.get("/healthz")
    db.close()
    assert response.status_code == 503
    assert response.json()["checks"]["store"] == "the graph database is unavailable"
    assert str(data_dir) not in response.text
    assert liveness.status_code == 200


def test_a_search_while_indexes_rebuild_waits_and_readiness_says_recovering(
    falkordb_server: EmbeddedFalkorDB,
):
    """After a restart FalkorDB answers before its vector index does (rebuilt
    from its files), and a search meanwhile failed as an internal error
    ("Invalid arguments for procedure 'db.idx.vector.queryNodes'"). Here the
    index is built over 10,000 stored vectors, as a restart would."""
    from graphmem.server.health import RECOVERING, _store_check
    from graphmem.store import await_indexes, indexes_building

    db = FalkorDB(unix_socket_path=str(falkordb_server.socket_path), socket_timeout=60.0)
    store = FalkorStore(db, f"rebuild-{uuid.uuid4().hex[:8]}")
    try:
        store._graph.query(
            "UNWIND range(1, 10000) AS i "
            "CREATE (m:Memory {id: 'm' + toString(i), project_id: 'p'}) "
            "SET m.embedding = vecf32([x IN range(1, 384) | rand() - 0.5])"
        )
        (ddl,) = [s for s in store.statements.script("schema") if "VECTOR INDEX" in s]
        store._graph.query(ddl)
        readiness = _store_check(GraphMem(store))()
        if indexes_building(store):  # still building after the check: it was during it
            assert readiness == RECOVERING
        search = {
            "items": [{"index": 0, "vector": [0.01] * 384}],
            "project_id": "p",
            "threshold": -1.0,
            "k": 5,
        }
        try:
            (found,) = store.read("near_duplicates", search)
        except StoreUnavailableError:
            # A build longer than the 20 s a statement waits (a busy machine):
            # the outage is named, and only while the index is still building.
            assert indexes_building(store), "STORE_UNAVAILABLE once the index was built"
            await_indexes(store, 600.0)
            (found,) = store.read("near_duplicates", search)
        assert len(found["hits"]) == 5, "the search waited for the index instead of failing"
        await_indexes(store)
        assert _store_check(GraphMem(store))() == "ok"
    finally:
        store.drop()
        db.close()
