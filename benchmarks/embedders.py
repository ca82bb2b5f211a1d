"""``python -m benchmarks.embedders``: the ONNX embedders beside sentence-transformers.

Four runs, each in a child process of its own so that its memory is its own:
ONNX int8 (the default, shipped in the package), ONNX fp32 (exported with
``tools/export_onnx.py --fp32`` into a cache folder the first time), torch
fp32 through sentence-transformers on every core, and torch on one thread
(the server's setting before ONNX: the "before" of ingest). Each reports:

- throughput: memory-sized texts embedded in ingest batches of 256;
- single-query latency p50/p95: distinct short queries one at a time, the
  cache off, so every one runs the model;
- memory: the process's resident set after loading and using the model, and
  its growth over the same process before the model was loaded;
- quality: recall@10 and MRR of VECTOR and HYBRID search on the labelled set
  of ``benchmarks/eval`` and on MADial-Bench;
- ingest: memories/s through ``remember_many`` with embeddings on, batches of
  256, into a real embedded FalkorDB.

The parent also compares every embedder's vectors with torch fp32's on the
same texts (mean cosine) and checks the quality gate: recall@10 and MRR
within 0.01 of torch fp32, mean cosine at least 0.99.
"""

from __future__ import annotations

import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from rich.table import Table

from benchmarks import retrieval_eval
from benchmarks.load import HINTS, content
from benchmarks.report import console
from graphmem.api import GraphMem
from graphmem.services.embeddings import (
    BgeSmallEmbedder,
    MiniLMEmbedder,
    ModelEmbedder,
    TorchMiniLMEmbedder,
)
from graphmem.services.embeddings.cache import VectorCache

ROOT = Path(__file__).resolve().parents[1]
CACHE = Path(tempfile.gettempdir()) / "graphmem-bench-cache" / "onnx"
FP32 = CACHE / "model_fp32.onnx"
RUNS = ("onnx-int8", "onnx-fp32", "torch-fp32", "torch-fp32-1thread", "bge-small-int8")
"""The last is bge-small-en-v1.5 (``GRAPHMEM_EMBEDDER=bge-small``, the ``bge`` extra):
another model, so it is not compared with torch's vectors, only measured beside them."""
REFERENCE = "torch-fp32"
BATCH = 256
GATE_DELTA = 0.01
GATE_COSINE = 0.99
DEFAULT_MADIAL = next(
    (
        path
        for path in (retrieval_eval.MADIAL_DIR, ROOT.parent.parent / "shared" / "eval" / "madial")
        if path.is_dir()
    ),
    retrieval_eval.MADIAL_DIR,
)
"""Beside the checkout, or beside the folder of worktrees it is one of."""


def make(run: str) -> ModelEmbedder:
    if run == "onnx-int8":
        return MiniLMEmbedder()
    if run == "onnx-fp32":
        return MiniLMEmbedder(model=FP32)
    if run == "torch-fp32":
        return TorchMiniLMEmbedder()
    if run == "torch-fp32-1thread":
        return TorchMiniLMEmbedder(threads=1)
    if run == "bge-small-int8":
        return BgeSmallEmbedder()
    raise typer.BadParameter(f"unknown run {run!r}; one of {', '.join(RUNS)}")


def rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


def texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [content(rng, client, n) for client in range(8) for n in range(count // 8)]


def queries(count: int) -> list[str]:
    return [f"{HINTS[n % len(HINTS)]} ({n})" for n in range(count)]


def comparison_texts(madial: Path) -> list[str]:
    """Texts all embedders embed for the cosine comparison: both sets' memories and queries."""
    own = json.loads(retrieval_eval.OWN_SET.read_text())
    found = [m["content"] for m in own["memories"]] + [q["query"] for q in own["queries"]]
    memories = madial / "MADial-Bench-en-memory.jsonl"
    if memories.is_file():
        for line in memories.read_text().splitlines():
            found += [m["event"] for m in json.loads(line).values()]
    return found


def child(
    run: str, *, throughput_n: int, latency_n: int, ingest_n: int, madial: Path
) -> dict[str, Any]:
    """Everything measured for one embedder, in this process."""
    from benchmarks.retrieval import Env

    before = rss_mb()
    embedder = make(run)
    embedder.cache = VectorCache(max_bytes=0)  # every call runs the model
    started = time.perf_counter()
    embedder.warm()
    load_s = time.perf_counter() - started

    corpus = texts(throughput_n, seed=1)
    embedder.embed(corpus[:BATCH])
    started = time.perf_counter()
    for start in range(0, len(corpus), BATCH):
        embedder.embed(corpus[start : start + BATCH])
    throughput = len(corpus) / (time.perf_counter() - started)

    latencies = []
    for query in queries(latency_n):
        started = time.perf_counter()
        embedder.embed([query])
        latencies.append((time.perf_counter() - started) * 1000)
    cuts = statistics.quantiles(latencies, n=20)

    vectors = np.vstack(
        [np.frombuffer(v, dtype=np.float32) for v in embedder.embed(comparison_texts(madial))]
    )
    vectors_file = Path(tempfile.mkdtemp(prefix="gmemb-")) / f"{run}.npy"
    np.save(vectors_file, vectors)

    env = Env()
    try:
        quality = []
        sets: list[tuple[str, Callable[[GraphMem], retrieval_eval.DevSet]]] = [
            ("own", retrieval_eval.load_own_set)
        ]
        if madial.is_dir():
            sets.append(("madial", lambda gm: retrieval_eval.load_madial(gm, madial)))
        for name, loader in sets:
            gm, raw = env.graph(f"quality_{name}", embedder)
            labelled = loader(gm).queries
            for mode in ("VECTOR", "HYBRID"):
                q = retrieval_eval.evaluate(gm, labelled, mode)
                quality.append({"set": name, "mode": mode, "recall@10": q.recall[10], "mrr": q.mrr})
            env.drop(raw)
        gm, raw = env.graph("ingest", embedder)
        items = [{"content": text} for text in texts(ingest_n, seed=2)]
        gm.remember_many(items[:BATCH])  # the statements' first run
        rest = items[BATCH:]
        started = time.perf_counter()
        for start in range(0, len(rest), BATCH):
            gm.remember_many(rest[start : start + BATCH])
        ingest = len(rest) / (time.perf_counter() - started)
        env.drop(raw)
    finally:
        env.close()
    return {
        "run": run,
        "model": embedder.name,
        "threads": embedder.threads,
        "load_s": load_s,
        "texts_per_s": throughput,
        "query_p50_ms": statistics.median(latencies),
        "query_p95_ms": cuts[18],
        "rss_mb": rss_mb(),
        "rss_growth_mb": rss_mb() - before,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3,
        "quality": quality,
        "ingest_per_s": ingest,
        "vectors": str(vectors_file),
    }


def export_fp32() -> None:
    if FP32.is_file():
        return
    subprocess.run(
        [sys.executable, str(ROOT / "tools" / "export_onnx.py"), "--out", str(CACHE), "--fp32"],
        check=True,
        capture_output=True,
    )


def main(
    runs: Annotated[str, typer.Option(help=f"Comma-separated: {', '.join(RUNS)}.")] = ",".join(
        RUNS
    ),
    throughput_n: Annotated[int, typer.Option(min=BATCH * 2, max=20_000)] = 1_024,
    latency_n: Annotated[int, typer.Option(min=20, max=5_000)] = 200,
    ingest_n: Annotated[int, typer.Option(min=BATCH * 2, max=20_000)] = 1_280,
    madial: Annotated[
        Path, typer.Option(help="MADial-Bench's folder (skipped when absent).")
    ] = DEFAULT_MADIAL,
    child_run: Annotated[str | None, typer.Option("--child", hidden=True)] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Also print JSON on stdout.")] = False,
) -> None:
    """Compare the embedders: speed, memory, retrieval quality and agreement with torch."""
    sizes: dict[str, Any] = {
        "throughput_n": throughput_n,
        "latency_n": latency_n,
        "ingest_n": ingest_n,
        "madial": madial,
    }
    if child_run is not None:
        print(json.dumps(child(child_run, **sizes)))
        return
    out = console(stderr=True)
    chosen = [r.strip() for r in runs.split(",") if r.strip()]
    if "onnx-fp32" in chosen:
        export_fp32()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    results: dict[str, dict[str, Any]] = {}
    for run in chosen:
        out.print(f"running {run} ...")
        args = [f"--{k.replace('_', '-')}={v}" for k, v in sizes.items()]
        done = subprocess.run(
            [sys.executable, "-m", "benchmarks.embedders", "--child", run, *args],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise SystemExit(f"{run} failed:\n{done.stderr}")
        results[run] = json.loads(done.stdout.strip().splitlines()[-1])
    reference = results.get(REFERENCE)
    ref = np.load(reference["vectors"]) if reference is not None else None
    for result in results.values():
        vectors = np.load(result["vectors"])
        if ref is not None and reference is not None and result["model"] == reference["model"]:
            cosines = (vectors * ref).sum(axis=1)
            result["cosine_mean"] = float(cosines.mean())
            result["cosine_min"] = float(cosines.min())
    for result in results.values():
        Path(result.pop("vectors")).unlink()
    out.print(_table(results))
    out.print(_quality(results))
    verdict = _gate(results)
    out.print(verdict)
    out.print(
        f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, {os.cpu_count()} cores"
    )
    if json_out:
        print(json.dumps(results, indent=2))


def _table(results: dict[str, dict[str, Any]]) -> Table:
    table = Table(title="embedders (each in its own process)")
    columns = (
        "run", "threads", "load s", "texts/s", "query p50 ms", "query p95 ms",
        "RSS MB", "model MB", "ingest mem/s", "cosine vs torch (mean/min)",
    )  # fmt: skip
    for column in columns:
        table.add_column(column, justify="left" if column == "run" else "right")
    for r in results.values():
        cosine = f"{r['cosine_mean']:.4f} / {r['cosine_min']:.4f}" if "cosine_mean" in r else "-"
        table.add_row(
            r["run"],
            str(r["threads"]),
            f"{r['load_s']:.2f}",
            f"{r['texts_per_s']:.0f}",
            f"{r['query_p50_ms']:.1f}",
            f"{r['query_p95_ms']:.1f}",
            f"{r['rss_mb']:.0f}",
            f"{r['rss_growth_mb']:.0f}",
            f"{r['ingest_per_s']:.0f}",
            cosine,
        )
    return table


def _quality(results: dict[str, dict[str, Any]]) -> Table:
    table = Table(title="retrieval quality (recall@10 / MRR)")
    table.add_column("set / mode")
    for run in results:
        table.add_column(run, justify="right")
    first = next(iter(results.values()))["quality"]
    for n, row in enumerate(first):
        cells = [
            f"{r['quality'][n]['recall@10']:.3f} / {r['quality'][n]['mrr']:.3f}"
            for r in results.values()
        ]
        table.add_row(f"{row['set']} {row['mode']}", *cells)
    return table


def _gate(results: dict[str, dict[str, Any]]) -> str:
    reference = results.get(REFERENCE)
    if reference is None:
        return "quality gate: not checked (torch-fp32 not run)"
    lines = []
    for run in ("onnx-int8", "onnx-fp32"):
        if run not in results:
            continue
        r = results[run]
        deltas = [
            (f"{a['set']} {a['mode']} {figure}", a[figure] - b[figure])
            for a, b in zip(r["quality"], reference["quality"], strict=True)
            for figure in ("recall@10", "mrr")
        ]
        largest = max(abs(d) for _, d in deltas)
        worst = min(d for _, d in deltas)
        within = largest <= GATE_DELTA
        no_worse = worst >= -GATE_DELTA
        cosine_ok = r["cosine_mean"] >= GATE_COSINE
        shown = ", ".join(f"{name} {d:+.4f}" for name, d in deltas if d)
        lines.append(
            f"quality gate {run}: differences from torch fp32: {shown or 'none'}; "
            f"all within {GATE_DELTA}: {'yes' if within else 'no'}, "
            f"none worse by more: {'yes' if no_worse else 'no'}; "
            f"mean cosine {r['cosine_mean']:.4f} (>= {GATE_COSINE}: {'yes' if cosine_ok else 'no'})"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    typer.run(main)
