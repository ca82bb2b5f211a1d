"""Roles swapped between two texts with the same words: who does what to whom."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from functools import cache, lru_cache

from graphmem.domain import lexicon
from graphmem.domain.restatement.analysis import Analysis
from graphmem.domain.restatement.verdicts import show
from graphmem.domain.restatement.words import stemmed
from graphmem.domain.values import PARTS_OF_DAY


def transposed(a: Analysis, b: Analysis) -> str:
    """Two things that traded places while the words around them stayed: "from
    HTTP to HTTPS" and "from HTTPS to HTTP", "port 8080 for staging and 9090
    for prod" and the reverse, "Ana reports to Ben" and "Ben reports to Ana".

    A role word (from, to, over, than...) binding another shared word on each
    side, or names in another order, is a swap. Beyond those, the words both
    texts hold are lined up (their longest common subsequence); what is left
    over on each side is the same words in another order only if something
    was swapped. A phrase moved whole ("Before pushing, run the
    tests", "Run the tests before pushing") leaves one word over, not two. Two
    items of a list ("React and Vite") and a change of voice ("Ben was called
    by Ana") reorder without swapping roles."""
    if a.passive != b.passive or _inverted(a, b):
        return ""
    shared = set(a.sequence) & set(b.sequence)
    for check in _CHECKS:
        if found := check(a, b, shared):
            return found
    return ""


def _inverted(a: Analysis, b: Analysis) -> bool:
    """An identity read the other way round ("Maya's partner is Tom", "Tom is
    Maya's partner"; "The entry point is main() in cli.py", "main() is the entry
    point in cli.py", where it holds left at the end): what stands before "is"
    in one stands after it in the other. That turns no roles: both say the two
    are one."""
    if a.copula is None or b.copula is None:
        return False
    left_a, right_a = _sides(a)
    left_b, right_b = _sides(b)
    if left_a == right_b and right_a == left_b:
        return True
    return _placed(a) == _placed(b) and _sides(a, placed=False) == _sides(b, placed=False)[::-1]


def _sides(read: Analysis, *, placed: bool = True) -> tuple[set[str], set[str]]:
    """The items before and after an identity's "is"; without ``placed``, those
    of the phrase ending it that says where it holds ("in cli.py") left out."""
    assert read.copula is not None
    end = len(read.sequence) - (0 if placed or read.place >= len(read.sequence) else read.place)
    return set(read.sequence[: read.copula]), set(read.sequence[read.copula : end])


def _placed(read: Analysis) -> set[str]:
    """The items of the phrase that ends a text saying where it holds."""
    return set(read.sequence[len(read.sequence) - read.place :]) if read.place else set()


def _role_swap(a: Analysis, b: Analysis, shared: set[str]) -> str:
    """A role word binding one shared word here and another there, each text
    lacking the other's binding ("from HTTP" vs "from HTTPS"): the first such
    pair, in sorted order, names the swap."""
    for role, x in sorted(a.roles):
        for other, y in sorted(b.roles):
            if (
                role == other
                and x != y
                and {x, y} <= shared
                and (role, y) not in a.roles
                and (role, x) not in b.roles
                and _apart(a, b, x, y)
            ):
                return f"{role} {x} vs {role} {y}"
    return ""


def _name_swap(a: Analysis, b: Analysis, _shared: set[str]) -> str:
    """Names both texts hold, in another order ("Ana reports to Ben", "Ben
    reports to Ana"): the first place where the orders differ names the pair,
    unless the two are only items of a list."""
    names_a = [n for n in a.names if n in b.names]
    names_b = [n for n in b.names if n in a.names]
    if len(names_a) < 2 or names_a == names_b:
        return ""
    x, y = next((x, y) for x, y in zip(names_a, names_b, strict=True) if x != y)
    if _listed(a, x, y) or _listed(b, x, y):
        return ""
    return f"{x} and {y} traded places"


_WINDOWS = ((1, 0), (0, 1), (2, 2))
"""Neighbourhoods compared for a trade, narrowest first: the word before, the
word after, then two either side."""


def _slot_swap(a: Analysis, b: Analysis, shared: set[str]) -> str:
    """Two shared words that took each other's neighbours, in the first window
    where any pair did. A word of time trading with another word moves an
    adjunct, not a role ("The database is backed up every night", "Nightly
    backups are taken of the database"); two words of time trading ("Ana works
    nights, Ben days") still swap."""
    for window in _WINDOWS:
        slots_a, slots_b = _slots(a.sequence, *window), _slots(b.sequence, *window)
        for x, y in itertools.combinations(sorted(shared), 2):  # a trade reads both ways
            if (
                _traded(slots_a, slots_b, x, y)
                and _apart(a, b, x, y)
                and (x in _TIME_STEMS()) == (y in _TIME_STEMS())
            ):
                return f"{x} and {y} traded places"
    return ""


@cache
def _TIME_STEMS() -> frozenset[str]:
    """Words that say when, stemmed: they place a statement in time and take
    no part in who does what."""
    words = lexicon.words(
        "day days week weeks month months year years daily nightly weekly monthly yearly "
        "hourly today tonight tomorrow yesterday weekend weekends"
    )
    return frozenset(stemmed(w) for w in words | set(PARTS_OF_DAY))


def _traded(
    slots_a: dict[str, tuple[str, ...]], slots_b: dict[str, tuple[str, ...]], x: str, y: str
) -> bool:
    """Whether ``x`` stands in ``a`` where ``y`` stands in ``b`` and the other
    way round (each read with the two swapped back), in places that differ."""
    if slots_a[x] == slots_a[y]:
        return False
    return slots_a[x] == _swapped_back(slots_b[y], x, y) and slots_a[y] == _swapped_back(
        slots_b[x], x, y
    )


def _swapped_back(slot: tuple[str, ...], x: str, y: str) -> tuple[str, ...]:
    """``slot`` with ``x`` and ``y`` put back in each other's place (most slots
    hold neither, and are returned as they are)."""
    if x not in slot and y not in slot:
        return slot
    return tuple(y if w == x else x if w == y else w for w in slot)


def _apart(a: Analysis, b: Analysis, x: str, y: str) -> bool:
    """Neither written side by side nor listed together in either text: only
    then does a trade of ``x`` and ``y`` swap roles rather than reword a phrase
    or reorder a list."""
    return not (_next_to(a, x, y) or _next_to(b, x, y) or _listed(a, x, y) or _listed(b, x, y))


def _repaired(a: Analysis, b: Analysis, _shared: set[str]) -> str:
    """Three values or more paired differently ("June 3, July 1" and "June 1,
    July 3")."""
    if len(a.values) >= 3 and _adjacent(a.values) != _adjacent(b.values):
        return f"values paired differently: {', '.join(a.values)} vs {', '.join(b.values)}"
    return ""


def _swapped_around(a: Analysis, b: Analysis, shared: set[str]) -> str:
    """A subject and an object traded across a pivot; a passive text reorders
    them without a swap, so it is read only between two active ones."""
    if a.passive or b.passive:
        return ""
    return _around(a, b, shared)


_CHECKS: tuple[Callable[[Analysis, Analysis, set[str]], str], ...] = (
    _role_swap,
    _name_swap,
    _slot_swap,
    _repaired,
    _swapped_around,
)
"""The kinds of swap, tried in this order; the first that finds one says it."""


@lru_cache(maxsize=16384)
def _slots(sequence: tuple[str, ...], before: int, after: int) -> dict[str, tuple[str, ...]]:
    """Each item's neighbours (first occurrence): ``before`` items before it and
    ``after`` after it, "" past an end. Cached: a memory's sequence is read
    against every write near it (the map is never changed by its readers)."""
    padded = ("",) * before + sequence + ("",) * after
    places: dict[str, tuple[str, ...]] = {}
    for i, entry in enumerate(sequence):
        places.setdefault(
            entry, padded[i : i + before] + padded[i + before + 1 : i + before + 1 + after]
        )
    return places


def _adjacent(values: tuple[str, ...]) -> set[frozenset[str]]:
    """Values next to each other ("June 3", "July 1"), as unordered pairs."""
    return {frozenset(pair) for pair in itertools.pairwise(values) if pair[0] != pair[1]}


def _around(a: Analysis, b: Analysis, shared: set[str]) -> str:
    """What stood before a word now stands after it, and the other way round:
    "values in .env override the defaults in config.yaml" and "the defaults in
    config.yaml override values in .env" (a subject and an object swapped)."""
    left = [w for w in a.sequence if w in shared]
    right = [w for w in b.sequence if w in shared]
    for pivot in shared:
        if left.count(pivot) != 1 or right.count(pivot) != 1:
            continue
        i, j = left.index(pivot), right.index(pivot)
        before, after = set(left[:i]), set(left[i + 1 :])
        if before and after and before == set(right[j + 1 :]) and after == set(right[:j]):
            return f"{show(sorted(before))} and {show(sorted(after))} swapped around {pivot}"
    return ""


def _next_to(analysis: Analysis, x: str, y: str) -> bool:
    """Words written side by side trading places reorder a phrase ("JSON
    encoded", "encoded as JSON"; "May 4th", "the 4th of May"); a swap of roles
    moves words across others, or across a role word ("from A to B")."""
    items = analysis.sequence
    return any(
        {items[i], items[i + 1]} == {x, y} and analysis.touching[i] for i in range(len(items) - 1)
    )


def _listed(analysis: Analysis, x: str, y: str) -> bool:
    """Whether ``x`` and ``y`` stand next to each other in a list ("A and B", "A, B")."""
    items = analysis.sequence
    return any(
        {items[i], items[i + 1]} == {x, y} and analysis.listed[i] for i in range(len(items) - 1)
    )
