"""Concurrent writers lose nothing and duplicate nothing, through the Python API
and over HTTP."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import httpx
import pytest

from graphmem.api import GraphMem
from graphmem.domain.models import WriteOutcome

T = TypeVar("T")
CALLS = 100
THREADS = 16


def all_at_once(count: int, call: Callable[[int], T], threads: int = THREADS) -> list[T]:
    """Run ``call(i)`` for each i from a pool of threads released together."""
    start = threading.Barrier(min(count, threads))

    def released(i: int) -> T:
        if i < threads:
            start.wait(timeout=30)
        return call(i)

    with ThreadPoolExecutor(max_workers=threads) as pool:
        return list(pool.map(released, range(count)))


def test_parallel_record_access_loses_no_increment(gm: GraphMem):
    memory = gm.remember({"content": "the search index is rebuilt every hour"})
    all_at_once(CALLS, lambda _: gm.record_access(memory.id))
    stored = gm.get(memory.id)
    assert stored.access_count == CALLS
    # The last rescore to land is the one for the final count, not a stale one.
    assert stored.importance == pytest.approx(gm.importance_breakdown(stored).total)


RECORD_ACCESS = "mutation ($id: ID!) { recordAccess(id: $id) { id accessCount } }"


def test_parallel_record_access_over_http_loses_no_increment(
    gm: GraphMem, graphql_http: httpx.Client
):
    memory = gm.remember({"content": "feature flags are cleaned up after a release"})
    base_url = graphql_http.base_url

    def call(_: int) -> dict[str, Any]:
        # A client per thread: httpx clients are not meant to be shared across threads.
        with httpx.Client(base_url=base_url, timeout=30.0) as http:
            response = http.post(
                "/graphql", json={"query": RECORD_ACCESS, "variables": {"id": memory.id}}
            )
        return response.json()

    bodies = all_at_once(CALLS, call)
    assert [b for b in bodies if b.get("errors")] == []
    counts = sorted(b["data"]["recordAccess"]["accessCount"] for b in bodies)
    assert counts == list(range(1, CALLS + 1)), "each call saw its own increment"
    assert gm.get(memory.id).access_count == CALLS


def test_concurrent_remember_of_the_same_content_makes_one_memory(gm: GraphMem):
    writers = 8
    content = "Rotate the signing keys every 90 days."
    outcomes: list[WriteOutcome] = all_at_once(
        writers,
        lambda i: gm.remember_detailed(
            {"content": content, "tags": [f"writer-{i}"], "source": "auto_extracted"}
        )[1],
        threads=writers,
    )
    ids = {outcome.id for outcome in outcomes}
    assert len(ids) == 1, f"{len(ids)} memories for one text"
    assert sum(outcome.created for outcome in outcomes) == 1
    (memory_id,) = ids
    memory = gm.get(memory_id)
    assert memory.occurrence_count == writers
    assert sorted(memory.tags) == sorted(f"writer-{i}" for i in range(writers))
    page = gm.list({"include_candidates": True}, first=50)
    assert [m.id for m in page.items] == [memory_id]


REMEMBER = """
mutation ($input: MemoryInput!) { remember(input: $input) { created memory { id } } }
"""


def test_concurrent_remember_over_http_makes_one_memory(gm: GraphMem, graphql_http: httpx.Client):
    writers = 8
    base_url = graphql_http.base_url

    def call(i: int) -> dict[str, Any]:
        variables = {"input": {"content": "Every table needs an owner.", "tags": [f"w{i}"]}}
        with httpx.Client(base_url=base_url, timeout=30.0) as http:
            return http.post("/graphql", json={"query": REMEMBER, "variables": variables}).json()

    bodies = all_at_once(writers, call, threads=writers)
    assert [b for b in bodies if b.get("errors")] == []
    payloads = [b["data"]["remember"] for b in bodies]
    assert len({p["memory"]["id"] for p in payloads}) == 1
    assert sum(p["created"] for p in payloads) == 1
    assert gm.get(payloads[0]["memory"]["id"]).occurrence_count == writers
