"""Score fusion: one relevance in [0, 1] out of the vector and full-text scores.

Each retriever's score is first put on the same footing, then the two are
mixed with fixed weights (a convex combination), so a relevance means the same
in every query and every mode:

- vector: the cosine similarity, clamped at 0 (unrelated MiniLM pairs score
  about 0.0-0.2, paraphrases 0.5 and up);
- full text: the memory's BM25 over the query's total IDF (``share``: 1 for a
  memory holding every query word once at mean length, whatever the store's
  size or the query's length), saturated as ``share / (share + half)`` so
  that the first rare words a memory shares count most: 0 for no shared
  word, 0.5 at ``half``.

``relevance = vector_weight * cosine + (1 - vector_weight) * lexical`` when both
ran, times the memory's substance (``ScoreFusion.substance``); with one
retriever (VECTOR or FULLTEXT mode, or embeddings off) the relevance is that
retriever's own value. The weight and ``half`` were chosen
on the dev sets (docs/retrieval.md has the grid and its figures; ``python -m
benchmarks.retrieval_eval --grid`` prints it). Scores are fused rather than
ranks: ranks throw away how far apart two candidates are, and a fused score
gives relevance a scale on which "nothing relevant" can be decided.

Substance: a text that says little is not much of an answer, however well it
matches. In a conversation most turns are reactions and pleasantries ("Sam: Oh
man.", "Bye Ana!"), and a question naming a person meets the name in every
one of that person's turns: the cosine of such a short turn is as high as
that of the turn that answers (a few words weigh the name heavily in one
embedding), and full text matches the name. So a fused relevance is
multiplied by ``min(1, stems / full_stems) ** short_power`` (by default
``min(1, stems / 6)``), ``stems`` being
the memory's distinct content stems (full text's analysis): a memory of
``full_stems`` or more counts in full. Single-retriever modes keep their own
value, so FULLTEXT stays BM25 and VECTOR the cosine.

A candidate that one retriever did not return gets that retriever's floor:
0 when the retriever returned everything it could (no shared word, no
vector), else the lowest score it did return (the missing one scored lower).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

DEFAULT_MIN_RELEVANCE = 0.2
"""Below this relevance a memory is not an answer. Chosen on the dev sets
(docs/retrieval.md, ``python -m benchmarks.retrieval_eval``): it keeps at least
97% of the right memories that reach a HYBRID top 10 on every set, where 0.25
already cost up to 8% (and 6 points of recall@10 on one set), and it answers
"nothing relevant" to about a third of the queries of another dev set asked of
a store about something else."""


MIN_RELEVANCE_HELP = (
    "Leave out memories less relevant than this (0 to 1: meaning and shared words fused); "
    "in HYBRID, GRAPH and knowledgeContext a question nothing in the project answers gets "
    "nothing either. Nothing relevant returns no results and a note; 0 returns the closest "
    "memories whatever they are."
)
"""What ``minRelevance`` does, as every surface describes it."""


def nothing_relevant(best: float | None, min_relevance: float, *, expired: bool = False) -> str:
    """The note of a result that nothing reached ``min_relevance``; ``expired``:
    memories that match were left out as expired (``explain.expired_note``
    names them), so "no memory" would not be true."""
    if best is None:
        scope = "no memory still in force" if expired else "no memory"
        return f"nothing relevant: {scope} shares a word or a meaning with the query"
    return (
        f"nothing relevant: the closest memory's relevance is {best:.2f}, "
        f"below minRelevance {min_relevance:.2f}"
    )


@dataclass(frozen=True)
class ScoreFusion:
    vector_weight: float = 0.8
    """Share of the cosine in a hybrid relevance; full text has the rest."""
    lexical_half: float = 0.1
    """The full-text share that counts as half relevant."""
    peak_gain: float = 0.0
    """Per-query weighting: the cosine's weight moves by this times how much more
    peaked the cosine's best ``PEAK_DEPTH`` are than the lexical values' (each
    retriever's best over the median of its best; 0: fixed weights). Measured
    with ``benchmarks.retrieval_eval --grid``; docs/retrieval.md has what it gave."""
    full_stems: int = 6
    """Distinct content stems from which a memory's fused relevance counts in full."""
    short_power: float = 1.0
    """How steeply a shorter memory's fused relevance falls (0: not at all)."""

    def substance(self, stems: int) -> float:
        """The share of its fused relevance a memory of ``stems`` distinct
        content stems keeps (the module's docstring says why)."""
        if self.short_power <= 0.0 or stems >= self.full_stems:
            return 1.0
        return float((max(stems, 1) / self.full_stems) ** self.short_power)

    def lexical(self, share: float) -> float:
        """The full-text share on [0, 1]: saturating, so the first matched words count most."""
        if share <= 0:
            return 0.0
        share = min(share, 1.0)
        return share / (share + self.lexical_half) * (1.0 + self.lexical_half)

    def fuse(
        self,
        vector: Mapping[str, float] | None,
        fulltext: Mapping[str, float] | None,
        *,
        vector_floor: float = 0.0,
        fulltext_floor: float = 0.0,
        feedback: Mapping[str, float] | None = None,
        feedback_floor: float = 0.0,
        feedback_factor: float = 1.0,
    ) -> dict[str, float]:
        """Relevance of every candidate; ``None`` for a retriever that did not run.

        ``feedback`` holds the full-text shares of the expanded query (feedback.py):
        a memory's lexical value is then the better of its own and ``feedback_factor``
        times the expanded one, so the query's own words never count for less, and
        words it did not say count for less than words it did."""
        if fulltext is None:
            return {i: _cosine(score) for i, score in (vector or {}).items()}
        if vector is None:
            return {i: self.lexical(score) for i, score in fulltext.items()}
        w = self.vector_weight
        if self.peak_gain:
            lexical_values = [self.lexical(v) for v in fulltext.values()]
            shift = _peak([_cosine(v) for v in vector.values()]) - _peak(lexical_values)
            w = min(max(w + self.peak_gain * shift, 0.5), 0.95)
        expanded = feedback or {}
        ids = set(vector) | set(fulltext) | set(expanded)

        def lexical(i: str) -> float:
            own = self.lexical(fulltext.get(i, fulltext_floor))
            if feedback is None:
                return own
            return max(own, feedback_factor * self.lexical(expanded.get(i, feedback_floor)))

        return {i: w * _cosine(vector.get(i, vector_floor)) + (1.0 - w) * lexical(i) for i in ids}


PEAK_DEPTH = 10


def _peak(values: list[float]) -> float:
    """How far a retriever's best stands above the median of its best ``PEAK_DEPTH``."""
    best = sorted(values, reverse=True)[:PEAK_DEPTH]
    if len(best) < 2:
        return 0.0
    return best[0] - best[len(best) // 2]


def _cosine(value: float) -> float:
    return min(max(value, 0.0), 1.0)
