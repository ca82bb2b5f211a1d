"""A question nothing in the project answers gets no hits and a note
(domain/retrieval/answerable.py), against a real store and the real model.

A project that deploys services but has no kiosk: the kiosk question shares
"deploy" with half of it and still gets nothing, in HYBRID, GRAPH and
knowledgeContext, on both backends and over GraphQL; questions it does answer,
by their words or by their meaning, keep their answer; ``minRelevance`` 0 and
the one-retriever modes are not judged.
"""

from __future__ import annotations

import dataclasses

import pytest

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.domain.retrieval.answerable import Answerability
from graphmem.services.embeddings import MiniLMEmbedder
from graphmem.store import Store
from tests.integration.conftest import GraphQLClient

MEMORIES = (
    "We deploy the API service with blue-green releases behind the load balancer.",
    "Deploys of the billing worker wait for the database migrations to finish.",
    "The staging cluster is redeployed from main every night at 02:00.",
    "Decision: Postgres 16 is the only database; no MySQL anywhere.",
    "Convention: every deploy is tagged with the git SHA it was built from.",
    "Lesson: a missing health check let a broken deploy take all traffic.",
    "Invoices are generated at midnight by a cron job.",
    "Rule: secrets live in the vault, never in environment files.",
)
OFF_TOPIC = "How do we deploy the conference booth kiosk?"
NAMED = "Which podcast did Priya recommend?"
ANSWERED = {
    "How is the API service deployed?": 0,
    "when do bills get produced": 6,  # no word shared: by meaning
    "Where do secrets go?": 7,
}


@pytest.fixture
def gm(store: Store, clock: ManualClock, embedder: MiniLMEmbedder) -> GraphMem:
    """The server's GraphMem (``gql`` serves it), with embeddings on."""
    return GraphMem(store, clock=clock, embedder=embedder)


@pytest.fixture
def project(egm: GraphMem) -> list[str]:
    return egm.remember_many([{"content": text} for text in MEMORIES], dedup=False)


def nothing(notes: list[str]) -> bool:
    return any(note.startswith("nothing relevant: no memory answers the query") for note in notes)


def test_an_off_topic_question_gets_nothing_and_says_why(egm: GraphMem, project: list[str]):
    for mode in ("HYBRID", "GRAPH"):
        result = egm.search(OFF_TOPIC, mode=mode)
        assert result.hits == []
        assert nothing(result.notes), result.notes
    context = egm.knowledge_context(OFF_TOPIC, record_access=False)
    assert context.items == []
    assert nothing(context.notes)
    named = egm.search(NAMED)
    assert named.hits == []
    assert any("no memory names priya" in note for note in named.notes), named.notes


@pytest.mark.parametrize("question", sorted(ANSWERED))
def test_answered_questions_keep_their_answer(egm: GraphMem, project: list[str], question: str):
    result = egm.search(question)
    assert [hit.memory.id for hit in result.hits][:1] == [project[ANSWERED[question]]]
    assert not nothing(result.notes)
    context = egm.knowledge_context(question, record_access=False)
    assert project[ANSWERED[question]] in [item.memory.id for item in context.items]


def test_min_relevance_zero_and_one_retriever_modes_are_not_judged(
    egm: GraphMem, project: list[str]
):
    assert egm.search(OFF_TOPIC, min_relevance=0.0).hits
    assert egm.knowledge_context(OFF_TOPIC, min_relevance=0.0, record_access=False).items
    fulltext = egm.search(OFF_TOPIC, mode="FULLTEXT")
    assert fulltext.hits and not nothing(fulltext.notes)
    vector = egm.search(OFF_TOPIC, mode="VECTOR", min_relevance=0.0)
    assert vector.hits and not nothing(vector.notes)


def test_a_cut_of_zero_turns_the_gate_off(egm: GraphMem, project: list[str]):
    egm.retrieval.config = dataclasses.replace(
        egm.retrieval.config, answerability=Answerability(cut=0.0)
    )
    result = egm.search(OFF_TOPIC)
    assert not nothing(result.notes)


@pytest.mark.backends("falkordb")  # the surface: the same on every backend
def test_graphql_answers_the_off_topic_question_with_a_note(gm: GraphMem, gql: GraphQLClient):
    gm.remember_many([{"content": text} for text in MEMORIES], dedup=False)
    query = "query($q: String!) { search(query: $q) { hits { memory { id } } notes } }"
    off = gql.data(query, {"q": OFF_TOPIC})["search"]
    assert off["hits"] == []
    assert nothing(off["notes"])
    on = gql.data(query, {"q": "How is the API service deployed?"})["search"]
    assert on["hits"] and not nothing(on["notes"])
