"""Candidate staging over GraphQL against a real server and a real graph: what
remember did, hiding candidates, the review queue, review decisions and the
staging log."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.domain.kinds import Status, Tier
from tests.integration.conftest import GraphQLClient, Rejected

# A surface suite: what it checks is the surface, the same on every backend; the
# store suites beneath it run on Neo4j as well (tests/conftest.py).
pytestmark = pytest.mark.backends("falkordb")

REMEMBER = """mutation($input: MemoryInput!) { remember(input: $input) {
    created match memory { id content status occurrenceCount tags evidence lastSeen } } }"""

QUEUE = """query($filter: ReviewFilter, $order: ReviewOrder! = OLDEST, $first: Int! = 20,
               $after: String) {
  reviewQueue(filter: $filter, order: $order, first: $first, after: $after) {
    edges { cursor node { memory { id status } occurrences feedback ageSeconds
                          nearDuplicates { id } } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  }
}"""

EVENTS = """query($id: ID!) { stagingEvents(memoryId: $id) {
    id memoryId kind signal before after similarity mergedFrom at } }"""

APPROVE = "mutation($id: ID!) { approveCandidate(id: $id) { id status activatedAt } }"
REJECT = """mutation($id: ID!, $reason: String!) { rejectCandidate(id: $id, reason: $reason) {
    id status tier archiveReason } }"""
MERGE = """mutation($into: ID!, $from: ID!) { mergeMemories(intoId: $into, fromId: $from) {
    id status occurrenceCount tags } }"""
BULK = """mutation($filter: ReviewFilter, $action: ReviewAction!, $reason: String,
                  $dryRun: Boolean! = true) {
  bulkReview(filter: $filter, action: $action, reason: $reason, dryRun: $dryRun) {
    action dryRun matched applied } }"""


def extracted(content: str, **extra: Any) -> dict[str, Any]:
    """An auto-extracted memory: it starts as a candidate."""
    return {"content": content, "source": "auto_extracted", "memory_type": "fact", **extra}


def queue_ids(gql: GraphQLClient, **variables: Any) -> list[str]:
    edges = gql.data(QUEUE, variables)["reviewQueue"]["edges"]
    return [edge["node"]["memory"]["id"] for edge in edges]


def test_remember_reports_created_then_merged_for_a_duplicate(
    gql: GraphQLClient, clock: ManualClock
) -> None:
    given = {"content": "The CI cache lives in S3", "source": "AUTO_EXTRACTED", "tags": ["ci"]}
    first = gql.data(REMEMBER, {"input": given})["remember"]
    clock.advance(60)
    again = gql.data(
        REMEMBER,
        {
            "input": {
                "content": "the ci cache  lives in S3!",
                "source": "AUTO_EXTRACTED",
                "tags": ["infra"],
                "evidence": ["build log"],
            }
        },
    )["remember"]

    assert (first["created"], first["match"]) == (True, None)
    assert first["memory"]["status"] == "CANDIDATE"
    assert (again["created"], again["match"]) == (False, "EXACT")
    merged = again["memory"]
    assert merged["id"] == first["memory"]["id"]
    assert merged["content"] == given["content"], "the first wording is kept"
    assert merged["occurrenceCount"] == 2 and merged["status"] == "ACTIVE"
    assert merged["tags"] == ["ci", "infra"] and merged["evidence"] == ["build log"]
    assert merged["lastSeen"] is not None
    events = gql.data(EVENTS, {"id": merged["id"]})["stagingEvents"]
    assert {(e["kind"], e["signal"]) for e in events} == {
        ("merged", "exact"),
        ("activated", "recurrence"),
    }
    assert all(e["memoryId"] == merged["id"] for e in events)
    activated = next(e for e in events if e["kind"] == "activated")
    assert (activated["before"], activated["after"]) == ("candidate", "active")


def test_memories_can_hide_candidates(gql: GraphQLClient, gm: GraphMem) -> None:
    candidate = gm.remember(extracted("maybe flaky")).id
    active = gm.remember({"content": "definitely flaky"}).id
    page = """query($filter: MemoryFilter) { memories(filter: $filter) {
        edges { node { id } } } }"""

    def ids(flt: dict[str, Any] | None) -> set[str]:
        edges = gql.data(page, {"filter": flt})["memories"]["edges"]
        return {edge["node"]["id"] for edge in edges}

    assert ids(None) == ids({"includeCandidates": True}) == {candidate, active}
    assert ids({"includeCandidates": False}) == {active}


def test_review_queue_lists_candidates_with_their_evidence_in_either_order(
    gql: GraphQLClient, gm: GraphMem, clock: ManualClock
) -> None:
    old = gm.remember(extracted("old one")).id
    clock.advance(60)
    busy = gm.remember(extracted("busy one")).id
    gm.feedback(busy, 1)
    gm.remember({"content": "active one"})
    clock.advance(30)

    page = gql.data(QUEUE)["reviewQueue"]
    nodes = [edge["node"] for edge in page["edges"]]

    assert [n["memory"]["id"] for n in nodes] == [old, busy]
    assert {n["memory"]["status"] for n in nodes} == {"CANDIDATE"}
    assert [(n["ageSeconds"], n["occurrences"], n["feedback"]) for n in nodes] == [
        (90.0, 1, 0.0),
        (30.0, 1, 1.0),
    ]
    assert queue_ids(gql, order="EVIDENCE") == [busy, old]
    assert queue_ids(gql, filter={"olderThanSeconds": 60}) == [old]
    assert page["pageInfo"]["hasNextPage"] is False


def test_review_queue_resolves_near_duplicates(gql: GraphQLClient, gm: GraphMem) -> None:
    # Two texts a word apart that the writer keeps apart (a changed value from
    # another source): the reviewer of the candidate is shown the live one.
    close = gm.remember({"content": "the staging deploy window opens at 9 on Tuesdays"}).id
    candidate = gm.remember(extracted("the staging deploy window opens at 10 on Tuesdays")).id
    gm.remember({"content": "the cache is in S3"})
    assert candidate != close

    (edge,) = gql.data(QUEUE)["reviewQueue"]["edges"]

    assert edge["node"]["memory"]["id"] == candidate
    assert edge["node"]["nearDuplicates"] == [{"id": close}]


def test_review_queue_pages_forwards_with_edge_cursors(
    gql: GraphQLClient, gm: GraphMem, clock: ManualClock
) -> None:
    ids = []
    for n in range(5):
        ids.append(gm.remember(extracted(f"candidate {n}")).id)
        clock.advance(1)

    seen, pages, after = [], [], None
    while True:
        page = gql.data(QUEUE, {"first": 2, "after": after})["reviewQueue"]
        pages.append(page)
        seen += [edge["node"]["memory"]["id"] for edge in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]

    assert seen == ids
    assert [len(p["edges"]) for p in pages] == [2, 2, 1]
    assert [p["pageInfo"]["hasPreviousPage"] for p in pages] == [False, True, True]
    for page in pages:
        info, edges = page["pageInfo"], page["edges"]
        assert (info["startCursor"], info["endCursor"]) == (edges[0]["cursor"], edges[-1]["cursor"])
    first_page = pages[0]["edges"]
    assert queue_ids(gql, after=first_page[0]["cursor"]) == ids[1:]


def test_approve_activates_once_and_is_logged(
    gql: GraphQLClient, gm: GraphMem, clock: ManualClock
) -> None:
    memory_id = gm.remember(extracted("the staging DB is nightly")).id
    clock.advance(5)

    approved = gql.data(APPROVE, {"id": memory_id})["approveCandidate"]
    again = gql.data(APPROVE, {"id": memory_id})["approveCandidate"]
    memory = gql.data(
        """query($id: ID!) { memory(id: $id) {
            stagingEvents { kind signal before after } } }""",
        {"id": memory_id},
    )["memory"]

    assert approved["status"] == "ACTIVE" and approved["activatedAt"] is not None
    assert again == approved
    assert memory["stagingEvents"] == [
        {"kind": "activated", "signal": "manual:approve", "before": "candidate", "after": "active"}
    ]
    assert queue_ids(gql) == []


def test_reject_archives_with_the_reason(gql: GraphQLClient, gm: GraphMem) -> None:
    memory_id = gm.remember(extracted("over-scoped learning")).id

    rejected = gql.data(REJECT, {"id": memory_id, "reason": "too specific"})["rejectCandidate"]

    assert rejected == {
        "id": memory_id,
        "status": "CANDIDATE",
        "tier": "ARCHIVED",
        "archiveReason": "rejected: too specific",
    }
    (event,) = gql.data(EVENTS, {"id": memory_id})["stagingEvents"]
    assert (event["kind"], event["after"]) == ("rejected", "archived")
    assert queue_ids(gql) == []


def test_merge_memories_folds_one_into_the_other(gql: GraphQLClient, gm: GraphMem) -> None:
    into = gm.remember(extracted("use ruff", tags=["lint"])).id
    absorbed = gm.remember(extracted("run ruff before commits", tags=["git"])).id

    merged = gql.data(MERGE, {"into": into, "from": absorbed})["mergeMemories"]

    assert merged == {
        "id": into,
        "status": "ACTIVE",
        "occurrenceCount": 2,
        "tags": ["lint", "git"],
    }
    gone = gm.get(absorbed)
    assert gone.tier is Tier.ARCHIVED and gone.merged_into == into
    merge_event = next(
        e for e in gql.data(EVENTS, {"id": into})["stagingEvents"] if e["kind"] == "merged"
    )
    assert merge_event["mergedFrom"] == absorbed


def test_bulk_review_dry_run_changes_nothing_then_applies(
    gql: GraphQLClient, gm: GraphMem, graph_snapshot: Callable[[], Any]
) -> None:
    noisy = gm.remember_many([extracted(f"noise {n}", tags=["noise"]) for n in range(3)])
    keep = gm.remember(extracted("signal", tags=["keep"])).id
    reject_noise = {"filter": {"tags": ["noise"]}, "action": "REJECT", "reason": "noise"}
    before = graph_snapshot()

    dry = gql.data(BULK, reject_noise)["bulkReview"]

    assert graph_snapshot() == before
    assert (dry["action"], dry["dryRun"], dry["applied"]) == ("REJECT", True, [])
    assert sorted(dry["matched"]) == sorted(noisy)

    done = gql.data(BULK, {**reject_noise, "dryRun": False})["bulkReview"]

    assert sorted(done["applied"]) == sorted(noisy) and done["dryRun"] is False
    assert {gm.get(memory_id).tier for memory_id in noisy} == {Tier.ARCHIVED}
    approved = gql.data(BULK, {"action": "APPROVE", "dryRun": False})["bulkReview"]
    assert approved["matched"] == approved["applied"] == [keep]
    assert gm.get(keep).status is Status.ACTIVE


@pytest.fixture
def ids(gm: GraphMem) -> dict[str, str]:
    """A candidate, an active memory, an archived one, and one in another project."""
    candidate = gm.remember(extracted("a candidate")).id
    active = gm.remember({"content": "an active memory"}).id
    archived = gm.remember(extracted("rejected earlier")).id
    gm.reject(archived, "wrong")
    elsewhere = gm.remember(extracted("other tenant"), project_id="other").id
    return {"candidate": candidate, "active": active, "archived": archived, "other": elsewhere}


Case = tuple[str, Callable[[dict[str, str]], dict[str, Any]], str, str | None]
BAD_INPUT: dict[str, Case] = {
    "unknown order in the document": (
        "{ reviewQueue(order: NEWEST) { edges { cursor } } }",
        lambda _: {},
        "INVALID_INPUT",
        "order",
    ),
    "unknown order in a variable": (QUEUE, lambda _: {"order": "NEWEST"}, "INVALID_INPUT", "order"),
    "queue page size zero": (QUEUE, lambda _: {"first": 0}, "INVALID_INPUT", "first"),
    "queue cursor not from this API": (
        QUEUE,
        lambda _: {"after": "garbage"},
        "INVALID_INPUT",
        "after",
    ),
    "queue filter below one occurrence": (
        QUEUE,
        lambda _: {"filter": {"minOccurrences": 0}},
        "INVALID_INPUT",
        "filter.minOccurrences",
    ),
    "queue filter with a malformed session": (
        QUEUE,
        lambda _: {"filter": {"sessionId": "not valid!"}},
        "INVALID_INPUT",
        "filter.sessionId",
    ),
    "approve an unknown id": (APPROVE, lambda _: {"id": "missing"}, "NOT_FOUND", "id"),
    "approve another project's memory": (
        APPROVE,
        lambda i: {"id": i["other"]},
        "NOT_FOUND",
        "id",
    ),
    "approve an archived memory": (APPROVE, lambda i: {"id": i["archived"]}, "CONFLICT", "id"),
    "reject with a blank reason": (
        REJECT,
        lambda i: {"id": i["candidate"], "reason": "  "},
        "INVALID_INPUT",
        "reason",
    ),
    "reject an active memory": (
        REJECT,
        lambda i: {"id": i["active"], "reason": "no"},
        "CONFLICT",
        "id",
    ),
    "reject an unknown id": (
        REJECT,
        lambda _: {"id": "missing", "reason": "no"},
        "NOT_FOUND",
        "id",
    ),
    "reject without a reason": (
        "mutation($id: ID!) { rejectCandidate(id: $id) { id } }",
        lambda i: {"id": i["candidate"]},
        "GRAPHQL_VALIDATION_FAILED",
        None,
    ),
    "merge a memory into itself": (
        MERGE,
        lambda i: {"into": i["candidate"], "from": i["candidate"]},
        "INVALID_INPUT",
        "fromId",
    ),
    "merge into an unknown id": (
        MERGE,
        lambda i: {"into": "missing", "from": i["candidate"]},
        "NOT_FOUND",
        "intoId",
    ),
    "merge from an unknown id": (
        MERGE,
        lambda i: {"into": i["candidate"], "from": "missing"},
        "NOT_FOUND",
        "fromId",
    ),
    "merge from an archived memory": (
        MERGE,
        lambda i: {"into": i["candidate"], "from": i["archived"]},
        "CONFLICT",
        "fromId",
    ),
    "unknown bulk action": (
        BULK,
        lambda _: {"action": "DELETE", "dryRun": False},
        "INVALID_INPUT",
        "action",
    ),
    "bulk reject without a reason": (
        BULK,
        lambda _: {"action": "REJECT", "dryRun": False},
        "INVALID_INPUT",
        "reason",
    ),
    "bulk review with a bad filter": (
        BULK,
        lambda _: {"action": "APPROVE", "filter": {"tags": [""]}, "dryRun": False},
        "INVALID_INPUT",
        "filter.tags[0]",
    ),
    "staging events in a malformed project": (
        'query($id: ID!) { stagingEvents(memoryId: $id, projectId: "no spaces") { id } }',
        lambda i: {"id": i["candidate"]},
        "INVALID_INPUT",
        "projectId",
    ),
}


@pytest.mark.parametrize("case", BAD_INPUT.values(), ids=BAD_INPUT.keys())
def test_bad_input_is_named_and_nothing_is_written(
    case: Case, ids: dict[str, str], rejected: Rejected
) -> None:
    document, variables, code, field = case
    rejected(document, variables(ids), code, field)


def test_staging_events_of_an_unknown_memory_are_empty(gql: GraphQLClient) -> None:
    assert gql.data(EVENTS, {"id": "missing"}) == {"stagingEvents": []}
