"""The folders are the layers, and imports only go down them.

``domain`` (the models, the scoring, the judgments) imports nothing of
graphmem's above it and reads no environment; ``settings`` (what the
environment configures) only the domain, so the store and the services it
configures may read it; ``store`` only the domain and the settings; the catalogue of operations
and the remote client only the domain (and each other), so a client never
loads a server; the services the domain, the settings and the store; the facade
(``graphmem.api``, GraphMem) the services, and the catalogue its forwarding
methods take their signatures from; the server and the surfaces (GraphQL, MCP,
the CLI, the hook) anything below them. Every import counts, lazy and
type-only ones too: a cycle through a type annotation is still two modules
that must be read together. The client's runtime footprint is checked in
fresh interpreters by ``test_import_contract.py``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "graphmem"

ALLOWED: dict[str, set[str]] = {
    "domain": {"domain"},
    "settings": {"domain", "settings"},
    "store": {"domain", "settings", "store"},
    "operations": {"domain", "operations"},
    "client": {"domain", "operations", "client"},
    "services": {"domain", "settings", "store", "services"},
    "api": {"domain", "settings", "store", "services", "operations", "api"},
    "server": {"domain", "settings", "store", "services", "api", "operations", "server"},
}
"""What each layer may import; a layer not named here (graphql, mcp, cli, hooks,
the package itself) is a surface and may import any layer."""


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


def layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "graphmem"


def imported(module: str, path: Path) -> set[str]:
    """The graphmem modules ``module`` imports, resolved to the module that holds
    each name (``from graphmem.domain import models`` imports ``models``)."""
    found: set[str] = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
                for alias in node.names
            ]
        else:
            continue
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target and target != module:
                found.add(target)
    return found


GRAPH = nx.DiGraph()
for _name, _path in MODULES.items():
    GRAPH.add_node(_name)
    GRAPH.add_edges_from((_name, target) for target in imported(_name, _path))


@pytest.mark.parametrize("name", sorted(ALLOWED))
def test_a_layer_imports_only_the_layers_below_it(name: str) -> None:
    wrong = sorted(
        f"{source} imports {target}"
        for source, target in GRAPH.edges
        if layer(source) == name and layer(target) not in ALLOWED[name]
    )
    assert wrong == []


def test_no_modules_import_each_other() -> None:
    cycles = [sorted(group) for group in nx.strongly_connected_components(GRAPH) if len(group) > 1]
    assert cycles == []


def test_the_package_root_holds_only_the_entry_points() -> None:
    """Everything else lives in the folder of its layer."""
    assert sorted(p.name for p in PACKAGE.glob("*.py")) == [
        "__init__.py",
        "__main__.py",
        "entry.py",
    ]


def test_every_layer_is_a_folder() -> None:
    for name in ALLOWED:
        assert (PACKAGE / name / "__init__.py").is_file(), name
