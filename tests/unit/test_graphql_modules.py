"""The GraphQL modules import each other one way only: no cycle, and so no
import hidden inside a function or behind ``TYPE_CHECKING`` to dodge one.

Types that several areas return live in the ``types`` package (those that
refer to each other, a memory and its promotion log say, in one module of it);
each area's operations import from there, never from another area.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "graphmem" / "graphql"
PREFIX = "graphmem.graphql."
MODULES = sorted(
    ".".join(p.relative_to(PACKAGE).with_suffix("").parts)
    for p in PACKAGE.rglob("*.py")
    if p.name != "__init__.py"
)


def imported(module: str) -> dict[str, list[int]]:
    """The graphmem.graphql modules ``module`` imports, each with the lines of
    its imports that are not at the top level of the file."""
    tree = ast.parse((PACKAGE / f"{module.replace('.', '/')}.py").read_text())
    top = {id(node) for node in tree.body}
    found: dict[str, list[int]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PREFIX):
            names = [node.module.removeprefix(PREFIX)]
        elif isinstance(node, ast.Import):
            names = [a.name.removeprefix(PREFIX) for a in node.names if a.name.startswith(PREFIX)]
        else:
            continue
        for name in names:
            nested = found.setdefault(name, [])
            if id(node) not in top:
                nested.append(node.lineno)
    return found


def test_the_modules_are_found():
    assert {"types.memory", "promotion", "review", "operations", "schema"} <= set(MODULES)
    assert "types.memory" in imported("promotion")


@pytest.mark.parametrize("module", MODULES)
def test_graphql_modules_are_imported_at_the_top(module: str):
    hidden = {name: lines for name, lines in imported(module).items() if lines}
    assert not hidden, f"{module} imports {hidden} inside a function or an if"
    assert "TYPE_CHECKING" not in (PACKAGE / f"{module.replace('.', '/')}.py").read_text()


def test_no_import_cycle():
    graph = {module: set(imported(module)) for module in MODULES}
    visiting: list[str] = []
    done: set[str] = set()

    def visit(module: str) -> None:
        if module in visiting:
            cycle = [*visiting[visiting.index(module) :], module]
            raise AssertionError("import cycle: " + " -> ".join(cycle))
        if module in done:
            return
        visiting.append(module)
        for other in sorted(graph.get(module, ())):
            visit(other)
        visiting.pop()
        done.add(module)

    for module in MODULES:
        visit(module)
