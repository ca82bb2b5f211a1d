"""knowledgeContext, search and neighborhood over GraphQL, against a real server,
a real FalkorDB and the real embedding model."""

from __future__ import annotations

from typing import Any

import pytest

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.services.embeddings import MiniLMEmbedder
from graphmem.store.falkordb import FalkorStore
from tests.integration.conftest import GraphQLClient, Rejected

# A surface suite: what it checks is the surface, the same on every backend; the
# store suites beneath it run on Neo4j as well (tests/conftest.py).
pytestmark = pytest.mark.backends("falkordb")

COMPONENTS = "components { name value weight contribution }"
RETRIEVERS = "retrievers { retriever rank score }"
CONTEXT = f"""query($hint: String!, $max: Int! = 5, $record: Boolean) {{
  knowledgeContext(contextHint: $hint, maxResults: $max, recordAccess: $record) {{
    items {{ memory {{ id status accessCount retrievalCount }} score {COMPONENTS} {RETRIEVERS} }}
    weights {{ name weight }} maxAccessCount candidates notes tookMs
  }}
}}"""
SEARCH = f"""query($q: String!, $mode: SearchMode! = HYBRID, $limit: Int! = 10, $depth: Int! = 1,
               $filters: SearchFilters, $types: [RelationType!]) {{
  search(query: $q, mode: $mode, limit: $limit, depth: $depth, filters: $filters,
         relationTypes: $types) {{
    hits {{
      memory {{ id content }} score
      explanation {{
        {COMPONENTS} {RETRIEVERS}
        path {{ seedId steps {{ type fromId toId }} factor }}
        replaces notes
      }}
    }}
    mode retrievers notes tookMs
  }}
}}"""
DISTRACTORS = [
    "The rate limiter rejects bursts above 100 requests per second",
    "Session tokens expire after 15 minutes of inactivity",
    "Database migrations run before every deploy",
    "Nightly exports are written to the reports bucket",
]
NEIGHBORHOOD = """query($id: ID!, $depth: Int! = 1, $types: [RelationType!]) {
  neighborhood(id: $id, depth: $depth, relationTypes: $types) {
    centerId depth nodes { id content } edges { type fromId toId rationale } truncated
  }
}"""


@pytest.fixture
def gm(store: FalkorStore, clock: ManualClock, embedder: MiniLMEmbedder) -> GraphMem:
    """The server's GraphMem, with embeddings on."""
    return GraphMem(store, clock=clock, embedder=embedder)


def ids(hits: list[dict[str, Any]]) -> list[str]:
    return [hit["memory"]["id"] for hit in hits]


def test_knowledge_context_explains_scores_and_leaves_out_candidates(
    gm: GraphMem, gql: GraphQLClient
):
    active = gm.remember({"content": "the deploy script lives in tools/deploy.sh"})
    candidate = gm.remember(
        {"content": "the deploy script may live in scripts/deploy.sh", "source": "auto_extracted"}
    )
    assert candidate.status.value == "candidate"

    result = gql.data(CONTEXT, {"hint": "deploy script"})["knowledgeContext"]

    (item,) = result["items"]
    assert item["memory"]["id"] == active.id and item["memory"]["status"] == "ACTIVE"
    assert sum(c["contribution"] for c in item["components"]) == pytest.approx(item["score"])
    assert {c["name"] for c in item["components"]} == {w["name"] for w in result["weights"]}
    assert sum(w["weight"] for w in result["weights"]) == pytest.approx(1.0)
    assert item["retrievers"] and result["candidates"] >= 1 and result["tookMs"] >= 0
    # The retrieval was counted (by default), not as a use; the next request sees it.
    assert gm.get(active.id).retrieval_count == 1
    again = gql.data(CONTEXT, {"hint": "deploy script", "record": False})["knowledgeContext"]
    memory = again["items"][0]["memory"]
    assert (memory["retrievalCount"], memory["accessCount"]) == (1, 0)
    assert gm.get(active.id).retrieval_count == 1


def test_knowledge_context_tool_is_the_function_schema(gql: GraphQLClient):
    tool = gql.data("{ knowledgeContextTool }")["knowledgeContextTool"]
    assert tool["name"] == "knowledge_context"
    assert "contextHint" in tool["parameters"]["properties"]


def test_hybrid_search_finds_a_memory_and_names_its_retrievers(gm: GraphMem, gql: GraphQLClient):
    target = gm.remember({"content": "Session tokens expire after 15 minutes of inactivity"})
    gm.remember({"content": "Nightly exports are written to the reports bucket"})

    result = gql.data(SEARCH, {"q": "session token expiry"})["search"]

    assert result["mode"] == "HYBRID" and set(result["retrievers"]) == {
        "VECTOR",
        "FULLTEXT",
        "FEEDBACK",  # a short query, expanded by the words of its best hits
    }
    assert ids(result["hits"])[0] == target.id
    why = result["hits"][0]["explanation"]
    assert {r["retriever"] for r in why["retrievers"]} == {"VECTOR", "FULLTEXT", "FEEDBACK"}
    assert why["retrievers"] and all(r["rank"] >= 1 for r in why["retrievers"])
    assert sum(c["contribution"] for c in why["components"]) == pytest.approx(
        result["hits"][0]["score"]
    )
    assert why["path"] is None


def test_search_filters_convert_dates_and_are_validated(
    gm: GraphMem, gql: GraphQLClient, rejected: Rejected
):
    gm.remember({"content": "Session tokens expire after 15 minutes of inactivity"})
    later = {"q": "session tokens", "filters": {"createdAfter": "2100-01-01T00:00:00Z"}}
    assert gql.data(SEARCH, later)["search"]["hits"] == []
    earlier = {"q": "session tokens", "filters": {"createdBefore": "2100-01-01T00:00:00Z"}}
    assert len(gql.data(SEARCH, earlier)["search"]["hits"]) == 1
    bad = {"q": "session tokens", "filters": {"minConfidence": 2.0}}
    rejected(SEARCH, bad, "INVALID_INPUT", "filters.minConfidence")


def test_search_pulls_in_a_constraint_with_its_path(gm: GraphMem, gql: GraphQLClient):
    decision = gm.remember({"content": "Ship the mobile app update through the beta channel first"})
    rule = gm.remember(
        {"content": "Invoices need a VAT number from the customer", "memory_type": "rule"}
    )
    gm.remember_many([{"content": c} for c in DISTRACTORS])
    gm.relate(rule.id, decision.id, "CONSTRAINS", rationale="company policy")
    query = "roll out mobile app update beta channel"

    shallow = gql.data(SEARCH, {"q": query, "depth": 0, "limit": 2})["search"]
    assert rule.id not in ids(shallow["hits"])

    result = gql.data(SEARCH, {"q": query, "limit": 2})["search"]
    assert ids(result["hits"]) == [decision.id, rule.id]
    path = result["hits"][1]["explanation"]["path"]
    assert path["seedId"] == decision.id and path["factor"] == pytest.approx(0.9)
    assert path["steps"] == [{"type": "CONSTRAINS", "fromId": rule.id, "toId": decision.id}]


def test_neighborhood_returns_nodes_and_typed_edges(gm: GraphMem, gql: GraphQLClient):
    a, b, c, far = gm.remember_many(
        [{"content": f"memory {name}"} for name in ("a", "b", "c", "far")]
    )
    gm.relate(a, b, "CONSTRAINS", rationale="because")
    gm.relate(c, a, "ENABLES")
    gm.relate(b, far, "RELATED_TO")

    hood = gql.data(NEIGHBORHOOD, {"id": a})["neighborhood"]
    assert hood["centerId"] == a and hood["depth"] == 1 and hood["truncated"] is False
    assert hood["nodes"][0]["id"] == a and {n["id"] for n in hood["nodes"]} == {a, b, c}
    assert {(e["type"], e["fromId"], e["toId"]) for e in hood["edges"]} == {
        ("CONSTRAINS", a, b),
        ("ENABLES", c, a),
    }
    assert {"type": "CONSTRAINS", "fromId": a, "toId": b, "rationale": "because"} in hood["edges"]
    two = gql.data(NEIGHBORHOOD, {"id": a, "depth": 2})["neighborhood"]
    assert far in {n["id"] for n in two["nodes"]}
    only = gql.data(NEIGHBORHOOD, {"id": a, "types": ["ENABLES"]})["neighborhood"]
    assert {n["id"] for n in only["nodes"]} == {a, c}


@pytest.mark.parametrize(
    ("document", "variables", "code", "field"),
    [
        (CONTEXT, {"hint": "ab"}, "INVALID_INPUT", "contextHint"),
        (CONTEXT, {"hint": "deploy script", "max": 51}, "INVALID_INPUT", "maxResults"),
        (SEARCH, {"q": "deploy", "depth": 4}, "INVALID_INPUT", "depth"),
        (SEARCH, {"q": "deploy", "limit": 0}, "INVALID_INPUT", "limit"),
        (NEIGHBORHOOD, {"id": "nope"}, "NOT_FOUND", "id"),
    ],
)
def test_bad_input_names_the_field(
    rejected: Rejected, document: str, variables: dict[str, Any], code: str, field: str
):
    rejected(document, variables, code, field)


def test_neighborhood_depth_is_limited(gm: GraphMem, rejected: Rejected):
    memory = gm.remember({"content": "a lonely memory"})
    rejected(NEIGHBORHOOD, {"id": memory.id, "depth": 4}, "INVALID_INPUT", "depth")
