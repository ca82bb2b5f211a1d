"""Neo4j's linter (tools/cypher-lint) catches what it is there to catch.

``make test`` lints the real statements; these tests show the same script
fails on a FalkorDB-only function, a misspelt label, an undeclared parameter
and broken syntax, so its silence on the real ones means something.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT = ROOT / "tools" / "cypher-lint"

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or not (LINT / "node_modules").is_dir(),
    reason="the Cypher linter is not installed (make lint-cypher runs npm ci)",
)


def lint(tmp_path: Path, statements: dict[str, str]) -> subprocess.CompletedProcess[str]:
    for name, text in statements.items():
        path = tmp_path / f"{name}.cypher"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return subprocess.run(
        ["node", str(LINT / "lint.mjs"), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


VALID = {
    "get": "MATCH (m:Memory {id: $id}) WHERE m.project_id = $project_id "
    "RETURN m {.id, .content} AS memory",
    "neo4j/search": "CALL db.index.vector.queryNodes('memory_embedding', $k, $vector) "
    "YIELD node, score RETURN node.id AS id, score",
}
INVALID = {
    "falkordb_function": "MATCH (m:Memory {id: $id}) SET m.embedding = vecf32($vector) "
    "RETURN m.id AS id",
    "misspelt_label": "MATCH (m:Memroy {id: $id}) RETURN m.id AS id",
    "undeclared_parameter": "MATCH (m:Memory {id: $memroy_id}) RETURN m.id AS id",
    "syntax": "MATCH (m:Memory {id: $id} RETURN m",
}


def test_mistakes_fail_and_valid_statements_pass(tmp_path: Path):
    """One run (the linter takes seconds to load): only the invalid files are reported."""
    result = lint(tmp_path, {**VALID, **INVALID})
    assert result.returncode == 1, result.stdout + result.stderr
    reported = {
        line.split(".cypher:", 1)[0].rsplit("/", 1)[-1]
        for line in result.stdout.splitlines()
        if ".cypher:" in line
    }
    assert reported == set(INVALID), result.stdout
    for word in ("vecf32", "Memroy", "memroy_id"):
        assert word in result.stdout
