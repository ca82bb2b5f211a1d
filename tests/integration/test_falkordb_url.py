"""A FalkorDB someone else runs, reached by URL (``GRAPHMEM_FALKORDB_URL``)."""

from __future__ import annotations

from pathlib import Path

from graphmem import GraphMem
from graphmem.settings import Settings
from graphmem.store.embedded import EmbeddedFalkorDB
from graphmem.store.factory import open_store


def test_a_server_reached_by_url_stores_and_answers(tmp_path: Path) -> None:
    server = EmbeddedFalkorDB(tmp_path / "served")
    socket = server.start()
    try:
        settings = Settings(data_dir=tmp_path / "client", falkordb_url=f"unix://{socket}")
        store = open_store(settings)
        try:
            gm = GraphMem(store)
            written = gm.remember({"content": "The billing export runs at midnight"})
            found = gm.search("billing export", mode="FULLTEXT")
            assert [hit.memory.id for hit in found.hits] == [written.id]
        finally:
            store.close()
    finally:
        server.stop(force=True)
