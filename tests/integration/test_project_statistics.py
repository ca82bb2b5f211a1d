"""A project's retrieval is its own: nothing another project holds, and nothing
another agent keeps private, changes which memories it returns or their scores
(graphmem.domain.textscope; docs/retrieval.md, "Statistics per project").

Each test writes a random project and asks it random questions, then writes
many random projects beside it (with the project's own words at other
frequencies, and a name that is common in them) and asks again through a
fresh GraphMem, whose statistics are read anew: every answer and every score
must be the same.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.services.embeddings import MiniLMEmbedder
from graphmem.store import Store

WORDS = (
    "deploy",
    "queue",
    "worker",
    "redis",
    "cache",
    "timeout",
    "retry",
    "backup",
    "bucket",
    "invoice",
    "tenant",
    "schema",
    "index",
    "migration",
    "billing",
    "report",
    "export",
    "login",
    "token",
    "session",
    "payment",
    "dog",
    "garden",
    "marathon",
    "recipe",
    "flight",
    "hotel",
    "doctor",
    "school",
    "piano",
    "novel",
    "camera",
    "bicycle",
    "kitchen",
    "coffee",
    "window",
    "river",
    "mountain",
    "winter",
    "summer",
    "project",
    "budget",
)
NAMES = ("Ana", "Ben", "Caro", "Dev", "Eli", "Fay")
MODES = ("FULLTEXT", "VECTOR", "HYBRID", "GRAPH")
OTHER_PROJECTS = 24
QUESTIONS = 10
TARGET = "target"


def _sentence(rng: random.Random, words: Sequence[str], names: Sequence[str]) -> str:
    picked = rng.sample(list(words), rng.randint(3, 7))
    return f"{rng.choice(names)}: " + " ".join(picked) + rng.choice([".", "!", "?"])


def _project(rng: random.Random, size: int, words: Sequence[str]) -> list[dict[str, Any]]:
    return [
        {"content": _sentence(rng, words, NAMES), "memory_type": rng.choice(["fact", "event"])}
        for _ in range(size)
    ]


def _answers(gm: GraphMem, questions: Sequence[str], project: str) -> list[Any]:
    """Every mode's hits with their scores and explanations, and knowledgeContext's
    items with theirs, for each question."""
    answers: list[Any] = []
    for question in questions:
        for mode in MODES:
            found = gm.search(question, mode=mode, limit=10, min_relevance=0.0, project_id=project)
            answers.append(
                [
                    (
                        hit.memory.id,
                        hit.score,
                        [(c.name, c.value) for c in hit.explanation.components],
                    )
                    for hit in found.hits
                ]
            )
        context = gm.knowledge_context(
            question, max_results=10, min_relevance=0.0, record_access=False, project_id=project
        )
        answers.append([(item.memory.id, item.score) for item in context.items])
    return answers


def _fresh(store: Store, clock: ManualClock, embedder: MiniLMEmbedder) -> GraphMem:
    """A GraphMem with no statistics cached: what it scores by, it reads now."""
    return GraphMem(store, clock=clock, embedder=embedder)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [7, 1234])
def test_other_projects_change_no_result_and_no_score(
    egm: GraphMem, store: Store, clock: ManualClock, embedder: MiniLMEmbedder, seed: int
):
    rng = random.Random(seed)
    egm.remember_many(_project(rng, 60, WORDS), dedup=False, project_id=TARGET)
    questions = [" ".join(rng.sample(WORDS, rng.randint(1, 4))) for _ in range(QUESTIONS)]
    questions += ["What did Ana say about the deploy?", "Ben"]
    alone = _answers(_fresh(store, clock, embedder), questions, TARGET)
    assert any(alone), "the questions find something"

    # Other projects: the target's words, with some far more common, and a name
    # ("Gus") that the target never says but every other project does.
    for index in range(OTHER_PROJECTS):
        weights = rng.sample(WORDS, 8)
        words = [*WORDS, *weights * rng.randint(1, 6)]
        others = _project(rng, rng.randint(10, 80), words)
        others += [{"content": f"Gus: {_sentence(rng, WORDS, ['Ana'])}"} for _ in range(5)]
        egm.remember_many(others, dedup=False, project_id=f"other-{index}")
    shared = _answers(_fresh(store, clock, embedder), questions, TARGET)
    assert shared == alone


@pytest.mark.slow
def test_another_agents_private_memories_change_no_result_and_no_score(
    egm: GraphMem, store: Store, clock: ManualClock, embedder: MiniLMEmbedder
):
    rng = random.Random(99)
    ana = egm.as_agent("ana")
    items = [
        {**i, "visibility": rng.choice(["shared", "private"])} for i in _project(rng, 40, WORDS)
    ]
    ana.remember_many(items, dedup=False, project_id=TARGET)
    questions = [" ".join(rng.sample(WORDS, rng.randint(1, 3))) for _ in range(QUESTIONS)]
    as_ana: Callable[[], list[Any]] = lambda: _answers(  # noqa: E731
        _fresh(store, clock, embedder).as_agent("ana"), questions, TARGET
    )
    before = as_ana()

    ben = egm.as_agent("ben")
    words = [*WORDS, *rng.sample(WORDS, 6) * 5]
    items = [{**item, "visibility": "private"} for item in _project(rng, 120, words)]
    ben.remember_many(items, dedup=False, project_id=TARGET)
    assert as_ana() == before

    # Shared, ben's memories are ana's to read, and they count.
    for memory in ben.list(project_id=TARGET, first=100).items:
        if memory.agent_id == "ben":
            ben.share(memory.id, project_id=TARGET)
    assert as_ana() != before


@pytest.mark.parametrize(
    "question",
    ["deploy queue", "what is it that they were", "zyzzogeton"],
    ids=["empty project", "stop words only", "a word no memory has"],
)
def test_nothing_to_find_is_an_empty_answer_with_a_note(egm: GraphMem, question: str):
    egm.remember_many(_project(random.Random(3), 30, WORDS), project_id="elsewhere")
    project = "empty" if question == "deploy queue" else "elsewhere"
    for mode in MODES:
        found = egm.search(question, mode=mode, project_id=project)
        if mode == "FULLTEXT" or project == "empty":
            assert found.hits == [] and found.notes, (mode, found)
    context = egm.knowledge_context(question, record_access=False, project_id=project)
    if project == "empty":
        assert context.items == [] and context.notes
