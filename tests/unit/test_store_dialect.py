"""What each backend's dialect answers, so no service compares backend names."""

from __future__ import annotations

import pytest

from graphmem.store.dialect import Dialect
from graphmem.store.statements import DIALECTS, Statements

FALKORDB, NEO4J = Dialect.FALKORDB, Dialect.NEO4J


def test_a_dialect_is_its_statement_folder_name():
    assert [str(d) for d in Dialect] == list(DIALECTS)
    assert Dialect("neo4j") is NEO4J and NEO4J == "neo4j"
    assert Statements(NEO4J)["claim_due_sessions"] == Statements("neo4j")["claim_due_sessions"]


def test_only_falkordb_reads_snapshots_as_json():
    assert FALKORDB.snapshot_json and not NEO4J.snapshot_json


@pytest.mark.parametrize(
    ("dialect", "alternatives", "groups", "expected"),
    [
        (FALKORDB, ["rare1", "rare2"], [["c1", "c2", "c3"]], "rare1|rare2|(c1 c2 c3)"),
        (NEO4J, ["rare1", "rare2"], [["c1", "c2", "c3"]], "rare1 OR rare2 OR (c1 AND c2 AND c3)"),
        (FALKORDB, ["rare"], [["common"]], "rare|common"),
        (NEO4J, [], [["common"]], "common"),
        (FALKORDB, [], [["c1", "c2"]], "(c1 c2)"),
        (FALKORDB, ["r"], [["c1", "c2"], ["c1", "c3"]], "r|(c1 c2)|(c1 c3)"),
        (NEO4J, [], [["c1", "c2"], ["c3"]], "(c1 AND c2) OR c3"),
        (NEO4J, ["a", "b"], [], "a OR b"),
        (FALKORDB, [], [], ""),
        (NEO4J, [], [], ""),
    ],
)
def test_fulltext_query_syntax(
    dialect: Dialect, alternatives: list[str], groups: list[list[str]], expected: str
):
    assert dialect.fulltext_query(alternatives, groups) == expected


def test_all_of_requires_every_word():
    assert FALKORDB.all_of(["longest", "long", "w"]) == "longest long w"
    assert NEO4J.all_of(["longest", "long", "w"]) == "longest AND long AND w"
    assert NEO4J.any_of(["a"]) == "a" and FALKORDB.all_of([]) == ""
