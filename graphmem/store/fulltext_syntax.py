"""How each backend's full-text engine spells "any of" and "all of".

FalkorDB's index is RediSearch (``a|b|(c d)``), Neo4j's is Lucene
(``a OR b OR (c AND d)``). Retrieval builds its queries from word tokens only
and asks the store for the spelling, so no service branches on the backend.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class FulltextSyntax:
    either: str
    both: str

    def any_of(self, parts: Sequence[str]) -> str:
        return self.either.join(parts)

    def all_of(self, terms: Sequence[str]) -> str:
        """The terms required together; one term stands alone."""
        if len(terms) == 1:
            return terms[0]
        return "(" + self.both.join(terms) + ")"


REDISEARCH = FulltextSyntax(either="|", both=" ")
LUCENE = FulltextSyntax(either=" OR ", both=" AND ")


def syntax_for(dialect: str) -> FulltextSyntax:
    """Lucene for the ``neo4j`` dialect, RediSearch for ``falkordb`` (also over Bolt)."""
    return LUCENE if dialect == "neo4j" else REDISEARCH
