"""``python -m benchmarks.consolidation``: what consolidation finds and writes,
what it costs, and whether retrieval still finds what it found before.

**Recall.** Each dev set (own, conversations, MADial when present) is written
through the Python API with embeddings on, knowledgeContext recall@10 and
MRR@10 are measured, every project of the set is consolidated, and the same
queries are asked again. A gold memory that was consolidated counts as found
when the memory standing for it is returned: itself, or the consolidated
memory it was archived into (followed through a chain of consolidations); two
gold memories consolidated into one are one gold memory afterwards.

**Scale.** A workload of ``--memories`` (100,000 by default) with realistic
repetition: ``benchmarks.data`` memories (every type, sessions, relations,
supersessions), of which ``--repeat-share`` (30%) are rewordings of an
earlier memory (a few prefixes and suffixes an agent adds when it writes the
same thing again), a few subjects repeated far more often than others.
Embedding 100,000 texts on two cores takes over half an hour, so the base
memories take real embeddings of a pool of ``--pool`` texts (cached on disk):
memory ``i`` beyond the pool takes a pool vector turned far (cosine ~0.6, no
false near duplicate), a rewording takes its original's vector turned a
little (cosine ~0.95). Memories are written without a vector index, their
vectors in bulk, then the index is built once (the bulk path of
``benchmarks.retrieval_scale``). Printed: groups found, memories
consolidated, live memories and database memory before and after, and the
job's time split into its dry run (read and group) and the writes (the
consolidated statements embedded by the real model).
"""

from __future__ import annotations

import random
import time
from array import array
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from rich.console import Console
from rich.table import Table

from benchmarks import retrieval_eval, retrieval_scale
from benchmarks.data import generate
from benchmarks.retrieval import Env
from graphmem.api import GraphMem
from graphmem.services.consolidator import ConsolidationResult
from graphmem.services.embeddings import MiniLMEmbedder, memory_text

out = Console()
PROJECT = retrieval_scale.PROJECT
BASE_NOISE = 0.07
"""Per-dimension noise on a unit 384-d vector: cosine ~0.6 to the pool vector."""
REPEAT_NOISE = 0.016
"""Cosine ~0.95 between a rewording and its original."""
REWORDINGS = (
    "{content}",
    "Again: {content}",
    "Confirmed: {content}",
    "{content} (seen again)",
    "Noted once more: {content}",
    "Reminder: {content}",
)
CACHE = Path.home() / ".cache" / "graphmem-bench"


# -- recall on the dev sets ------------------------------------------------------


def recall_rows(
    env: Env, embedder: MiniLMEmbedder, sets: Sequence[str], *, reworded: bool
) -> list[dict[str, Any]]:
    rows = []
    for name in sets:
        gm, _ = env.graph(f"recall_{name}{'_reworded' if reworded else ''}", embedder)
        dev = retrieval_eval.LOADERS[name](gm)
        memories = sum(len(c) for c in dev.corpus.values())
        if reworded:
            memories += reword(gm, dev)
            name += " + rewordings"
        before = retrieval_eval.evaluate(gm, dev.queries, retrieval_eval.CONTEXT)
        projects = sorted({q.project for q in dev.queries}, key=str)
        started = time.perf_counter()
        results = [gm.consolidate(project_id=p) for p in projects]
        took = time.perf_counter() - started
        standing = standing_for(results)
        mapped = [
            retrieval_eval.LabelledQuery(
                q.text, frozenset(standing.get(g, g) for g in q.relevant), q.kind, q.project
            )
            for q in dev.queries
        ]
        after = retrieval_eval.evaluate(gm, mapped, retrieval_eval.CONTEXT)
        rows.append(
            {
                "set": name,
                "memories": memories,
                "queries": len(dev.queries),
                "groups": sum(len(r.consolidated) for r in results),
                "consolidated": sum(r.memories_consolidated for r in results),
                "gold_consolidated": sum(
                    1 for q in dev.queries for g in q.relevant if g in standing
                ),
                "recall_before": before.recall[10],
                "recall_after": after.recall[10],
                "mrr_before": before.mrr,
                "mrr_after": after.mrr,
                "seconds": took,
            }
        )
        out.print(rows[-1])
    return rows


def reword(gm: GraphMem, dev: retrieval_eval.DevSet) -> int:
    """Write every live, current memory of the set again, reworded (dedup off, as
    an import would): the repetition consolidation is for, on memories whose
    questions are known. Returns how many were written."""
    written = 0
    for project, corpus in dev.corpus.items():
        items = [
            {
                "content": REWORDINGS[1 + i % (len(REWORDINGS) - 1)].format(content=m.content),
                "memory_type": m.memory_type.value if m.memory_type else None,
                "session_id": m.session_id,
                "occurred_at": m.occurred,
                "tags": m.tags,
                "source": "import",
            }
            for i, m in enumerate(gm.get_many(list(corpus), project_id=project))
            if m is not None and m.superseded_by is None and m.tier.value != "archived"
        ]
        written += len(gm.remember_many(items, project_id=project, dedup=False))
    return written


def standing_for(results: Sequence[ConsolidationResult]) -> dict[str, str]:
    """Each consolidated source -> the live memory standing for it now."""
    into = {s: c.memory_id for r in results for c in r.consolidated for s in c.source_ids}

    def follow(memory_id: str) -> str:
        while memory_id in into:
            memory_id = into[memory_id]
        return memory_id

    return {source: follow(source) for source in into}


# -- the scale workload ------------------------------------------------------------


def workload(n: int, repeat_share: float, seed: int) -> tuple[list[dict[str, Any]], list[int]]:
    """``n`` memories: base ones from the generator, then rewordings of earlier ones
    interleaved; ``origin[i]`` is the base index memory ``i`` repeats (itself if base)."""
    rng = random.Random(seed)
    repeats = int(n * repeat_share)
    base = generate(n - repeats, seed=seed).memories
    hot = rng.sample(range(len(base)), k=max(1, len(base) // 50))
    items: list[dict[str, Any]] = []
    origin: list[int] = []
    pending = sorted(rng.randrange(1, n) for _ in range(repeats))
    b = 0
    for position in range(n):
        if pending and pending[0] == position and b > 0:
            pending.pop(0)
            # a few subjects come back far more often (a recurring issue)
            source = rng.choice(hot) if rng.random() < 0.3 else rng.randrange(len(base))
            source = min(source, b - 1)
            item = dict(base[source])
            item["content"] = rng.choice(REWORDINGS).format(content=base[source]["content"])
            items.append(item)
            origin.append(source)
        elif b < len(base):
            items.append(base[b])
            origin.append(b)
            b += 1
        else:
            source = rng.randrange(len(base))
            items.append(dict(base[source]) | {"content": "Again: " + base[source]["content"]})
            origin.append(source)
    return items, origin


def load_workload(
    gm: GraphMem, raw: Any, items: list[dict[str, Any]], origin: list[int], pool: np.ndarray
) -> dict[str, float]:
    started = time.perf_counter()
    ids: list[str] = []
    for start in range(0, len(items), retrieval_scale.LOAD_BATCH):
        ids += gm.remember_many(
            items[start : start + retrieval_scale.LOAD_BATCH], project_id=PROJECT, dedup=False
        )
    written = time.perf_counter()
    rng = np.random.default_rng(7)
    base_count = max(origin) + 1
    base = pool[np.arange(base_count) % len(pool)].copy()
    beyond = np.arange(base_count) >= len(pool)
    base[beyond] += rng.normal(0.0, BASE_NOISE, size=(int(beyond.sum()), pool.shape[1]))
    vectors = base[np.array(origin)]
    first: dict[int, int] = {}  # a base memory's own position; later ones are rewordings
    for i, o in enumerate(origin):
        if o in first:
            vectors[i] = vectors[i] + rng.normal(0.0, REPEAT_NOISE, size=pool.shape[1])
        else:
            first[o] = i
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors = vectors.astype(np.float32)
    for start in range(0, len(ids), retrieval_scale.VECTOR_BATCH):
        stop = min(start + retrieval_scale.VECTOR_BATCH, len(ids))
        gm.retrieval.store_embeddings(
            [
                {"id": ids[i], "project_id": PROJECT, "embedding": array("f", vectors[i].tobytes())}
                for i in range(start, stop)
            ]
        )
    vectors_done = time.perf_counter()
    retrieval_scale.build_vector_index(raw, pool.shape[1])
    indexed = time.perf_counter()
    dataset = generate(base_count, seed=7)
    base_ids = [ids[first[o]] for o in range(base_count)]
    retrieval_scale.relate(raw, base_ids, dataset)
    return {
        "write_s": written - started,
        "vectors_s": vectors_done - written,
        "index_s": indexed - vectors_done,
        "relations_s": time.perf_counter() - indexed,
    }


def live_count(raw: Any) -> int:
    rows = raw.ro_query(
        "MATCH (m:Memory) WHERE m.project_id = $p AND m.tier <> 'archived' "
        "AND m.superseded_by IS NULL RETURN count(m)",
        {"p": PROJECT},
    ).result_set
    return int(rows[0][0])


def scale_row(
    env: Env, embedder: MiniLMEmbedder, n: int, repeat_share: float, pool_size: int
) -> dict[str, Any]:
    items, origin = workload(n, repeat_share, seed=7)
    texts = [memory_text(m["content"], m.get("rationale")) for m in generate(pool_size).memories]
    pool = retrieval_scale.pool_vectors(embedder, texts, CACHE / f"pool-{len(texts)}-seed7.npy")
    gm, raw = env.graph(f"scale_{n}", embedder, vector_index=False)
    out.print(f"[bold]{n:,} memories[/] ({repeat_share:.0%} rewordings): loading")
    load = load_workload(gm, raw, items, origin, pool)
    out.print(f"  loaded: {load}")
    live_before = live_count(raw)
    mb_before = retrieval_scale.used_memory_mb(env.db)
    started = time.perf_counter()
    dry = gm.consolidate(dry_run=True, project_id=PROJECT)
    dry_s = time.perf_counter() - started
    out.print(f"  dry run: {len(dry.groups):,} groups in {dry_s:.1f} s; the three largest:")
    for group in dry.groups[:3]:
        out.print(f"    {len(group.members)} members: {group.content[:160]}", crop=False)
    started = time.perf_counter()
    done = gm.consolidate(project_id=PROJECT)
    job_s = time.perf_counter() - started
    return {
        "memories": n,
        "eligible": done.eligible,
        "groups_found": len(dry.groups),
        "groups_written": len(done.consolidated),
        "memories_consolidated": done.memories_consolidated,
        "skipped": len(done.notes),
        "live_before": live_before,
        "live_after": live_count(raw),
        "db_mb_before": mb_before,
        "db_mb_after": retrieval_scale.used_memory_mb(env.db),
        "dry_run_s": dry_s,
        "job_s": job_s,
        **load,
    }


def main(
    memories: Annotated[
        int, typer.Option(help="Memories in the scale workload (0: skip).")
    ] = 100_000,
    repeat_share: Annotated[float, typer.Option(help="Share of rewordings.")] = 0.3,
    pool: Annotated[int, typer.Option(help="Texts embedded for real.")] = 3_000,
    sets: Annotated[str, typer.Option(help="Dev sets, comma-separated ('' skips).")] = (
        "own,conversations,madial"
    ),
    rewordings: Annotated[
        bool, typer.Option(help="Each set again with every memory also written reworded.")
    ] = True,
) -> None:
    embedder = MiniLMEmbedder()
    env = Env()
    try:
        names = [
            s
            for s in sets.split(",")
            if s and (s != "madial" or retrieval_eval.MADIAL_DIR.is_dir())
        ]
        rows = [
            row
            for reworded in ((False, True) if rewordings else (False,))
            for row in recall_rows(env, embedder, names, reworded=reworded)
        ]
        if rows:
            table = Table(title="knowledgeContext@10 before and after consolidation")
            table.add_column("figure")
            for row in rows:
                table.add_column(row["set"], justify="right")
            for key in list(rows[0])[1:]:
                table.add_row(key, *(_cell(row[key]) for row in rows))
            out.print(table)
        if memories:
            row = scale_row(env, embedder, memories, repeat_share, pool)
            table = Table(title="consolidation at scale")
            table.add_column("figure")
            table.add_column("value", justify="right")
            for key, value in row.items():
                table.add_row(key, _cell(value))
            out.print(table)
    finally:
        env.close()


def _cell(value: Any) -> str:
    return f"{value:,.3f}" if isinstance(value, float) else f"{value:,}"


if __name__ == "__main__":
    typer.run(main)
