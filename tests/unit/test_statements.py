"""Every statement the code names exists, and none is built from strings."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from graphmem.domain.kinds import RelationType
from graphmem.store.statements import CYPHER_DIR, Statements

PACKAGE = Path(__file__).resolve().parents[2] / "graphmem"
NAMED = re.compile(r"""\.(?:read|write)\(\s*["']([a-z_]+)["']""")
"""A statement named where it runs: a store read or write."""


def referenced_names() -> set[str]:
    names: set[str] = set()
    for source in PACKAGE.rglob("*.py"):
        text = source.read_text()
        names |= set(NAMED.findall(text))
    return names | {relation_type.statement for relation_type in RelationType}


def test_the_code_names_statements():
    assert {"remember_many", "get_memories", "relate_supersedes"} <= referenced_names()
    assert {"fulltext_candidates", "vector_candidates"} <= referenced_names()


@pytest.mark.parametrize("name", sorted(referenced_names()))
def test_every_referenced_statement_exists_for_falkordb(name):
    assert Statements("falkordb")[name].strip()


def test_statements_use_parameters_not_placeholders():
    for path in CYPHER_DIR.rglob("*.cypher"):
        text = path.read_text()
        assert "{}" not in text and "%s" not in text and "{0}" not in text, path


def test_schema_scripts_split_into_statements():
    for dialect in ("falkordb", "neo4j"):
        statements = Statements(dialect).script("schema")
        assert len(statements) >= 5
        # Indexes are made, or an earlier graphmem's replaced one dropped.
        assert all(
            s.upper().startswith("CREATE") or s.upper().startswith("DROP INDEX") for s in statements
        )


def test_falkordb_runs_guarded_writes_without_their_lock_and_neo4j_with_it():
    falkordb, neo4j = Statements("falkordb"), Statements("neo4j")
    as_written = Statements("falkordb", locks=True)
    locked = [
        n for n in sorted(as_written.names() - {"schema"}) if "._lock = true" in as_written[n]
    ]
    assert "record_retrievals" in locked and len(locked) >= 10
    for name in locked:
        assert "_lock" not in falkordb[name], name
        assert "._lock = true" in neo4j[name], name
    # Only the lock lines go: the re-check after them stays.
    unlocked = falkordb["record_retrievals"]
    assert unlocked == "".join(
        line for line in neo4j["record_retrievals"].splitlines(keepends=True) if "_lock" not in line
    )
