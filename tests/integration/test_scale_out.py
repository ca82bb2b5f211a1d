"""Three ``graphmem serve`` processes on one database (the embedded FalkorDB of
one data directory, or the test Neo4j), the scheduler on in all of them, under
a bounded write load: every acknowledged write is there, read through any
server, and no memory is promoted twice (the promotion log in the graph, and
each server's own metrics, agree on every move).

docs/scaling.md describes the deployment this stands in for.
"""

from __future__ import annotations

import itertools
import os
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from graphmem.api import GraphMem
from graphmem.domain.kinds import Tier
from graphmem.settings import Settings
from graphmem.store import Store
from tests.conftest import cypher

SERVERS = 3
SERVE = [sys.executable, "-m", "graphmem", "serve", "--host", "127.0.0.1"]
SESSIONS = [f"scale-{i}" for i in range(6)]
WRITES = 240
"""Acknowledged remember calls the load makes at most."""
LOAD_SECONDS = 60.0
"""The load stops at this bound even if it has not made every write."""
SETTLE_SECONDS = 40.0
WRITERS = 6

REMEMBER = """mutation($input: MemoryInput!) {
  remember(input: $input) { memory { id content sessionId } }
}"""
RUN = """mutation($session: ID!) { runPromotion(sessionId: $session) { promoted } }"""
DISABLE = """mutation($session: ID!) { disablePromotion(sessionId: $session) { enabled } }"""
METRIC = re.compile(r'^graphmem_promoted_memories_total\{trigger="(\w+)"\} ([0-9.e+]+)$', re.M)
RUNS = re.compile(r'^graphmem_promotion_runs_total\{trigger="periodic"\} ([0-9.e+]+)$', re.M)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def settings(backend: str, data_dir: Path, request: pytest.FixtureRequest) -> Settings:
    """How the test reads the shared store itself: the servers' data directory, or
    the test Neo4j (emptied first, as the ``store`` fixture does)."""
    if backend == "neo4j":
        request.getfixturevalue("neo4j_store")
        neo4j: Settings = request.getfixturevalue("neo4j_settings")
        return neo4j.with_values(data_dir=data_dir, embedder="none")
    return Settings(data_dir=data_dir, embedder="none")


@pytest.fixture
def servers(
    backend: str, data_dir: Path, settings: Settings, request: pytest.FixtureRequest
) -> Iterator[list[str]]:
    """Three servers started together: on one data directory (the first to get the
    directory lock starts the embedded database, the others attach to it), or on
    the test Neo4j (each with a data directory of its own)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    if backend == "neo4j":
        env.update(request.getfixturevalue("neo4j_env"))
    env.update(
        GRAPHMEM_DATA_DIR=str(data_dir),
        GRAPHMEM_EMBEDDER="none",
        GRAPHMEM_SCHEDULER="true",
        # Every session is due each second: the servers race for the same work.
        GRAPHMEM_PROMOTION_INTERVAL_SECONDS="1",
    )
    processes: list[subprocess.Popen[bytes]] = []
    urls: list[str] = []
    logs: list[Path] = []
    try:
        for number in range(SERVERS):
            port = free_port()
            log = data_dir / f"serve-{number}.log"
            logs.append(log)
            with open(log, "wb") as out:
                processes.append(
                    subprocess.Popen(
                        [*SERVE, "--port", str(port)],
                        env=env,
                        stdin=subprocess.DEVNULL,
                        stdout=out,
                        stderr=subprocess.STDOUT,
                    )
                )
            urls.append(f"http://127.0.0.1:{port}")
        for process, url, log in zip(processes, urls, logs, strict=True):
            _wait_healthy(process, url, log)
        yield urls
    finally:
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)


def _wait_healthy(process: subprocess.Popen[bytes], url: str, log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert process.poll() is None, log.read_text(errors="replace")
        try:
            if httpx.get(f"{url}/healthz", timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"{url} not healthy: {log.read_text(errors='replace')}")


def _load(urls: list[str]) -> tuple[dict[str, tuple[str, str]], int]:
    """Writes spread over the servers, with manual promotion runs mixed in;
    returns the acknowledged writes (id -> (content, server)) and how many failed."""
    acknowledged: dict[str, tuple[str, str]] = {}
    failed = 0
    failures: list[object] = []
    lock = threading.Lock()
    deadline = time.monotonic() + LOAD_SECONDS
    numbers = iter(range(WRITES))

    def writer(seed: int) -> None:
        nonlocal failed
        rng = random.Random(seed)
        with httpx.Client(timeout=30.0) as client:
            while time.monotonic() < deadline:
                with lock:
                    number = next(numbers, None)
                if number is None:
                    return
                url = urls[number % len(urls)]
                session = SESSIONS[number % len(SESSIONS)]
                content = f"decision {number}: shard {rng.randint(0, 10**9)} keeps its own queue"
                item = {
                    "content": content,
                    "memoryType": "DECISION",
                    "confidence": 1.0,
                    "sessionId": session,
                }
                try:
                    body = client.post(
                        f"{url}/graphql", json={"query": REMEMBER, "variables": {"input": item}}
                    ).json()
                except httpx.HTTPError:
                    body = {"errors": ["transport"]}
                with lock:
                    if body.get("errors"):
                        failed += 1
                        failures.append(body["errors"])
                    else:
                        memory = body["data"]["remember"]["memory"]
                        assert memory["content"] == content
                        acknowledged[memory["id"]] = (content, url)
                if number % 20 == 0:
                    # A manual run on another server, racing the schedulers.
                    other = urls[(number + 1) % len(urls)]
                    reply = client.post(
                        f"{other}/graphql",
                        json={"query": RUN, "variables": {"session": session}},
                    ).json()
                    assert "errors" not in reply, (reply, failures)

    with ThreadPoolExecutor(WRITERS) as pool:
        for future in [pool.submit(writer, seed) for seed in range(WRITERS)]:
            future.result()
    return acknowledged, failed


def _wait_quiet(store: Store) -> None:
    """Until the count of promotion runs has not moved for two seconds."""
    query = "MATCH (r:PromotionRun) RETURN count(r)"
    last, still_since = -1, time.monotonic()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        runs = cypher(store, query)[0][0]
        if runs != last:
            last, still_since = runs, time.monotonic()
        elif time.monotonic() - still_since >= 2.0:
            return
        time.sleep(0.25)
    raise AssertionError("promotion runs did not stop after promotion was disabled")


def _metrics(url: str) -> tuple[Counter[str], float]:
    text = httpx.get(f"{url}/metrics", timeout=10.0).text
    promoted: Counter[str] = Counter()
    for trigger, value in METRIC.findall(text):
        promoted[trigger] += int(float(value))
    runs = RUNS.findall(text)
    return promoted, float(runs[0]) if runs else 0.0


@pytest.mark.slow
def test_three_servers_share_one_database_without_double_promotion(
    servers: list[str], settings: Settings
):
    acknowledged, failed = _load(servers)
    assert len(acknowledged) >= WRITES * 0.9, f"only {len(acknowledged)} writes acknowledged"
    assert failed == 0

    # Every acknowledged write reads back, through a server other than the one that took it.
    ids = list(acknowledged)
    with httpx.Client(timeout=30.0) as client:
        for start in range(0, len(ids), 50):
            chunk = ids[start : start + 50]
            for memory_id in chunk:
                content, wrote_to = acknowledged[memory_id]
                reader = servers[(servers.index(wrote_to) + 1) % len(servers)]
                body = client.post(
                    f"{reader}/graphql",
                    json={
                        "query": "query($id: ID!) { memory(id: $id) { id content } }",
                        "variables": {"id": memory_id},
                    },
                ).json()
                assert body["data"]["memory"] == {"id": memory_id, "content": content}, body

    # The schedulers promote every working decision within a few periods.
    settle = time.monotonic() + SETTLE_SECONDS
    with GraphMem.open(settings) as gm:
        store = gm.store  # raw reads: no graphmem code between the test and the log
        while time.monotonic() < settle:
            working = cypher(store, "MATCH (m:Memory) WHERE m.tier = 'working' RETURN count(m)")[0][
                0
            ]
            if working == 0:
                break
            time.sleep(0.5)
        assert working == 0, f"{working} memories were never promoted"
        # Stop new periodic claims, then let the runs in flight finish before the log is read.
        for session in SESSIONS:
            body = httpx.post(
                f"{servers[0]}/graphql", json={"query": DISABLE, "variables": {"session": session}}
            ).json()
            assert body["data"]["disablePromotion"]["enabled"] is False, body
        _wait_quiet(store)
        metrics = [_metrics(url) for url in servers]
        events = cypher(
            store,
            "MATCH (e:PromotionEvent) RETURN e.memory_id, e.from_tier, e.to_tier, e.at, e.trigger "
            "ORDER BY e.at",
        )
        tiers = dict(cypher(store, "MATCH (m:Memory) RETURN m.id, m.tier"))  # type: ignore[arg-type]
        periodic_runs = cypher(
            store, "MATCH (r:PromotionRun) WHERE r.trigger = 'periodic' RETURN count(r)"
        )[0][0]

        # Every acknowledged write is in the store.
        stored = {m.id: m.content for m in gm.get_many(ids) if m is not None}
        assert stored == {memory_id: acknowledged[memory_id][0] for memory_id in ids}

    # No memory left a tier twice, and each memory's log is one chain ending where it is.
    steps = Counter((memory_id, from_tier) for memory_id, from_tier, *_ in events)
    twice = {key: n for key, n in steps.items() if n > 1}
    assert not twice, f"promoted twice: {twice}"
    chains: dict[str, list[tuple[str, str]]] = {}
    for memory_id, from_tier, to_tier, _, _ in events:
        chains.setdefault(memory_id, []).append((from_tier, to_tier))
    assert set(chains) == set(acknowledged)
    for memory_id, chain in chains.items():
        assert chain[0][0] == Tier.WORKING.value
        assert all(a[1] == b[0] for a, b in itertools.pairwise(chain)), chain
        assert chain[-1][1] == tiers[memory_id]

    # Each server's metrics count only the moves it made: together, exactly the log.
    triggers = Counter(trigger for *_, trigger in events)
    total = sum((promoted for promoted, _ in metrics), Counter())
    assert +total == +triggers, (total, triggers)
    assert sum(runs for _, runs in metrics) == periodic_runs
    assert triggers["periodic"] > 0
    # The periodic work was shared, not done by one server alone.
    assert sum(1 for _, runs in metrics if runs > 0) >= 2, metrics
    print(  # shown with -s: the figures docs/scaling.md quotes
        f"\n{len(acknowledged)} writes acknowledged, {failed} failed; {len(events)} promotions "
        f"({dict(triggers)}), 0 twice; periodic runs per server "
        f"{[int(runs) for _, runs in metrics]} = {periodic_runs} in the graph"
    )
