"""The dependency scenarios (``benchmarks/eval/dependencies.json``) hold what the
cascade benchmark counts on: a figure is only as good as the set's labels, so a
dependent labelled at the wrong depth or an "unrelated" memory with a real path
to the base would score the feature against a wrong answer."""

from __future__ import annotations

import json
from collections import Counter, deque
from pathlib import Path
from typing import Any

import pytest

SET = Path(__file__).resolve().parents[2] / "benchmarks" / "eval" / "dependencies.json"
WAYS = {"supersede", "write", "consolidate", "forget", "archive", "expire", "reject", "contradict"}
DEPENDENCY = {"ENABLES", "CONSTRAINS"}
RELATION_TYPES = DEPENDENCY | {"RELATED_TO", "SUPERSEDES"}
SPLITS = ("dev", "heldout")


def _scenarios() -> list[dict[str, Any]]:
    scenarios: list[dict[str, Any]] = json.loads(SET.read_text())["scenarios"]
    return scenarios


def _depths(scenario: dict[str, Any]) -> dict[str, int]:
    """Shortest ENABLES/CONSTRAINS distance from the base to each memory that rests on it."""
    out: dict[str, list[str]] = {}
    for source, kind, target in scenario["edges"]:
        if kind in DEPENDENCY:
            out.setdefault(source, []).append(target)
    depths = {"base": 0}
    queue = deque(["base"])
    while queue:
        key = queue.popleft()
        for nxt in out.get(key, []):
            if nxt not in depths:
                depths[nxt] = depths[key] + 1
                queue.append(nxt)
    return depths


def test_the_set_is_a_size_worth_reporting() -> None:
    scenarios = _scenarios()
    assert 30 <= len(scenarios) <= 40
    assert len({s["id"] for s in scenarios}) == len(scenarios)
    assert {s["split"] for s in scenarios} == set(SPLITS)
    held = sum(s["split"] == "heldout" for s in scenarios)
    assert len(scenarios) // 4 <= held <= len(scenarios) // 2


@pytest.mark.parametrize("scenario", _scenarios(), ids=lambda s: s["id"])
def test_a_scenario_is_well_formed(scenario: dict[str, Any]) -> None:
    keys = [m["key"] for m in scenario["memories"]]
    assert len(keys) == len(set(keys)), "memory keys repeat"
    assert keys.count("base") == 1 and scenario["memories"][0]["role"] == "base"
    assert set(scenario["ways"]) <= WAYS and scenario["ways"]
    assert scenario["update"] and scenario["contradiction"]
    for source, kind, target in scenario["edges"]:
        assert kind in RELATION_TYPES
        assert source in keys and target in keys and source != target
    if "consolidate" in scenario["ways"]:
        assert any(m["role"] == "partner" for m in scenario["memories"])
        assert not any(s == "base" and k == "CONSTRAINS" for s, k, _ in scenario["edges"])


@pytest.mark.parametrize("scenario", _scenarios(), ids=lambda s: s["id"])
def test_labels_match_the_edges(scenario: dict[str, Any]) -> None:
    """A dependent's depth is its shortest path; an unrelated memory has none."""
    depths = _depths(scenario)
    for memory in scenario["memories"]:
        if memory["role"] == "dependent":
            assert depths.get(memory["key"]) == memory["depth"], memory["key"]
        elif memory["role"] in ("unrelated", "partner"):
            assert memory["key"] not in depths, memory["key"]


@pytest.mark.parametrize("scenario", _scenarios(), ids=lambda s: s["id"])
def test_each_scenario_has_the_shapes_the_issue_asks_for(scenario: dict[str, Any]) -> None:
    """Chains by both types, a fan, a memory on two bases, a cycle, and unrelated
    memories both sharing words and tied by RELATED_TO only."""
    edges = scenario["edges"]
    kinds = {m["key"]: m.get("kind") for m in scenario["memories"]}
    assert {k for _, k, _ in edges} >= DEPENDENCY
    assert sum(s == "base" and k in DEPENDENCY for s, k, _ in edges) >= 2
    bases_of = Counter(t for _, k, t in edges if k in DEPENDENCY)
    assert max(bases_of.values()) >= 2
    pairs = {(s, t) for s, k, t in edges if k in DEPENDENCY}
    assert any((t, s) in pairs for s, t in pairs), "no cycle"
    assert "shares_words" in kinds.values()
    related = [s for s, k, t in edges if k == "RELATED_TO" and t == "base"]
    assert any(kinds.get(key) == "related_to" for key in related)


@pytest.mark.parametrize("split", SPLITS)
def test_every_way_and_depth_is_covered_in_each_split(split: str) -> None:
    chosen = [s for s in _scenarios() if s["split"] == split]
    ways = Counter(w for s in chosen for w in s["ways"])
    assert set(ways) == WAYS
    assert min(ways.values()) >= 2
    for way in WAYS:
        depths = {
            m["depth"]
            for s in chosen
            if way in s["ways"]
            for m in s["memories"]
            if m["role"] == "dependent"
        }
        assert depths >= {1, 2, 3}, way
