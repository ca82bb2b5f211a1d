"""What differs between the backends besides their statement files.

Services ask the store's ``dialect`` for these instead of comparing backend
names, so a backend difference is answered in one place. The statements
themselves differ through ``cypher/falkordb/`` and ``cypher/neo4j/`` (and their
fragments, ``cypher/fragments/falkordb/`` and ``cypher/fragments/neo4j/``), and how
a parameter (an embedding, say) travels is the adapter's business.

A ``Dialect`` is a ``str``: it names the statement folder and compares equal
to ``"falkordb"`` or ``"neo4j"``.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from graphmem.domain import textscope


class Dialect(StrEnum):
    FALKORDB = "falkordb"
    NEO4J = "neo4j"

    @property
    def snapshot_json(self) -> bool:
        """Whether ``snapshot_memories_json`` returns one JSON text per memory.

        FalkorDB's client parses every returned value in Python, so one text
        per memory is most of a snapshot's saving there; Neo4j has no
        ``toJSON`` (and its driver needs no such saving), so the evaluator
        reads the columns.
        """
        return self is Dialect.FALKORDB

    @property
    def vector_shadows(self) -> bool:
        """Whether a kNN of ``k`` can give fewer than ``k`` while the index holds more.

        FalkorDB 4.16 leaves a memory's old vector in its index each time any
        property of the memory is written (an access, a retrieval count, a
        promotion), and those shadow live vectors: a kNN of ``k`` gives fewer,
        and around memories written often, none at all (docs/retrieval.md).
        ``graphmem.store.knn`` asks such an index again. Neo4j's gives ``k``
        while it holds as many.
        """
        return self is Dialect.FALKORDB

    def all_of(self, words: Sequence[str]) -> str:
        """A full-text query matching documents that hold every one of ``words``:
        RediSearch intersects on a space, Lucene needs ``AND``."""
        return (" AND " if self is Dialect.NEO4J else " ").join(words)

    def any_of(self, parts: Sequence[str]) -> str:
        """A full-text query matching documents that match any of ``parts``:
        ``a|b`` for RediSearch, ``a OR b`` for Lucene."""
        return (" OR " if self is Dialect.NEO4J else "|").join(parts)

    def fulltext_query(
        self, alternatives: Sequence[str], groups: Sequence[Sequence[str]] = ()
    ) -> str:
        """Any of ``alternatives``, or all the words of any one of ``groups``.

        A group of one word stands alone; a larger one is a parenthesised
        intersection (``a|b|(c d)|(c e)``, ``a OR b OR (c AND d) OR (c AND e)``).
        Empty when there is nothing to ask. The words must already be plain
        tokens: nothing here escapes query syntax.
        """
        parts = list(alternatives)
        for group in groups:
            parts.append(group[0] if len(group) == 1 else "(" + self.all_of(group) + ")")
        return self.any_of(parts)

    def scoped(self, query: str, project_id: str, viewer: str | None) -> str:
        """``query`` over the memories of ``project_id`` that ``viewer`` may read
        (``None``: every one), by their scope words (graphmem.domain.textscope).

        RediSearch takes a field selector per clause, and the query's own words
        are held to the text fields (a bare word after a selector would belong
        to it); Lucene searches every field of the index for a bare word, which
        within one scope changes nothing. Empty when ``query`` is."""
        if not query:
            return ""
        project, readers = textscope.project_word(project_id), textscope.readers(viewer)
        if self is Dialect.NEO4J:
            parts = [f"text_scope:{project}"]
            if readers:
                parts.append("text_scope:(" + " OR ".join(readers) + ")")
            return " AND ".join([*parts, f"({query})"])
        parts = [f"@text_scope:({project})"]
        if readers:
            parts.append("@text_scope:(" + "|".join(readers) + ")")
        return " ".join([*parts, f"@content|rationale:({query})"])
