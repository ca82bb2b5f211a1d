"""``python -m benchmarks.transfer``: export and import of graphmem's JSONL at scale.

A fresh embedded FalkorDB gets a project of ``n`` memories (the write
benchmark's generator: every memory type, sessions of ~250, about one
relation per 20 memories), a fraction of them with a 384-float embedding.
The project is exported to a file, imported into a second, empty graph, and
the two graphs are compared memory by memory and relation by relation
(every property, embeddings included) with raw queries independent of the
transfer code.

Baselines, on the same server in the same run:

- export: a raw paged read of the same memories (every property) and their
  relations, written as JSON lines, in pages of the export's size: the
  least a streaming export must do;
- import: the same file read and parsed, and its memories and relations
  written by batched raw ``CREATE``s (pages of the import's size, each
  memory linked to its session) into a third graph with graphmem's indexes:
  no validation, no merge by id, no per-line outcomes. The ratio is the
  price of those.
"""

from __future__ import annotations

import json
import random
import shutil
import tempfile
import time
from array import array
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Annotated, Any

import typer
from falkordb import FalkorDB, Graph

from benchmarks.data import generate
from benchmarks.report import Figure, console, table
from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.services.embeddings import DIMENSION
from graphmem.services.transfer import export_project, import_project
from graphmem.services.transfer.paging import READ_PAGE, WRITE_PAGE
from graphmem.store.embedded import EmbeddedFalkorDB
from graphmem.store.falkordb import FalkorStore, params_header

PROJECT = "bench"
LOAD_BATCH = 5_000
RAW_PAGE = 2_000
RAW_READ = (
    "MATCH (m:Memory {project_id: $project_id}) WHERE m.id > $after "
    "WITH m ORDER BY m.id LIMIT $limit RETURN properties(m) AS props"
)
RAW_RELATIONS = (
    "UNWIND $ids AS id MATCH (a:Memory {id: id})-[r]->(b:Memory) "
    "RETURN type(r) AS type, a.id AS from_id, b.id AS to_id, properties(r) AS props"
)
RAW_SESSIONS = "UNWIND $rows AS row CREATE (s:Session) SET s = row"
RAW_CREATE = (
    "UNWIND $rows AS row CREATE (m:Memory) SET m = row.props "
    "WITH m, row MATCH (s:Session {project_id: row.props.project_id, id: row.in_session}) "
    "CREATE (m)-[:IN_SESSION]->(s) "
    "WITH m, row WHERE row.embedding IS NOT NULL SET m.embedding = vecf32(row.embedding)"
)
RAW_RELATE = (
    "UNWIND $rows AS row MATCH (a:Memory {id: row.from_id}) MATCH (b:Memory {id: row.to_id}) "
    "CREATE (a)-[r:REL]->(b) SET r = row.props"
)


def main(
    n: Annotated[int, typer.Option(min=1, max=1_000_000, help="Memories in the project.")] = 10_000,
    embedded: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="Fraction of memories with an embedding.")
    ] = 0.1,
    page: Annotated[
        int, typer.Option(min=1, max=5_000, help="Records per import write.")
    ] = WRITE_PAGE,
) -> None:
    """Time graphmem's JSONL export and import against raw paged reads and writes."""
    out = console(stderr=False)
    with ExitStack() as stack:
        work = Path(tempfile.mkdtemp(dir="/tmp", prefix="gmxfer-"))
        stack.callback(shutil.rmtree, work, ignore_errors=True)
        server = EmbeddedFalkorDB(work)
        server.start()
        stack.callback(server.stop, force=True)
        db = FalkorDB(unix_socket_path=str(server.socket_path), socket_timeout=600.0,
                      client_name=server.client_name)  # fmt: skip
        stack.callback(db.close)
        source, target, raw_target = (
            _store(db, stack, name) for name in ("source", "target", "raw_target")
        )
        raw = raw_target._graph

        started = time.perf_counter()
        relations = _load(source, n, embedded)
        out.print(f"loaded {n:,} memories and {relations:,} relations in "
                  f"{time.perf_counter() - started:.1f} s")  # fmt: skip

        dump = work / "project.jsonl"
        started = time.perf_counter()
        with dump.open("w", encoding="utf-8") as handle:
            counts = export_project(source, PROJECT, handle)
        export_s = time.perf_counter() - started
        started = time.perf_counter()
        raw_read = _raw_export(source._graph, work / "raw.jsonl")
        raw_export_s = time.perf_counter() - started

        started = time.perf_counter()
        with dump.open(encoding="utf-8") as handle:
            report = import_project(target, handle, page_size=page)
        import_s = time.perf_counter() - started
        started = time.perf_counter()
        raw_written = _raw_import(raw, dump, page)
        raw_import_s = time.perf_counter() - started

        if not report.complete:
            raise SystemExit(f"the import skipped lines: {report.skipped[:5]} {report.warnings}")
        started = time.perf_counter()
        memories, edges = _same(source._graph, target._graph)
        check_s = time.perf_counter() - started
        if (memories, edges) != (n, relations) or raw_read != n or raw_written != n:
            raise SystemExit(f"counts differ: {memories=} {edges=} {raw_read=} {raw_written=}")
        size = dump.stat().st_size

    records = sum(counts.counts.values())
    figures = [
        Figure("export_s", "export (graphmem JSONL)", export_s, "s", raw_export_s,
               export_s / raw_export_s, count=records),
        Figure("import_s", "import (graphmem JSONL)", import_s, "s", raw_import_s,
               import_s / raw_import_s, count=records),
        Figure("export_rate", "export rate", n / export_s, "memories/s", n / raw_export_s,
               export_s / raw_export_s, count=n),
        Figure("import_rate", "import rate", n / import_s, "memories/s", n / raw_import_s,
               import_s / raw_import_s, count=n),
    ]  # fmt: skip
    out.print(table(figures, title=f"graphmem transfer ({n:,} memories, {embedded:.0%} embedded)"))
    out.print(
        f"file: {size / 1e6:.1f} MB; every memory and relation identical in both graphs "
        f"({memories:,} memories, {edges:,} relations, checked in {check_s:.1f} s); "
        f"baselines: raw paged read to JSON lines (export), raw batched CREATE of the same "
        f"file (import)"
    )


def _store(db: FalkorDB, stack: ExitStack, name: str) -> FalkorStore:
    store = FalkorStore(db, f"transfer_{name}")
    store.setup_schema()
    stack.callback(store.drop)
    return store


def _load(store: FalkorStore, n: int, embedded: float) -> int:
    """``n`` memories through the API, vectors for a fraction, relations in bulk."""
    dataset = generate(n, seed=11)
    gm = GraphMem(store, clock=ManualClock(1_800_000_000.0), project_id=PROJECT)
    ids: list[str] = []
    for start in range(0, n, LOAD_BATCH):
        ids += gm.remember_many(dataset.memories[start : start + LOAD_BATCH], dedup=False)
    rng = random.Random(5)
    with_vectors = [i for i in ids if rng.random() < embedded]
    for start in range(0, len(with_vectors), RAW_PAGE):
        store.write("set_embeddings", {"rows": [
            {"id": i, "project_id": PROJECT,
             "embedding": array("f", [rng.uniform(-1, 1) for _ in range(DIMENSION)])}
            for i in with_vectors[start : start + RAW_PAGE]
        ]})  # fmt: skip
    by_type: dict[str, list[dict[str, Any]]] = {}
    for rel in dataset.relations:
        by_type.setdefault(rel.type.value, []).append({
            "from_id": ids[rel.from_index], "to_id": ids[rel.to_index],
            "props": {"created_at": 1_800_000_000.0, "weight": 1.0, "rationale": rel.rationale},
        })  # fmt: skip
    for kind, rows in by_type.items():
        for start in range(0, len(rows), RAW_PAGE):
            store._graph.query(
                params_header({"rows": rows[start : start + RAW_PAGE]})
                + RAW_RELATE.replace("REL", kind)  # one of graphmem's four types
            )
    return len(dataset.relations)


def _raw_pages(graph: Graph) -> Iterator[list[dict[str, Any]]]:
    after = ""
    while True:
        params = {"project_id": PROJECT, "after": after, "limit": READ_PAGE}
        rows = [row[0] for row in graph.ro_query(params_header(params) + RAW_READ).result_set]
        if not rows:
            return
        yield rows
        after = rows[-1]["id"]


def _raw_relations(graph: Graph, ids: list[str]) -> list[list[Any]]:
    return graph.ro_query(params_header({"ids": ids}) + RAW_RELATIONS).result_set


def _raw_export(graph: Graph, path: Path) -> int:
    read = 0
    with path.open("w", encoding="utf-8") as out:
        for rows in _raw_pages(graph):
            for props in rows:
                props = dict(props)
                if props.get("embedding") is not None:
                    props["embedding"] = [float(x) for x in props["embedding"]]
                out.write(json.dumps(props, ensure_ascii=False) + "\n")
            for rel in _raw_relations(graph, [p["id"] for p in rows]):
                out.write(json.dumps(rel, ensure_ascii=False) + "\n")
            read += len(rows)
    return read


def _raw_import(raw: Graph, dump: Path, page: int) -> int:
    """The export file's memories and relations, parsed and written with no checks."""
    memories: list[dict[str, Any]] = []
    relations: dict[str, list[dict[str, Any]]] = {}
    written = 0

    def flush() -> None:
        nonlocal written
        if memories:
            raw.query(params_header({"rows": memories}) + RAW_CREATE)
            written += len(memories)
            memories.clear()

    with dump.open(encoding="utf-8") as lines:
        for text in lines:
            record = json.loads(text)
            if record["kind"] == "session":
                raw.query(params_header({"rows": [record["props"]]}) + RAW_SESSIONS)
            elif record["kind"] == "memory":
                embedding = record["embedding"]
                memories.append({"props": record["props"], "in_session": record["in_session"],
                                 "embedding": None if embedding is None
                                 else array("f", embedding)})  # fmt: skip
                if len(memories) >= page:
                    flush()
            elif record["kind"] == "relation":
                flush()
                batch = relations.setdefault(record["type"], [])
                batch.append({k: record[k] for k in ("from_id", "to_id", "props")})
    flush()
    for kind, rows in relations.items():
        for start in range(0, len(rows), page):
            raw.query(
                params_header({"rows": rows[start : start + page]})
                + RAW_RELATE.replace("REL", kind)
            )
    return written


def _same(source: Graph, target: Graph) -> tuple[int, int]:
    """Both graphs page by page: every memory's properties and every relation equal."""
    memories = edges = 0
    for left, right in zip(_raw_pages(source), _raw_pages(target), strict=True):
        if [dict(p) for p in left] != [dict(p) for p in right]:
            raise SystemExit("a memory differs between the source and the imported graph")
        ids = [p["id"] for p in left]
        mine, theirs = (
            sorted(map(repr, ([*r[:3], sorted(r[3].items())] for r in _raw_relations(g, ids))))
            for g in (source, target)
        )
        if mine != theirs:
            raise SystemExit("a relation differs between the source and the imported graph")
        memories += len(left)
        edges += len(mine)
    return memories, edges


if __name__ == "__main__":
    typer.run(main)
