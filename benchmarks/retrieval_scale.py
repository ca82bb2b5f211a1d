"""Retrieval at scale: loading 10,000 to 1,000,000 memories with embeddings,
and timing knowledgeContext and hybrid search against a floor.

Memories come from the write benchmark's generator (every memory type, real
sessions, relations, supersessions) and are written through the Python API.
Their vectors take the fast path a bulk import takes: written while the
graph has no vector index, which is then built once (FalkorDB builds it in
the background; the load waits for it). Embedding a million texts on two CPU
cores would take over two hours, so real embeddings are computed for a pool
of the first ``pool`` memories (cached on disk between runs) and memory ``i``
beyond it takes the vector of memory ``i mod pool`` turned by a small random
rotation (cosine ~0.97 to its source): the index then holds ``n`` distinct
vectors with the clustering real text has.

A store can also hold its memories in several projects (``project_ids``):
memory ``i`` of ``n`` goes to project ``i * count // n``, so each project holds
an even, contiguous share of the same memories with the same vectors, and the
generator's sessions stay together (a session is keyed by project, so one that
straddles two projects becomes two). Relations join memories of one project
only, as graphmem's own ``relate`` does: a planned relation whose ends fell in
two projects is left out (at 100,000 in 100 projects, whose shares are whole
sessions, none is; at 10,000 in 100, 192 of 516 are kept). The query hints are
not made from any memory, so they are asked of the projects in turn, query
``i`` of project ``i mod count``: with many projects each sees few queries,
and their per-project caches (full-text statistics) are as cold as those of a
server that many projects share.

The floor of a query is what no implementation can skip: embedding the query
text and one raw vector-index kNN (k=20) over the whole store on the same
server, measured in the same run, interleaved with the calls it is compared to.

The same load and timings run on Neo4j (``raw`` is then a
``benchmarks.neo4j_server.Neo4jGraph``): the memories through the API (graphmem's
``remember_many``, one UNWIND statement per batch), the vectors as UNWIND
batches of parameters (``set_embeddings``), graphmem's own vector index
statement run once they are in, and the floor's kNN through
``db.index.vector.queryNodes`` in a managed read transaction, as graphmem's
store runs its statements.
"""

from __future__ import annotations

import dataclasses
import random
import statistics
import time
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from falkordb import FalkorDB, Graph

from benchmarks.data import COMPONENTS, ERRORS, FILES, TECH, Dataset, generate
from benchmarks.neo4j_server import Neo4jGraph
from graphmem.api import GraphMem
from graphmem.services.embeddings import Embedder, memory_text
from graphmem.services.retrieval.feedback import LexicalFeedback
from graphmem.store.falkordb import params_header

PROJECT = "bench"
"""The project of a store that holds its memories in one project."""
LOAD_BATCH = 5_000
LOG_EVERY = 100_000
VECTOR_BATCH = 2_000
NOISE = 0.012
"""Per-dimension noise on a unit 384-d vector: cosine to the source ~0.97."""

RAW_KNN = (
    "CALL db.idx.vector.queryNodes('Memory', 'embedding', 20, vecf32($vector)) "
    "YIELD node, score RETURN node.id, score"
)
NEO4J_KNN = (
    "CALL db.index.vector.queryNodes('memory_embedding', 20, $vector) "
    "YIELD node, score RETURN node.id, score"
)
BULK_RELATE = (
    "UNWIND $rows AS row "
    "MATCH (a:Memory {id: row.from_id}), (b:Memory {id: row.to_id}) "
    "CREATE (a)-[r:REL]->(b)"
)
QUERY_TEMPLATES = [
    "why does {component} time out when {tech} is slow",
    "how do we deploy {component}",
    "{error} in {file}",
    "what did we decide about {tech} for {component}",
    "rules for database migrations in {component}",
    "flaky test in {file} after upgrading {tech}",
    "latency of {component} under load",
    "who owns {component} and how is it configured",
    "retry and backoff settings of {component}",
    "is it safe to cache {tech} lookups in {component}",
]


@dataclass(frozen=True)
class Latency:
    name: str
    p50_ms: float
    p95_ms: float
    count: int


def pool_vectors(embedder: Embedder, texts: Sequence[str], cache: Path) -> np.ndarray:
    """Real embeddings of ``texts``, cached on disk (keyed by count and content)."""
    cache.parent.mkdir(parents=True, exist_ok=True)
    if cache.exists():
        stored = np.load(cache)
        if stored.shape[0] == len(texts):
            return stored
    vectors = np.stack(
        [np.frombuffer(v, dtype=np.float32) for v in embedder.embed(list(texts))]
    ).astype(np.float32)
    np.save(cache, vectors)
    return vectors


def vectors_for(pool: np.ndarray, start: int, stop: int, rng: np.random.Generator) -> np.ndarray:
    """Vectors of memories ``start..stop``: the pool's own, then perturbed copies."""
    index = np.arange(start, stop)
    out = pool[index % len(pool)].copy()
    beyond = index >= len(pool)
    if beyond.any():
        out[beyond] += rng.normal(0.0, NOISE, size=(int(beyond.sum()), pool.shape[1]))
        out[beyond] /= np.linalg.norm(out[beyond], axis=1, keepdims=True)
    return out.astype(np.float32)


def project_ids(count: int) -> list[str]:
    """The projects a store spreads its memories over: ``PROJECT`` alone for one,
    else ``p000``, ``p001``, ... (wider past 1,000)."""
    if count < 1:
        raise ValueError(f"a store needs at least one project, got {count}")
    if count == 1:
        return [PROJECT]
    width = max(3, len(str(count - 1)))
    return [f"p{i:0{width}d}" for i in range(count)]


def shares(n: int, projects: Sequence[str]) -> list[tuple[str, range]]:
    """Each project's even, contiguous share of memory positions ``0..n``."""
    count = len(projects)
    return [
        (project, range(i * n // count, (i + 1) * n // count)) for i, project in enumerate(projects)
    ]


def bulk_load(
    gm: GraphMem,
    raw: Graph | Neo4jGraph,
    n: int,
    pool: np.ndarray,
    *,
    projects: Sequence[str] = (PROJECT,),
    seed: int = 7,
    log: Callable[[str], None] = print,
) -> dict[str, float]:
    """``n`` memories through the API, spread over ``projects``, their vectors by
    the fast path, then the index.

    The memories are written without embeddings (their vectors follow in bulk);
    ``gm``'s store and services are used as they are.
    """
    dataset = generate(n, seed=seed)
    loader = GraphMem(gm.store, clock=gm.clock, project_id=projects[0])
    started = time.perf_counter()
    ids: list[str] = []
    owner: list[str] = []
    for project, share in shares(n, projects):
        for start in range(share.start, share.stop, LOAD_BATCH):
            batch = dataset.memories[start : min(start + LOAD_BATCH, share.stop)]
            before = len(ids)
            ids += loader.remember_many(batch, project_id=project, dedup=False)
            if len(ids) < n and len(ids) // LOG_EVERY > before // LOG_EVERY:
                log(f"  {len(ids):,} memories written")
        owner += [project] * len(share)
    written = time.perf_counter()
    rng = np.random.default_rng(seed)
    for start in range(0, n, VECTOR_BATCH):
        stop = min(start + VECTOR_BATCH, n)
        matrix = vectors_for(pool, start, stop, rng)
        gm.retrieval.store_embeddings(
            [
                {"id": ids[i], "project_id": owner[i], "embedding": array("f", row.tobytes())}
                for i, row in zip(range(start, stop), matrix, strict=True)
            ]
        )
    vectors_done = time.perf_counter()
    if isinstance(raw, Neo4jGraph):
        (ddl,) = [d for d in gm.store.statements.script("schema") if "VECTOR INDEX" in d]
        raw.build_index(ddl)
    else:
        build_vector_index(raw, pool.shape[1])
    indexed = time.perf_counter()
    within = dataclasses.replace(
        dataset,
        relations=[r for r in dataset.relations if owner[r.from_index] == owner[r.to_index]],
    )
    relate(raw, ids, within)
    return {
        "memories_s": written - started,
        "vectors_s": vectors_done - written,
        "index_build_s": indexed - vectors_done,
        "relations_s": time.perf_counter() - indexed,
        "relations": float(len(within.relations)),
        "projects": float(len(projects)),
    }


def build_vector_index(raw: Graph, dimension: int, timeout: float = 3_600.0) -> None:
    """Create the vector index over the loaded vectors and wait until it answers."""
    raw.query(
        "CREATE VECTOR INDEX FOR (m:Memory) ON (m.embedding) "
        f"OPTIONS {{dimension: {int(dimension)}, similarityFunction: 'cosine'}}"
    )
    probe = params_header({"vector": array("f", [1.0] + [0.0] * (dimension - 1))}) + RAW_KNN
    deadline = time.monotonic() + timeout
    while True:
        try:
            raw.ro_query(probe)
            return
        except Exception:  # the index refuses queries while it is being built
            if time.monotonic() > deadline:
                raise
            time.sleep(1.0)


def _write(raw: Graph | Neo4jGraph, statement: str, params: dict[str, object]) -> None:
    if isinstance(raw, Neo4jGraph):
        raw.write(statement, params)
    else:
        raw.query(params_header(params) + statement)


def relate(raw: Graph | Neo4jGraph, ids: Sequence[str], dataset: Dataset) -> None:
    """The dataset's relations, written in bulk; a supersession also marks the old memory."""
    by_type: dict[str, list[dict[str, str]]] = {}
    for rel in dataset.relations:
        by_type.setdefault(rel.type.value, []).append(
            {"from_id": ids[rel.from_index], "to_id": ids[rel.to_index]}
        )
    for rel_type, rows in by_type.items():
        statement = BULK_RELATE.replace("REL", rel_type)  # one of four known names
        for start in range(0, len(rows), 5_000):
            _write(raw, statement, {"rows": rows[start : start + 5_000]})
    supersede = by_type.get("SUPERSEDES", [])
    for start in range(0, len(supersede), 5_000):
        _write(
            raw,
            "UNWIND $rows AS row MATCH (b:Memory {id: row.to_id}) "
            "SET b.superseded_by = row.from_id",
            {"rows": supersede[start : start + 5_000]},
        )


def queries(count: int, seed: int = 11) -> list[str]:
    """Distinct agent-style hints over the dataset's vocabulary."""
    rng = random.Random(seed)
    seen: dict[str, None] = {}
    while len(seen) < count:
        template = rng.choice(QUERY_TEMPLATES)
        seen.setdefault(
            template.format(
                component=rng.choice(list(COMPONENTS)),
                tech=rng.choice(TECH),
                error=rng.choice(ERRORS),
                file=rng.choice(FILES),
            ),
            None,
        )
    return list(seen)


def measure(
    gm: GraphMem,
    raw: Graph | Neo4jGraph,
    embedder: Embedder,
    texts: Sequence[str],
    *,
    projects: Sequence[str] = (PROJECT,),
    warmup: int = 20,
) -> list[Latency]:
    """Floor, knowledgeContext, hybrid search and hybrid search without
    feedback (what feedback costs), interleaved query by query; query ``i``
    is asked of ``projects[i mod len(projects)]``, the floor of the whole store."""
    timings: dict[str, list[float]] = {
        "floor": [],
        "knowledge_context": [],
        "search_hybrid": [],
        "search_hybrid_no_feedback": [],
    }
    with_feedback = gm.retrieval.config
    without_feedback = dataclasses.replace(with_feedback, feedback=LexicalFeedback(docs=0))

    def search_without_feedback(text: str, project: str) -> None:
        gm.retrieval.config = without_feedback
        try:
            gm.search(text, project_id=project)
        finally:
            gm.retrieval.config = with_feedback

    def floor(text: str, _project: str) -> None:
        """One kNN over the whole store, whichever project the query is of."""
        (vector,) = embedder.embed([text])
        if isinstance(raw, Neo4jGraph):
            raw.read(NEO4J_KNN, {"vector": vector})
        else:
            raw.ro_query(params_header({"vector": vector}) + RAW_KNN)

    calls: dict[str, Callable[[str, str], object]] = {
        "floor": floor,
        "knowledge_context": lambda text, project: gm.knowledge_context(text, project_id=project),
        "search_hybrid": lambda text, project: gm.search(text, project_id=project),
        "search_hybrid_no_feedback": search_without_feedback,
    }
    for index, text in enumerate(texts):
        project = projects[index % len(projects)]
        for name, call in calls.items():
            started = time.perf_counter()
            call(text, project)
            if index >= warmup:
                timings[name].append((time.perf_counter() - started) * 1000.0)
    return [
        Latency(name=name, p50_ms=statistics.median(values), p95_ms=_p95(values), count=len(values))
        for name, values in timings.items()
    ]


def ingest_throughput(
    gm: GraphMem, embedder: Embedder, n: int, *, batch: int = 500
) -> tuple[float, float]:
    """Memories per second: the embedder alone, and ``remember_many`` with embeddings.

    The two alternate batch by batch on the same texts' kind, so a change in
    the machine's load touches both alike.
    """
    items = generate(2 * n, seed=23, session_prefix="ingest").memories
    texts = [memory_text(item["content"], item.get("rationale")) for item in items[n:]]
    embedder.embed(texts[:batch])  # warm
    embedding = writing = 0.0
    for start in range(0, n, batch):
        started = time.perf_counter()
        embedder.embed(texts[start : start + batch])
        embedding += time.perf_counter() - started
        started = time.perf_counter()
        gm.remember_many(items[start : start + batch], project_id=PROJECT, dedup=False)
        writing += time.perf_counter() - started
    return n / embedding, n / writing


def used_memory_mb(db: FalkorDB) -> float:
    """What the database server holds in memory (all graphs), in MB."""
    info = db.connection.info("memory")
    return info["used_memory"] / 1e6


def _p95(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
