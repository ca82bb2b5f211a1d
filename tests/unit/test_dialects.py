"""Both backends have every named statement, and the Neo4j variants are the
statements they replace plus what Neo4j needs (checked here without a server;
tools/cypher-lint checks them with Neo4j's own linter)."""

from __future__ import annotations

import re

import pytest

from graphmem.store.statements import CYPHER_DIR, DIALECTS, Statements

FALKORDB, NEO4J = (Statements(dialect) for dialect in DIALECTS)
ALL_NAMES = sorted(FALKORDB.names() | NEO4J.names())
STATEMENTS = [name for name in ALL_NAMES if name != "schema"]
LOCK = "._lock = true"
IMMUTABLE = {"id", "project_id", "session_id", "agent_id"}
ACCESS = {"visibility"}
"""Who may see a memory, checked as access rather than state: a write that races a
share or an unshare is one that ran just before it, so it needs no lock."""
HARMLESS_TWICE = {
    "migrate_status": "sets the same status whoever runs it",
    "evaluator_fill_archived_at": "sets the same time from the same properties whoever runs it",
    "finish_promotion_run": "records its own run's counts; the tier it reads is not a guard",
}
FALKORDB_ONLY = re.compile(r"vecf32\(|\bdb\.idx\.|CALL\s+db\.labels")
NEO4J_ONLY = re.compile(r"\bdb\.index\.|\bEXISTS\s*\{|IF NOT EXISTS|\bREQUIRE\b")


def test_every_name_is_found():
    assert {"remember_many", "get_memories", "claim_due_sessions", "schema"} <= set(ALL_NAMES)


@pytest.mark.parametrize("name", ALL_NAMES)
def test_every_statement_exists_for_both_backends(name: str):
    assert FALKORDB[name].strip(), f"{name} is empty for FalkorDB"
    assert NEO4J[name].strip(), f"{name} is empty for Neo4j"


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_variant_differs_from_the_shared_statement(dialect: str):
    """A copy that says the same thing only drifts; the shared file is enough."""
    for variant in sorted((CYPHER_DIR / dialect).glob("*.cypher")):
        shared = CYPHER_DIR / variant.name
        if shared.is_file():
            assert variant.read_text().strip() != shared.read_text().strip(), variant


@pytest.mark.parametrize("name", STATEMENTS)
def test_each_dialect_uses_only_its_own_procedures(name: str):
    assert not FALKORDB_ONLY.search(_code(NEO4J[name])), f"{name}: FalkorDB-only Cypher for Neo4j"
    assert not NEO4J_ONLY.search(_code(FALKORDB[name])), f"{name}: Neo4j-only Cypher for FalkorDB"


@pytest.mark.parametrize("name", [n for n in STATEMENTS if FALKORDB[n] != NEO4J[n]])
def test_variants_return_the_same_columns(name: str):
    """Callers read rows by column name, whichever backend answered."""
    assert _columns(NEO4J[name]) == _columns(FALKORDB[name])


@pytest.mark.parametrize("name", STATEMENTS)
def test_guarded_writes_lock_before_rechecking_on_neo4j(name: str):
    """FalkorDB runs one write at a time, so ``MATCH ... WHERE <state> SET ...``
    is a compare-and-set there. Neo4j reads without locks: two transactions
    can both pass the WHERE, so its variant must lock, then check again."""
    guards = _guards(FALKORDB[name])
    if not guards or name in HARMLESS_TWICE:
        return
    variant = NEO4J[name]
    assert LOCK in variant, f"{name} checks {sorted(guards)} before writing: Neo4j needs a lock"
    after_lock = _code(variant).split(LOCK, 1)[1]
    rechecked = set(
        re.findall(r"\.(\w+)", " ".join(_where_clauses(after_lock) + _with_clauses(after_lock)))
    )
    assert guards <= rechecked, f"{name}: {sorted(guards - rechecked)} not re-read under the lock"
    assert re.search(r"REMOVE \w+\._lock", after_lock), f"{name}: the lock property stays behind"


@pytest.mark.parametrize("dialect", DIALECTS)
def test_locked_writes_are_shared(dialect: str):
    """The lock is harmless where writes run one at a time (FalkorDB), so a
    guarded write is one statement both backends run, not two that drift."""
    locked = [p.name for p in (CYPHER_DIR / dialect).glob("*.cypher") if LOCK in p.read_text()]
    assert not locked, f"lock-then-recheck belongs in the shared statement: {locked}"


def _code(text: str) -> str:
    return re.sub(r"//[^\n]*", "", text)


def _with_clauses(text: str) -> list[str]:
    clause = (
        r"\bWITH\b(.*?)(?=\b(?:MATCH|OPTIONAL|UNWIND|CALL|SET|RETURN|CREATE|MERGE|WHERE|ORDER)\b|$)"
    )
    return [match.group(1) for match in re.finditer(clause, text, re.S)]


def _where_clauses(text: str) -> list[str]:
    clause = r"\bWHERE\b(.*?)(?=\b(?:MATCH|OPTIONAL|WITH|UNWIND|CALL|SET|RETURN|CREATE|MERGE)\b|$)"
    return [match.group(1) for match in re.finditer(clause, text, re.S)]


def _guards(text: str) -> set[str]:
    """Mutable node properties a statement reads before its first write to
    decide what to write: checked in a WHERE, or read into a WITH and written
    back (Neo4j locks before a read only when SET itself does the reading)."""
    code = _code(text)
    first_write = re.search(r"\b(SET|REMOVE|DELETE|DETACH)\b", code)
    if not first_write:
        return set()
    before = code[: first_write.start()]
    nodes = set(re.findall(r"\((\w+):\w+", before))

    def read(clauses: list[str]) -> set[str]:
        return {
            prop
            for clause in clauses
            for var, prop in re.findall(r"\b(\w+)\.(\w+)", clause)
            if var in nodes and prop not in IMMUTABLE | ACCESS
        }

    written = set(re.findall(r"(?:SET|,)\s*\w+\.(\w+)\s*=", code[first_write.start() :]))
    return read(_where_clauses(before)) | (read(_with_clauses(before)) & written)


def _columns(text: str) -> list[list[str]]:
    """The column names of each RETURN that ends a (UNION) part of a statement."""
    parts = re.split(r"\bUNION(?:\s+ALL)?\b", _code(text))
    return [_return_columns(part) for part in parts]


def _return_columns(part: str) -> list[str]:
    returned = re.split(r"\bRETURN\b", part)[-1]
    returned = re.split(r"\b(?:ORDER\s+BY|SKIP|LIMIT)\b", returned)[0]
    items, depth, current = [], 0, ""
    for char in returned:
        depth += char in "([{"
        depth -= char in ")]}"
        if char == "," and depth == 0:
            items.append(current)
            current = ""
        else:
            current += char
    items.append(current)
    return [re.split(r"\bAS\b", item)[-1].strip() for item in items if item.strip()]
