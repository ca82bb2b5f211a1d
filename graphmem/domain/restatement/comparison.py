"""Two claims read side by side: what decides that they say the same, a new
value, the opposite, or something else."""

from __future__ import annotations

from graphmem.domain.restatement.analysis import Analysis
from graphmem.domain.restatement.qualifiers import qualifier_difference, qualifier_stems
from graphmem.domain.restatement.relations import (
    PREFIXES,
    UNIT_STEMS,
    explained,
    negated_words,
    opposite,
)
from graphmem.domain.restatement.swaps import transposed
from graphmem.domain.restatement.values import value_kind
from graphmem.domain.restatement.verdicts import Difference, Judgement, Verdict, show

SAME_SUBJECT = 0.5
"""A flipped word, a changed value or a swap signals a contradiction or an
update only between texts sharing at least this share of their content words;
texts further apart are different statements."""


class Comparison:
    """Two analyses aligned word by word: what is shared, what is explained,
    what is left over on each side."""

    def __init__(self, a: Analysis, b: Analysis, same_source: bool) -> None:
        self.a, self.b, self.same_source = a, b, same_source
        only_a, only_b = set(a.stems - b.stems), set(b.stems - a.stems)
        self.flips = sorted((x, y) for x in only_a for y in only_b if opposite(x, y))
        flipped = {x for x, _ in self.flips} | {y for _, y in self.flips}
        self.prefixed = [w for w in negated_words(a, b) + negated_words(b, a) if w not in flipped]
        negated = set(self.prefixed) | {w[len(p) :] for w in self.prefixed for p in PREFIXES}
        only_a -= flipped | negated
        only_b -= flipped | negated
        self.left = {x for x in only_a if not explained(x, a, b)}
        self.right = {y for y in only_b if not explained(y, b, a)}

    def verdict(self, similarity: float) -> Judgement:
        judged = self._read(similarity)
        if judged.verdict in (Verdict.CONFLICT, Verdict.SUPERSEDE) and (
            self.overlap() < SAME_SUBJECT
        ):
            return Judgement(
                Verdict.DISTINCT,
                Difference.TERM,
                f"different statements: {self.overlap():.2f} of the words shared ({judged.reason})",
            )
        return judged

    def _read(self, similarity: float) -> Judgement:
        a, b = self.a, self.b
        parity = a.negations + b.negations + len(self.flips) + len(self.prefixed)
        if parity % 2:
            return self._polarity()
        if set(a.values) != set(b.values):
            changed = set(a.values) ^ set(b.values)
            kind = value_kind(changed)
            old = sorted(set(a.values) - set(b.values))
            added = sorted(set(b.values) - set(a.values))
            verdict = Verdict.SUPERSEDE if self.same_source else Verdict.CONFLICT
            return Judgement(verdict, kind, f"{kind.value} differs: {show(old)} -> {show(added)}")
        swapped = transposed(a, b)
        if swapped:
            return Judgement(Verdict.CONFLICT, Difference.ORDER, f"roles swapped: {swapped}")
        old_names = {n for n in a.entities - b.stems - b.entities if not explained(n, a, b)}
        new_names = {n for n in b.entities - a.stems - a.entities if not explained(n, b, a)}
        units = (self.left | old_names) and (self.right | new_names)
        if units and (self.left | old_names | self.right | new_names) <= UNIT_STEMS():
            return Judgement(
                Verdict.CONFLICT,
                Difference.UNIT,
                f"unit differs: {show(sorted(self.left | old_names))} -> "
                f"{show(sorted(self.right | new_names))}",
            )
        if old_names and new_names:
            return Judgement(
                Verdict.CONFLICT,
                Difference.ENTITY,
                f"named entity differs: {show(sorted(old_names))} -> {show(sorted(new_names))}",
            )
        only_old, only_new = self.left | old_names, self.right | new_names
        rest_old, rest_new = only_old - qualifier_stems(), only_new - qualifier_stems()
        if not (rest_old and rest_new) and (qualified := qualifier_difference(a, b)):
            return qualified
        if bool(only_old) != bool(only_new):
            side, words = ("new", only_new) if only_new else ("existing", only_old)
            return Judgement(
                Verdict.DISTINCT,
                Difference.ADDED,
                f"the {side} text says more: {show(sorted(words))}",
            )
        if self.left or self.right or old_names or new_names:
            return Judgement(
                Verdict.DISTINCT,
                Difference.TERM,
                f"different statements: {show(sorted(self.left | old_names))} vs "
                f"{show(sorted(self.right | new_names))}",
            )
        return Judgement(
            Verdict.MERGE,
            Difference.NONE,
            f"same statement: every word matched, similarity {similarity:.3f}",
        )

    def same_frame(self) -> tuple[list[str], list[str]] | None:
        """Only what fills one slot differs: a value or a name on each side,
        with every other content word shared or explained, and negations and
        closed-class words agreeing ("Dependencies are pinned in
        requirements.lock" and "... in uv.lock"): the old and the new filling,
        else ``None``. Another name moves the embedding far, so this is read
        below the candidate cosine too."""
        a, b = self.a, self.b
        if self.flips or self.prefixed or a.negations != b.negations:
            return None
        if a.qualifiers != b.qualifiers:
            return None
        old_names, new_names = a.entities - b.stems, b.entities - a.stems
        if self.left - old_names or self.right - new_names:
            return None
        old = (set(a.values) - set(b.values)) | old_names
        new = (set(b.values) - set(a.values)) | new_names
        return (sorted(old), sorted(new)) if old and new else None

    def overlap(self) -> float:
        """The share of content words and values the two texts hold in common,
        an antonym pair, a changed value or one name in place of another
        ("HashiCorp Vault" for "AWS Secrets Manager") counting as one shared
        word: below ``SAME_SUBJECT`` they are not about the same thing, whatever
        word tells them apart."""
        a = self.a.stems | set(self.a.values)
        b = self.b.stems | set(self.b.values)
        changed = min(len(set(self.a.values) - b), len(set(self.b.values) - a))
        renamed = bool(self.a.entities - b - self.b.entities) and bool(
            self.b.entities - a - self.a.entities
        )
        paired = len(self.flips) + changed + renamed
        union = len(a | b) - paired
        return (len(a & b) + paired) / union if union else 1.0

    def _polarity(self) -> Judgement:
        if self.flips:
            pairs = ", ".join(f"{x} vs {y}" for x, y in self.flips)
            return Judgement(Verdict.CONFLICT, Difference.POLARITY, f"polarity flips: {pairs}")
        if self.prefixed:
            return Judgement(
                Verdict.CONFLICT,
                Difference.NEGATION,
                f"negated word: {', '.join(self.prefixed)}",
            )
        side, cues = ("new", self.b.cues) if self.b.negations % 2 else ("existing", self.a.cues)
        return Judgement(
            Verdict.CONFLICT,
            Difference.NEGATION,
            f"negation in the {side} text only: {', '.join(cues)}",
        )
