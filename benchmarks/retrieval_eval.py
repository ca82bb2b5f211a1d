"""Retrieval quality: recall@k and MRR per search mode on labelled sets.

Two sets: graphmem's own (``benchmarks/eval/retrieval_eval.json``: exact
tokens, paraphrases, answers that need a relation walked, superseded answers)
and MADial-Bench (``../shared/eval/madial``: 160 event memories, each
dialogue's turns before the test turn as the query, its gold memory ids as
the answer). Memories are written through the Python API with embeddings on.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from graphmem.api import GraphMem
from graphmem.retrieval.search import MAX_QUERY_CHARS

OWN_SET = Path(__file__).resolve().parent / "eval" / "retrieval_eval.json"
MADIAL_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "eval" / "madial"
MODES = ("FULLTEXT", "VECTOR", "HYBRID")
CUTOFFS = (5, 10)


@dataclass(frozen=True)
class LabelledQuery:
    text: str
    relevant: frozenset[str]
    kind: str = ""


@dataclass(frozen=True)
class Quality:
    mode: str
    queries: int
    recall: dict[int, float]
    """Mean share of each query's relevant memories in its top k."""
    mrr: float
    """Mean reciprocal rank of the first relevant memory (0 when none in the top 10)."""


def evaluate(gm: GraphMem, queries: Sequence[LabelledQuery], mode: str) -> Quality:
    recall = dict.fromkeys(CUTOFFS, 0.0)
    mrr = 0.0
    for query in queries:
        hits = gm.search(query.text, mode=mode, limit=max(CUTOFFS)).hits
        ranked = [hit.memory.id for hit in hits]
        for k in CUTOFFS:
            recall[k] += len(query.relevant.intersection(ranked[:k])) / len(query.relevant)
        first = next((i for i, m in enumerate(ranked, start=1) if m in query.relevant), None)
        mrr += 1.0 / first if first else 0.0
    n = len(queries)
    return Quality(mode=mode, queries=n, recall={k: v / n for k, v in recall.items()}, mrr=mrr / n)


def load_own_set(gm: GraphMem, path: Path = OWN_SET) -> list[LabelledQuery]:
    """Write the set's memories, relations and supersessions; return its queries."""
    data = json.loads(path.read_text())
    items = [
        {k: v for k, v in m.items() if k != "key"} | {"source": "manual"} for m in data["memories"]
    ]
    ids = dict(
        zip(
            (m["key"] for m in data["memories"]),
            gm.remember_many(items, dedup=False),
            strict=True,
        )
    )
    for rel in data["relations"]:
        gm.relate(ids[rel["from"]], ids[rel["to"]], rel["type"], rationale=rel.get("rationale"))
    for pair in data["supersedes"]:
        gm.supersede(ids[pair["old"]], ids[pair["new"]])
    return [
        LabelledQuery(
            text=q["query"], relevant=frozenset(ids[k] for k in q["relevant"]), kind=q["kind"]
        )
        for q in data["queries"]
    ]


def load_madial(gm: GraphMem, root: Path = MADIAL_DIR) -> list[LabelledQuery]:
    """The 160 memories (the event text), and one query per dialogue: its turns
    before the test turn, the most recent ``MAX_QUERY_CHARS`` of them."""
    memories: dict[str, dict[str, str]] = {}
    with open(root / "MADial-Bench-en-memory.jsonl") as lines:
        for line in lines:
            memories.update(json.loads(line))
    keys = sorted(memories, key=int)
    items = [
        {
            "content": memories[k]["event"],
            "tags": [memories[k]["scene"], memories[k]["emotion"]],
            "source": "import",
        }
        for k in keys
    ]
    ids = dict(zip(keys, gm.remember_many(items, dedup=False), strict=True))
    queries = []
    with open(root / "MADial-Bench-en-dialogue.jsonl") as lines:
        for line in lines:
            dialogue = json.loads(line)
            turn = dialogue["test-turn"][0]
            turns = [t.strip() for t in dialogue["dialogue"][1:turn] if t.strip()]
            text = " ".join(turns)[-MAX_QUERY_CHARS:]
            relevant = frozenset(ids[str(k)] for k in dialogue["relevant-id"] if str(k) in ids)
            if relevant:
                queries.append(LabelledQuery(text=text, relevant=relevant))
    return queries
