"""Statements in the docs that the code or the deploy files decide, checked against them."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

from graphmem.retention import RetentionRules

ROOT = Path(__file__).resolve().parents[2]


def read(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8")


def test_the_neo4j_guide_offers_no_graphiql_where_compose_turns_it_off() -> None:
    compose = yaml.safe_load(read("docker-compose.yml"))
    assert compose["services"]["graphmem"]["environment"]["GRAPHMEM_MODE"] == "production"
    (line,) = [
        line for line in read("docs/neo4j.md").splitlines() if "localhost:8000/graphql" in line
    ]
    assert line.startswith("- GraphQL: ") and "GraphiQL" not in line
    assert "serves no GraphiQL page" in read("docs/neo4j.md")


def test_the_readme_says_writes_merge_near_duplicates_at_the_rules_thresholds() -> None:
    staging = read("README.md").split("**Staging.**")[1].split("\n\n")[0]
    rules = RetentionRules.load(ROOT / "retention_rules.yaml")
    assert "near" in staging and "NEAR" in staging
    assert f"`dedup_similarity` ({rules.dedup_similarity:g})" in staging
    assert f"`dedup_jaccard` ({rules.dedup_jaccard:.0%})" in staging


def test_the_readme_says_when_the_inject_fallback_reads_the_store() -> None:
    hooks = read("README.md").split("## Coding-agent hooks")[1].split("\n## ")[0]
    assert "already running" in hooks and "--fallback start" in hooks


def test_the_hook_guide_gives_no_thread_advice_the_server_makes_moot() -> None:
    guide = read("docs/hooks.md")
    assert not re.search(r"(start|run) the server with `OMP_NUM_THREADS", guide)
    assert not re.search(r"\b688\b", guide)


def test_make_serve_installs_no_torch_and_the_torch_comment_says_why() -> None:
    pyproject = read("pyproject.toml")
    project = tomllib.loads(pyproject)["project"]
    assert not any(r.startswith("torch") for r in project["dependencies"])
    assert any(r.startswith("torch") for r in project["optional-dependencies"]["torch"])
    assert "CUDA build" in pyproject and "CPU build" in pyproject
    assert "pip install --quiet -e .\n" in read("Makefile")
