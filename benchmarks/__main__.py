"""``python -m benchmarks``: run the write/read benchmark and print its figures."""

from __future__ import annotations

from typing import Annotated

import typer

from benchmarks.harness import BenchError
from benchmarks.report import console, show, to_json
from benchmarks.write_read import BenchConfig, run
from graphmem.domain.checks import MAX_BATCH_SIZE

MAX_ITEMS = 100_000


def main(
    n: Annotated[
        int, typer.Option(min=1, max=MAX_ITEMS, help="Memories written through the Python API.")
    ] = 10_000,
    batch: Annotated[
        int, typer.Option(min=1, max=MAX_BATCH_SIZE, help="Memories per remember_many call.")
    ] = 1_000,
    requests: Annotated[
        int, typer.Option(min=1, max=MAX_ITEMS, help="HTTP requests per phase (writes, reads).")
    ] = 1_000,
    per_request: Annotated[
        int, typer.Option(min=1, max=100, help="remember mutations per write request.")
    ] = 10,
    concurrency: Annotated[int, typer.Option(min=1, max=32, help="Write requests in flight.")] = 4,
    max_seconds: Annotated[
        float, typer.Option(min=1, max=600, help="Time limit of each phase.")
    ] = 120.0,
    json: Annotated[
        bool,
        typer.Option(
            "--json", help="Also print the figures as JSON on stdout (the table goes to stderr)."
        ),
    ] = False,
) -> None:
    """Measure graphmem's write throughput and read latency against raw FalkorDB."""
    config = BenchConfig(
        n=n,
        batch=batch,
        requests=requests,
        per_request=per_request,
        concurrency=concurrency,
        max_seconds=max_seconds,
    )
    out = console(stderr=json)
    try:
        with out.status("benchmarking..."):
            figures, info = run(config)
    except BenchError as exc:
        out.print(f"[red]benchmark failed:[/] {exc}")
        raise typer.Exit(1) from None
    show(figures, info, out)
    if json:
        typer.echo(to_json(figures, info))


typer.run(main)
