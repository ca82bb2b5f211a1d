"""``python -m benchmarks.whatif``: what-if tuning at scale.

One figure, beside a baseline measured in the same run on the same graph: a
what-if (the promotion plan of every session and the archival plan, under the
rules in force and under a variant, then the diff) over a project of N
memories, against the plain dry run of the rules in force alone (a dry
promotion run of every session plus a dry archival run). A what-if plans
twice, so about 2x the plain dry run is the expected cost.
"""

from __future__ import annotations

import time
from typing import Annotated

import typer
from rich.console import Console

from benchmarks.data import generate
from benchmarks.harness import BenchEnv, BenchError, environ
from benchmarks.report import Figure, console, table, to_json

VARIANT = {
    "preset": "jarvis",
    "rules": {"promote_threshold": 0.5, "archive_importance_below": 0.4},
}


def seed(env: BenchEnv, n: int, batch: int) -> list[str]:
    """N memories in sessions of ~250, with usage spread over the last three days."""
    data = generate(n, seed=n)
    for start in range(0, n, batch):
        env.gm.remember_many(data.memories[start : start + batch], dedup=False)
    # Usage and age differ the way they do in a live store: some items are
    # stale for their tier, some were promoted before, few were used often.
    env.gm.store._graph.query(
        "MATCH (m:Memory) SET m.access_count = toInteger(rand() * 12), "
        "m.last_accessed_at = m.created_at - rand() * 259200.0, "
        "m.suggested_by = 'implicit'"
    )
    env.gm.store._graph.query("MATCH (m:Memory) WHERE rand() < 0.3 SET m.tier = 'episodic'")
    return data.sessions


def plain_dry_run(env: BenchEnv, sessions: list[str]) -> tuple[int, int]:
    promoted = sum(len(env.gm.run_promotion(s, dry_run=True).candidates) for s in sessions)
    return promoted, len(env.gm.archive_stale(dry_run=True).items)


def measure(env: BenchEnv, n: int, rounds: int, out: Console) -> list[Figure]:
    sessions = [
        row["id"]
        for row in env.gm.store.read("whatif_sessions", {"project_id": env.gm.default_project})
    ]
    if len(sessions) < 2:
        raise BenchError("the project has too few sessions to plan")
    plain: list[float] = []
    whatif: list[float] = []
    changes = 0
    for _ in range(rounds):
        # Alternate, so drift in the machine's load falls on both sides.
        began = time.perf_counter()
        promote, archive = plain_dry_run(env, sessions)
        plain.append(time.perf_counter() - began)
        began = time.perf_counter()
        report = env.gm.what_if(VARIANT)
        whatif.append(time.perf_counter() - began)
        changes = report.changed
    if not promote or not archive or not changes:
        raise BenchError(
            f"the data did not exercise the plans: {promote} promotions, {archive} archivals, "
            f"{changes} changes"
        )
    best_plain, best_whatif = min(plain), min(whatif)
    out.print(
        f"{len(sessions)} sessions; plain dry run: {promote:,} promotions, {archive:,} "
        f"archivals; variant {VARIANT}: {changes:,} memories change"
    )
    return [
        Figure(
            key="whatif_s",
            name=f"what-if at {n:,} memories ({changes:,} changes) vs plain dry run",
            value=best_whatif,
            unit="s",
            baseline=best_plain,
            ratio=best_whatif / best_plain,
            target="<= 3x the plain dry run",
            passed=best_whatif / best_plain <= 3.0,
            count=n,
        )
    ]


def main(
    n: Annotated[int, typer.Option(min=1_000, max=1_000_000, help="Memories in the project.")] = (
        100_000
    ),
    batch: Annotated[int, typer.Option(min=100, max=5_000)] = 5_000,
    rounds: Annotated[int, typer.Option(min=1, max=10, help="Alternating timed rounds.")] = 3,
    json: Annotated[bool, typer.Option("--json", help="Also print JSON on stdout.")] = False,
) -> None:
    """Time a what-if beside a plain dry run of promotion and archival."""
    out = console(stderr=json)
    try:
        # Embeddings play no part in planning; loading without them keeps the seed quick.
        with environ(GRAPHMEM_EMBEDDER="none"), BenchEnv() as env:
            with out.status(f"writing {n:,} memories..."):
                began = time.perf_counter()
                seed(env, n, batch)
                out.print(f"seeded {n:,} memories in {time.perf_counter() - began:.0f} s")
            with out.status("timing..."):
                figures = measure(env, n, rounds, out)
    except BenchError as exc:
        out.print(f"[red]benchmark failed:[/] {exc}")
        raise typer.Exit(1) from None
    out.print(table(figures, title="graphmem what-if benchmark"))
    if json:
        typer.echo(to_json(figures, {"n": n, "rounds": rounds}))


if __name__ == "__main__":
    typer.run(main)
