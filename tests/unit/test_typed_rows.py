"""Rows from the store come back typed: outside ``graphmem.store`` no module
runs a statement by name or handles ``Row``; each aggregate's operations in
``graphmem/store/queries/`` say what a statement returns (docs/architecture.md)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "graphmem"
STORE = PACKAGE / "store"


def _receiver_is_store(node: ast.expr) -> bool:
    while isinstance(node, ast.Attribute):
        if node.attr == "store":
            return True
        node = node.value
    return isinstance(node, ast.Name) and node.id in {"store", "shared"}


def _wraps_the_port(tree: ast.Module) -> bool:
    """Whether the module replaces a store's ``read`` and ``write`` with wrappers
    of its own (``store.read = ...``, as the timing instruments do): a wrapper
    passes every row on untouched, so it may name ``Row`` in its signature."""
    replaced = {
        target.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Attribute) and _receiver_is_store(target)
    }
    return {"read", "write"} <= replaced


def untyped(path: Path) -> list[str]:
    """Where ``path`` runs a named statement or imports ``Row``, by line."""
    found = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    wrapper = _wraps_the_port(tree)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.ImportFrom)
            and not wrapper
            and (node.module or "").startswith("graphmem.store")
        ):
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
    offending = {m: lines for m, lines in modules().items() if lines}
    assert not offending, offending


def test_the_check_sees_a_named_statement(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "from graphmem.store import Row\n"
        "def f(self):\n"
        "    return self.store.read('get_memories', {})\n"
    )
    assert untyped(source) == ["1: imports Row", "3: read()"]


def test_a_wrapper_of_the_port_may_name_row_but_not_run_a_statement(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "from graphmem.store import Row\n"
        "def wrap(store, timed):\n"
        "    store.read = timed(store.read)\n"
        "    store.write = timed(store.write)\n"
        "    return store.read('ping')\n"
    )
    assert untyped(source) == ["5: read()"]
    source.write_text("from graphmem.store import Row\ndef f(store):\n    store.read = None\n")
    assert untyped(source) == ["1: imports Row"]


QUERIES = STORE / "queries"


def statements_run(path: Path) -> dict[str, set[str]]:
    """For each statement ``path`` runs (``store.read("name", ...)``), the
    module's functions that run it (a nested helper counts as its function)."""
    runs: dict[str, set[str]] = {}
    for function in ast.parse(path.read_text(encoding="utf-8")).body:
        if not isinstance(function, ast.FunctionDef):
            continue
        for node in ast.walk(function):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in {"read", "write"}
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                runs.setdefault(node.args[0].value, set()).add(f"{path.stem}.{function.name}")
    return runs


def test_each_statement_has_one_query_function() -> None:
    """Two wrappers of one statement drift apart in what they make of its rows."""
    where: dict[str, set[str]] = {}
    for path in sorted(QUERIES.glob("*.py")):
        for name, functions in statements_run(path).items():
            where.setdefault(name, set()).update(functions)
    assert len(where) > 100, "the check found too few statements"
    repeated = {name: functions for name, functions in where.items() if len(functions) > 1}
    assert not repeated, repeated
