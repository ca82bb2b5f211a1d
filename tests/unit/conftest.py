"""The unit suite needs no database: a unit test that asks for one fails.

These fixtures stand in for the ones in ``tests/conftest.py`` that start the
embedded FalkorDB and the test Neo4j, and every store fixture (``store``,
``gm``, ``egm``, ...) builds on one of them, whether a test names it or asks
for it with ``request.getfixturevalue``. So a test that needs a real store
fails here, saying where it belongs, instead of quietly starting both servers.
"""

from __future__ import annotations

import pytest

WHERE = "a unit test starts no database: move it to tests/integration/ or make it pure"


@pytest.fixture(scope="session")
def falkordb_server() -> None:
    pytest.fail(WHERE)


@pytest.fixture(scope="session")
def neo4j_server() -> None:
    pytest.fail(WHERE)
