"""``python -m benchmarks.observability``: what metrics cost on the hot paths.

Three comparisons, each against a baseline measured in the same run:

- the statement wrapper alone, around a function that does nothing: the
  price per statement in microseconds, free of database noise;
- point reads (``get_memories`` by id) on the embedded FalkorDB through a
  plain store and through one with the metrics observer installed, two store
  objects on the same graph, run in alternating blocks so drift hits both;
- ``GET /healthz`` over HTTP on uvicorn, with and without the request
  middleware (request id, access log, HTTP metrics).
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import httpx
import typer
import uvicorn
from rich.console import Console
from rich.table import Table
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from benchmarks.harness import HOST, BenchEnv, BenchError
from graphmem.server.observability.instruments import observe_statements
from graphmem.server.observability.metrics import Metrics
from graphmem.server.observability.middleware import RequestMiddleware
from graphmem.store.falkordb import FalkorStore

console = Console(stderr=True)


def per_call(run: Callable[[], Any], calls: int) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        run()
    return (time.perf_counter() - started) / calls


class _NoStore:
    dialect = "falkordb"

    def read(self, name: str, params: Any = None) -> list[Any]:
        return []

    def write(self, name: str, params: Any = None) -> list[Any]:
        return []


def wrapper_alone(calls: int) -> tuple[float, float]:
    """Seconds per call of a do-nothing read, bare and wrapped (best of 5 rounds)."""
    bare, wrapped = _NoStore(), _NoStore()
    observe_statements(wrapped, Metrics().observe_statement)
    rounds = [
        (
            per_call(lambda: bare.read("get_memories"), calls),
            per_call(lambda: wrapped.read("get_memories"), calls),
        )
        for _ in range(5)
    ]
    return min(r[0] for r in rounds), min(r[1] for r in rounds)


def point_reads(env: BenchEnv, calls: int, block: int) -> tuple[list[float], list[float]]:
    """Per-read seconds through a plain and a metered store on one graph."""
    gm, _ = env.scratch_graphs("observability")
    memory_id = gm.remember({"content": "what a point read finds"}).id
    plain: FalkorStore = gm.store  # type: ignore[assignment]
    metered = FalkorStore(plain._db, plain.graph_name)
    observe_statements(metered, Metrics().observe_statement)
    params = {"ids": [memory_id], "project_id": gm.default_project}
    for store in (plain, metered):  # warm both connections and caches
        for _ in range(200):
            store.read("get_memories", params)
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(max(1, calls // block)):
        for side, store in enumerate((plain, metered)):
            for _ in range(block):
                started = time.perf_counter()
                store.read("get_memories", params)
                times[side].append(time.perf_counter() - started)
    return times


@contextmanager
def _served(app: Starlette) -> Iterator[httpx.Client]:
    server = uvicorn.Server(uvicorn.Config(app, host=HOST, port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started and thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.01)
        if not server.started:
            raise BenchError("uvicorn did not start")
        port = server.servers[0].sockets[0].getsockname()[1]
        with httpx.Client(base_url=f"http://{HOST}:{port}", timeout=10.0) as client:
            yield client
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def http_requests(requests: int) -> tuple[list[float], list[float]]:
    """Per-request seconds of ``GET /healthz`` without and with the middleware."""

    async def healthz(_: Request) -> JSONResponse:
        return JSONResponse({"status": "ok"})

    def app(middleware: list[Middleware]) -> Starlette:
        return Starlette(routes=[Route("/healthz", healthz)], middleware=middleware)

    bare = app([])
    observed = app([Middleware(RequestMiddleware, metrics=Metrics())])
    times: tuple[list[float], list[float]] = ([], [])
    with _served(bare) as plain_client, _served(observed) as observed_client:
        for client in (plain_client, observed_client):
            for _ in range(100):
                client.get("/healthz")
        for _ in range(max(1, requests // 100)):
            for side, client in enumerate((plain_client, observed_client)):
                for _ in range(100):
                    started = time.perf_counter()
                    client.get("/healthz")
                    times[side].append(time.perf_counter() - started)
    return times


def _row(table: Table, what: str, base: list[float], measured: list[float]) -> None:
    b50, m50 = statistics.median(base), statistics.median(measured)
    b95 = statistics.quantiles(base, n=20)[-1]
    m95 = statistics.quantiles(measured, n=20)[-1]
    table.add_row(
        what,
        f"{b50 * 1e6:.1f} / {b95 * 1e6:.1f}",
        f"{m50 * 1e6:.1f} / {m95 * 1e6:.1f}",
        f"{(m50 - b50) * 1e6:+.1f}",
        f"{m50 / b50:.3f}",
    )


def main(
    calls: Annotated[
        int, typer.Option(min=1_000, max=200_000, help="Point reads per side.")
    ] = 20_000,
    requests: Annotated[
        int, typer.Option(min=100, max=20_000, help="HTTP requests per side.")
    ] = 2_000,
) -> None:
    bare, wrapped = wrapper_alone(200_000)
    console.print(
        f"statement wrapper alone: {bare * 1e9:.0f} ns bare, {wrapped * 1e9:.0f} ns wrapped "
        f"(+{(wrapped - bare) * 1e9:.0f} ns per statement, best of 5 x 200,000 calls)"
    )
    table = Table("what", "baseline p50 / p95 µs", "observed p50 / p95 µs", "Δ p50 µs", "ratio")
    with BenchEnv() as env:
        plain, metered = point_reads(env, calls, block=500)
    _row(table, f"point read get_memories ({calls} per side)", plain, metered)
    bare_http, observed_http = http_requests(requests)
    _row(table, f"GET /healthz over HTTP ({requests} per side)", bare_http, observed_http)
    console.print(table)


if __name__ == "__main__":
    typer.run(main)
