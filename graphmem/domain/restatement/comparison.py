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

_ORDER_WORDS = frozenset({"after", "befor"})
"""The stems of "after" and "before"."""

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
        if not self.common():
            return Judgement(
                Verdict.DISTINCT,
                Difference.TERM,
                "nothing in common: no content word or value is in both texts",
            )
        if self.a.question != self.b.question:
            return Judgement(
                Verdict.DISTINCT, Difference.TERM, "a question beside a statement: one asks"
            )
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
        """The first difference found, the most telling first: polarity, then a
        value, then roles swapped, then the words left over; none is a merge."""
        return self._negated() or self._value_change() or self._swap() or self._wording(similarity)

    def _negated(self) -> Judgement | None:
        """An odd count of negations, flipped words and negating prefixes: one
        text says the opposite of the other."""
        a, b = self.a, self.b
        parity = a.negations + b.negations + len(self.flips) + len(self.prefixed)
        return self._polarity() if parity % 2 else None

    def _value_change(self) -> Judgement | None:
        """Values on one side only: from the same source a newer value, from
        another a conflict, named by the kind of value that changed."""
        before, after = set(self.a.values), set(self.b.values)
        if before == after:
            return None
        kind = value_kind(before ^ after)
        verdict = Verdict.SUPERSEDE if self.same_source else Verdict.CONFLICT
        old, added = show(sorted(before - after)), show(sorted(after - before))
        return Judgement(verdict, kind, f"{kind.value} differs: {old} -> {added}")

    def _swap(self) -> Judgement | None:
        """The same words with two of them trading roles."""
        swapped = transposed(self.a, self.b)
        if not swapped:
            return None
        return Judgement(Verdict.CONFLICT, Difference.ORDER, f"roles swapped: {swapped}")

    def _wording(self, similarity: float) -> Judgement:
        """What the words left over on each side say, names the other text
        neither holds nor explains counted with them: a unit, a name, a
        closed-class word, more said on one side, other words; nothing left
        over is the same statement."""
        old_names, new_names = self._names()
        only_old, only_new = self.left | old_names, self.right | new_names
        return (
            _unit(only_old, only_new)
            or _entity(old_names - self.a.addressed, new_names - self.b.addressed)
            or self._qualified(only_old, only_new)
            or _added(
                only_old,
                only_new,
                said=len(self.b.stems) + len(self.b.values),
                asks=self.b.question,
            )
            or _term(only_old, only_new)
            or Judgement(
                Verdict.MERGE,
                Difference.NONE,
                f"same statement: every word matched, similarity {similarity:.3f}",
            )
        )

    def _names(self) -> tuple[set[str], set[str]]:
        """The names each text holds that the other neither holds nor explains."""
        a, b = self.a, self.b
        old = {n for n in a.entities - b.stems - b.entities if not explained(n, a, b)}
        new = {n for n in b.entities - a.stems - a.entities if not explained(n, b, a)}
        return old, new

    def every_word(self) -> bool:
        """Whether no word or name of either text is left over: each is in the
        other or explained there, so neither says more."""
        old_names, new_names = self._names()
        return not (self.left or self.right or old_names or new_names)

    def _qualified(self, only_old: set[str], only_new: set[str]) -> Judgement | None:
        """A closed-class word that differs ("must" vs "should") decides, unless
        other words differ on both sides besides the closed-class ones."""
        rest_old, rest_new = only_old - qualifier_stems(), only_new - qualifier_stems()
        if rest_old and rest_new:
            return None
        return qualifier_difference(self.a, self.b)

    def ordered(self) -> bool:
        """Whether "before" against "after" is the one opposite between the two,
        with no negation or negating prefix beside it: only then can saying one
        text from the other end ("P before Q": "Q after P") make them one."""
        return (
            len(self.flips) == 1
            and set(self.flips[0]) == _ORDER_WORDS
            and not self.prefixed
            and self.a.negations == self.b.negations
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
        old_names = a.entities - b.stems - a.addressed
        new_names = b.entities - a.stems - b.addressed
        if self.left - old_names or self.right - new_names:
            return None
        old = (set(a.values) - set(b.values)) | old_names
        new = (set(b.values) - set(a.values)) | new_names
        return (sorted(old), sorted(new)) if old and new else None

    def common(self) -> bool:
        """Whether a content word or value is in both texts. Without one, that
        every word matched or that one was flipped proves nothing: "Hey, you
        around?" and "Hello! How are you?" hold no content word at all, "Yesss"
        and "Ha!" one each, and neither pair says the same or the opposite."""
        return bool((self.a.stems & self.b.stems) or (set(self.a.values) & set(self.b.values)))

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


def _unit(only_old: set[str], only_new: set[str]) -> Judgement | None:
    """Words on both sides, every one a unit ("GB" vs "MB"): a conflict."""
    if not (only_old and only_new) or not (only_old | only_new) <= UNIT_STEMS():
        return None
    return Judgement(
        Verdict.CONFLICT,
        Difference.UNIT,
        f"unit differs: {show(sorted(only_old))} -> {show(sorted(only_new))}",
    )


def _entity(old_names: set[str], new_names: set[str]) -> Judgement | None:
    """One name in place of another: a conflict."""
    if not (old_names and new_names):
        return None
    return Judgement(
        Verdict.CONFLICT,
        Difference.ENTITY,
        f"named entity differs: {show(sorted(old_names))} -> {show(sorted(new_names))}",
    )


MIN_REPEAT_WORDS = 3
"""The fewest content words and values a new text repeating part of a memory
says: a shorter one ("Yes, I do", "Thanks!") is a turn of its own, not a claim."""


def _added(
    only_old: set[str], only_new: set[str], *, said: int, asks: bool = False
) -> Judgement | None:
    """Words on one side only. The new text saying more is a distinct statement
    (it adds what the memory does not hold). The existing one saying more makes
    the new text a repeat of part of it when the new text says a claim's worth
    (``said`` content words and values, at least ``MIN_REPEAT_WORDS`` and no fewer than
    the existing one adds), every word of it matched there, with values, names,
    negations and closed-class words already agreeing: a merge, and the memory
    keeps its fuller wording. A fragment of a longer memory stays apart, and so
    does a question (``asks``): "How are the lessons going?" is not "How are
    the music lessons going?"."""
    if bool(only_old) == bool(only_new):
        return None
    if only_old and said >= max(MIN_REPEAT_WORDS, len(only_old)) and not asks:
        return Judgement(
            Verdict.MERGE,
            Difference.NONE,
            f"the new text repeats part of the existing one, which also says: "
            f"{show(sorted(only_old))}",
        )
    side, words = ("new", only_new) if only_new else ("existing", only_old)
    return Judgement(
        Verdict.DISTINCT,
        Difference.ADDED,
        f"the {side} text says more: {show(sorted(words))}",
    )


def _term(only_old: set[str], only_new: set[str]) -> Judgement | None:
    """Other words on each side: different statements."""
    if not (only_old or only_new):
        return None
    return Judgement(
        Verdict.DISTINCT,
        Difference.TERM,
        f"different statements: {show(sorted(only_old))} vs {show(sorted(only_new))}",
    )
