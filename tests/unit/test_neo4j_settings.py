"""GRAPHMEM_NEO4J_* settings: a wrong one fails at start, naming itself."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from graphmem.settings import Settings


def test_the_defaults_leave_the_embedded_store_alone(monkeypatch: pytest.MonkeyPatch):
    for name in ("GRAPHMEM_BACKEND", "GRAPHMEM_NEO4J_DATABASE"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings()
    assert settings.store.backend == "falkordb"
    assert settings.neo4j.database == "neo4j"


@pytest.mark.parametrize(
    "given, message",
    [
        ({}, "GRAPHMEM_NEO4J_URI is required"),
        ({"neo4j_uri": "http://db:7474"}, "must start with one of bolt"),
        ({"neo4j_uri": "neo4j+s://db:7687", "neo4j_encrypted": True}, "already sets TLS"),
        (
            {"neo4j_uri": "bolt://db:7687", "neo4j_encrypted": True, "neo4j_trust": "custom"},
            "needs GRAPHMEM_NEO4J_CA_FILE",
        ),
        ({"neo4j_uri": "bolt://db:7687", "neo4j_pool_size": 0}, "greater than or equal to 1"),
    ],
)
def test_wrong_neo4j_settings_are_refused(given: dict, message: str):
    with pytest.raises(ValidationError, match=message):
        Settings(backend="neo4j", **given)


@pytest.mark.parametrize(
    "uri", ["bolt://db:7687", "neo4j://cluster:7687", "neo4j+s://x.databases.neo4j.io"]
)
def test_routing_direct_and_encrypted_uris_are_accepted(uri: str):
    assert Settings(backend="neo4j", neo4j_uri=uri).neo4j.uri == uri


def test_an_empty_database_name_means_the_home_database():
    assert (
        Settings(backend="neo4j", neo4j_uri="bolt://db", neo4j_database="").neo4j.database is None
    )


def test_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("GRAPHMEM_BACKEND", "neo4j")
    monkeypatch.setenv("GRAPHMEM_NEO4J_URI", "neo4j://db:7687")
    monkeypatch.setenv("GRAPHMEM_NEO4J_PASSWORD", "secret")
    monkeypatch.setenv("GRAPHMEM_NEO4J_POOL_SIZE", "7")
    settings = Settings()
    assert settings.neo4j.password is not None
    assert settings.neo4j.password.get_secret_value() == "secret"
    assert "secret" not in repr(settings)
    assert settings.neo4j.pool_size == 7
