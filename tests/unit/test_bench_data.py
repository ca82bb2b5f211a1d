"""The benchmark's synthetic memories: valid, varied, reproducible, and related sensibly."""

from __future__ import annotations

from collections import Counter

import pytest

from benchmarks.data import SESSION_LENGTH, generate
from benchmarks.write_read import graphql_input, remember_payload
from graphmem.domain.kinds import MemoryType, RelationType
from graphmem.domain.models import MemoryInput


@pytest.fixture(scope="module")
def dataset():
    return generate(1_000)


def test_every_memory_is_a_valid_remember_input(dataset) -> None:
    for item in dataset.memories:
        MemoryInput.model_validate(item)


def test_memories_cover_every_type_several_sessions_and_tags(dataset) -> None:
    types = Counter(item.get("memory_type") for item in dataset.memories)
    assert set(types) == {t.value for t in MemoryType} | {None}
    sessions = Counter(item["session_id"] for item in dataset.memories)
    assert len(sessions) == len(dataset.sessions) == 1_000 // SESSION_LENGTH
    assert max(sessions.values()) - min(sessions.values()) <= 1
    assert all(item["tags"] for item in dataset.memories)
    assert len({tag for item in dataset.memories for tag in item["tags"]}) >= 20


def test_contents_read_like_notes_and_are_mostly_distinct(dataset) -> None:
    contents = [item["content"] for item in dataset.memories]
    assert len(set(contents)) >= 0.95 * len(contents)
    assert all(40 <= len(c) <= 300 and c[-1] in ".)" for c in contents)
    assert not any("{" in c for c in contents), "a template slot was left unfilled"


def test_same_seed_same_data_other_seed_other_data() -> None:
    assert generate(300, seed=1) == generate(300, seed=1)
    assert generate(300, seed=1).memories != generate(300, seed=2).memories


def test_relations_stay_inside_a_session_and_supersede_backwards(dataset) -> None:
    memories, relations = dataset.memories, dataset.relations
    assert len(memories) // 40 <= len(relations) <= len(memories) // 10
    assert {r.type for r in relations} == set(RelationType)
    assert len({(r.from_index, r.to_index) for r in relations}) == len(relations)
    for r in relations:
        assert r.from_index != r.to_index
        assert memories[r.from_index]["session_id"] == memories[r.to_index]["session_id"]
        if r.type is RelationType.SUPERSEDES:
            assert r.from_index > r.to_index  # newer replaces older: no cycle possible


def test_graphql_payload_spells_inputs_the_graphql_way() -> None:
    item = {"content": "c", "memory_type": "lesson_learned", "session_id": "s", "source": "agent"}
    assert graphql_input(item) == {
        "content": "c",
        "memoryType": "LESSON_LEARNED",
        "sessionId": "s",
        "source": "AGENT",
    }
    payload = remember_payload([item, item])
    assert payload["query"].count("remember(input:") == 2
    assert set(payload["variables"]) == {"i0", "i1"}
