"""What every fuzz test shares: example budgets, a fingerprint of the whole
graph (to show that a rejected call wrote nothing), and a real GraphQL server."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator

import pytest
from hypothesis import HealthCheck, settings

from graphmem.api import GraphMem
from graphmem.graphql.app import create_app
from graphmem.store.falkordb import FalkorStore
from tests.conftest import graph_contents
from tests.integration.conftest import GraphQLClient, serve

EXAMPLES = int(os.environ.get("GRAPHMEM_FUZZ_EXAMPLES", "40" if os.environ.get("CI") else "100"))
"""Examples per property; CI runs fewer so the whole fuzz suite stays well under a minute."""

FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    # One graph per test, shared by its examples on purpose: each example
    # compares the graph just before and just after its own call.
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ],
)

Fingerprint = tuple[int, int, str]


def fingerprint(store: FalkorStore) -> Fingerprint:
    """Node count, edge count and a hash of every label, type and property."""
    nodes, edges = graph_contents(store)
    digest = hashlib.sha256()
    for line in nodes + edges:
        digest.update(line.encode("utf-8", "backslashreplace"))
    return len(nodes), len(edges), digest.hexdigest()


@pytest.fixture
def graph_fingerprint(store: FalkorStore) -> Callable[[], Fingerprint]:
    return lambda: fingerprint(store)


@pytest.fixture
def gql(gm: GraphMem) -> Iterator[GraphQLClient]:
    """A real uvicorn server on 127.0.0.1 serving the test's graph."""
    with serve(create_app(gm)) as http:
        yield GraphQLClient(http)
