"""A statement in ``cypher/falkordb/`` or ``cypher/neo4j/`` is there because the
backends really differ (cypher/README.md), not a copy of a shared statement
with a line or two changed: such a copy drifts from the statement it repeats
(a field, a visibility check or a lock added to one of them only). What
differs in a few lines is a dialect fragment (``cypher/fragments/<dialect>/``)
and the statement stays one shared file."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from graphmem.store.statements import CYPHER_DIR, DIALECTS

MAX_REPEATED = 6
"""Lines a dialect statement may have in common with a shared one: a match and
its filter, a page's ORDER BY and LIMIT, are written alike by statements that
are not copies; a whole clause sequence is a copy."""


def code_lines(path: Path) -> list[str]:
    """The statement's lines as the database gets them, before fragments go in:
    comments and indentation are not what a copy repeats."""
    lines = (line.strip() for line in path.read_text(encoding="utf-8").splitlines())
    return [line for line in lines if line and not line.startswith("//")]


def repeated(variant: list[str], shared: list[str]) -> int:
    """How many of ``variant``'s lines repeat ``shared``'s, in the same order:
    a copy with lines changed here and there still counts all it kept."""
    matcher = difflib.SequenceMatcher(None, variant, shared, autojunk=False)
    return sum(block.size for block in matcher.get_matching_blocks())


def copies(root: Path, dialect: str) -> list[str]:
    """Each dialect statement under ``root`` that repeats more than
    MAX_REPEATED lines of a shared statement, with the count."""
    shared = {path.stem: code_lines(path) for path in sorted(root.glob("*.cypher"))}
    found = []
    for path in sorted((root / dialect).glob("*.cypher")):
        variant = code_lines(path)
        for name, lines in shared.items():
            count = repeated(variant, lines)
            if count > MAX_REPEATED:
                found.append(f"{dialect}/{path.name} repeats {count} lines of {name}.cypher")
    return found


@pytest.mark.parametrize("dialect", DIALECTS)
def test_no_dialect_statement_copies_a_shared_one(dialect: str):
    assert copies(CYPHER_DIR, dialect) == []


def test_the_dialect_folders_hold_statements():
    """The check above looks where the statements are."""
    for dialect in DIALECTS:
        assert len(list((CYPHER_DIR / dialect).glob("*.cypher"))) >= 10, dialect


SHARED = """\
// A statement of several clauses.
UNWIND $rows AS row
MATCH (m:Memory {id: row.id})
WHERE m.project_id = $project_id
  AND m.tier <> 'archived'
SET m.importance = row.importance,
    m.updated_at = $now
WITH m
ORDER BY m.id
RETURN count(m) AS written
"""


def write(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def test_a_copy_with_a_line_changed_is_found(tmp_path: Path):
    copied = SHARED.replace("row.importance", "toFloat(row.importance)")
    root = write(tmp_path, {"set_it.cypher": SHARED, "falkordb/set_it.cypher": copied})
    assert copies(root, "falkordb") == ["falkordb/set_it.cypher repeats 8 lines of set_it.cypher"]


def test_a_copy_under_another_name_is_found(tmp_path: Path):
    copied = "// Comments differ.\n" + SHARED.replace("m.updated_at", "m.changed_at")
    root = write(tmp_path, {"set_it.cypher": SHARED, "neo4j/set_other.cypher": copied})
    assert copies(root, "neo4j") == ["neo4j/set_other.cypher repeats 8 lines of set_it.cypher"]


def test_a_statement_sharing_a_few_lines_is_not_a_copy(tmp_path: Path):
    own = "\n".join(SHARED.splitlines()[1:5]) + "\nCALL db.idx.fulltext.queryNodes('Memory', $q)\n"
    root = write(tmp_path, {"set_it.cypher": SHARED, "falkordb/search.cypher": own})
    assert copies(root, "falkordb") == []
