"""GraphML and Cypher-script exports: graph tools read them back, and the
script recreates the project's memories and relations exactly."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from array import array
from collections.abc import Iterator
from pathlib import Path

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.domain.errors import InvalidInputError
from graphmem.services.transfer.cypher_script import export_cypher, literal
from graphmem.services.transfer.graphml import export_graphml
from graphmem.store import Store
from graphmem.store.falkordb import FalkorStore
from tests.conftest import cypher
from tests.integration.transfer_project import (
    AWKWARD,
    OTHER_PROJECT_TEXT,
    build_project,
    store_beside,
)

CORE = "(n:Memory OR n:Session OR n:Project)"
B_CORE = "(b:Memory OR b:Session OR b:Project)"
IN_PROJECT = "(n.project_id = $p OR (n:Project AND n.id = $p))"
B_IN_PROJECT = "(b.project_id = $p OR (b:Project AND b.id = $p))"


@pytest.fixture
def other_store(store: Store, request: pytest.FixtureRequest) -> Iterator[Store]:
    """An empty store of the backend under test, to run the script in."""
    with store_beside(store, request, "script") as other:
        yield other


def core(store: Store, project: str = "default") -> tuple[list[str], list[str]]:
    """Memories, sessions and the project, and the edges among them.

    Embeddings are compared as float32, the precision they are stored at:
    the script writes them as lists of floats, which FalkorDB (unlike Neo4j)
    keeps as doubles and replies with to 15 significant digits.
    """
    nodes = cypher(
        store,
        f"MATCH (n) WHERE {CORE} AND {IN_PROJECT} RETURN labels(n), properties(n)",
        {"p": project},
    )
    edges = cypher(
        store,
        f"MATCH (n)-[r]->(b) WHERE {CORE} AND {B_CORE} AND {IN_PROJECT} AND {B_IN_PROJECT} "
        "RETURN type(r), properties(r), n.id, b.id",
        {"p": project},
    )
    for _, props in nodes:
        if props.get("embedding") is not None:
            props["embedding"] = array("f", props["embedding"]).tolist()
    return (
        sorted(repr((labels, sorted(props.items()))) for labels, props in nodes),
        sorted(repr((kind, sorted(props.items()), *ends)) for kind, props, *ends in edges),
    )


def statements(script: str) -> list[str]:
    """The script's statements: each ends on a line ending in ';' (no literal
    holds a raw line break, so no row line can)."""
    found, current = [], []
    for line in script.splitlines():
        if line.startswith("//") and not current:
            continue
        current.append(line)
        if line.endswith(";"):
            found.append("\n".join(current)[:-1])
            current = []
    assert not current, "the script ends inside a statement"
    return found


def test_graphml_reads_back_with_the_same_nodes_edges_and_attributes(
    gm: GraphMem, store: Store, clock: ManualClock
):
    ids = build_project(gm, store, clock)
    out = io.BytesIO()
    counts = export_graphml(store, "default", out, page_size=3)
    graph = nx.read_graphml(io.BytesIO(out.getvalue()), force_multigraph=True)
    assert graph.graph["project_id"] == "default"
    assert graph.number_of_nodes() == counts.counts["memory"] == 8
    assert graph.number_of_edges() == counts.counts["relation"] == 5
    assert ids["other"] not in graph and OTHER_PROJECT_TEXT.encode() not in out.getvalue()
    for memory in gm.list(first=50, filter={"include_archived": True}).items:
        attrs = graph.nodes[memory.id]
        assert attrs["content"] == memory.content
        assert attrs["tier"] == memory.tier
        assert json.loads(attrs["tags"]) == memory.tags
        assert attrs["importance"] == pytest.approx(memory.importance)
        assert attrs["pinned"] is memory.pinned
        assert "embedding" not in attrs
    for memory_id in (ids["rule"], ids["task"]):
        for relation in gm.relations([memory_id])[0]:
            edge = graph.edges[relation.from_id, relation.to_id, relation.type.value]
            assert edge["type"] == relation.type
            assert edge["weight"] == relation.weight
            assert edge.get("rationale") == relation.rationale
    assert graph.nodes[ids["odd"]]["content"] == AWKWARD


def test_the_cypher_script_recreates_the_project(
    gm: GraphMem, store: Store, other_store: Store, clock: ManualClock
):
    ids = build_project(gm, store, clock)
    out = io.StringIO()
    counts = export_cypher(store, "default", out, page_size=3)
    script = out.getvalue()
    assert OTHER_PROJECT_TEXT not in script and ids["other"] not in script
    assert "$" not in script.replace(AWKWARD, "")
    found = statements(script)
    # One project, one per page of sessions (3) and of memories (8), one per relation type.
    assert len(found) == 1 + 1 + 3 + 4
    for statement in found:
        cypher(other_store, statement)
    assert core(other_store) == core(store)
    assert counts.counts == {"session": 3, "memory": 8, "relation": 5}
    assert sum(len(part) for part in core(store)) > 20
    moved = GraphMem(other_store, clock=clock)
    assert moved.get(ids["odd"]) == gm.get(ids["odd"])
    # Running it again changes nothing.
    for statement in found:
        cypher(other_store, statement)
    assert core(other_store) == core(store)


TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    max_size=200,
)
NAMES = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00`"),
    min_size=1,
    max_size=20,
)
VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False, allow_subnormal=False)
    | TEXT,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(NAMES, inner, max_size=5),
    max_leaves=20,
)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(value=VALUES)
def test_every_literal_reads_back_as_its_value(store: Store, value):
    """Run against the real server; the graph is only read, so one serves every example."""
    (row,) = cypher(store, f"RETURN {literal(value)} AS v")
    assert _plain(row[0]) == (_replied(value) if isinstance(store, FalkorStore) else value)


def _plain(value):
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _replied(value):
    """What FalkorDB replies for ``value``: doubles to 15 significant digits."""
    if isinstance(value, dict):
        return {k: _replied(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_replied(v) for v in value]
    if isinstance(value, float):
        return float(f"{value:.15g}")
    return value


@pytest.mark.parametrize("name", ["", "a`b"])
def test_a_property_name_that_cannot_be_quoted_is_refused(name):
    with pytest.raises(InvalidInputError, match="must be non-empty text without backticks"):
        literal({name: 1})


LINT = Path(__file__).resolve().parents[2] / "tools" / "cypher-lint"


@pytest.mark.skipif(
    shutil.which("node") is None or not (LINT / "node_modules").is_dir(),
    reason="the Cypher linter is not installed (make lint-cypher runs npm ci)",
)
def test_neo4j_s_own_linter_accepts_the_script(
    gm: GraphMem, store: Store, clock: ManualClock, tmp_path: Path
):
    build_project(gm, store, clock)
    out = io.StringIO()
    export_cypher(store, "default", out, page_size=3)
    for number, statement in enumerate(statements(out.getvalue())):
        (tmp_path / f"script_{number:03d}.cypher").write_text(statement, encoding="utf-8")
    result = subprocess.run(
        ["node", str(LINT / "lint.mjs"), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
