"""The pure steps of ``services.retrieval.retrievers``' full text: ranking the
matches and what is ranked after the candidates."""

from __future__ import annotations

from graphmem.domain.models import Memory
from graphmem.services.retrieval.retrievers import _deeper, _ranked, held_by
from graphmem.store.queries.fulltext import Match


def test_matches_rank_by_score_then_id_and_each_text_is_analysed_once() -> None:
    matches = [
        Match(id="b", text="deploy the billing worker"),
        Match(id="a", text="deploy the billing worker"),
        Match(id="c", text="lunch on friday"),
    ]
    stems: dict[str, list[str]] = {"c": ["kept"]}
    scores, ids = _ranked(matches, {"deploy": 1.0, "bill": 0.5}, stems, mean_length=3.0)
    assert ids == ["a", "b", "c"]
    assert scores["a"] == scores["b"] > scores["c"] == 0.0
    assert stems["c"] == ["kept"]  # analysed before: not again
    assert set(stems) == {"a", "b", "c"}


def _memory(memory_id: str) -> Memory:
    return Memory(
        id=memory_id, content=memory_id, project_id="p", session_id="s", created_at=0, updated_at=0
    )


def test_after_the_candidates_come_the_unread_and_the_allowed_up_to_fetch() -> None:
    kept = [_memory("a")]
    allowed: dict[str, Memory | None] = {"a": kept[0], "b": None, "c": _memory("c")}
    ids = ["a", "b", "c", "d", "e"]
    assert _deeper(ids, kept, allowed, fetch=10) == ["c", "d", "e"]
    assert _deeper(ids, kept, allowed, fetch=3) == ["c", "d"]


def test_a_word_is_counted_in_every_match_that_holds_it_by_its_stem() -> None:
    matches = [
        Match("a", "Ana: the retries failed again"),
        Match("b", "Ben: retrying now, retry later"),
        Match("c", "Ana: lunch?"),
    ]
    stems: dict[str, list[str]] = {}
    counts = held_by(["retry", "ana", "zebra"], matches, stems)
    # "retries", "retrying" and "retry" share a stem; a memory counts once.
    assert counts == {"retry": 2, "ana": 2, "zebra": 0}
    # Each text's analysis is kept for the rest of the query.
    assert set(stems) == {"a", "b", "c"}
