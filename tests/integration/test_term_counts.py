"""Counting a project's words for BM25: every word a query and its feedback
need is counted in one round trip (``PROBE_SLOTS`` per statement), and each
count is the index's, word by word."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from graphmem.api import GraphMem
from graphmem.services.retrieval.fulltext import PROBE_SLOTS
from graphmem.store import Row, Store

WORDS = [f"{stem}ology" for stem in ("zyx", "quor", "vamp", "plink", "brisk", "tund")] + [
    f"{a}{b}" for a in ("morv", "kelt", "dran") for b in ("ax", "ip", "um", "ek")
]
"""Eighteen made-up words no analyser folds into one another."""


def _counting(store: Store, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the statements ``store`` reads from now on (it still runs them)."""
    names: list[str] = []
    read = store.read

    def counted(name: str, params: Mapping[str, Any] | None = None) -> list[Row]:
        names.append(name)
        return read(name, params)

    monkeypatch.setattr(store, "read", counted)
    return names


def test_a_query_and_its_feedback_words_are_counted_in_one_statement(
    store: Store, gm: GraphMem, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Word i is held by i % 3 + 1 memories, so a count off by a slot shows.
    gm.remember_many(
        [
            {"content": f"note {n} about {word}"}
            for i, word in enumerate(WORDS)
            for n in range(i % 3 + 1)
        ]
    )
    assert PROBE_SLOTS >= 16
    names = _counting(store, monkeypatch)
    counts = gm.retrieval.project_term_counts(WORDS[:PROBE_SLOTS], "default")
    assert names.count("fulltext_term_counts") == 1
    assert counts == {word: i % 3 + 1 for i, word in enumerate(WORDS[:PROBE_SLOTS])}
    names.clear()
    counts = gm.retrieval.project_term_counts(WORDS, "default")
    assert names.count("fulltext_term_counts") == 2
    assert counts == {word: i % 3 + 1 for i, word in enumerate(WORDS)}
