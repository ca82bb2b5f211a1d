"""The unit suite's guard (tests/unit/conftest.py) holds: asking for a database fails."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("server", ["falkordb_server", "neo4j_server"])
def test_a_unit_test_that_asks_for_a_database_fails(
    request: pytest.FixtureRequest, server: str
) -> None:
    with pytest.raises(pytest.fail.Exception, match="starts no database"):
        request.getfixturevalue(server)
