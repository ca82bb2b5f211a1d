"""Statements in the docs that the code or the deploy files decide, checked against them."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

from graphmem.settings.retention import load_rules

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


def test_the_lifecycle_page_says_writes_merge_near_duplicates_at_the_rules_thresholds() -> None:
    staging = read("docs/lifecycle.md").split("**Staging.**")[1].split("\n\n")[0]
    rules = load_rules(ROOT / "retention_rules.yaml")
    assert "near" in staging and "NEAR" in staging
    assert f"`dedup_similarity` ({rules.dedup_similarity:g})" in staging
    assert f"`dedup_jaccard` ({rules.dedup_jaccard:.0%})" in staging


def test_the_readme_says_when_the_inject_fallback_reads_the_store() -> None:
    hooks = read("README.md").split("## The prompt hook")[1].split("\n## ")[0]
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
    # The one extra it installs, the Neo4j driver, brings no torch either.
    assert "pip install --quiet -e '.[neo4j]'\n" in read("Makefile")
    assert project["optional-dependencies"]["neo4j"] == ["neo4j>=5.20,<6"]


def test_the_test_install_brings_no_torch() -> None:
    """`make test` and CI install the dev extra: with it, torch from the package index
    would be the CUDA build, several GB, so neither it nor an extra that pulls it in."""
    extras = tomllib.loads(read("pyproject.toml"))["project"]["optional-dependencies"]
    pending, seen = ["dev"], set()
    while pending:
        extra = pending.pop()
        seen.add(extra)
        for requirement in extras[extra]:
            name = re.split(r"[<>=\[ ;]", requirement, maxsplit=1)[0]
            assert name not in {"torch", "sentence-transformers"}, (extra, requirement)
            if name == "graphmem":
                pending += [
                    e for e in re.findall(r"\[(.*)\]", requirement)[0].split(",") if e not in seen
                ]
    assert "torch" not in seen
