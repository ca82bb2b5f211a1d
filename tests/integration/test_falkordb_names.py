"""A FalkorDB store reads back after a restart what it held before, even when a
write that changed nothing was the first to name a label or property: every
name the statements use is registered when the schema is set up
(graphmem.store.falkordb_names). Without that, restoring an archived memory in
a fresh store shifted the values of later writes on the next start, or
crashed the server reading them."""

from __future__ import annotations

import json
from pathlib import Path

from graphmem import GraphMem
from graphmem.settings import Settings
from graphmem.store.falkordb_names import names
from graphmem.store.statements import Statements
from tests.conftest import cypher

ROOT = Path(__file__).resolve().parents[2]
EVERYTHING = "MATCH (n) RETURN labels(n), properties(n) ORDER BY n.id, n.at"


def test_what_a_fresh_store_held_is_read_back_after_a_restart(data_dir: Path) -> None:
    settings = Settings(data_dir=data_dir, embedder="none")
    with GraphMem.open(settings) as gm:
        memory_id = gm.remember({"content": "Deploys go out blue-green.", "memory_type": "fact"}).id
        gm.archive(memory_id, "stale")
        gm.restore(memory_id)  # its no-op mark clearing named review_change first
        gm.archive(memory_id, "stale again")
        gm.undo("archive", memory_id, reason="still used", by="tester")
        before = cypher(gm.store, EVERYTHING)
    with GraphMem.open(settings) as gm:
        after = cypher(gm.store, EVERYTHING)
        (event,) = [e for e in gm.staging_events(memory_id) if e.kind == "undone"]
    assert after == before
    assert (event.before, event.by, event.signal) == ("archive", "tester", "still used")


def test_the_names_found_cover_the_graph_contracts_labels_and_types() -> None:
    declared = json.loads((ROOT / "tools/cypher-lint/graph-schema.json").read_text())
    statements = Statements("falkordb")
    labels, types, keys = names(statements[n] for n in statements.names())
    assert set(declared["labels"]) <= labels
    assert set(declared["relationshipTypes"]) <= types
    assert {"review_change", "before", "after", "undone_by", "archived_from"} <= keys
