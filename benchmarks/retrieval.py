"""``python -m benchmarks.retrieval``: retrieval quality, ingest and latency figures.

1. Quality: recall@5/@10 and MRR of FULLTEXT, VECTOR and HYBRID on the
   labelled set of ``benchmarks/eval`` and on MADial-Bench.
2. Bulk ingest with embeddings through ``remember_many`` against the
   embedder's own batch throughput, in the same run.
3. At each scale (10,000 and 100,000 by default; ``--million`` adds
   1,000,000) and each project count (``--projects``, 1 and 100 by default:
   the same memories spread evenly over that many projects of one store,
   ``benchmarks.retrieval_scale``): knowledgeContext and hybrid search p50/p95
   through the Python API, query embedding included, beside the floor (one
   query embedding + one raw vector-index query over the whole store) and
   hybrid search without feedback (the ratio is with feedback over without),
   and the memory the database uses. Full-text statistics are a project's
   own, so latency has to hold with many projects in one store as it does
   with one; every (scale, projects) pair is held to its scale's target, and
   its figure keys name the project count when it is not 1
   (``knowledge_context_p95_100000_100p``). A scale smaller than a project
   count is not measured in that many projects.

Everything runs on each backend ``--backend`` names (``both`` by default): a
throwaway embedded FalkorDB under /tmp that is removed afterwards, and Neo4j,
either a test Neo4j this run starts (``benchmarks/neo4j_server.py``: heap
``--neo4j-heap``, page cache ``--neo4j-pagecache``) or the server at
``--neo4j-uri``, whose one database is emptied for each store (indexes
included). Each backend has its own floor: the same query embedding and one
raw query of its own vector index. Each phase is bounded by its own sizes.
Each (scale, projects) pair starts with an empty query-embedding cache, so its
floor embeds every query as the first pair's does.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any

import typer
from falkordb import FalkorDB, Graph

from benchmarks import baseline, recorded, retrieval_eval, retrieval_scale
from benchmarks.data import generate
from benchmarks.neo4j_server import (
    BackendOption,
    Neo4jGraph,
    Neo4jPasswordOption,
    Neo4jUriOption,
    Neo4jUserOption,
)
from benchmarks.report import Figure, console, table
from graphmem.api import GraphMem
from graphmem.services.embeddings import MiniLMEmbedder, memory_text
from graphmem.store.embedded import EmbeddedFalkorDB
from graphmem.store.falkordb import FalkorStore

LATENCY_TARGET_MS = 40.0
FLOOR_RATIO = 2.5
MILLION_TARGET_MS = 150.0
INGEST_RATIO = 0.8
DEFAULT_CACHE = Path(tempfile.gettempdir()) / "graphmem-bench-cache"


class Env:
    """An embedded FalkorDB in a temporary directory, and graphs on it."""

    name = "falkordb"

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(dir="/tmp", prefix="gmret-"))
        self.server = EmbeddedFalkorDB(self.dir)
        self.server.start()
        self.db = FalkorDB(
            unix_socket_path=str(self.server.socket_path),
            socket_timeout=600.0,
            client_name=self.server.client_name,
        )

    def graph(
        self, name: str, embedder: MiniLMEmbedder | None, *, vector_index: bool = True
    ) -> tuple[GraphMem, Graph]:
        store = FalkorStore(self.db, name)
        raw = self.db.select_graph(name)
        if vector_index:
            store.setup_schema()
        else:  # bulk loads build the vector index once, after the vectors are in
            for ddl in store.statements.script("schema"):
                if "VECTOR INDEX" not in ddl:
                    baseline.create_index(raw, ddl)
        return GraphMem(store, embedder=embedder, project_id=retrieval_scale.PROJECT), raw

    def drop(self, raw: Graph) -> None:
        raw.delete()

    def memory_mb(self) -> float | None:
        """What the database server holds in memory (all graphs), in MB."""
        return retrieval_scale.used_memory_mb(self.db)

    def close(self) -> None:
        try:
            self.db.close()
        finally:
            self.server.stop()
            shutil.rmtree(self.dir, ignore_errors=True)


class Neo4jEnv:
    """Neo4j (``benchmarks.neo4j_server.Neo4jTarget``): its one database, emptied for
    each graph asked for, so the graph asked for before is gone."""

    name = "neo4j"

    def __init__(self, target: Any) -> None:
        self.target = target

    def graph(
        self, name: str, embedder: MiniLMEmbedder | None, *, vector_index: bool = True
    ) -> tuple[GraphMem, Neo4jGraph]:
        store, raw = self.target.fresh(vector_index=vector_index)
        return GraphMem(store, embedder=embedder, project_id=retrieval_scale.PROJECT), raw

    def drop(self, raw: Neo4jGraph) -> None:
        """Nothing: the next graph empties the database."""

    def memory_mb(self) -> float | None:
        """The server's resident memory (heap, page cache, Lucene's mapped index
        files), when this run started it."""
        return self.target.memory_mb()  # type: ignore[no-any-return]

    def disk_mb(self) -> dict[str, float] | None:
        return self.target.disk_mb()  # type: ignore[no-any-return]

    def close(self) -> None:
        self.target.close()


def quality(env: Env | Neo4jEnv, embedder: MiniLMEmbedder, *, madial: bool) -> list[dict[str, Any]]:
    rows = []
    sets = [("own", retrieval_eval.load_own_set)]
    if madial and retrieval_eval.MADIAL_DIR.is_dir():
        sets.append(("madial", retrieval_eval.load_madial))
    for name, loader in sets:
        gm, raw = env.graph(f"quality_{name}", embedder)
        labelled = loader(gm).queries
        for mode in retrieval_eval.MODES:
            q = retrieval_eval.evaluate(gm, labelled, mode)
            rows.append(
                {
                    "set": name,
                    "mode": mode,
                    "queries": q.queries,
                    "recall@5": q.recall[5],
                    "recall@10": q.recall[10],
                    "mrr": q.mrr,
                }
            )
        env.drop(raw)
    return rows


def main(
    scales: Annotated[
        str, typer.Option(help="Comma-separated store sizes to time retrieval at.")
    ] = "10000,100000",
    projects: Annotated[
        str,
        typer.Option(help="Comma-separated project counts to spread each scale's memories over."),
    ] = "1,100",
    million: Annotated[
        bool, typer.Option("--million", help="Also load 1,000,000 memories (minutes).")
    ] = False,
    queries: Annotated[int, typer.Option(min=30, max=2_000, help="Queries per scale.")] = 220,
    pool: Annotated[
        int, typer.Option(min=100, max=200_000, help="Memories embedded for real.")
    ] = 20_000,
    ingest: Annotated[
        int, typer.Option(min=100, max=20_000, help="Memories in the ingest comparison.")
    ] = 2_000,
    madial: Annotated[bool, typer.Option(help="Also evaluate on MADial-Bench.")] = True,
    cache: Annotated[Path, typer.Option(help="Where pool embeddings are kept.")] = DEFAULT_CACHE,
    json_out: Annotated[bool, typer.Option("--json", help="Also print JSON on stdout.")] = False,
    record: Annotated[
        bool, typer.Option("--record", help="Write the ratios into docs/figures.md.")
    ] = False,
    backend: BackendOption = "both",
    neo4j_uri: Neo4jUriOption = None,
    neo4j_user: Neo4jUserOption = "neo4j",
    neo4j_password: Neo4jPasswordOption = None,
    neo4j_heap: Annotated[str, typer.Option(help="Heap of the Neo4j this run starts.")] = "2g",
    neo4j_pagecache: Annotated[
        str, typer.Option(help="Page cache of the Neo4j this run starts.")
    ] = "1g",
) -> None:
    """Measure retrieval quality, ingest throughput and latency at scale."""
    out = console(stderr=True)
    sizes = [int(s) for s in scales.split(",") if s.strip()]
    if million:
        sizes.append(1_000_000)
    counts = project_counts(projects)
    pairs: list[tuple[int, int]] = []
    for n in sizes:
        for count in counts:
            if count <= n:
                pairs.append((n, count))
            else:
                out.print(f"{n:,} memories in {count:,} projects would leave some empty: skipped")
    backends = retrieval_eval.chosen_backends(backend, neo4j_uri, out.print)
    embedder = MiniLMEmbedder()
    embedder.embed(["warm up"])
    texts = [
        memory_text(m["content"], m.get("rationale"))
        for m in generate(min(pool, max(sizes)), seed=7).memories
    ]
    vectors = retrieval_scale.pool_vectors(embedder, texts, cache / f"pool-{len(texts)}-seed7.npy")
    hints = retrieval_scale.queries(queries)
    info: dict[str, Any] = {
        "scales": sizes,
        "projects": counts,
        "pairs": pairs,
        "queries": queries,
        "pool": pool,
        "backends": backends,
        "quality": [],
    }
    figures: dict[str, list[Figure]] = {}
    passed = True
    for name in backends:
        # Each backend embeds afresh: nothing the one before it measured is
        # served to it from the vector cache.
        embedder.cache.clear()
        env: Env | Neo4jEnv
        if name == "neo4j":
            from benchmarks.neo4j_server import Neo4jTarget

            env = Neo4jEnv(
                Neo4jTarget(
                    neo4j_uri,
                    user=neo4j_user,
                    password=neo4j_password,
                    heap=neo4j_heap,
                    pagecache=neo4j_pagecache,
                    log=out.print,
                )
            )
        else:
            env = Env()
        try:
            rows, figures[name], measured = run_backend(
                env,
                embedder,
                pairs,
                vectors,
                hints,
                ingest=ingest,
                madial=madial,
                log=out.print,
            )
        finally:
            env.close()
        prefix = "" if name == "falkordb" else f"{name}_"
        info["quality"] += [{"backend": name, **row} for row in rows]
        info |= {prefix + key: value for key, value in measured.items()}
        passed = passed and hybrid_wins(rows)
    out.print(quality_table(info["quality"]))
    for name, found in figures.items():
        for count, group in by_projects(found).items():
            title = name if count == 1 else f"{name}, {count:,} projects"
            out.print(table(group, title=f"graphmem retrieval benchmark ({title})"))
    if len(figures) > 1 or len(counts) > 1:
        out.print(latency_table(figures, pairs))
    every = [
        dataclasses.replace(f, key=f.key if name == "falkordb" else f"{name}_{f.key}")
        for name, found in figures.items()
        for f in found
    ]
    against = recorded.speed(every)
    if record:
        recorded.record("retrieval", against)
    else:
        for line in recorded.regressions("retrieval", against):
            out.print(line)
    if json_out:
        sys.stdout.write(
            json.dumps({**info, "figures": [asdict(f) for f in every]}, indent=2) + "\n"
        )
    if any(f.passed is False for f in every) or not passed:
        raise typer.Exit(1)


def project_counts(text: str) -> list[int]:
    """``--projects``: distinct counts in the order given, each at least 1."""
    try:
        counts = list(dict.fromkeys(int(c) for c in text.split(",") if c.strip()))
    except ValueError as err:
        raise typer.BadParameter(
            f"not a list of counts: {text!r}", param_hint="--projects"
        ) from err
    if not counts or min(counts) < 1:
        raise typer.BadParameter("each count must be at least 1", param_hint="--projects")
    return counts


def label(n: int, projects: int) -> str:
    """How a figure's key names a (scale, projects) pair: ``100000``, ``100000_100p``."""
    return f"{n}" if projects == 1 else f"{n}_{projects}p"


def where(n: int, projects: int) -> str:
    """How a figure's name says it: ``100,000``, ``100,000 in 100 projects``."""
    return f"{n:,}" if projects == 1 else f"{n:,} in {projects:,} projects"


def by_projects(found: list[Figure]) -> dict[int, list[Figure]]:
    """Figures by the project count their key names (``label``); 1 when it names none."""
    groups: dict[int, list[Figure]] = {}
    for f in found:
        named = re.search(r"_(\d+)p$", f.key)
        groups.setdefault(int(named[1]) if named else 1, []).append(f)
    return groups


def run_backend(
    env: Env | Neo4jEnv,
    embedder: MiniLMEmbedder,
    pairs: list[tuple[int, int]],
    vectors: Any,
    hints: list[str],
    *,
    ingest: int,
    madial: bool,
    log: Callable[[str], None],
) -> tuple[list[dict[str, Any]], list[Figure], dict[str, Any]]:
    """Quality, ingest, and latency at each (size, project count) pair on one
    backend: its quality rows, its figures, and what else it measured (loads,
    memory)."""
    figures: list[Figure] = []
    info: dict[str, Any] = {}
    log(f"[bold]{env.name}: quality[/]")
    rows = quality(env, embedder, madial=madial)

    log(f"[bold]{env.name}: ingest[/]")
    gm, raw = env.graph("ingest", embedder)
    embed_rate, ingest_rate = retrieval_scale.ingest_throughput(gm, embedder, ingest)
    env.drop(raw)
    figures.append(
        Figure(
            key="ingest_with_embeddings",
            name="bulk ingest with embeddings",
            value=ingest_rate,
            unit="memories/s",
            baseline=embed_rate,
            ratio=embed_rate / ingest_rate,
            target=f">= {INGEST_RATIO:.0%} of the embedder's rate",
            passed=ingest_rate >= INGEST_RATIO * embed_rate,
            count=ingest,
        )
    )
    for n, count in pairs:
        figures += scale_run(env, embedder, n, count, vectors, hints, info, log=log)
    return rows, figures, info


def scale_run(
    env: Env | Neo4jEnv,
    embedder: MiniLMEmbedder,
    n: int,
    count: int,
    vectors: Any,
    hints: list[str],
    info: dict[str, Any],
    *,
    log: Callable[[str], None],
) -> list[Figure]:
    """Load ``n`` memories spread over ``count`` projects into a fresh graph and
    time the queries there: that pair's figures; its load and memory go to ``info``."""
    tag = label(n, count)
    spread = "" if count == 1 else f" in {count:,} projects"
    log(f"[bold]{env.name}: {n:,} memories{spread}[/]: loading")
    gm, raw = env.graph(f"scale_{tag}", embedder, vector_index=False)
    projects = retrieval_scale.project_ids(count)
    load = retrieval_scale.bulk_load(gm, raw, n, vectors, projects=projects, log=log)
    info[f"load_{tag}"] = load
    memory = env.memory_mb()
    if isinstance(env, Neo4jEnv) and (on_disk := env.disk_mb()) is not None:
        info[f"disk_mb_{tag}"] = on_disk
        log(f"  on disk: {', '.join(f'{k} {v:,.0f} MB' for k, v in on_disk.items())}")
    log(f"  loaded: {load}; timing {len(hints)} queries")
    # Every pair's floor embeds its queries, as the first pair's does: none is
    # served from the vector cache a pair before it filled.
    embedder.cache.clear()
    gm.warm()  # as a server does before its first request
    latencies = retrieval_scale.measure(gm, raw, embedder, hints, projects=projects)
    figures = scale_figures(n, latencies, projects=count)
    if memory is not None:
        info[f"used_memory_mb_{tag}"] = memory
        figures.append(
            Figure(
                key=f"db_memory_mb_{tag}",
                name=f"database memory at {where(n, count)}",
                value=memory,
                unit="MB",
                count=n,
            )
        )
    env.drop(raw)
    return figures


def latency_table(figures: dict[str, list[Figure]], pairs: list[tuple[int, int]]) -> Any:
    """knowledgeContext and HYBRID p50 / p95 beside each backend's floor, per
    size and project count."""
    from rich.table import Table

    out = Table(title="latency per backend, size and project count (ms, p50 / p95)")
    columns = ("backend", "memories", "projects", "floor", "knowledgeContext", "HYBRID search")
    for column in columns:
        out.add_column(column, justify="left" if column == "backend" else "right")
    for name, found in figures.items():
        by_key = {f.key: f.value for f in found}
        for n, count in pairs:
            tag = label(n, count)
            out.add_row(
                name,
                f"{n:,}",
                f"{count:,}",
                *(
                    f"{by_key[f'{what}_p50_{tag}']:.1f} / {by_key[f'{what}_p95_{tag}']:.1f}"
                    for what in ("floor", "knowledge_context", "search_hybrid")
                ),
            )
    return out


def scale_figures(
    n: int, latencies: list[retrieval_scale.Latency], *, projects: int = 1
) -> list[Figure]:
    """The figures of one (scale, projects) pair; the target is the scale's at
    any project count."""
    tag, at = label(n, projects), where(n, projects)
    by_name = {lat.name: lat for lat in latencies}
    floor = by_name["floor"]
    figures = [
        Figure(
            key=f"floor_p50_{tag}",
            name=f"floor p50 at {at}",
            value=floor.p50_ms,
            unit="ms",
            count=floor.count,
        ),
        Figure(
            key=f"floor_p95_{tag}",
            name=f"floor p95 at {at}",
            value=floor.p95_ms,
            unit="ms",
            count=floor.count,
        ),
    ]
    for name in ("knowledge_context", "search_hybrid"):
        lat = by_name[name]
        figures.append(
            Figure(
                key=f"{name}_p50_{tag}",
                name=f"{name} p50 at {at}",
                value=lat.p50_ms,
                unit="ms",
                count=lat.count,
            )
        )
        if n >= 1_000_000:
            target, passed = f"<= {MILLION_TARGET_MS:.0f} ms", lat.p95_ms <= MILLION_TARGET_MS
            if name != "search_hybrid":
                target, passed = "-", None
        elif n >= 100_000:
            target = f"<= {LATENCY_TARGET_MS:.0f} ms and <= {FLOOR_RATIO}x floor"
            passed = lat.p95_ms <= LATENCY_TARGET_MS and lat.p95_ms <= FLOOR_RATIO * floor.p95_ms
        else:
            target, passed = None, None
        figures.append(
            Figure(
                key=f"{name}_p95_{tag}",
                name=f"{name} p95 at {at}",
                value=lat.p95_ms,
                unit="ms",
                baseline=floor.p95_ms,
                ratio=lat.p95_ms / floor.p95_ms,
                target=target,
                passed=passed,
                count=lat.count,
            )
        )
    plain = by_name["search_hybrid_no_feedback"]
    for stat in ("p50", "p95"):
        with_feedback = getattr(by_name["search_hybrid"], f"{stat}_ms")
        without = getattr(plain, f"{stat}_ms")
        figures.append(
            Figure(
                key=f"search_hybrid_feedback_{stat}_{tag}",
                name=f"search_hybrid {stat} at {at} against no feedback",
                value=with_feedback,
                unit="ms",
                baseline=without,
                ratio=with_feedback / without,
                count=plain.count,
            )
        )
    return figures


def quality_table(rows: list[dict[str, Any]]) -> Any:
    from rich.table import Table

    out = Table(title="retrieval quality")
    for column in ("backend", "set", "mode", "queries", "recall@5", "recall@10", "MRR"):
        out.add_column(column, justify="left" if column in ("backend", "set", "mode") else "right")
    for row in rows:
        out.add_row(
            row.get("backend", "falkordb"),
            row["set"],
            row["mode"],
            str(row["queries"]),
            f"{row['recall@5']:.3f}",
            f"{row['recall@10']:.3f}",
            f"{row['mrr']:.3f}",
        )
    return out


def hybrid_wins(rows: list[dict[str, Any]]) -> bool:
    """HYBRID beats the best single mode on recall@5 on the labelled set."""
    own = {row["mode"]: row["recall@5"] for row in rows if row["set"] == "own"}
    return own["HYBRID"] > max(own["FULLTEXT"], own["VECTOR"])


if __name__ == "__main__":
    typer.run(main)
