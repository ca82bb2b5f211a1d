"""docker-compose.yml and the Dockerfile cannot be run here (no container
engine), so their structure is checked instead."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml

from graphmem.settings import Settings, settings_declared

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_services_and_volumes(compose: dict):
    assert set(compose["services"]) == {"neo4j", "graphmem"}
    declared = set(compose["volumes"])
    for service in compose["services"].values():
        for volume in service.get("volumes", []):
            name = volume.split(":", 1)[0]
            assert name in declared, f"volume {name} is not declared"


def test_neo4j_is_version_5_with_health_check_and_auth(compose: dict):
    neo4j = compose["services"]["neo4j"]
    assert re.fullmatch(r"neo4j:5[\w.-]*community", neo4j["image"])
    assert {"test", "interval", "retries"} <= set(neo4j["healthcheck"])
    assert "NEO4J_AUTH" in neo4j["environment"]
    published = {port.rsplit(":", 1)[-1] for port in neo4j["ports"]}
    assert {"7474", "7687"} <= published  # Browser and Bolt


def test_neo4j_keeps_its_data_and_bounds_its_memory(compose: dict):
    neo4j = compose["services"]["neo4j"]
    assert any(volume.split(":")[1] == "/data" for volume in neo4j["volumes"])
    memory = {key for key in neo4j["environment"] if key.startswith("NEO4J_server_memory_")}
    assert {
        "NEO4J_server_memory_heap_initial__size",
        "NEO4J_server_memory_heap_max__size",
        "NEO4J_server_memory_pagecache_size",
    } <= memory


def test_graphmem_talks_to_the_neo4j_service(compose: dict):
    environment = compose["services"]["graphmem"]["environment"]
    settings = Settings(
        **{k[len("GRAPHMEM_") :].lower(): interpolate(v) for k, v in environment.items()}
    )
    assert settings.store.backend == "neo4j"
    uri = urlsplit(settings.neo4j.uri or "")
    assert (uri.scheme, uri.hostname, uri.port) == ("neo4j", "neo4j", 7687)
    neo4j_env = compose["services"]["neo4j"]["environment"]
    user, password = neo4j_env["NEO4J_AUTH"].split("/", 1)
    assert settings.neo4j.user == user
    # Both read the same variable, so the two cannot drift apart.
    assert environment["GRAPHMEM_NEO4J_PASSWORD"] == password
    assert password.startswith("${NEO4J_PASSWORD")
    # A server other machines can reach runs with keys and without the schema browser.
    assert settings.server.auth_required and settings.server.mode == "production"


def test_graphmem_builds_here_and_waits_for_neo4j(compose: dict):
    graphmem = compose["services"]["graphmem"]
    assert (ROOT / graphmem["build"]["context"] / graphmem["build"]["dockerfile"]).is_file()
    assert graphmem["depends_on"]["neo4j"]["condition"] == "service_healthy"


def test_every_graphmem_variable_is_a_setting(compose: dict):
    known = {setting.env for setting in settings_declared()}
    environment = compose["services"]["graphmem"]["environment"]
    assert environment, "graphmem's environment is empty"
    for name in environment:
        assert name in known, f"{name} is not read by graphmem"
    dockerfile = (ROOT / "Dockerfile").read_text()
    for name in re.findall(r"\b(GRAPHMEM_[A-Z_]+)=", dockerfile):
        assert name in known, f"Dockerfile sets {name}, which graphmem does not read"


def interpolate(value: object) -> str:
    """Compose's ``${VAR:?message}`` / ``${VAR:-default}`` with a stand-in value."""
    return re.sub(r"\$\{(\w+)(?::[?-][^}]*)?\}", lambda m: f"value-of-{m[1]}", str(value))


def test_dockerfile_installs_the_neo4j_driver():
    dockerfile = (ROOT / "Dockerfile").read_text()
    extras = re.search(r"pip install [^']*'\.\[([\w,-]+)\]'", dockerfile, re.S)
    assert extras and {"neo4j", "neo4j-rust"} & set(extras[1].split(","))


def test_dockerfile_copies_what_the_package_needs():
    dockerfile = (ROOT / "Dockerfile").read_text()
    for needed in ("pyproject.toml", "graphmem", "cypher"):
        assert re.search(rf"^COPY .*\b{needed}\b", dockerfile, re.M), needed
    assert re.search(r'^CMD \["graphmem", "serve"\]', dockerfile, re.M)


def test_graphmem_health_checks_probe_readiness(compose: dict):
    """Readiness, not liveness: unhealthy while the store or the model cannot serve."""
    check = compose["services"]["graphmem"]["healthcheck"]
    assert {"test", "interval", "timeout", "retries", "start_period"} <= set(check)
    command = " ".join(check["test"])
    assert check["test"][0] == "CMD"
    assert "http://127.0.0.1:8000/readyz" in command
    # The probe's own timeout fits inside the check's, or a slow answer is a kill.
    probe_timeout = re.search(r"timeout=(\d+)", command)
    assert probe_timeout and int(probe_timeout[1]) < int(check["timeout"].rstrip("s"))
    dockerfile = (ROOT / "Dockerfile").read_text()
    healthcheck = re.search(r"^HEALTHCHECK .*?\n(?:\s+.*\n)*", dockerfile, re.M)
    assert healthcheck and "/readyz" in healthcheck[0]
