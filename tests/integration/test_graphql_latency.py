"""The latency budget of the hottest read: ``memory(id)`` over HTTP at 10k memories."""

from __future__ import annotations

import statistics
import time

import httpx
import pytest

from graphmem.api import GraphMem

MEMORIES = 10_000
REQUESTS = 300
P95_BUDGET_SECONDS = 0.010

QUERY = """query($id: ID!) { memory(id: $id) {
    id content memoryType tier status importance tags createdAt } }"""


@pytest.mark.slow
def test_memory_by_id_p95_within_budget_at_10k_memories(
    graphql_http: httpx.Client, gm: GraphMem
) -> None:
    ids: list[str] = []
    for start in range(0, MEMORIES, 5_000):
        ids += gm.remember_many(
            [
                {"content": f"memory {n} about the build", "memory_type": "fact", "tags": ["t"]}
                for n in range(start, start + 5_000)
            ]
        )
    wanted = ids[:: MEMORIES // REQUESTS][:REQUESTS]
    for memory_id in wanted[:20]:  # warm the connection and the validation cache
        graphql_http.post("/graphql", json={"query": QUERY, "variables": {"id": memory_id}})

    latencies = []
    for memory_id in wanted:
        started = time.perf_counter()
        response = graphql_http.post(
            "/graphql", json={"query": QUERY, "variables": {"id": memory_id}}
        )
        latencies.append(time.perf_counter() - started)
        assert response.json()["data"]["memory"]["id"] == memory_id

    p95 = statistics.quantiles(latencies, n=20)[-1]
    assert p95 <= P95_BUDGET_SECONDS, f"p95 {p95 * 1000:.1f} ms"
