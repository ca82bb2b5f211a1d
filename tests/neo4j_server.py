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

__all__ = ["TEST_JVM", "TEST_SETTINGS", "TestNeo4j", "missing_tools", "start"]

TEST_SETTINGS = (
    # The tests empty the database before each test: without these, every plan
    # would be made again as the statistics swing between empty and a few nodes.
    "dbms.cypher.min_replan_interval=1h",
    "dbms.cypher.statistics_divergence_threshold=1.0",
)
TEST_JVM = ("-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1", "-XX:+UseSerialGC")
"""A test server runs thousands of short statements beside another worker's
server on two cores: the quick compiler alone and one collector thread cost a
quarter less CPU over the store tests than the full JIT and G1, at the same
speed per test (measured over test_store, test_retrieval_search and
test_promotion on Neo4j: 2 min 35 s of CPU against 3 min 27 s)."""


def start(home: Path, **options: Any) -> TestNeo4j:
    """Start a test Neo4j in ``home`` (options as ``benchmarks.neo4j_server.start``)."""
    options.setdefault("settings", TEST_SETTINGS)
    options.setdefault("jvm", TEST_JVM)
    return neo4j_server.start(home, **options)
