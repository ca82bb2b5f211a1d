"""A kNN over a vector index every project shares, asked until it has enough.

Both backends' vector indexes span every project: a statement takes the
index's best ``k`` and filters them to one project (and the caller's filters)
after the search, so a caller asks for more than it needs and, while the
filters leave too few, for more again (``Reach.widen``). A statement says how
many the index gave before the filters (its ``seen``): fewer than ``k`` means
the index holds no more, unless its backend's index hides vectors
(``Dialect.vector_shadows``). Then a short answer is asked again, larger, as
far as the caller's ``Reach`` allows: how much a hidden memory matters, and
what another query costs, is the caller's to weigh.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import NamedTuple, TypeVar

from graphmem.store import Row, Store

GROWTH = 4
"""Each ``k`` asked is this many times the one before."""

Item = TypeVar("Item", bound=Hashable)


class Answer(NamedTuple):
    """What one statement gave for one query vector."""

    rows: list[Row]
    """What passed the statement's filters."""
    given: int | None
    """How many the index gave before the filters (the statement's ``seen``);
    ``None`` when no row came back to say."""


@dataclass(frozen=True)
class Reach:
    """How far a caller follows a kNN: from ``k``, growing fourfold, up to ``most``."""

    k: int
    """The first ``k`` asked."""
    most: int
    """The largest ``k`` asked; no item is asked again after it."""
    enough: int
    """The rows an item needs: an answer with as many is final."""
    widen: bool = True
    """Whether an item the index gave all of ``k`` for, and the filters left
    too few of, is asked again with a larger ``k``; so is one whose answer did
    not say what the index gave."""
    shadowed_below: float = 1.0
    """Behind shadows, an answer of fewer than this share of ``k`` is short:
    the index may hold more than it gave. A larger short answer is final."""
    chases: int | None = 1
    """How many times a short answer is asked again (``None``: no limit), and
    only while each brings more than the short one before it. An answer of
    nothing at all is asked again whatever came before: shadows that fill a
    ``k`` whole can leave it empty."""
    stored: int | None = None
    """How many vectors the index can hold at most, if known: a short answer
    of as many is everything."""


def nearest(
    store: Store,
    ask: Callable[[int, list[Item]], Mapping[Item, Answer]],
    items: Iterable[Item],
    reach: Reach,
) -> Iterator[tuple[Item, Answer]]:
    """Each item's answers, in the order they come: ``ask(k, pending)`` runs
    one statement for the pending items (an ``Answer`` for each), and an item
    is asked again, at the next ``k``, while ``reach`` says it may find more.
    An item's last answer is its answer at the largest ``k`` it was asked."""
    shadows = store.dialect.vector_shadows
    shorts: dict[Item, int] = {}
    chased: dict[Item, int] = {}
    pending = list(items)
    k = reach.k
    while pending:
        answers = ask(k, pending)
        again: list[Item] = []
        for item in pending:
            answer = answers[item]
            yield item, answer
            if _asked_again(item, answer, k, reach, shadows, shorts, chased):
                again.append(item)
        if k >= reach.most:
            return
        pending, k = again, min(k * GROWTH, reach.most)


def _asked_again(
    item: Item,
    answer: Answer,
    k: int,
    reach: Reach,
    shadows: bool,
    shorts: dict[Item, int],
    chased: dict[Item, int],
) -> bool:
    """Whether the item may find more at a larger ``k``; ``shorts`` keeps each
    item's last short answer and ``chased`` how often one was asked again."""
    if len(answer.rows) >= reach.enough:
        return False
    given = answer.given
    if given is None or given >= k:
        return reach.widen
    if not shadows:
        return False  # fewer than asked: everything the index holds
    if given == 0:
        shorts[item] = 0
        return True
    if given >= reach.shadowed_below * k or (reach.stored is not None and given >= reach.stored):
        return False
    grew = given > shorts.get(item, -1)
    shorts[item] = given
    times = chased.get(item, 0)
    if not grew or (reach.chases is not None and times >= reach.chases):
        return False
    chased[item] = times + 1
    return True
