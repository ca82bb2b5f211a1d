"""The remote client against a real server over HTTP: the same methods, models
and errors as ``GraphMem`` in process, and retries on refusals."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from falkordb import FalkorDB

from graphmem import AsyncClient, Client, GraphMem, ManualClock
from graphmem.client import RetryPolicy, ServerError, ServerUnreachableError
from graphmem.domain.auth import Role
from graphmem.domain.errors import (
    InvalidInputError,
    NotFoundError,
    RateLimitedError,
    UnauthenticatedError,
)
from graphmem.domain.kinds import MemoryType, RelationType, Status, Tier
from graphmem.graphql.app import create_app
from graphmem.operations.requests import Call
from graphmem.settings import Settings
from graphmem.store.embedded import EmbeddedFalkorDB
from graphmem.store.falkordb import FalkorStore
from tests.integration.conftest import GraphQLClient, Rejected, serve

# A surface suite: what it checks is the surface, the same on every backend; the
# store suites beneath it run on Neo4j as well (tests/conftest.py).
pytestmark = pytest.mark.backends("falkordb")

LOCAL_ONLY = {
    "open": "opens a store in this process",
    "close": "each client has its own close, for its connection",
    "migrate": "an operator's step on the server's own store",
    "backfill_embeddings": "an operator's step on the server's own store",
    "evaluate": "GraphQL evaluates in the background: submit_consistency_check",
    "record_evidence": "the evaluator's own channel, not on GraphQL",
    "what_if": "not in the client yet: GraphQL's whatIf takes the variant inline, and "
    "rules_file names a file on the caller's machine",
    "as_agent": "a remote caller acts as its key's agent; knowledge_context and search take "
    "agent_id for one agent's view",
    "default_visibility": "the server's own setting, applied by the server to each write",
    "warm": "the server warms its own process before its first request",
    "answer_context": "knowledge_context without putting the answer on record: the "
    "server's own warm-up",
    "prune_deliveries": "the server's scheduler prunes deliveries in its project pass",
}
"""GraphMem's public methods a client does not have, and why."""


def public_methods(cls: type) -> dict[str, inspect.Signature]:
    return {
        name: inspect.signature(member)
        for name, member in inspect.getmembers(cls, inspect.isfunction)
        if not name.startswith("_") and name not in LOCAL_ONLY
    }


@pytest.mark.parametrize("client_class", [Client, AsyncClient])
def test_clients_have_graphmems_methods_and_signatures(client_class: type) -> None:
    """A method added to GraphMem fails here until the clients have it too (or it is
    listed as local-only, with the reason)."""
    local = public_methods(GraphMem)
    remote = public_methods(client_class)
    assert sorted(remote) == sorted(local)
    for name, signature in local.items():
        assert str(remote[name]) == str(signature), name
        assert inspect.iscoroutinefunction(getattr(client_class, name)) == (
            client_class is AsyncClient
        ), name


@pytest.fixture
def url(gm: GraphMem) -> Iterator[str]:
    with serve(create_app(gm)) as http:
        yield str(http.base_url)


@pytest.fixture
def client(url: str) -> Iterator[Client]:
    with Client(url) as client:
        yield client


def test_memories_round_trip_as_the_same_models(gm: GraphMem, client: Client) -> None:
    memory = client.remember(
        {"content": "Deploys run from the release branch", "memory_type": "rule", "tags": ["ops"]}
    )
    assert memory == gm.get(memory.id)
    assert memory.memory_type is MemoryType.RULE
    again, outcome = client.remember_detailed({"content": "Deploys run from the release branch"})
    assert (again.id, outcome.created, outcome.match) == (memory.id, False, "exact")
    assert again.occurrence_count == 2

    ids = client.remember_many(
        [{"content": "Tests need FalkorDB"}, {"content": "tests need falkordb"}, {"content": "x"}]
    )
    assert ids[0] == ids[1] != ids[2]
    assert client.get_many([ids[2], "missing", memory.id]) == [
        gm.get(ids[2]),
        None,
        gm.get(memory.id),
    ]

    page = client.list(first=2)
    assert page == gm.list(first=2)
    assert client.list(first=2, after=page.end_cursor) == gm.list(first=2, after=page.end_cursor)

    assert client.update(ids[2], {"content": "y", "tags": ["a"]}).tags == ["a"]
    assert client.record_access(ids[2]).access_count == 1
    assert client.feedback(ids[2], 1).feedback == 1.0
    assert client.pin(ids[2]).pinned and not client.unpin(ids[2]).pinned
    assert client.importance_breakdown(gm.get(ids[2])) == gm.importance_breakdown(gm.get(ids[2]))
    client.forget(ids[2])
    with pytest.raises(NotFoundError):
        gm.get(ids[2])


def test_relations_sessions_and_review(gm: GraphMem, client: Client) -> None:
    old = client.remember({"content": "Use pip"})
    new = client.remember({"content": "Use uv"})
    relation = client.relate(old.id, new.id, "related_to", rationale="tooling")
    assert relation.type is RelationType.RELATED_TO
    assert client.supersede(old.id, new.id).type is RelationType.SUPERSEDES
    assert client.relations([old.id, new.id]) == gm.relations([old.id, new.id])
    assert client.neighborhood(old.id) == gm.neighborhood(old.id)

    session = client.open_session("s1", name="first")
    assert client.get_session("s1") == session == gm.get_session("s1")
    assert client.get_sessions(["s1", "none"]) == [session, None]
    assert client.promotion_stats("s1") == gm.promotion_stats("s1")
    assert client.close_session("s1").state.value == "closed"

    candidate = client.remember({"content": "Maybe cache the index", "source": "auto_extracted"})
    assert candidate.status is Status.CANDIDATE
    queue = client.review_queue()
    assert queue == gm.review_queue()
    assert client.bulk_review(None, "approve").matched == [candidate.id]
    assert client.reject(candidate.id, "not decided") == gm.get(candidate.id)
    assert gm.get(candidate.id).archive_reason == "rejected: not decided"
    assert client.staging_events(candidate.id) == gm.staging_events(candidate.id)


def test_retrieval_returns_what_graphmem_returns(gm: GraphMem, client: Client) -> None:
    client.remember_many([{"content": "The cache lives in Redis"}, {"content": "Logs go to Loki"}])
    found = client.search("cache redis", mode="FULLTEXT")
    assert [hit.memory.content for hit in found.hits] == ["The cache lives in Redis"]
    expected = gm.search("cache redis", mode="FULLTEXT")
    assert [h.explanation for h in found.hits] == [h.explanation for h in expected.hits]
    context = client.knowledge_context("where is the cache", record_access=False)
    local = gm.knowledge_context("where is the cache", record_access=False)
    assert [i.memory for i in context.items] == [i.memory for i in local.items]
    assert context.weights == local.weights
    cache, logs = gm.list().items[::-1]
    gm.relate(logs.id, cache.id, "CONSTRAINS")
    context = client.knowledge_context("where is the cache", record_access=False)
    local = gm.knowledge_context("where is the cache", record_access=False)
    assert [i.path for i in context.items] == [i.path for i in local.items]
    assert any(i.path is not None for i in context.items)
    guess = client.remember(
        {"content": "The cache might move to Memcached", "source": "auto_extracted"}
    )
    client.reject(guess.id, "never planned")
    found = client.search("cache memcached", filters={"include_archived": True}, mode="FULLTEXT")
    assert [(h.memory.id, h.archived) for h in found.hits][:1] == [(guess.id, True)]


def test_errors_arrive_as_graphmems_exceptions_with_the_servers_codes(
    gm: GraphMem, client: Client
) -> None:
    with pytest.raises(NotFoundError) as missing:
        client.feedback("no-such-id", 1)
    assert missing.value.code == "NOT_FOUND"
    assert "no-such-id" in missing.value.message
    with pytest.raises(InvalidInputError) as bad:
        client.feedback(client.remember({"content": "a"}).id, 5)
    assert (bad.value.code, bad.value.field) == ("INVALID_INPUT", "value")
    # Checked before sending, as GraphMem checks it: the same message and field.
    with pytest.raises(InvalidInputError) as local:
        gm.remember({"content": ""})
    with pytest.raises(InvalidInputError) as remote:
        client.remember({"content": ""})
    assert (remote.value.message, remote.value.field) == (local.value.message, local.value.field)
    with pytest.raises(ServerError) as unknown:
        client._run(
            client_call("query { noSuchField }")  # a code only a server has
        )
    assert unknown.value.code == "GRAPHQL_VALIDATION_FAILED"


def client_call(document: str) -> Call[dict[str, Any]]:
    return Call(document, {}, lambda data: data)


def keyed(**overrides: Any) -> Settings:
    return Settings.model_validate({"auth": "required", "rate_limit": 0, **overrides})


def test_a_key_is_sent_and_a_missing_one_refused(gm: GraphMem) -> None:
    _, token = gm.keys.create("agent", ["alpha"], Role.WRITE)
    with serve(create_app(gm, keyed())) as http:
        with Client(str(http.base_url), api_key=token, project_id="alpha") as client:
            memory = client.remember({"content": "kept in alpha"})
        assert gm.get(memory.id, project_id="alpha").content == "kept in alpha"
        with Client(str(http.base_url)) as anonymous, pytest.raises(UnauthenticatedError) as no:
            anonymous.list()
    assert no.value.code == "UNAUTHENTICATED"


def test_a_rate_limited_call_waits_as_told_a_bounded_number_of_times(gm: GraphMem) -> None:
    _, token = gm.keys.create("agent", ["default"], Role.WRITE)
    waits: list[float] = []
    with serve(create_app(gm, keyed(rate_limit=0.001, rate_burst=1))) as http:
        client = Client(
            str(http.base_url), token, retry=RetryPolicy(max_retries=2), sleep=waits.append
        )
        client.list()
        with pytest.raises(RateLimitedError) as limited:
            client.list()
    # The bucket refills once in 1000 s: the server asks for that long, more than
    # the longest wait, so the call fails at once with the server's code and wait.
    assert waits == []
    assert limited.value.code == "RATE_LIMITED"
    assert limited.value.retry_after >= 999
    # One request per 20 s: the second call is refused however slow the first one was.
    with serve(create_app(gm, keyed(rate_limit=0.05, rate_burst=1))) as http:
        client = Client(
            str(http.base_url), token, retry=RetryPolicy(max_retries=2), sleep=waits.append
        )
        client.list()
        with pytest.raises(RateLimitedError):
            client.list()
    # Retry-After (about 20 s, within max_wait), twice, then the error.
    assert len(waits) == 2 and all(15 <= wait <= 20 for wait in waits), waits


def test_the_async_client_does_the_same(gm: GraphMem, url: str) -> None:
    async def work() -> tuple[str, list[str], int]:
        async with AsyncClient(url) as client:
            memory = await client.remember({"content": "Async writes land too"})
            batch = await client.remember_many([{"content": "one"}, {"content": "two"}])
            with pytest.raises(NotFoundError):
                await client.get("no-such-id")
            page = await client.list(first=10)
            return memory.id, batch, len(page.items)

    memory_id, batch, listed = asyncio.run(work())
    assert gm.get(memory_id).content == "Async writes land too"
    assert [gm.get(i).content for i in batch] == ["one", "two"]
    assert listed == 3


def test_an_unreachable_server_is_a_clear_error() -> None:
    client = Client("http://127.0.0.1:9", retry=RetryPolicy(max_retries=0))
    with client, pytest.raises(ServerUnreachableError) as down:
        client.list()
    assert down.value.code == "UNREACHABLE"
    assert "127.0.0.1:9" in down.value.message


def test_a_call_refused_during_an_outage_is_sent_again_and_succeeds(data_dir: Path) -> None:
    database = EmbeddedFalkorDB(data_dir / "db")
    db = FalkorDB(unix_socket_path=str(database.start()), socket_timeout=5.0)
    gm = GraphMem(FalkorStore(db, "outage"))
    _, token = gm.keys.create("agent", ["default"], Role.WRITE)
    waits: list[float] = []

    def wait_for_the_database(seconds: float) -> None:
        """The client's wait, during which the operator brings the database back."""
        waits.append(seconds)
        database.start()

    try:
        with serve(create_app(gm, keyed())) as http:
            client = Client(str(http.base_url), token, sleep=wait_for_the_database)
            assert database.stop()
            memory = client.remember({"content": "written once the database is back"})
        assert waits == [RetryPolicy().backoff]  # a 503 names no wait: the first backoff
        assert gm.get(memory.id).content == "written once the database is back"
    finally:
        database.stop()
        db.close()


REMEMBER_MANY = """mutation($input: [MemoryInput!]!) {
  rememberMany(input: $input) { id created match }
}"""


def test_remember_many_over_graphql_names_the_bad_item_and_writes_nothing(
    gql: GraphQLClient, rejected: Rejected
) -> None:
    items = [{"content": "fine"}, {"content": "x", "confidence": 2}]
    error = rejected(REMEMBER_MANY, {"input": items}, "INVALID_INPUT", "input[1].confidence")
    assert "less than or equal to 1" in error["message"]
    written = gql.data(REMEMBER_MANY, {"input": [{"content": "a"}, {"content": "A"}]})
    (first, second) = written["rememberMany"]
    assert (first["created"], second["created"], second["match"]) == (True, False, "EXACT")
    assert first["id"] == second["id"]


def test_promotion_archival_and_evaluation_read_as_graphmems_models(
    gm: GraphMem, client: Client, clock: ManualClock
) -> None:
    client.open_session("s2")
    # A fresh risk at confidence 0.9 scores 0.675, above the 0.6 to move.
    kept = client.remember(
        {"content": "Token expiry breaks the nightly job", "memory_type": "risk",
         "confidence": 0.9, "session_id": "s2"}
    )  # fmt: skip
    other = client.remember({"content": "The nightly job needs a fresh token", "session_id": "s2"})
    dry = client.run_promotion("s2", dry_run=True)
    assert dry.dry_run and dry.promoted == [] and dry.session_id == "s2"
    run = client.run_promotion("s2")
    assert run.trigger.value == "manual"
    assert kept.id in run.promoted == [c.memory.id for c in dry.candidates]
    assert run.candidates[0].breakdown.total == pytest.approx(run.candidates[0].score)
    assert client.promotion_events(memory_id=kept.id) == gm.promotion_events(memory_id=kept.id)
    assert client.enable_promotion("s2", interval_seconds=60) == gm.promotion_stats("s2")
    assert not client.disable_promotion("s2").enabled

    merged = client.merge_memories(kept.id, other.id)
    assert merged == gm.get(kept.id) and gm.get(other.id).merged_into == kept.id
    stale = client.remember(
        {"content": "Maybe the cache is cold", "memory_type": "assumption", "confidence": 0.2}
    )
    clock.advance(400 * 24 * 3600)
    archived = client.archive_stale(dry_run=True)
    assert archived == gm.archive_stale(dry_run=True)
    done = client.archive_stale()
    assert stale.id in done.archived and gm.get(stale.id).tier is Tier.ARCHIVED
    restored = client.restore(stale.id)
    assert restored == gm.get(stale.id) and restored.tier is Tier.WORKING

    job = client.submit_consistency_check()
    gm.evaluator.close()  # waits for the queued evaluation
    assert client.consistency_job(job.id) == gm.consistency_job(job.id)
    assert client.consistency_job("no-such-job") is None
    (report,) = client.consistency_reports(report_id=job.id)
    (local,) = gm.consistency_reports(report_id=job.id)
    assert report.to_dict() == local.to_dict()
    assert [r.id for r in client.consistency_reports()] == [job.id]


def test_more_ids_than_one_document_may_alias_are_asked_in_parts(
    gm: GraphMem, client: Client
) -> None:
    ids = gm.remember_many([{"content": f"note {n}"} for n in range(60)])
    asked = [*ids, "missing"]
    assert client.get_many(asked) == gm.get_many(asked)
    assert client.relations(asked) == gm.relations(asked)
    assert client.get_sessions(["default", "none"] * 30) == gm.get_sessions(
        ["default", "none"] * 30
    )


def test_failure_capsules_round_trip(gm: GraphMem, client: Client) -> None:
    report = {"error": "ModuleNotFoundError: No module named 'requests'", "tool": "pytest"}
    first = client.record_failure(report | {"session_id": "s1"})
    assert first.created and first.lesson_status == "candidate"
    assert first.capsule == gm.failure_capsule(first.capsule.id)
    assert (
        first.lesson_id == first.capsule.lesson_id == gm.failure_capsule(first.capsule.id).lesson_id
    )
    again = client.record_failure(report | {"fix": "pip install requests"})
    assert not again.created and again.capsule.occurrence_count == 2
    assert again.lesson_status == "active"
    assert client.failure_capsules() == gm.failure_capsules()
    assert client.failure_capsules(session_id="s1", limit=1) == gm.failure_capsules(
        session_id="s1", limit=1
    )
    assert client.failure_capsule(first.capsule.id) == gm.failure_capsule(first.capsule.id)
    with pytest.raises(NotFoundError):
        client.failure_capsule("missing")
    with pytest.raises(InvalidInputError) as refused:
        client.record_failure({"error": ""})
    assert refused.value.field == "error"
