"""Question and answer: a conversation turn that asks scored together with the turn after it.

In a conversation the words of a question are in the turn that asks it, and
its answer is in the next one, which often shares neither words nor much
meaning with the question ("What's your research about?" then "Coral
bleaching. I measure how heat stress changes the symbiotic algae ..."). A
query about the answer ("What is my doctoral research about?") then finds the
asking turn, which holds nothing a reader needs, and misses the answer.

So a turn that ends with a question mark and the turn after it in the same
session are scored as one exchange (``exchange_pairs``): when the question is
the more relevant, both take the mean of the two relevances
(``pool_exchanges``), and a search hit so scored says so in its explanation. The answer
rises by half the gap and the question falls by as much, so the exchange
takes no more places in a ranking than the question alone took, and a
question whose answer is as relevant as itself, or more, changes nothing.
Every memory belongs to a session (``default`` when the writer named none);
only two memories of the same session are ever paired, and only when the
earlier one ends with a question mark.

Only the candidates the retrievers already found are paired (no store read):
the turn after a question is the next candidate of its session by
``occurred``, then write time, then id. On the dev set of conversations every
turn of a conversation is a candidate; in a larger store an answer that
neither retriever found is not brought in, and the question keeps its own
relevance unless a later candidate of its session is paired with it instead.
docs/retrieval.md has the figures that chose this and the variants measured.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import pairwise

from graphmem.domain.models import Memory

_TRAILING = " \t\r\n\"')]\u201d\u2019\u00bb"
"""What may follow a question mark at the end of a turn (quotes, brackets, space)."""


def asks(text: str) -> bool:
    """The text ends with a question mark (ASCII or full-width), closing quotes
    and brackets aside."""
    return text.rstrip(_TRAILING).endswith(("?", "\uff1f"))


def exchange_pairs(
    relevance: Mapping[str, float], memories: Mapping[str, Memory]
) -> dict[str, str]:
    """The exchanges to score as one, answer id -> question id: each question
    turn of ``relevance`` and the next candidate of its session (by ``occurred``,
    write time, id), when the question's relevance is the higher."""
    sessions: dict[str, list[str]] = {}
    for memory_id in relevance:
        sessions.setdefault(memories[memory_id].session_id, []).append(memory_id)
    pairs: dict[str, str] = {}
    for turns in sessions.values():
        turns.sort(key=lambda i: _chronological(memories[i]))
        for asked, answer in pairwise(turns):
            if relevance[asked] > relevance[answer] and asks(memories[asked].content):
                pairs[answer] = asked
    return pairs


def pool_exchanges(relevance: Mapping[str, float], pairs: Mapping[str, str]) -> dict[str, float]:
    """``relevance`` with both turns of each exchange (``exchange_pairs``) given
    their mean. Every pair is judged on the relevances given; a turn that
    answers one question and asks the next keeps what answering lifts it to
    (the answer in it is what a reader needs)."""
    fallen = {asked: (relevance[asked] + relevance[answer]) / 2 for answer, asked in pairs.items()}
    lifted = {answer: (relevance[asked] + relevance[answer]) / 2 for answer, asked in pairs.items()}
    return {**relevance, **fallen, **lifted}


def _chronological(memory: Memory) -> tuple[float, float, str]:
    """Oldest first: when it happened, then when it was written, then id (ids count
    up in the order of writing), the reverse of ``search.tie_order``."""
    return (memory.occurred, memory.created_at, memory.id)
