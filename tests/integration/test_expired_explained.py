"""A memory that matches a query but whose validity ended is left out, and the
answer says so: "no memory shares a word" would send an agent to write the
fact again."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from tests.integration.conftest import GraphQLClient

pytestmark = pytest.mark.backends("falkordb")

DAY = 86_400.0


def expired_pool(gm: GraphMem, clock: ManualClock) -> tuple[str, str]:
    """A fact that held for a day and stopped holding yesterday."""
    ended = clock.now() - DAY
    memory = gm.remember(
        {
            "content": "The connection pool size is 20.",
            "memory_type": "fact",
            "valid_from": ended - DAY,
            "valid_to": ended,
        }
    )
    return memory.id, datetime.fromtimestamp(ended, tz=UTC).isoformat()


def test_search_names_the_expired_memory_it_left_out(gm: GraphMem, clock: ManualClock) -> None:
    memory_id, ended = expired_pool(gm, clock)

    result = gm.search("connection pool size", mode="FULLTEXT")

    assert result.hits == []
    assert not any("no memory shares a word" in note for note in result.notes), result.notes
    (expired,) = [note for note in result.notes if "expired" in note]
    assert memory_id in expired and f"validTo passed at {ended}" in expired


def test_knowledge_context_names_it_too(gm: GraphMem, clock: ManualClock) -> None:
    memory_id, ended = expired_pool(gm, clock)

    result = gm.knowledge_context("what is the connection pool size")

    assert result.items == []
    assert not any("no memory shares a word" in note for note in result.notes), result.notes
    assert any(memory_id in n and f"validTo passed at {ended}" in n for n in result.notes)


def test_graphql_search_notes_say_expired(
    gm: GraphMem, clock: ManualClock, gql: GraphQLClient
) -> None:
    memory_id, ended = expired_pool(gm, clock)

    notes = gql.data('{ search(query: "connection pool size") { notes } }')["search"]["notes"]

    assert any(memory_id in n and f"validTo passed at {ended}" in n for n in notes), notes


def test_an_unrelated_expired_memory_is_not_mentioned(gm: GraphMem, clock: ManualClock) -> None:
    expired_pool(gm, clock)

    result = gm.search("deploy window on fridays", mode="FULLTEXT")

    assert not any("expired" in note for note in result.notes), result.notes
    assert any("no memory shares a word" in note for note in result.notes), result.notes
