"""``python -m benchmarks.answerable``: fit and check the answerability gate.

The gate (``graphmem.domain.retrieval.answerable``) answers a query nothing in
the project answers with no hits. This writes the dev sets into one embedded
store, as a server holds them (``--writes``: the write path), and asks each
answerable question and each negative (``retrieval_eval.negatives_added``:
the agent set's own, questions of a set's other projects, other sets'
questions) once in HYBRID with ``minRelevance`` 0, reading the evidence the
gate weighs from the pipeline. A logistic model is fitted on the tuning
parts, every set and both classes weighed alike; the held-out parts
(``chats-heldout``, ``agent-heldout``) are never fitted on. Then, per set and
cut, for the fitted weights and for the shipped ones: the share of negatives
answered empty, and the share of answerable questions whose right memory
reached the top 10 that the gate would answer with nothing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Annotated, Any

import numpy as np
import typer
from rich.console import Console
from rich.table import Table

from benchmarks.retrieval_eval import (
    DEPTH,
    LOADERS,
    DevSet,
    LabelledQuery,
    Server,
    negatives_added,
    set_project,
)
from graphmem.api import GraphMem
from graphmem.domain.retrieval import SearchRequest
from graphmem.domain.retrieval.answerable import Answerability, Evidence, features
from graphmem.services.embeddings import MiniLMEmbedder
from graphmem.services.retrieval import plans

HELD_OUT = ("chats-heldout", "agent-heldout")
CUTS = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3)
NAMES = tuple(features(Evidence(closest=0.0, words=(), covered=0.0)))


@dataclasses.dataclass(frozen=True)
class Asked:
    """One question, what the gate saw of it, and whether its answer was found."""

    set: str
    negative: bool
    evidence: Evidence
    found: bool
    """A right memory is in the top 10 (answerable questions only)."""


def ask(gm: GraphMem, q: LabelledQuery, name: str) -> Asked:
    request = SearchRequest(query=q.text, limit=DEPTH, min_relevance=0.0)
    retrieval = gm.retrieval
    plan = plans.search_plan(request, retrieval.config, retrieval.clock, embeddings=True)
    outcome = retrieval.pipeline.run(plan, q.project or gm.default_project)
    assert outcome.evidence is not None  # HYBRID: both retrievers ran
    found = bool(q.relevant.intersection(outcome.chosen[:DEPTH]))
    return Asked(name, not q.relevant, outcome.evidence, found)


def asked_of(gm: GraphMem, dev: DevSet) -> list[Asked]:
    parts = [dev] + ([dev.held_out] if dev.held_out is not None else [])
    return [ask(gm, q, part.name) for part in parts for q in (*part.queries, *part.negatives)]


def fit(asked: Sequence[Asked], steps: int = 20_000, rate: float = 2.0) -> Answerability:
    """Logistic regression by gradient descent, each (set, class) weighing 1 in all."""
    rows = [a for a in asked if a.set not in HELD_OUT and (a.negative or a.found)]
    groups: dict[tuple[str, bool], int] = {}
    for a in rows:
        groups[(a.set, a.negative)] = groups.get((a.set, a.negative), 0) + 1
    x = np.array([[*features(a.evidence).values(), 1.0] for a in rows])
    y = np.array([0.0 if a.negative else 1.0 for a in rows])
    w = np.array([1.0 / groups[(a.set, a.negative)] for a in rows])
    theta = np.zeros(x.shape[1])
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(x @ theta)))
        theta -= rate * (x.T @ ((p - y) * w)) / w.sum()
    weights = {name: round(float(v), 2) for name, v in zip(NAMES, theta, strict=False)}
    return Answerability(**weights, bias=round(float(theta[-1]), 2))


def shares(
    asked: Sequence[Asked], gate: Answerability, cut: float
) -> dict[str, tuple[float, float]]:
    """Per set: (negatives answered empty, found answerable questions lost)."""
    out = {}
    for name in dict.fromkeys(a.set for a in asked):
        negatives = [a for a in asked if a.set == name and a.negative]
        found = [a for a in asked if a.set == name and not a.negative and a.found]
        empty = sum(gate.probability(a.evidence) < cut for a in negatives)
        lost = sum(gate.probability(a.evidence) < cut for a in found)
        out[name] = (empty / max(len(negatives), 1), lost / max(len(found), 1))
    return out


def table(title: str, asked: Sequence[Asked], gate: Answerability) -> Table:
    names = list(dict.fromkeys(a.set for a in asked))
    out = Table(title=f"{title}: negatives answered empty / answered questions lost")
    out.add_column("cut", justify="right")
    for name in names:
        out.add_column(name, justify="right")
    for cut in sorted({*CUTS, gate.cut}):
        row = shares(asked, gate, cut)
        out.add_row(f"{cut:.2f}", *(f"{row[n][0]:.2f} / {row[n][1]:.3f}" for n in names))
    return out


def main(
    sets: Annotated[str, typer.Option(help="Comma-separated dev sets.")] = (
        "own,madial,conversations,chats,agent"
    ),
    writes: Annotated[str, typer.Option(help="many, single or import.")] = "many",
) -> None:
    console = Console(stderr=True)
    embedder = MiniLMEmbedder()
    server = Server()
    try:
        gm = server.graphmem("answerable", embedder)
        devs = []
        for name in sets.split(","):
            devs.append(negatives_added(LOADERS[name](gm, project=set_project(name), how=writes)))
            console.log(f"{name}: written ({writes})")
        gm.warm()
        asked = [a for dev in devs for a in asked_of(gm, dev)]
    finally:
        server.close()
    fitted = fit(asked)
    shipped = Answerability()
    print(f"fitted: {fitted}")
    print(f"shipped: {shipped}")
    report: list[Any] = [table("fitted", asked, fitted), table("shipped", asked, shipped)]
    out = Console()
    for part in report:
        out.print(part)


if __name__ == "__main__":
    typer.run(main)
