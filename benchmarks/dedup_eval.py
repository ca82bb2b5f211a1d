"""``python -m benchmarks.dedup_eval``: does near-duplicate merging keep meaning?

On the labelled pairs of ``benchmarks/eval/dedup_pairs.jsonl`` (restatements
and paraphrases that should merge; contradictions by negation, polarity,
entity, term and order; updates of a number, version, date or identifier;
related but distinct statements), each pair's real all-MiniLM-L6-v2 cosine is
computed, then two rules decide whether the new text (``text_b``) merges into
the existing one (``text_a``):

- old: cosine >= ``dedup_similarity`` (0.92), nothing else;
- new: ``graphmem.restatement.judge`` with the thresholds of
  ``retention_rules.yaml``.

Printed: precision and recall of MERGE for both, the new rule's verdicts per
label, and the new check's per-call cost beside the cost of embedding one
memory (what every write already pays), both measured in this run.

The whole set is reported: the thresholds were chosen on it (there is no held-out
split), so the figures show how the rule does on the cases it was built from.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from graphmem.embeddings import MiniLMEmbedder
from graphmem.restatement import Verdict, analyse, judge
from graphmem.retention import RetentionRules

PAIRS = Path(__file__).resolve().parent / "eval" / "dedup_pairs.jsonl"
RULES = Path(__file__).resolve().parents[1] / "retention_rules.yaml"
LABELS = ("merge", "contradiction", "update", "distinct")


@dataclass(frozen=True)
class Pair:
    text_a: str
    text_b: str
    label: str
    kind: str
    domain: str
    cosine: float = 0.0


@dataclass(frozen=True)
class MergeQuality:
    precision: float
    recall: float
    merged: int
    wrong: int
    """Merges of a pair that is not the same statement."""


def load_pairs(path: Path = PAIRS) -> list[Pair]:
    return [Pair(**json.loads(line)) for line in path.read_text().splitlines() if line.strip()]


def with_cosines(pairs: list[Pair], embedder: MiniLMEmbedder) -> list[Pair]:
    texts = sorted({t for p in pairs for t in (p.text_a, p.text_b)})
    vectors = dict(zip(texts, embedder.embed(texts), strict=True))
    return [
        Pair(**{**p.__dict__, "cosine": _dot(vectors[p.text_a], vectors[p.text_b])}) for p in pairs
    ]


def quality(pairs: list[Pair], merged: list[bool]) -> MergeQuality:
    true = sum(1 for p, m in zip(pairs, merged, strict=True) if m and p.label == "merge")
    wrong = sum(1 for p, m in zip(pairs, merged, strict=True) if m and p.label != "merge")
    should = sum(1 for p in pairs if p.label == "merge")
    return MergeQuality(
        precision=true / (true + wrong) if true + wrong else 1.0,
        recall=true / should if should else 1.0,
        merged=true + wrong,
        wrong=wrong,
    )


def per_call_us(pairs: list[Pair], rules: RetentionRules, rounds: int = 20) -> tuple[float, float]:
    """Median microseconds per ``judge`` call: texts never seen (cache cleared each
    round: the cost of a new write) and the existing side cached (as in a server)."""
    cold, warm = [], []
    for _ in range(rounds):
        analyse.cache_clear()
        began = time.perf_counter()
        for p in pairs:
            judge(p.text_b, p.text_a, p.cosine, thresholds=rules.restatement)
        cold.append((time.perf_counter() - began) / len(pairs))
        began = time.perf_counter()
        for p in pairs:
            judge(p.text_b, p.text_a, p.cosine, thresholds=rules.restatement)
        warm.append((time.perf_counter() - began) / len(pairs))
    return statistics.median(cold) * 1e6, statistics.median(warm) * 1e6


def embed_one_us(embedder: MiniLMEmbedder, pairs: list[Pair], n: int = 50) -> float:
    """Median microseconds to embed one memory's text, as each write does."""
    times = []
    for p in pairs[:n]:
        began = time.perf_counter()
        embedder.embed([p.text_b])
        times.append(time.perf_counter() - began)
    return statistics.median(times) * 1e6


def main() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    rules = RetentionRules.load(RULES)
    embedder = MiniLMEmbedder()
    pairs = with_cosines(load_pairs(), embedder)
    old = quality(pairs, [p.cosine >= rules.dedup_similarity for p in pairs])
    verdicts = [judge(p.text_b, p.text_a, p.cosine, thresholds=rules.restatement) for p in pairs]
    new = quality(pairs, [v.verdict is Verdict.MERGE for v in verdicts])
    labels = Counter(p.label for p in pairs)
    print(f"dedup pairs: {len(pairs)} ({PAIRS.relative_to(PAIRS.parents[2])}); ", end="")
    print(", ".join(f"{label} {labels[label]}" for label in LABELS))
    print(f"{'rule':<44} {'merge precision':>15} {'merge recall':>12} {'merged':>7} {'wrong':>6}")
    for name, q in (
        (f"old: cosine >= {rules.dedup_similarity}", old),
        ("new: restatement check (retention_rules.yaml)", new),
    ):
        print(f"{name:<44} {q.precision:>15.3f} {q.recall:>12.3f} {q.merged:>7} {q.wrong:>6}")
    print("\nnew rule, verdict per label:")
    table = Counter((p.label, v.verdict.value) for p, v in zip(pairs, verdicts, strict=True))
    columns = [v.value for v in Verdict]
    print(f"{'label':<14}" + "".join(f"{c:>11}" for c in columns))
    for label in LABELS:
        print(f"{label:<14}" + "".join(f"{table[(label, c)]:>11}" for c in columns))
    cold, warm = per_call_us(pairs, rules)
    embed = embed_one_us(embedder, pairs)
    print(
        f"\nper-call cost of the check: {cold:.1f} us with both texts new, {warm:.1f} us with "
        f"the existing text cached; embedding one memory (every write's baseline): "
        f"{embed:.0f} us ({cold / embed:.2%} of it)"
    )


def _dot(a: object, b: object) -> float:
    return float(sum(x * y for x, y in zip(a, b, strict=True)))  # type: ignore[call-overload]


if __name__ == "__main__":
    main()
