"""``python -m benchmarks.subscriptions``: what live subscriptions cost and how fast
their events arrive.

- write overhead: ``remember_many`` throughput while one subscriber follows the
  project's changes and ``--idle`` more follow other projects, against the same
  writes with nobody subscribed, batches of the two alternating in one run;
- event latency: ``graphmem serve`` as a child process (embeddings off), the
  ``remember`` mutation sent over HTTP while ``--sockets`` websockets follow
  ``memoryChanged``: the time from sending the mutation until every socket has
  the event, against the time until the mutation's own response arrives.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import threading
import time
from typing import Annotated, Any

import httpx
import typer
from websockets.asyncio.client import ClientConnection, connect

from benchmarks.data import generate
from benchmarks.harness import PROJECT, BenchEnv, BenchError, environ
from benchmarks.report import Figure, console, table, to_json
from graphmem.api import GraphMem
from graphmem.services.events import Subscription, Topic

REMEMBER = """mutation($input: MemoryInput!) { remember(input: $input) { memory { id } } }"""
CHANGED = "subscription { memoryChanged { memoryId kind } }"
TIMEOUT = 10.0


class Followers:
    """Subscriptions drained on an event loop of their own, as a server's would be."""

    def __init__(self, gm: GraphMem) -> None:
        self._gm = gm
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._subscriptions: list[Subscription] = []
        self._tasks: list[asyncio.Task[None]] = []
        self.received = 0

    def __enter__(self) -> Followers:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=TIMEOUT)
        self._loop.close()

    def start(self, idle: int) -> None:
        asyncio.run_coroutine_threadsafe(self._start(idle), self._loop).result(TIMEOUT)

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(TIMEOUT)

    async def _start(self, idle: int) -> None:
        follower = self._gm.events.subscribe(Topic.CHANGED, PROJECT)
        others = [self._gm.events.subscribe(Topic.CHANGED, f"other-{i}") for i in range(idle)]
        self._subscriptions = [follower, *others]
        self._tasks = [asyncio.create_task(self._drain(follower))]

    async def _drain(self, subscription: Subscription) -> None:
        async for _ in subscription:
            self.received += 1

    async def _stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for subscription in self._subscriptions:
            subscription.close()
        self._tasks, self._subscriptions = [], []


def write_overhead(env: BenchEnv, writes: int, batch: int, idle: int) -> list[Figure]:
    gm, _ = env.scratch_graphs("subscriptions")
    items = generate(2 * writes, seed=17).memories
    for i, item in enumerate(items):  # distinct texts: every item is a new memory
        item["content"] = f"{item['content']} (#{i})"
    halves = {True: items[:writes], False: items[writes:]}
    timings = {True: 0.0, False: 0.0}
    with Followers(gm) as followers:
        for start in range(0, writes, batch):
            for followed in (True, False) if (start // batch) % 2 else (False, True):
                chunk = halves[followed][start : start + batch]
                if followed:
                    followers.start(idle)
                    expected = followers.received + len(chunk)
                began = time.perf_counter()
                gm.remember_many(chunk)
                timings[followed] += time.perf_counter() - began
                if followed:
                    # Every write reached the follower: none was dropped on the way.
                    _wait_for(lambda n=expected: followers.received >= n, "the follower's events")
                    followers.stop()
    with_followers, alone = writes / timings[True], writes / timings[False]
    return [
        Figure(
            key="subscription_write_overhead",
            name=f"remember_many, 1 follower + {idle} idle subscribers",
            value=with_followers,
            unit="memories/s",
            baseline=alone,
            ratio=alone / with_followers,
            target=">= 90% of no subscribers",
            passed=with_followers >= 0.9 * alone,
            count=writes,
        )
    ]


def event_latency(env: BenchEnv, requests: int, sockets: int, max_seconds: float) -> list[Figure]:
    with environ(GRAPHMEM_SCHEDULER="false"), env.served() as url:
        events, responses = asyncio.run(_latencies(url, requests, sockets, max_seconds))
    p50_event, p50_response = statistics.median(events), statistics.median(responses)
    return [
        Figure(
            key="subscription_event_latency_p50",
            name=f"mutation sent -> event at all {sockets} sockets, p50",
            value=p50_event,
            unit="ms",
            baseline=p50_response,
            ratio=p50_event / p50_response,
            target="<= 2x the mutation's round trip",
            passed=p50_event <= 2 * p50_response,
            count=len(events),
        ),
        Figure(
            key="subscription_event_latency_p95",
            name=f"mutation sent -> event at all {sockets} sockets, p95",
            value=_p95(events),
            unit="ms",
            baseline=_p95(responses),
            ratio=_p95(events) / _p95(responses),
            count=len(events),
        ),
    ]


async def _latencies(
    url: str, requests: int, sockets: int, max_seconds: float
) -> tuple[list[float], list[float]]:
    ws_url = url.replace("http://", "ws://", 1) + "/graphql"
    conns = [
        await connect(ws_url, subprotocols=["graphql-transport-ws"], open_timeout=TIMEOUT)
        for _ in range(sockets)
    ]
    try:
        for ws in conns:
            await ws.send(json.dumps({"type": "connection_init", "payload": {}}))
            if json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))["type"] != "connection_ack":
                raise BenchError("a websocket was not acknowledged")
            await ws.send(
                json.dumps({"id": "1", "type": "subscribe", "payload": {"query": CHANGED}})
            )
        events: list[float] = []
        responses: list[float] = []
        deadline = time.monotonic() + max_seconds
        async with httpx.AsyncClient(base_url=url, timeout=TIMEOUT) as http:
            await _warm_up(http, conns)
            for number in range(requests):
                if time.monotonic() > deadline:
                    break
                began = time.perf_counter()
                post = asyncio.create_task(
                    http.post(
                        "/graphql",
                        json={
                            "query": REMEMBER,
                            "variables": {"input": {"content": f"latency probe {number}"}},
                        },
                    )
                )
                arrivals = [asyncio.create_task(_event(ws)) for ws in conns]
                response = await post
                responses.append((time.perf_counter() - began) * 1000)
                memory_id = response.json()["data"]["remember"]["memory"]["id"]
                seen = await asyncio.gather(*arrivals)
                if any(seen_id != memory_id for seen_id, _ in seen):
                    raise BenchError(f"a socket got another event than {memory_id}: {seen}")
                events.append((max(at for _, at in seen) - began) * 1000)
        if len(events) < 20:
            raise BenchError("too few events were timed: raise --max-seconds")
        return events, responses
    finally:
        for ws in conns:
            await ws.close()


async def _warm_up(http: httpx.AsyncClient, conns: list[ClientConnection]) -> None:
    """Subscribing is asynchronous on the server: write until every socket hears it."""
    for attempt in range(50):
        body = {"query": REMEMBER, "variables": {"input": {"content": f"warm-up {attempt}"}}}
        memory_id = (await http.post("/graphql", json=body)).json()["data"]["remember"]["memory"][
            "id"
        ]
        try:
            seen = await asyncio.gather(*(asyncio.wait_for(_event(ws), 0.5) for ws in conns))
        except TimeoutError:
            for ws in conns:  # drop what did arrive, so the next round starts clean
                while True:
                    try:
                        await asyncio.wait_for(ws.recv(), 0.2)
                    except TimeoutError:
                        break
            continue
        if all(seen_id == memory_id for seen_id, _ in seen):
            return
    raise BenchError("the subscriptions never started")


async def _event(ws: ClientConnection) -> tuple[str, float]:
    """The next event's memory id, and when it arrived."""
    message = json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))
    arrived = time.perf_counter()
    if message.get("type") != "next":
        raise BenchError(f"expected an event, got {message}")
    return message["payload"]["data"]["memoryChanged"]["memoryId"], arrived


def _p95(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=100, method="inclusive")[94]


def _wait_for(done: Any, what: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not done():
        if time.monotonic() > deadline:
            raise BenchError(f"timed out waiting for {what}")
        time.sleep(0.001)


def main(
    writes: Annotated[
        int, typer.Option(min=100, max=100_000, help="Memories written per side.")
    ] = 10_000,
    batch: Annotated[int, typer.Option(min=1, max=5_000)] = 500,
    idle: Annotated[
        int, typer.Option(min=0, max=10_000, help="Subscribers of other projects.")
    ] = 100,
    requests: Annotated[
        int, typer.Option(min=20, max=10_000, help="Mutations timed for latency.")
    ] = 300,
    sockets: Annotated[int, typer.Option(min=1, max=100, help="Websockets following.")] = 10,
    max_seconds: Annotated[
        float, typer.Option(min=1, max=600, help="Time limit of the latency phase.")
    ] = 60.0,
    json_out: Annotated[bool, typer.Option("--json", help="Also print JSON on stdout.")] = False,
) -> None:
    """Measure what subscriptions add to writes and how fast their events arrive."""
    out = console(stderr=json_out)
    figures: list[Figure] = []
    try:
        # Embeddings are not what is measured here, and would dominate every write.
        with environ(GRAPHMEM_EMBEDDER="none"), BenchEnv() as env:
            with out.status("write overhead..."):
                figures += write_overhead(env, writes, batch, idle)
            with out.status("event latency..."):
                figures += event_latency(env, requests, sockets, max_seconds)
    except BenchError as exc:
        out.print(f"[red]benchmark failed:[/] {exc}")
        raise typer.Exit(1) from None
    out.print(table(figures, title="graphmem subscriptions benchmark"))
    if json_out:
        typer.echo(to_json(figures, {"writes": writes, "idle": idle, "sockets": sockets}))


if __name__ == "__main__":
    typer.run(main)
