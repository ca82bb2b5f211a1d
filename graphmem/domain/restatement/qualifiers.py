"""The closed-class words of two texts side by side: a quantifier, modal,
direction, person, tense or restriction that differs changes what is said even
when every content word agrees ("Agents must run the linter", "Agents may run
the linter")."""

from __future__ import annotations

from functools import cache

from graphmem.domain.restatement.analysis import Analysis
from graphmem.domain.restatement.verdicts import Difference, Judgement, Verdict, show
from graphmem.domain.restatement.words import QUALIFIERS, stemmed

OPPOSITE_DIRECTIONS = frozenset(
    frozenset(pair) for pair in (("up", "down"), ("in", "out"), ("over", "under"), ("on", "off"))
)
"""Direction words count only against their opposite: "in" and "on" are
often two ways to say one place, "scale up" and "scale down" never."""

ONE_SIDED_CONFLICT = frozenset({"only", "except", "unless"})
"""Words whose presence on one side only contradicts the other ("Only admins
can delete projects" against "Admins can delete projects")."""
ONE_SIDED_DISTINCT = frozenset(
    {"some", "few", "many", "most", "several", "other", "must", "should", "shall", "may"}
    | {"might", "could", "would", "instead"}
)
"""Meanings whose word on one side only makes another statement ("Agents must
run the linter" against "Agents run the linter", "Some tests are slow"
against "Tests are slow", "every other Friday" against "every Friday"). The
rest on one side only is how a sentence is built: "all" and "every" say what a
bare plural says ("Dependencies are pinned"), "can" and "will" what a plain
verb says, and person, tense and direction ("our feature flags", "flags are
stored") add nothing."""
OBLIGATIONS = frozenset({"must", "should", "shall"})
"""Said by a command too: "Never commit secrets", "Secrets must never be
committed". One of them against another ("must", "should") is a stronger or
weaker rule, not its opposite: ``DISTINCT``, never merged nor flagged."""
CONTRASTS = frozenset({"over", "than", "versus", "vs"})
"""Role words that say what "instead of" says: "Postgres over MongoDB"."""


def qualifier_difference(a: Analysis, b: Analysis) -> Judgement | None:
    """The first difference of closed-class words between ``a`` (existing) and
    ``b`` (new): a word against another of its class, a direction against its
    opposite or a restriction on one side only is a ``CONFLICT``; a
    quantifier, modal or contrast on one side only ``DISTINCT``."""
    found = [judged for kind in _kinds(a, b) if (judged := _compare(kind, a, b))]
    conflicts = [j for j in found if j.verdict is Verdict.CONFLICT]
    chosen = conflicts or found
    return chosen[0] if chosen else None


@cache
def qualifier_stems() -> frozenset[str]:
    """The stems of the closed-class words that are content words too
    ("most", "many", "few"): a difference in them is read here."""
    return frozenset(stemmed(word) for word in QUALIFIERS)


def _kinds(a: Analysis, b: Analysis) -> list[str]:
    return sorted({kind for kind, _, _ in a.qualifiers + b.qualifiers})


def _meanings(analysis: Analysis, kind: str) -> dict[str, list[str]]:
    """Each meaning of class ``kind`` in the text, with the words that said it."""
    found: dict[str, list[str]] = {}
    for of, meaning, word in analysis.qualifiers:
        if of == kind and word not in found.setdefault(meaning, []):
            found[meaning].append(word)
    return found


def _compare(kind: str, a: Analysis, b: Analysis) -> Judgement | None:
    old, new = _meanings(a, kind), _meanings(b, kind)
    gone, came = sorted(set(old) - set(new)), sorted(set(new) - set(old))
    if kind == "direction":
        flips = [(x, y) for x in gone for y in came if frozenset((x, y)) in OPPOSITE_DIRECTIONS]
        if not flips:
            return None
        pairs = ", ".join(f"{x} vs {y}" for x, y in flips)
        return Judgement(Verdict.CONFLICT, Difference.QUALIFIER, f"direction flips: {pairs}")
    if gone and came:
        degree = set(gone) | set(came) <= OBLIGATIONS
        return Judgement(
            Verdict.DISTINCT if degree else Verdict.CONFLICT,
            Difference.QUALIFIER,
            f"{kind} differs: {show(_said(old, gone))} -> {show(_said(new, came))}",
        )
    if gone:
        return _one_sided(kind, "existing", _said(old, _unsaid(gone, a, b)))
    return _one_sided(kind, "new", _said(new, _unsaid(came, b, a)))


def _unsaid(meanings: list[str], mine: Analysis, other: Analysis) -> list[str]:
    """The meanings of one side (``mine``) the other text does not say in
    another way: an obligation by a command (one that opens with the verb
    ``mine`` puts after "must be": "Rotate secrets" beside "Secrets must be
    rotated"), a contrast by "over" or "than"."""
    return [
        m
        for m in meanings
        if not (m in OBLIGATIONS and _commands(other, mine))
        and not (m == "instead" and any(role in CONTRASTS for role, _ in other.roles))
    ]


def _commands(other: Analysis, mine: Analysis) -> bool:
    """Whether ``other`` is a command: by its shape, or by opening with the verb
    of ``mine``'s passive rule."""
    return other.imperative or (bool(other.opening) and other.opening in mine.obliged)


def _one_sided(kind: str, where: str, words: list[str]) -> Judgement | None:
    meanings = {QUALIFIERS[word][1] for word in words}
    reason = f"{kind} in the {where} text only: {show(words)}"
    if meanings & ONE_SIDED_CONFLICT:
        return Judgement(Verdict.CONFLICT, Difference.QUALIFIER, reason)
    if meanings & ONE_SIDED_DISTINCT:
        return Judgement(Verdict.DISTINCT, Difference.QUALIFIER, reason)
    return None


def _said(meanings: dict[str, list[str]], chosen: list[str]) -> list[str]:
    return [word for meaning in chosen for word in meanings[meaning]]
