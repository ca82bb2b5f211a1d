"""The coding-agent dev set is what its generator makes, in the shape its
figures claim (benchmarks/make_agent_memory.py, docs/retrieval.md): every
label names a memory of its project, chains run forward in time, every link
has both ends, and every kind of question is asked in every project."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import datetime
from typing import Any

import pytest

from benchmarks import make_agent_memory
from benchmarks.make_chats import content_words, overlap


def projects() -> list[dict[str, Any]]:
    return json.loads(make_agent_memory.OUT.read_text())["projects"]


def test_the_file_is_what_the_generator_makes():
    made = make_agent_memory.text(make_agent_memory.dataset())
    assert make_agent_memory.OUT.read_text() == made
    assert make_agent_memory.text(make_agent_memory.dataset()) == made


def test_four_projects_one_of_them_held_out():
    found = projects()
    assert len(found) == 4
    assert len({p["id"] for p in found}) == 4
    assert [p["held_out"] for p in found].count(True) == 1


@pytest.mark.parametrize("index", range(4))
def test_a_project_is_months_of_dated_memories(index: int):
    project = projects()[index]
    memories = project["memories"]
    assert 200 <= len(memories) <= 350
    times = [m["occurred_at"] for m in memories]
    assert times == sorted(times) and all(t.endswith("Z") for t in times)
    span = (datetime.fromisoformat(times[-1]) - datetime.fromisoformat(times[0])).days
    assert 6 * 30 <= span <= 9 * 31
    assert len({m["key"] for m in memories}) == len(memories)
    assert len({m["content"] for m in memories}) == len(memories)
    types = Counter(m["memory_type"] for m in memories)
    for kind in ("decision", "convention", "coding_standard", "lesson_learned", "risk", "rule"):
        assert types[kind] > 0, kind


@pytest.mark.parametrize("index", range(4))
def test_links_and_chains_hold(index: int):
    project = projects()[index]
    at = {m["key"]: m["occurred_at"] for m in project["memories"]}
    relations = Counter(r["type"] for r in project["relations"])
    assert set(relations) == {"CONSTRAINS", "ENABLES"}
    for relation in project["relations"]:
        assert relation["from"] in at and relation["to"] in at, relation
    superseded = {}
    for pair in project["supersedes"]:
        assert at[pair["old"]] < at[pair["new"]], pair
        assert pair["old"] not in superseded, pair
        superseded[pair["old"]] = pair["new"]
    assert any(new in superseded for new in superseded.values())  # a chain of three


@pytest.mark.parametrize("index", range(4))
def test_every_kind_of_question_is_asked_and_answered_by_its_project(index: int):
    project = projects()[index]
    memories = {m["key"]: m for m in project["memories"]}
    questions = project["questions"]
    assert 60 <= len(questions) <= 90
    assert set(Counter(q["kind"] for q in questions)) == set(make_agent_memory.KINDS)
    successors = {pair["old"]: pair["new"] for pair in project["supersedes"]}
    old, new = set(successors), set(successors.values())
    sources = {r["from"] for r in project["relations"]}
    for question in questions:
        relevant = question["relevant"]
        assert all(key in memories for key in relevant), question
        kind = question["kind"]
        assert bool(relevant) == (kind != "none"), question
        if kind == "none":
            words = content_words(question["query"])
            assert all(len(words & content_words(m["content"])) <= 1 for m in memories.values())
        elif kind == "paraphrase":
            assert overlap(question["query"], memories[relevant[0]]["content"]) <= 1, question
        elif kind == "direct":
            assert overlap(question["query"], memories[relevant[0]]["content"]) >= 2, question
        elif kind == "past":
            # the decision then, later replaced: the month named is from its month to the next one
            answer = datetime.fromisoformat(memories[relevant[0]]["occurred_at"])
            successor = datetime.fromisoformat(memories[successors[relevant[0]]]["occurred_at"])
            named = _month(question["query"], answer.year)
            assert (answer.year, answer.month) <= named <= (successor.year, successor.month)
        elif kind == "current":
            assert set(relevant) <= new - old, question
        elif kind == "relation":
            assert set(relevant) <= sources, question


def _month(question: str, year: int) -> tuple[int, int]:
    """The year and month ``question`` names (``year`` when it names none)."""
    month = next(i for i, m in enumerate(make_agent_memory.MONTHS, 1) if m in question)
    named = re.search(r"\b(20\d\d)\b", question)
    return (int(named.group(1)) if named else year, month)
