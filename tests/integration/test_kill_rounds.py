"""The database killed at random points of a write and search mix: every call
answers or says STORE_UNAVAILABLE, never INTERNAL, and no acknowledged write is
lost (``python -m benchmarks.kill_rounds`` runs more rounds, on both backends).

Each restart rebuilds the vector index over the seeded vectors while searches
arrive: before, a search refused by the index being built was re-raised as an
internal error when the index had finished (or was never listed as building)
by the time graphmem looked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import kill_rounds
from tests import neo4j_server as test_neo4j

pytestmark = pytest.mark.slow
"""Minutes of kills and restarts: run first (tests/conftest.py)."""


def test_falkordb_killed_twenty_times_never_answers_internal(
    tmp_path_factory: pytest.TempPathFactory,
):
    with kill_rounds.embedded(tmp_path_factory.mktemp("kill"), vectors=2000) as (gm, kill, revive):
        outcome = kill_rounds.run_rounds(gm, kill, revive, rounds=20, longest_pause=0.5)
    assert outcome.rounds == 20
    assert outcome.internal == []
    assert outcome.lost == 0
    assert outcome.calls["remember"] and outcome.calls["search"] and outcome.calls["context"]


def test_neo4j_killed_and_started_again_never_answers_internal(tmp_path: Path):
    """One round here (a Neo4j start takes tens of seconds); the benchmark runs
    twenty. Neo4j keeps its vector index on disk, so a few vectors do: no
    restart rebuilds it."""
    missing = test_neo4j.missing_tools()
    if missing:
        pytest.skip(missing)
    home = tmp_path / "neo4j"
    with kill_rounds.neo4j(home, vectors=200, jvm=test_neo4j.TEST_JVM) as (gm, kill, revive):
        outcome = kill_rounds.run_rounds(gm, kill, revive, rounds=1, longest_pause=2.0)
    assert outcome.rounds == 1
    assert outcome.internal == []
    assert outcome.lost == 0
    assert outcome.calls["remember"] and outcome.calls["search"]
