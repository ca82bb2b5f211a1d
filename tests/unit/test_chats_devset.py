"""The long-chat dev set is what its generator makes, at the scale the
retrieval figures claim (benchmarks/make_chats.py, docs/retrieval.md)."""

from __future__ import annotations

import json
from collections import Counter

from benchmarks import make_chats


def test_the_file_is_what_the_generator_makes():
    assert make_chats.OUT.read_text() == make_chats.text(make_chats.dataset())


def test_the_set_has_the_scale_and_shape_of_real_use():
    data = json.loads(make_chats.OUT.read_text())
    conversations = data["conversations"]
    assert len(conversations) >= 8
    turns = {}
    for conversation in conversations:
        said = [t for s in conversation["sessions"] for t in s["turns"]]
        assert len(said) >= 400, conversation["id"]
        assert len({t["speaker"] for t in said}) >= 3, conversation["id"]
        dates = [s["date"] for s in conversation["sessions"]]
        assert dates == sorted(dates) and len(set(dates)) == len(dates)
        turns.update({t["id"]: conversation["id"] for t in said})
    questions = data["questions"]
    assert len(questions) >= 400
    kinds = Counter(q["kind"] for q in questions)
    assert set(kinds) == set(make_chats.KINDS)
    assert min(kinds.values()) >= 0.2 * len(questions)
    for question in questions:
        assert question["evidence"], question
        assert all(turns[e] == question["conversation"] for e in question["evidence"])
