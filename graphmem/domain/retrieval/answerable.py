"""Whether anything in a project answers a query at all.

``minRelevance`` judges each hit; some hit always comes closest, and a
question about something the project never mentions still finds memories
sharing one of its common words ("How do we deploy the conference booth
kiosk?" in a project that deploys services but has no kiosk) or a loose
meaning. What tells such a question apart is the question as a whole: how
close its nearest memory is in meaning, how much of what it says no memory
of the project holds (weighed by IDF, so a rare word counts most), whether
a name it uses appears nowhere, how much of it the best-matching memory
holds, how long it is (a long hint always shares something) and how large
the project is (among more memories the nearest is nearer by chance).

Those six go through a logistic model whose weights were fitted on the dev
sets' answered and unanswerable questions (``python -m benchmarks.answerable``
fits them and prints what each cut keeps and loses; docs/retrieval.md has the
figures); below ``cut`` the query is answered with no hits and a note saying
why. It judges only what both retrievers saw: with one retriever (VECTOR or
FULLTEXT mode, embeddings off) or ``minRelevance`` 0 it does not run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class QueryWord:
    """One content word of the query as the project's full text sees it."""

    word: str
    stem: str
    """Its stem: what full text matches, and the key the memories' words are read by."""
    weight: float
    """Its IDF in the project; a word no memory holds weighs as if one more did."""
    held: bool
    """Some memory of the project (as the viewer reads it) holds it."""
    name: bool
    """Written as a name: capitalised, not at the start of a sentence."""


@dataclass(frozen=True)
class Evidence:
    """What the retrievers found that bears on whether the query is answered."""

    closest: float
    """The best cosine of any memory to the query."""
    words: tuple[QueryWord, ...]
    covered: float
    """The largest share of the query's word weight one memory holds."""
    memories: int = 0
    """The project's size as the viewer reads it: the more memories, the closer
    the nearest one comes by chance."""

    @property
    def mass(self) -> float:
        return sum(w.weight for w in self.words)

    def unheld(self, *, names: bool = False) -> float:
        """The share of the query's word weight that no memory holds (names only)."""
        mass = self.mass
        if mass <= 0:
            return 0.0
        return sum(w.weight for w in self.words if not w.held and (w.name or not names)) / mass

    def missing_names(self) -> list[str]:
        return [w.word for w in self.words if w.name and not w.held]


SIZE_FITTED = (40, 1_000)
"""The project sizes the weights were fitted on (40 to 600 memories, rounded
out): a smaller or larger project weighs as the nearest end, so the gate does
not extrapolate (a project of eight would otherwise pass a loose match that
one of 300 refuses)."""


def features(evidence: Evidence) -> dict[str, float]:
    """The values the model weighs, by the names of its weights."""
    return {
        "closest": evidence.closest,
        "unheld": evidence.unheld(),
        "unheld_names": evidence.unheld(names=True),
        "length": math.log1p(len(evidence.words)),
        "covered": evidence.covered,
        "size": math.log1p(min(max(evidence.memories, SIZE_FITTED[0]), SIZE_FITTED[1])),
    }


@dataclass(frozen=True)
class Answerability:
    """The logistic model over ``features`` and the cut below which nothing answers."""

    closest: float = 21.29
    unheld: float = -2.17
    unheld_names: float = -17.39
    length: float = 2.94
    """Times ln(1 + the query's content words)."""
    covered: float = 5.11
    size: float = -1.26
    """Times ln(1 + the project's memories, held to ``SIZE_FITTED``): the more
    memories, the closer the nearest comes by chance."""
    bias: float = -7.59
    cut: float = 0.10
    """Below this probability the query is answered with nothing (0: never)."""

    def probability(self, evidence: Evidence) -> float:
        logit = self.bias + sum(
            getattr(self, name) * value for name, value in features(evidence).items()
        )
        return 1.0 / (1.0 + math.exp(-max(min(logit, 50.0), -50.0)))

    def answers(self, probability: float) -> bool:
        return probability >= self.cut


def unanswered_note(evidence: Evidence, probability: float, cut: float) -> str:
    """Why nothing was returned, in the terms the model weighed."""
    missing = evidence.missing_names()
    named = f"; no memory names {', '.join(missing)}" if missing else ""
    return (
        f"nothing relevant: no memory answers the query (answerable {probability:.2f}, "
        f"below {cut:.2f}: the closest memory's cosine is {evidence.closest:.2f}, "
        f"{evidence.unheld():.0%} of the query's word weight is in no memory{named}); "
        "minRelevance 0 returns the closest memories anyway"
    )
