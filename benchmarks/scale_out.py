"""``python -m benchmarks.scale_out``: several graphmem servers on one database.

Two figures, each the same workload against three ``graphmem serve``
processes on one embedded FalkorDB beside one process alone, in the same run
and on the same data (the two set-ups alternate, round by round):

- ``remember`` throughput (one memory per request, distinct texts);
- ``memory(id)`` read throughput.

Clients spread their requests over the servers round robin. Embeddings are
off (``GRAPHMEM_EMBEDDER=none``), so what is measured is graphmem's request
path and the database; docs/scaling.md says where embedding work goes. The
run fails if a request fails or an acknowledged write is not in the store.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import time
from typing import Annotated

import httpx
import typer

from benchmarks.harness import PROJECT, BenchEnv, BenchError, environ
from benchmarks.report import Figure, console, table, to_json

REMEMBER = """mutation($input: MemoryInput!) { remember(input: $input) { memory { id } } }"""
READ = """query($id: ID!) { memory(id: $id) { id content } }"""


async def _drive(
    urls: list[str], requests: int, clients: int, max_seconds: float, make: object
) -> tuple[float, list[dict]]:
    """Send ``requests`` requests from ``clients`` concurrent clients, round robin
    over the servers; returns requests per second and the response bodies."""
    counter = itertools.count()
    bodies: list[dict] = []
    deadline = time.monotonic() + max_seconds

    async def client(http: httpx.AsyncClient) -> None:
        while time.monotonic() < deadline:
            number = next(counter)
            if number >= requests:
                return
            query, variables = make(number)  # type: ignore[operator]
            url = urls[number % len(urls)]
            response = await http.post(
                f"{url}/graphql", json={"query": query, "variables": variables}
            )
            body = response.json()
            if body.get("errors"):
                raise BenchError(f"request failed: {body['errors']}")
            bodies.append(body)

    began = time.perf_counter()
    async with httpx.AsyncClient(timeout=30.0) as http:
        await asyncio.gather(*(client(http) for _ in range(clients)))
    elapsed = time.perf_counter() - began
    if len(bodies) < requests // 2:
        raise BenchError(f"only {len(bodies)} of {requests} requests in time: raise --max-seconds")
    return len(bodies) / elapsed, bodies


def measure(
    env: BenchEnv, servers: int, requests: int, clients: int, rounds: int, max_seconds: float
) -> list[Figure]:
    rng = random.Random(11)
    written: list[str] = []
    rates: dict[tuple[str, int], list[float]] = {}
    serial = itertools.count()

    def remember(_: int) -> tuple[str, dict]:
        item = {
            "content": f"service {next(serial)} keeps shard {rng.randint(0, 10**9)} in its region",
            "memoryType": "FACT",
            "sessionId": f"scale-{rng.randint(0, 19)}",
        }
        return REMEMBER, {"input": item}

    def read(_: int) -> tuple[str, dict]:
        return READ, {"id": rng.choice(written)}

    for number in range(rounds):
        order = (1, servers) if number % 2 == 0 else (servers, 1)
        for count in order:
            with contextlib.ExitStack() as stack:
                urls = [stack.enter_context(env.served()) for _ in range(count)]
                rate, bodies = asyncio.run(_drive(urls, requests, clients, max_seconds, remember))
                written += [b["data"]["remember"]["memory"]["id"] for b in bodies]
                rates.setdefault(("write", count), []).append(rate)
                rate, _ = asyncio.run(_drive(urls, requests, clients, max_seconds, read))
                rates.setdefault(("read", count), []).append(rate)
    stored = env.gm.get_many(written, project_id=PROJECT)
    missing = sum(1 for m in stored if m is None)
    if missing:
        raise BenchError(f"{missing} acknowledged writes are not in the store")
    figures = []
    for kind, name in (("write", "remember"), ("read", "memory(id)")):
        many, one = max(rates[(kind, servers)]), max(rates[(kind, 1)])
        figures.append(
            Figure(
                key=f"scale_out_{kind}_rate",
                name=f"{name}, {servers} servers on one database vs 1 server ({clients} clients)",
                value=many,
                unit="req/s",
                baseline=one,
                ratio=one / many,
                count=len(written) if kind == "write" else requests * rounds * 2,
            )
        )
    return figures


def main(
    servers: Annotated[int, typer.Option(min=2, max=8, help="Servers in the scaled set-up.")] = 3,
    requests: Annotated[
        int, typer.Option(min=100, max=100_000, help="Requests per phase.")
    ] = 1_500,
    clients: Annotated[int, typer.Option(min=1, max=64, help="Concurrent clients.")] = 12,
    rounds: Annotated[int, typer.Option(min=1, max=6, help="Alternating rounds.")] = 2,
    max_seconds: Annotated[float, typer.Option(min=5, max=600, help="Bound per phase.")] = 120.0,
    json: Annotated[bool, typer.Option("--json", help="Also print JSON on stdout.")] = False,
) -> None:
    """Throughput of several servers on one embedded database beside one server."""
    out = console(stderr=json)
    try:
        with (
            environ(GRAPHMEM_EMBEDDER="none", GRAPHMEM_SCHEDULER="true"),
            BenchEnv() as env,
            out.status("measuring..."),
        ):
            figures = measure(env, servers, requests, clients, rounds, max_seconds)
    except BenchError as exc:
        out.print(f"[red]benchmark failed:[/] {exc}")
        raise typer.Exit(1) from None
    out.print(table(figures, title="graphmem scale-out benchmark"))
    if json:
        typer.echo(to_json(figures, {"servers": servers, "clients": clients, "rounds": rounds}))


if __name__ == "__main__":
    typer.run(main)
