"""The GraphQL API over HTTP against a real server and a real graph: queries,
mutations, pagination, batching, and the service endpoints."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
import redis

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.domain.kinds import MemoryType
from graphmem.domain.models import MemoryInput
from graphmem.graphql.app import create_app_from_settings
from graphmem.settings import Settings
from graphmem.store.embedded import EmbeddedFalkorDB
from tests.integration.conftest import GraphQLClient, serve

# A surface suite: what it checks is the surface, the same on every backend; the
# store suites beneath it run on Neo4j as well (tests/conftest.py).
pytestmark = pytest.mark.backends("falkordb")

MEMORY_FIELDS = """
    id projectId sessionId content memoryType tier status confidence importance
    accessCount retrievalCount occurrenceCount feedback feedbackCount pinned source suggestedBy
    selfAssessment tags rationale evidence agentId supersededBy
    createdAt occurredAt updatedAt lastAccessedAt lastRetrievedAt promotedAt archivedAt
    archivedFrom archiveReason activatedAt lastSeen mergedInto
"""

REMEMBER = f"""
mutation Remember($input: MemoryInput!, $projectId: ID) {{
  remember(input: $input, projectId: $projectId) {{ memory {{ {MEMORY_FIELDS} }} created match }}
}}
"""

GET = f"""
query Get($id: ID!, $projectId: ID) {{
  memory(id: $id, projectId: $projectId) {{ {MEMORY_FIELDS} }}
}}
"""

PAGE = """
query Page($first: Int!, $after: String, $filter: MemoryFilter, $projectId: ID) {
  memories(first: $first, after: $after, filter: $filter, projectId: $projectId) {
    edges { cursor node { id content } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  }
}
"""


def iso(epoch_seconds: float) -> str:
    return datetime.fromtimestamp(epoch_seconds, tz=UTC).isoformat()


def remember(gql: GraphQLClient, content: str, **fields: object) -> dict:
    return gql.data(REMEMBER, {"input": {"content": content, **fields}})["remember"]["memory"]


def test_remember_stores_every_input_field_and_memory_reads_it_back(
    gql: GraphQLClient, gm: GraphMem, clock: ManualClock
) -> None:
    given = {
        "content": "Use uv for every Python project",
        "memoryType": "CONVENTION",
        "confidence": 0.9,
        "source": "MANUAL",
        "suggestedBy": "AGENT",
        "selfAssessment": "HIGH",
        "tier": "PROCEDURAL",
        "pinned": True,
        "tags": ["python", "tooling"],
        "rationale": "one tool for envs and locks",
        "evidence": ["README of three repos"],
        "sessionId": "s-1",
        "agentId": "coder",
    }
    payload = gql.data(REMEMBER, {"input": given})["remember"]
    created = payload["memory"]

    assert (payload["created"], payload["match"]) == (True, None)
    assert {key: created[key] for key in given} == given
    assert created["projectId"] == "default"
    assert created["status"] == "ACTIVE"
    assert created["createdAt"] == created["updatedAt"] == iso(clock.now())
    assert created["lastAccessedAt"] is None
    stored = gm.get(created["id"])
    assert stored.content == given["content"]
    assert stored.memory_type is MemoryType.CONVENTION
    assert gql.data(GET, {"id": created["id"]})["memory"] == created


def test_remember_applies_the_domain_defaults(gql: GraphQLClient) -> None:
    created = remember(gql, "The CI runs on two cores")
    defaults = MemoryInput(content="x")

    assert created["confidence"] == defaults.confidence
    assert created["source"] == defaults.source.name
    assert created["tier"] == defaults.tier.name
    assert created["sessionId"] == "default"
    assert created["memoryType"] is None
    assert created["tags"] == [] and created["pinned"] is False


def test_auto_extracted_memories_start_as_candidates(gql: GraphQLClient) -> None:
    assert remember(gql, "maybe a fact", source="AUTO_EXTRACTED")["status"] == "CANDIDATE"


def test_memory_of_an_unknown_id_is_null(gql: GraphQLClient) -> None:
    assert gql.data(GET, {"id": "no-such-memory"})["memory"] is None


def test_the_project_is_a_tenant_boundary(gql: GraphQLClient) -> None:
    mine = gql.data(REMEMBER, {"input": {"content": "tenant A"}, "projectId": "tenant-a"})
    mine_id = mine["remember"]["memory"]["id"]
    remember(gql, "default project item")

    assert mine["remember"]["memory"]["projectId"] == "tenant-a"
    assert gql.data(GET, {"id": mine_id})["memory"] is None
    assert gql.data(GET, {"id": mine_id, "projectId": "tenant-a"})["memory"]["id"] == mine_id
    listed = gql.data(PAGE, {"first": 10, "projectId": "tenant-a"})["memories"]["edges"]
    assert [edge["node"]["id"] for edge in listed] == [mine_id]
    in_default = gql.data(PAGE, {"first": 10})["memories"]["edges"]
    assert mine_id not in {edge["node"]["id"] for edge in in_default}


def test_memories_pages_through_everything_newest_first(
    gql: GraphQLClient, clock: ManualClock
) -> None:
    ids = []
    for n in range(5):
        ids.append(remember(gql, f"memory {n}")["id"])
        clock.advance(1)
    newest_first = ids[::-1]

    seen, after, pages = [], None, []
    while True:
        page = gql.data(PAGE, {"first": 2, "after": after})["memories"]
        pages.append(page)
        seen += [edge["node"]["id"] for edge in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]

    assert seen == newest_first
    assert [len(p["edges"]) for p in pages] == [2, 2, 1]
    assert [p["pageInfo"]["hasPreviousPage"] for p in pages] == [False, True, True]
    for page in pages:
        info, edges = page["pageInfo"], page["edges"]
        assert info["startCursor"] == edges[0]["cursor"]
        assert info["endCursor"] == edges[-1]["cursor"]


def test_an_edge_cursor_continues_right_after_its_edge(
    gql: GraphQLClient, clock: ManualClock
) -> None:
    for n in range(4):
        remember(gql, f"memory {n}")
        clock.advance(1)
    everything = gql.data(PAGE, {"first": 10})["memories"]["edges"]

    rest = gql.data(PAGE, {"first": 10, "after": everything[1]["cursor"]})["memories"]

    assert [e["node"]["id"] for e in rest["edges"]] == [e["node"]["id"] for e in everything[2:]]
    assert rest["pageInfo"]["hasNextPage"] is False


def test_memories_filter_narrows_the_listing(gql: GraphQLClient) -> None:
    risk = remember(gql, "the disk fills up", memoryType="RISK", tags=["ops", "disk"])["id"]
    remember(gql, "postgres is the database", memoryType="FACT", tags=["ops"])
    pinned = remember(gql, "always run the linter", pinned=True)["id"]

    def ids(flt: dict) -> list[str]:
        edges = gql.data(PAGE, {"first": 10, "filter": flt})["memories"]["edges"]
        return [edge["node"]["id"] for edge in edges]

    assert ids({"memoryType": "RISK"}) == [risk]
    assert ids({"tags": ["ops", "disk"]}) == [risk]
    assert len(ids({"tags": ["ops"]})) == 2
    assert ids({"pinned": True}) == [pinned]


def test_importance_breakdown_components_sum_to_the_total(
    gql: GraphQLClient, gm: GraphMem, clock: ManualClock
) -> None:
    memory_id = remember(gql, "a risky migration", memoryType="RISK", confidence=0.8)["id"]
    clock.advance(45 * 60)
    query = """
    query($id: ID!) { memory(id: $id) { importance importanceBreakdown {
        preset total components { name value weight contribution } } } }
    """
    memory = gql.data(query, {"id": memory_id})["memory"]
    breakdown = memory["importanceBreakdown"]

    assert breakdown["preset"] == gm.scorer.preset.name
    components = {c["name"]: c for c in breakdown["components"]}
    assert set(components) == {"recency", "frequency", "confidence", "salience"}
    assert math.isclose(sum(c["contribution"] for c in components.values()), breakdown["total"])
    assert math.isclose(sum(c["weight"] for c in components.values()), 1.0)
    for c in components.values():
        assert math.isclose(c["contribution"], c["value"] * c["weight"])
    assert components["confidence"]["value"] == 0.8
    assert components["recency"]["value"] == pytest.approx(1 / (1 + 45 / 30))
    # Time passed since the write, so the stored score is staler (and higher).
    assert breakdown["total"] < memory["importance"]


def test_record_access_and_feedback_count_and_rescore(
    gql: GraphQLClient, gm: GraphMem, clock: ManualClock
) -> None:
    memory_id = remember(gql, "the build cache lives in /var/cache")["id"]
    clock.advance(60)
    access = """mutation($id: ID!) { recordAccess(id: $id) {
        accessCount lastAccessedAt importance } }"""
    feedback = """mutation($id: ID!, $value: Int!) { giveFeedback(id: $id, value: $value) {
        feedback feedbackCount } }"""

    first = gql.data(access, {"id": memory_id})["recordAccess"]
    second = gql.data(access, {"id": memory_id})["recordAccess"]
    gql.data(feedback, {"id": memory_id, "value": 1})
    rated = gql.data(feedback, {"id": memory_id, "value": -1})["giveFeedback"]

    assert (first["accessCount"], second["accessCount"]) == (1, 2)
    assert first["lastAccessedAt"] == iso(clock.now())
    assert second["importance"] > first["importance"]
    assert rated == {"feedback": 0.0, "feedbackCount": 2}
    stored = gm.get(memory_id)
    assert (stored.access_count, stored.feedback_count) == (2, 2)


def test_pin_and_unpin(gql: GraphQLClient, gm: GraphMem) -> None:
    memory_id = remember(gql, "never force-push main")["id"]

    pinned = gql.data("mutation($id: ID!) { pin(id: $id) { pinned } }", {"id": memory_id})
    assert pinned == {"pin": {"pinned": True}}
    assert gm.get(memory_id).pinned is True
    unpinned = gql.data("mutation($id: ID!) { unpin(id: $id) { pinned } }", {"id": memory_id})
    assert unpinned == {"unpin": {"pinned": False}}
    assert gm.get(memory_id).pinned is False


def test_update_memory_changes_only_the_given_fields(
    gql: GraphQLClient, clock: ManualClock
) -> None:
    created = remember(gql, "use black", memoryType="HYPOTHESIS", tags=["style"])
    clock.advance(10)
    update = """mutation($id: ID!, $input: MemoryUpdateInput!) {
        updateMemory(id: $id, input: $input) {
            content memoryType tags confidence importance updatedAt createdAt } }"""

    updated = gql.data(
        update, {"id": created["id"], "input": {"content": "use ruff", "memoryType": "DECISION"}}
    )["updateMemory"]

    assert updated["content"] == "use ruff"
    assert updated["memoryType"] == "DECISION"
    assert updated["tags"] == ["style"]
    assert updated["confidence"] == created["confidence"]
    assert updated["importance"] != created["importance"]  # salience rose
    assert updated["updatedAt"] == iso(clock.now()) != updated["createdAt"]


def test_relate_adds_an_edge_seen_from_both_ends(gql: GraphQLClient, clock: ManualClock) -> None:
    a = remember(gql, "we deploy with blue-green")["id"]
    b = remember(gql, "we need two identical environments")["id"]
    relate = """mutation($from: ID!, $to: ID!) {
        relate(fromId: $from, toId: $to, type: CONSTRAINS, rationale: "needs it", weight: 0.5) {
            type fromId toId rationale weight createdAt } }"""

    edge = gql.data(relate, {"from": a, "to": b})["relate"]
    both = gql.data(
        """query($a: ID!, $b: ID!) { a: memory(id: $a) { relations { type fromId toId } }
                                      b: memory(id: $b) { relations { type fromId toId } } }""",
        {"a": a, "b": b},
    )

    assert edge == {
        "type": "CONSTRAINS",
        "fromId": a,
        "toId": b,
        "rationale": "needs it",
        "weight": 0.5,
        "createdAt": iso(clock.now()),
    }
    expected = [{"type": "CONSTRAINS", "fromId": a, "toId": b}]
    assert both["a"]["relations"] == both["b"]["relations"] == expected


def test_supersede_keeps_the_old_memory_and_points_it_at_the_new(gql: GraphQLClient) -> None:
    old = remember(gql, "the API listens on 8000")["id"]
    new = remember(gql, "the API listens on 8080")["id"]

    edge = gql.data(
        """mutation($old: ID!, $new: ID!) {
            supersede(oldId: $old, newId: $new, rationale: "moved") {
                type fromId toId rationale } }""",
        {"old": old, "new": new},
    )["supersede"]

    assert edge == {"type": "SUPERSEDES", "fromId": new, "toId": old, "rationale": "moved"}
    assert gql.data(GET, {"id": old})["memory"]["supersededBy"] == new


def test_forget_deletes_the_memory_and_its_edges(gql: GraphQLClient, gm: GraphMem) -> None:
    a = remember(gql, "to be forgotten")["id"]
    b = remember(gql, "stays")["id"]
    gm.relate(a, b, "RELATED_TO")

    assert gql.data("mutation($id: ID!) { forget(id: $id) }", {"id": a}) == {"forget": a}
    assert gql.data(GET, {"id": a})["memory"] is None
    assert gm.get_many([a]) == [None]
    assert gm.relations([b]) == [[]]


def test_session_lifecycle(gql: GraphQLClient, clock: ManualClock) -> None:
    fields = "id projectId state name promotionEnabled createdAt updatedAt"
    opened = gql.data(
        f'mutation {{ openSession(id: "thread-1", name: "refactor") {{ {fields} }} }}'
    )["openSession"]
    clock.advance(5)
    paused = gql.data(f'mutation {{ pauseSession(id: "thread-1") {{ {fields} }} }}')
    closed = gql.data(f'mutation {{ closeSession(id: "thread-1") {{ {fields} }} }}')
    fetched = gql.data(f'{{ session(id: "thread-1") {{ {fields} }} }}')["session"]

    assert opened["state"] == "ACTIVE" and opened["name"] == "refactor"
    assert opened["promotionEnabled"] is True
    assert opened["projectId"] == "default"
    assert paused["pauseSession"]["state"] == "PAUSED"
    assert paused["pauseSession"]["updatedAt"] == iso(clock.now())
    assert closed["closeSession"]["state"] == "CLOSED"
    assert fetched == closed["closeSession"]
    assert gql.data('{ session(id: "never-opened") { id } }') == {"session": None}


def test_open_session_without_an_id_makes_one(gql: GraphQLClient) -> None:
    first = gql.data("mutation { openSession { id state } }")["openSession"]
    second = gql.data("mutation { openSession { id state } }")["openSession"]

    assert first["id"] and first["id"] != second["id"]
    assert first["state"] == "ACTIVE"


def test_memory_session_field_resolves_the_session(gql: GraphQLClient) -> None:
    gql.data('mutation { openSession(id: "s-7", name: "triage") { id } }')
    memory_id = remember(gql, "flaky test in CI", sessionId="s-7")["id"]

    memory = gql.data(
        "query($id: ID!) { memory(id: $id) { session { id name state } } }", {"id": memory_id}
    )["memory"]

    assert memory["session"] == {"id": "s-7", "name": "triage", "state": "ACTIVE"}


def test_a_page_with_relations_and_sessions_reads_each_once(
    gql: GraphQLClient, gm: GraphMem, store_reads: Counter[str]
) -> None:
    ids = gm.remember_many([{"content": f"item {n}", "session_id": f"s{n % 2}"} for n in range(6)])
    for left, right in itertools.pairwise(ids):
        gm.relate(left, right, "ENABLES")
    store_reads.clear()

    page = gql.data(
        """{ memories(first: 10) { edges { node { id
              relations { fromId toId } session { id } } } } }"""
    )["memories"]["edges"]

    assert store_reads == Counter({"list_memories": 1, "relations_of": 1, "get_sessions": 1})
    by_id = {edge["node"]["id"]: edge["node"] for edge in page}
    assert len(by_id) == 6
    assert by_id[ids[0]]["relations"] == [{"fromId": ids[0], "toId": ids[1]}]
    assert len(by_id[ids[3]]["relations"]) == 2
    assert {node["session"]["id"] for node in by_id.values()} == {"s0", "s1"}


def test_memory_lookups_in_one_request_share_one_read(
    gql: GraphQLClient, gm: GraphMem, store_reads: Counter[str]
) -> None:
    a, b = gm.remember_many([{"content": "one"}, {"content": "two"}])
    store_reads.clear()

    found = gql.data(
        "query($a: ID!, $b: ID!) { a: memory(id: $a) { content } b: memory(id: $b) { content } "
        'c: memory(id: "missing") { content } }',
        {"a": a, "b": b},
    )

    assert found == {"a": {"content": "one"}, "b": {"content": "two"}, "c": None}
    assert store_reads["get_memories"] == 1


def test_reads_after_a_write_in_the_same_document_see_the_write(
    gql: GraphQLClient, gm: GraphMem
) -> None:
    a, b, c = gm.remember_many([{"content": "a"}, {"content": "b"}, {"content": "c"}])

    result = gql.data(
        """mutation($a: ID!, $b: ID!, $c: ID!) {
            first: relate(fromId: $a, toId: $b, type: ENABLES) { type }
            before: recordAccess(id: $a) { relations { toId } }
            second: relate(fromId: $a, toId: $c, type: ENABLES) { type }
            after: recordAccess(id: $a) { relations { toId } } }""",
        {"a": a, "b": b, "c": c},
    )

    assert [r["toId"] for r in result["before"]["relations"]] == [b]
    assert sorted(r["toId"] for r in result["after"]["relations"]) == sorted([b, c])


def test_graphiql_is_served_to_browsers(graphql_http: httpx.Client) -> None:
    response = graphql_http.get("/graphql", headers={"Accept": "text/html"})

    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert "graphiql" in response.text.lower()


def test_queries_also_work_over_get(graphql_http: httpx.Client, gm: GraphMem) -> None:
    memory_id = gm.remember({"content": "via GET"}).id
    response = graphql_http.get(
        "/graphql", params={"query": f'{{ memory(id: "{memory_id}") {{ content }} }}'}
    )

    assert response.json() == {"data": {"memory": {"content": "via GET"}}}


def test_healthz(graphql_http: httpx.Client) -> None:
    response = graphql_http.get("/healthz")

    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_app_from_settings_opens_the_store_at_startup_and_closes_it_at_shutdown(
    data_dir: Path,
) -> None:
    settings = Settings(data_dir=data_dir / "db", graph="served")
    socket_path = EmbeddedFalkorDB(settings.store.data_dir).socket_path

    with serve(create_app_from_settings(settings)) as http:
        gql = GraphQLClient(http)
        created = remember(gql, "persisted through the service")
        assert gql.data(GET, {"id": created["id"]})["memory"]["content"] == created["content"]
        assert redis.Redis(unix_socket_path=str(socket_path)).ping()

    with pytest.raises(redis.ConnectionError):
        redis.Redis(unix_socket_path=str(socket_path), socket_connect_timeout=1).ping()
    with GraphMem.open(settings) as reopened:
        assert reopened.get(created["id"]).content == created["content"]
