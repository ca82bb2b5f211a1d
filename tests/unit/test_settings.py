"""Settings: one declaration per setting, read from its variable, set by its
flat name, reached through its section; and no other module names a variable
or reads the environment where it should not."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from pydantic import ValidationError

from graphmem.domain.errors import invalid_input
from graphmem.settings import (
    PREFIX,
    EmbeddingSettings,
    Settings,
    StoreSettings,
    env_name,
    setting_named,
    settings_declared,
)

PACKAGE = Path(__file__).resolve().parents[2] / "graphmem"


def test_each_variable_sets_its_setting_in_its_section(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHMEM_DATA_DIR", "/srv/memories")
    monkeypatch.setenv("GRAPHMEM_NEO4J_CONNECTION_TIMEOUT", "7.5")
    monkeypatch.setenv("GRAPHMEM_EMBEDDER", "none")
    monkeypatch.setenv("GRAPHMEM_EMBEDDER_THREADS", "3")
    monkeypatch.setenv("GRAPHMEM_SCHEDULER", "false")
    monkeypatch.setenv("graphmem_port", "9001")  # any case, as before
    settings = Settings()
    assert settings.store.data_dir == Path("/srv/memories")
    assert settings.neo4j.connection_timeout == 7.5
    assert (settings.embedding.model, settings.embedding.threads) == ("none", 3)
    assert settings.retention.scheduler is False
    assert settings.server.port == 9001


def test_a_keyword_wins_over_the_environment_and_keeps_the_rest_of_its_section(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GRAPHMEM_GRAPH", "from_env")
    monkeypatch.setenv("GRAPHMEM_DURABILITY", "strict")
    settings = Settings(graph="given", data_dir="/tmp/given")
    assert (settings.store.graph, settings.store.durability) == ("given", "strict")
    assert settings.store.data_dir == Path("/tmp/given")


def test_a_section_given_whole_is_taken_as_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHMEM_EMBEDDER_THREADS", "3")
    settings = Settings(embedding=EmbeddingSettings(model="none"), store=StoreSettings(graph="g"))
    assert (settings.embedding.model, settings.embedding.threads) == ("none", None)
    assert settings.store.graph == "g"


def test_an_unknown_keyword_is_refused() -> None:
    with pytest.raises(ValidationError, match="neo4j_url"):
        Settings(neo4j_url="bolt://db")


def test_a_refusal_names_the_setting_by_its_flat_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHMEM_NEO4J_POOL_SIZE", "0")
    monkeypatch.setenv("GRAPHMEM_PORT", "http")
    with pytest.raises(ValidationError) as refused:
        Settings()
    assert sorted(setting_named(tuple(e["loc"])) for e in refused.value.errors()) == [
        "neo4j_pool_size",
        "port",
    ]
    reported = invalid_input(refused.value, locate=setting_named)
    assert reported.message.startswith("port: ") and "; neo4j_pool_size: " in reported.message


def test_a_password_is_not_shown_in_a_refusal() -> None:
    with pytest.raises(ValidationError) as refused:
        Settings(backend="neo4j", neo4j_password="hunter2")
    assert "hunter2" not in str(refused.value)


def test_with_values_changes_settings_by_flat_name_and_checks_them_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = Settings(backend="neo4j", neo4j_uri="bolt://db:7687")
    monkeypatch.setenv("GRAPHMEM_NEO4J_USER", "not-read-again")
    changed = settings.with_values(neo4j_database="", embedder="none")
    assert (changed.neo4j.database, changed.embedding.model) == (None, "none")
    assert changed.neo4j.user == settings.neo4j.user == "neo4j"
    with pytest.raises(ValidationError, match="GRAPHMEM_NEO4J_URI is required"):
        settings.with_values(neo4j_uri=None)


def test_every_flat_name_is_one_setting() -> None:
    flat = [setting.name for setting in settings_declared()]
    assert len(flat) == len(set(flat))
    assert all(setting.env == PREFIX + setting.name.upper() for setting in settings_declared())
    assert env_name("neo4j_uri") == "GRAPHMEM_NEO4J_URI"


def _modules(root: Path) -> list[tuple[Path, ast.Module]]:
    return [(path, ast.parse(path.read_text(encoding="utf-8"))) for path in root.rglob("*.py")]


def _docstrings(tree: ast.Module) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        for statement in getattr(node, "body", None) or []:
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                found.add(id(statement.value))
    return found


def test_no_module_outside_the_settings_spells_a_variable_it_reads() -> None:
    """A variable's name comes from ``env_name`` or ``graphmem.settings.names``:
    a string that starts with the prefix is a name spelt a second time."""
    spelt = [
        f"{path.relative_to(PACKAGE.parent)}:{node.lineno}"
        for path, tree in _modules(PACKAGE)
        if "settings" not in path.relative_to(PACKAGE).parts[:1]
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value.startswith(PREFIX)
        and id(node) not in _docstrings(tree)
    ]
    assert spelt == []


def test_the_domain_reads_no_environment() -> None:
    """The domain takes plain values: its callers read the settings."""
    readers = [
        f"{path.relative_to(PACKAGE.parent)}:{node.lineno}"
        for path, tree in _modules(PACKAGE / "domain")
        for node in ast.walk(tree)
        if (isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv"))
        or (
            isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pydantic_settings")
        )
        or (isinstance(node, ast.Import) and any(a.name == "pydantic_settings" for a in node.names))
    ]
    assert readers == []
