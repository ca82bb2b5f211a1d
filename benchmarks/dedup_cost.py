"""``python -m benchmarks.dedup_cost``: what the restatement check costs each write.

The same workload is written one ``remember`` at a time, with real
all-MiniLM-L6-v2 vectors, on fresh graphs of one embedded server, in three
ways:

- ``exact only``: near matches are not looked for (exact-text dedup only);
- ``cosine only``: the rule before the check: the nearest memory at cosine
  >= ``dedup_similarity`` (0.92) takes the write, nothing else is read;
- ``judge before``: the writer as shipped with the judge of
  ``benchmarks.dedup_eval.BEFORE`` (loaded from git), for the judge's cost
  before and after in one run;
- ``restatement check``: as shipped: up to three near matches from cosine
  ``restatement.candidate_similarity`` (0.78), each judged by
  ``graphmem.domain.restatement.judge``; an update writes a SUPERSEDES edge, a
  possible contradiction a flagged candidate.

The workload: both texts of every pair in ``benchmarks/eval/dedup_pairs.jsonl``
(the first of each pair, then the second, so every second text has a near
match: the check's worst case). The vectors are computed once, before the
clock starts, and handed out by text: embedding costs every way the same and
would hide the difference under it (its own cost, one memory at a time, is
printed beside the rest). The ways take turns, round by round, so a load
change on the machine hits all alike. Each round starts with the judge's cache
of analysed texts empty, and the time the restatement check spends in the
judge's package (``fetch_floor``, ``judge``, ``readable``: reading each new
text once, judging each near match) is clocked call by call (CPU time) and
printed as a share of a write, embedding counted in and not. Printed: writes per second of each
(median of the rounds), the ratio of the check to the other two with and
without the embedding of each write counted in, and what each way decided.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from benchmarks.dedup_eval import BEFORE, load_before, load_pairs
from benchmarks.harness import BenchEnv
from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.domain.restatement.analysis import forget_texts
from graphmem.domain.restatement.verdicts import Difference, Judgement, Verdict
from graphmem.services import near_matches, writer
from graphmem.services.embeddings import MiniLMEmbedder, Vector
from graphmem.services.near_matches import NearMatches
from graphmem.store.queries import memories
from graphmem.store.queries import near_matches as near

WAYS = ("exact only", "cosine only", "judge before", "restatement check")


class _ExactOnly(NearMatches):
    """No near-match lookup at all."""

    def resolve(self, rows, vectors, merges, outcomes, project, positions):  # type: ignore[no-untyped-def]
        return rows, vectors, []


class _CosineOnly(NearMatches):
    """The nearest match at cosine >= ``dedup_similarity`` merges, unread."""

    def _nearest_by_vector(self, rows: list[Any], vectors: list[Any], project: str):  # type: ignore[no-untyped-def]
        found = near.by_vector(
            self.store,
            [{"index": i, "vector": v} for i, v in enumerate(vectors)],
            project,
            threshold=self.rules.dedup_similarity,
            k=20,
        )
        return {
            answer.index: [max(answer.hits, key=lambda hit: hit["similarity"])]
            for answer in found
            if answer.hits
        }

    def _decide(self, row: Mapping[str, Any], hits: Sequence[Mapping[str, Any]], measure: str):  # type: ignore[no-untyped-def]
        if not hits:
            return None, None, None
        return hits[0], Judgement(Verdict.MERGE, Difference.NONE, "cosine"), None


class _JudgeBefore(NearMatches):
    """The restatement judge of ``benchmarks.dedup_eval.BEFORE`` (the cue lists),
    in today's writer: the cost of the judge alone, before and after."""

    before: Any = None

    def _decide(self, row: Mapping[str, Any], hits: Sequence[Mapping[str, Any]], measure: str):  # type: ignore[no-untyped-def]
        for hit in hits:
            judged = self.before.judge(row["content"], hit["content"], hit["similarity"])
            if judged.verdict.value == "merge":
                return hit, Judgement(Verdict.MERGE, Difference.NONE, judged.reason), None
            if judged.verdict.value != "distinct":
                verdict = Verdict(judged.verdict.value)
                return None, Judgement(verdict, Difference.NONE, judged.reason), hit
        return None, None, None


class Precomputed:
    """The model's vectors of the workload, computed in one batch, looked up by text."""

    name = MiniLMEmbedder.name
    dimension = MiniLMEmbedder.dimension

    def __init__(self, model: MiniLMEmbedder, texts: list[str]) -> None:
        self.vectors = dict(zip(texts, model.embed(texts), strict=True))

    def embed(self, texts: Sequence[str]) -> list[Vector]:
        return [self.vectors[text] for text in texts]


def embed_one_ms(model: MiniLMEmbedder, texts: list[str], n: int = 20) -> float:
    """Median milliseconds to embed one memory's text, as each write does."""
    times = []
    for text in texts[:n]:
        began = time.perf_counter()
        model.embed([text])
        times.append(time.perf_counter() - began)
    return statistics.median(times) * 1000


def texts() -> list[str]:
    pairs = load_pairs()
    return [p.text_a for p in pairs] + [p.text_b for p in pairs]


JUDGED = (
    (near_matches, ("fetch_floor", "judge", "judge_events", "readable")),
    (writer, ("readable",)),
    (memories, ("readable",)),
)
"""Where the write path calls the judge's package: each call is timed."""


@contextmanager
def judge_clock() -> Iterator[list[float]]:
    """The CPU seconds the write path spends in the judge's package (reading
    each text and judging each pair), call by call, while the block runs: the
    judge waits on nothing, and on a shared machine its wall-clock time counts
    the other processes' turns too. The cache
    of analysed texts is emptied first: each round reads its texts as a server
    reads new writes, once each."""
    spent: list[float] = []
    saved = [(module, name, getattr(module, name)) for module, names in JUDGED for name in names]

    def timed(call: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            began = time.thread_time()
            try:
                return call(*args, **kwargs)
            finally:
                spent.append(time.thread_time() - began)

        return run

    forget_texts()
    for module, name, call in saved:
        setattr(module, name, timed(call))
    try:
        yield spent
    finally:
        for module, name, call in saved:
            setattr(module, name, call)


def one_round(env: BenchEnv, way: str, n: int, workload: list[str], embedder: Any) -> Counter:
    scratch, _ = env.scratch_graphs(f"dedup_cost_{way.split()[0]}_{n}")
    gm = GraphMem(scratch.store, clock=ManualClock(start=1_800_000_000.0), embedder=embedder)
    if way == "exact only":
        gm.writer.near_matches.__class__ = _ExactOnly
    elif way == "cosine only":
        gm.writer.near_matches.__class__ = _CosineOnly
    elif way == "judge before":
        gm.writer.near_matches.__class__ = _JudgeBefore
    results: Counter = Counter()
    with judge_clock() as spent:
        began = time.perf_counter()
        for content in workload:
            _, outcome = gm.remember_detailed({"content": content})
            results[outcome.result.value] += 1
        results["seconds"] = time.perf_counter() - began  # type: ignore[assignment]
    results["judge seconds"] = sum(spent)  # type: ignore[assignment]
    results["judge calls"] = len(spent)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    model = MiniLMEmbedder()
    workload = texts()
    embedder = Precomputed(model, sorted(set(workload)))
    embed_ms = embed_one_ms(model, workload)
    seconds: dict[str, list[float]] = {way: [] for way in WAYS}
    judging: list[tuple[float, int]] = []
    decided: dict[str, Counter] = {}
    _JudgeBefore.before = load_before(BEFORE)
    ways = [way for way in WAYS if way != "judge before" or _JudgeBefore.before is not None]
    with BenchEnv() as env:
        for n in range(args.rounds):
            for way in ways:
                results = one_round(env, way, n, workload, embedder)
                seconds[way].append(results.pop("seconds"))
                spent, calls = results.pop("judge seconds"), results.pop("judge calls")
                if way == "restatement check":
                    judging.append((spent, calls))
                decided[way] = results
    rate = {way: len(workload) / statistics.median(seconds[way]) for way in ways}
    print(
        f"{len(workload)} remembers a round (both texts of {len(workload) // 2} labelled "
        f"pairs), {args.rounds} rounds, all-MiniLM-L6-v2 vectors, embedded FalkorDB"
    )
    print(f"{'way':<20}{'writes/s':>10}{'ms/write':>10}   outcomes of the last round")
    for way in ways:
        outcomes = ", ".join(f"{k} {v}" for k, v in sorted(decided[way].items()))
        print(f"{way:<20}{rate[way]:>10.1f}{1000 / rate[way]:>10.2f}   {outcomes}")
    ms = {way: 1000 / rate[way] for way in ways}
    check = ms["restatement check"]
    print(f"embedding one memory (every way pays it on each write): {embed_ms:.1f} ms")
    spent, calls = sorted(judging)[len(judging) // 2]
    own = spent / len(workload) * 1000
    print(
        f"the judge's own CPU time (reading each new text once, judging each near match): "
        f"{own * 1000:.0f} us a write over {calls / len(workload):.1f} calls "
        f"({spent / calls * 1e6:.0f} us a call); {own / (check + embed_ms):.2%} of a write "
        f"with its embedding ({check + embed_ms:.2f} ms), {own / check:.2%} without"
    )
    for other in [w for w in ways if w != "restatement check"]:
        print(
            f"restatement check vs {other}: {ms[other] / check:.3f} of its throughput "
            f"({check - ms[other]:+.2f} ms a write); with the embedding counted in: "
            f"{(ms[other] + embed_ms) / (check + embed_ms):.3f}"
        )


if __name__ == "__main__":
    main()
