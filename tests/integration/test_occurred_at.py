"""When a memory's event happened (``occurred_at``): written, validated, counted
from by recency and staleness, and filtered on by search and knowledgeContext."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest
from mcp import ClientSession

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.domain.errors import InvalidInputError
from graphmem.domain.kinds import MemoryType
from tests.integration.conftest import GraphQLClient, Rejected
from tests.integration.test_mcp import call, call_error, http_server, over_http

DAY = 86_400.0


def iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, tz=UTC).isoformat()


def test_occurred_at_defaults_to_the_write_and_takes_iso_text_or_epoch(
    gm: GraphMem, clock: ManualClock
):
    now = clock.now()
    plain = gm.remember({"content": "the build cache lives on the shared volume"})
    assert plain.occurred_at == pytest.approx(now)
    told = gm.remember({"content": "we moved the build cache", "occurred_at": iso(now - 3 * DAY)})
    assert told.occurred_at == pytest.approx(now - 3 * DAY)
    assert told.created_at == pytest.approx(now)
    millis = gm.remember(
        {
            "content": "the cache was wiped",
            "occurred_at": (now - DAY) * 1000,
            "memory_type": "event",
        }
    )
    assert millis.occurred_at == pytest.approx(now - DAY)
    assert gm.get(millis.id).memory_type is MemoryType.EVENT


@pytest.mark.parametrize(
    ("given", "words"),
    [("next tuesday", "ISO 8601"), (float("inf"), "finite"), ("FUTURE", "in the future")],
)
def test_a_bad_or_future_occurred_at_is_invalid_input_naming_the_field(
    gm: GraphMem, clock: ManualClock, given, words: str
):
    if given == "FUTURE":
        given = iso(clock.now() + 3600)
    with pytest.raises(InvalidInputError) as error:
        gm.remember({"content": "a memory from nowhere", "occurred_at": given})
    assert error.value.field == "occurred_at"
    assert words in error.value.message
    assert gm.list().items == []


def test_a_small_clock_skew_is_accepted(gm: GraphMem, clock: ManualClock):
    memory = gm.remember({"content": "written by a fast clock", "occurred_at": clock.now() + 60})
    assert memory.occurred_at == pytest.approx(clock.now() + 60)


def test_one_future_item_rejects_the_batch_naming_its_index(gm: GraphMem, clock: ManualClock):
    items = [
        {"content": "turn one", "occurred_at": clock.now() - 60},
        {"content": "turn two", "occurred_at": clock.now() + DAY},
    ]
    with pytest.raises(InvalidInputError) as error:
        gm.remember_many(items)
    assert error.value.field == "items[1].occurred_at"
    assert gm.list().items == []


def test_recency_counts_from_when_it_happened(egm: GraphMem, clock: ManualClock):
    egm.remember(
        {"content": "rotate the signing keys monthly", "occurred_at": clock.now() - 7 * DAY}
    )
    (item,) = egm.knowledge_context("rotate signing keys", record_access=False).items
    recency = {c.name: c.value for c in item.components}["recency"]
    assert recency == pytest.approx(math.exp(-1))


def test_search_and_context_filter_on_when_it_happened(egm: GraphMem, clock: ManualClock):
    now = clock.now()
    old = egm.remember({"content": "the office moved to Leipzig", "occurred_at": now - 30 * DAY})
    new = egm.remember({"content": "the office moved to Dresden", "occurred_at": now - DAY})
    after = iso(now - 10 * DAY)
    found = egm.search("office moved", filters={"occurred_after": after}, min_relevance=0.0)
    assert [h.memory.id for h in found.hits] == [new.id]
    found = egm.search("office moved", filters={"occurred_before": after}, min_relevance=0.0)
    assert [h.memory.id for h in found.hits] == [old.id]
    context = egm.knowledge_context(
        "where did the office move", occurred_before=after, record_access=False, min_relevance=0.0
    )
    assert [i.memory.id for i in context.items] == [old.id]
    context = egm.knowledge_context(
        "where did the office move", occurred_after=after, record_access=False, min_relevance=0.0
    )
    assert [i.memory.id for i in context.items] == [new.id]


def test_staleness_counts_from_when_it_happened(gm: GraphMem, clock: ManualClock):
    weak = {"memory_type": "assumption", "confidence": 0.2}
    old = gm.remember(
        {"content": "maybe the cache was cold", "occurred_at": clock.now() - 2 * DAY, **weak}
    )
    fresh = gm.remember({"content": "maybe the cache is warm", **weak})
    assert old.last_used_at == pytest.approx(clock.now() - 2 * DAY)
    # Importance's recency counts from the event too: the old turn scores lower.
    assert old.importance < fresh.importance
    # Written just now, but stale since it happened two days ago: archived, and
    # the memory written now with the same score is not.
    assert gm.archive_stale().archived == [old.id]


REMEMBER_MANY = """
mutation Many($input: [MemoryInput!]!, $dedup: Boolean! = true) {
  rememberMany(input: $input, dedup: $dedup) { id created match }
}
"""


def test_remember_many_over_graphql_writes_a_conversation_with_its_times(
    gql: GraphQLClient, gm: GraphMem, clock: ManualClock
):
    start = clock.now() - 2 * DAY
    turns = [
        {
            "content": f"user: turn {i} about the Lisbon trip",
            "memoryType": "EVENT",
            "occurredAt": iso(start + 60 * i),
            "sessionId": "chat-1",
        }
        for i in range(3)
    ]
    # The first turn written again (an event repeats only an event of its moment),
    # then the same words as a claim, which no event takes in.
    turns.append({**turns[0]})
    turns.append({"content": "user: turn 0 about the Lisbon trip"})
    items = gql.data(REMEMBER_MANY, {"input": turns})["rememberMany"]
    assert items[3]["id"] == items[0]["id"] and items[3]["match"] == "EXACT"
    assert [i["created"] for i in items] == [True, True, True, False, True]
    second = gm.get(items[1]["id"])
    assert (second.occurred_at, second.memory_type) == (start + 60, MemoryType.EVENT)
    read = gql.data("query($id: ID!) { memory(id: $id) { occurredAt } }", {"id": items[2]["id"]})
    assert read["memory"]["occurredAt"] == iso(start + 120)


def test_remember_many_with_one_bad_item_writes_nothing_and_names_it(
    rejected: Rejected, clock: ManualClock
):
    future = [
        {"content": "a fine turn"},
        {"content": "a turn from tomorrow", "occurredAt": iso(clock.now() + DAY)},
    ]
    rejected(REMEMBER_MANY, {"input": future}, "INVALID_INPUT", "input[1].occurredAt")
    too_long = [{"content": "fine"}, {"content": "x" * 10_001}]
    rejected(REMEMBER_MANY, {"input": too_long}, "INVALID_INPUT", "input[1].content")


def test_search_and_context_filter_on_occurred_at_over_graphql(
    gql: GraphQLClient, gm: GraphMem, clock: ManualClock
):
    now = clock.now()
    old = gm.remember({"content": "the office moved to Leipzig", "occurred_at": now - 30 * DAY})
    gm.remember({"content": "the office moved to Dresden", "occurred_at": now - DAY})
    data = gql.data(
        """query($after: DateTime) {
          search(query: "office moved", minRelevance: 0,
                 filters: {occurredBefore: $after}) { hits { memory { id occurredAt } } }
          knowledgeContext(contextHint: "where did the office move", minRelevance: 0,
                           occurredBefore: $after, recordAccess: false) {
            items { memory { id } }
          }
        }""",
        {"after": iso(now - 10 * DAY)},
    )
    assert [h["memory"]["id"] for h in data["search"]["hits"]] == [old.id]
    assert data["search"]["hits"][0]["memory"]["occurredAt"] == iso(now - 30 * DAY)
    assert [i["memory"]["id"] for i in data["knowledgeContext"]["items"]] == [old.id]


def test_mcp_remember_search_and_context_speak_occurred_at(gm: GraphMem, clock: ManualClock):
    now = clock.now()
    with http_server(gm) as url:

        async def scenario(session: ClientSession) -> None:
            old = (
                await call(
                    session,
                    "remember",
                    content="the office moved to Leipzig",
                    memory_type="event",
                    occurred_at=iso(now - 30 * DAY),
                    full=True,
                )
            )["memory"]
            assert old["occurred_at"] == iso(now - 30 * DAY)
            await call(session, "remember", content="the office moved to Dresden")
            cut = iso(now - 10 * DAY)
            found = await call(
                session, "search", query="office moved", min_relevance=0, occurred_before=cut
            )
            assert [h["memory"]["id"] for h in found["hits"]] == [old["id"]]
            context = await call(
                session,
                "knowledge_context",
                context_hint="where did the office move",
                min_relevance=0,
                occurred_before=cut,
                record_access=False,
            )
            assert [i["memory"]["id"] for i in context["items"]] == [old["id"]]
            error = await call_error(
                session, "remember", content="from tomorrow", occurred_at=iso(now + DAY)
            )
            assert (error["code"], error["field"]) == ("INVALID_INPUT", "occurred_at")

        over_http(url, scenario)
