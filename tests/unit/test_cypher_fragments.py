"""Lists several statements need word for word are written once, as fragments
in ``cypher/fragments/`` (cypher/README.md), and stay equal to the Python they
mirror: a field or relation type added on one side only fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from graphmem.domain.dependencies import CARRIERS
from graphmem.domain.errors import GraphMemError
from graphmem.domain.kinds import RelationType
from graphmem.domain.models import Memory
from graphmem.domain.retrieval.search import TRAVERSED
from graphmem.store.statements import CYPHER_DIR, DIALECTS, Statements

FRAGMENTS = CYPHER_DIR / "fragments"
PROJECTION = re.compile(r"\b\w+ \{(\.id, \.project_id[^}]*)\}")
"""A memory's map projection as a statement returns it: ``m {.id, .project_id, ...}``."""


def fragment(name: str) -> str:
    lines = (FRAGMENTS / f"{name}.cypher").read_text().splitlines()
    return " ".join(line.strip() for line in lines if line.strip() and not line.startswith("//"))


def projected(text: str) -> list[list[str]]:
    return [[f.strip().lstrip(".") for f in m.split(",")] for m in PROJECTION.findall(text)]


def test_the_memory_projection_lists_every_field_of_the_model_once():
    (fields,) = projected(fragment("memory_projection").replace("@", "m"))
    assert len(fields) == len(set(fields))
    assert set(fields) == set(Memory.model_fields)


def test_the_relation_type_fragments_are_the_enums():
    assert fragment("relation_types") == "|".join(t.value for t in RelationType)
    assert fragment("traversed_relation_types") == "|".join(t.value for t in TRAVERSED)
    assert fragment("dependency_types") == "|".join(t.value for t in CARRIERS)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_statement_returning_nearly_every_field_returns_them_all(dialect: str):
    """A statement projecting most of a memory means the whole memory: one that
    lists fields of its own falls behind the next field added."""
    statements = Statements(dialect)
    full = set(Memory.model_fields)
    whole = 0
    for name in sorted(statements.names() - {"schema"}):
        for fields in projected(statements[name]):
            if len(fields) > len(full) // 2 and set(fields) <= full:
                assert set(fields) == full, f"{name} lacks {sorted(full - set(fields))}"
                whole += 1
    assert whole >= 19


@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_include_is_expanded(dialect: str):
    statements = Statements(dialect)
    for name in statements.names() - {"schema"}:
        assert "{{" not in statements[name] and "@" not in statements[name], name


VISIBILITY_BY_HAND = re.compile(
    r"coalesce\([\w.]+\.visibility, 'shared'\) = 'shared' OR [\w.]+\.agent_id = \$viewer"
)


def test_the_visibility_filter_is_the_fragment_wherever_null_sees_all():
    """A statement that lets a caller bound to no agent see everything includes
    ``{{visible(x)}}`` rather than spelling the filter, so a change to the rule
    (a new visibility) is one edit. The statements that check ``$viewer`` is
    set first (hidden sessions, a session's counts as one agent sees them) keep
    their narrower test."""
    spelled = []
    for path in sorted(CYPHER_DIR.rglob("*.cypher")):
        if {"browser", "fragments"} & set(path.parts):
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if VISIBILITY_BY_HAND.search(line) and "$viewer IS NULL" in line:
                spelled.append(f"{path.name}:{number}")
    assert spelled == []
    assert "{{visible(" in (CYPHER_DIR / "candidate_memories.cypher").read_text()


def test_the_episodic_and_session_passes_score_alike():
    """The periodic pass and the session pass weigh a memory's age the same way."""
    statements = Statements("falkordb")
    score = fragment("importance_score").replace("@", "m")
    for name in ("evaluate_session", "evaluate_episodic", "archive_candidates"):
        assert score in " ".join(statements[name].splitlines()), name


def write(root: Path, files: dict[str, str], dialect: str = "falkordb") -> Statements:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return Statements(dialect, root)


def test_an_include_puts_the_fragment_in_on_one_line_with_its_variable(tmp_path: Path):
    statements = write(
        tmp_path,
        {
            "fragments/pair.cypher": "// the pair\n@ {.id,\n  .name}\n",
            "fragments/kinds.cypher": "A|B\n",
            "q.cypher": "MATCH (n)-[:{{kinds}}]->(o)\nRETURN {{pair(o)}} AS o\n",
        },
    )
    assert statements["q"] == "MATCH (n)-[:A|B]->(o)\nRETURN o {.id, .name} AS o"


@pytest.mark.parametrize(
    ("statement", "error"),
    [
        ("RETURN {{missing(n)}}", "no Cypher fragment named 'missing'"),
        ("RETURN {{pair}}", "fragment 'pair' takes a variable"),
        ("MATCH (n)-[:{{kinds(n)}}]->()", "fragment 'kinds' takes no variable"),
        ("RETURN {{pair(n.x + 1)}}", "a fragment include was not recognised"),
        ("RETURN {{pair('n')}}", "a fragment include was not recognised"),
        ("RETURN {{pair(n,m)}}", "a fragment include was not recognised"),
        ("RETURN {{pair(n, m)}}", "fragment 'pair' takes a variable"),
        ("RETURN {{move(n)}}", "fragment 'move' takes 2 variables"),
        ("RETURN {{local(n)}}", "no Cypher fragment named 'local' for falkordb"),
    ],
)
def test_a_wrong_include_is_refused(tmp_path: Path, statement: str, error: str):
    statements = write(
        tmp_path,
        {
            "fragments/pair.cypher": "@ {.id}",
            "fragments/kinds.cypher": "A|B",
            "fragments/move.cypher": "SET @1.at = @2",
            "fragments/neo4j/local.cypher": "@ {.id}",
            "q.cypher": statement,
        },
    )
    with pytest.raises(GraphMemError, match=re.escape(error)):
        statements["q"]


def test_an_include_gives_several_variables_and_parameters_in_order(tmp_path: Path):
    statements = write(
        tmp_path,
        {
            "fragments/move.cypher": "SET @2.at = @1, @2.from = @1",
            "q.cypher": "MATCH (n)\n{{move($now, n)}}\nRETURN n",
        },
    )
    assert statements["q"] == "MATCH (n)\nSET n.at = $now, n.from = $now\nRETURN n"


@pytest.mark.parametrize(
    ("dialect", "expected"),
    [("falkordb", "SET n.v = vecf32($v)"), ("neo4j", "SET n.v = $v")],
)
def test_a_dialect_fragment_wins_over_the_shared_one(tmp_path: Path, dialect: str, expected: str):
    """What the backends spell apart is a fragment of one name per dialect, so
    the statement around it is one shared file."""
    files = {
        "fragments/vector.cypher": "SET @1.v = @2",
        "fragments/falkordb/vector.cypher": "// FalkorDB's own\nSET @1.v = vecf32(@2)",
        "q.cypher": "MATCH (n)\n{{vector(n, $v)}}",
    }
    assert write(tmp_path, files, dialect)["q"] == f"MATCH (n)\n{expected}"


VECTOR_WRITE = re.compile(r"\bSET\b[^\n]*?\b\w+\.embedding = ([^,\n)]+)")


@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_vector_written_is_the_type_the_index_reads(dialect: str):
    """FalkorDB's vector index reads only float32 vectors (vecf32); Neo4j's reads
    the list as it is. Every statement that writes a vector writes it through
    the set_vector or new_vector fragment, so none gets the other backend's."""
    statements = Statements(dialect)
    written = {
        name: VECTOR_WRITE.findall(statements[name])
        for name in sorted(statements.names() - {"schema"})
    }
    written = {name: values for name, values in written.items() if values}
    assert {"remember_many", "update_memory", "set_embeddings", "import_memories"} <= set(written)
    for name, values in written.items():
        for value in values:
            assert value.startswith("vecf32(") == (dialect == "falkordb"), (name, value)
