"""Rows from the store come back typed: outside ``graphmem.store`` no module
runs a statement by name or handles ``Row``; each aggregate's operations in
``graphmem/store/queries/`` say what a statement returns (docs/architecture.md)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "graphmem"
STORE = PACKAGE / "store"

PENDING: set[str] = {
    "graphmem/server/health.py",
    "graphmem/server/observability/instruments.py",
    "graphmem/server/observability/metrics.py",
    "graphmem/server/scheduler.py",
    "graphmem/server/warming.py",
    "graphmem/services/autolinks.py",
    "graphmem/services/deliveries.py",
    "graphmem/services/embeddings/space.py",
    "graphmem/services/failures.py",
    "graphmem/services/keys.py",
    "graphmem/services/relations.py",
    "graphmem/services/sessions.py",
    "graphmem/services/sharing.py",
}
"""Modules still running statements by name (empty when every aggregate is typed)."""


def _receiver_is_store(node: ast.expr) -> bool:
    while isinstance(node, ast.Attribute):
        if node.attr == "store":
            return True
        node = node.value
    return isinstance(node, ast.Name) and node.id in {"store", "shared"}


def untyped(path: Path) -> list[str]:
    """Where ``path`` runs a named statement or imports ``Row``, by line."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("graphmem.store"):
            found += [f"{node.lineno}: imports Row" for a in node.names if a.name == "Row"]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            named = bool(node.args) and isinstance(node.args[0], ast.Constant)
            if node.func.attr in {"read", "write"} and (
                named or _receiver_is_store(node.func.value)
            ):
                found.append(f"{node.lineno}: {node.func.attr}()")
    return found


def modules() -> dict[str, list[str]]:
    return {
        str(p.relative_to(PACKAGE.parent)): untyped(p)
        for p in sorted(PACKAGE.rglob("*.py"))
        if STORE not in p.parents
    }


def test_no_module_outside_the_store_runs_a_statement_by_name() -> None:
    offending = {m: lines for m, lines in modules().items() if lines and m not in PENDING}
    assert not offending, offending


def test_the_pending_list_only_shrinks() -> None:
    done = {m for m, lines in modules().items() if not lines} & PENDING
    assert not done, f"typed now, take them off PENDING: {sorted(done)}"


def test_the_check_sees_a_named_statement(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "from graphmem.store import Row\n"
        "def f(self):\n"
        "    return self.store.read('get_memories', {})\n"
    )
    assert untyped(source) == ["1: imports Row", "3: read()"]
