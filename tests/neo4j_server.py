"""The test Neo4j: the benchmarks' Neo4j (``benchmarks/neo4j_server.py``, Neo4j
Community 5.26 with its Browser on 127.0.0.1, a generated password), started
with the settings a test run wants.

One server per test worker (Community has one user database, so workers cannot
share one), started on first use and stopped when the worker ends. Its standard
input is a pipe the launcher watches: however this process ends, the server
sees the pipe close and exits, so no Neo4j outlives the tests.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks import neo4j_server
from benchmarks.neo4j_server import TestNeo4j, missing_tools

__all__ = ["TEST_SETTINGS", "TestNeo4j", "missing_tools", "start"]

TEST_SETTINGS = (
    # The tests empty the database before each test: without these, every plan
    # would be made again as the statistics swing between empty and a few nodes.
    "dbms.cypher.min_replan_interval=1h",
    "dbms.cypher.statistics_divergence_threshold=1.0",
)


def start(home: Path, **options: Any) -> TestNeo4j:
    """Start a test Neo4j in ``home`` (options as ``benchmarks.neo4j_server.start``)."""
    options.setdefault("settings", TEST_SETTINGS)
    return neo4j_server.start(home, **options)
