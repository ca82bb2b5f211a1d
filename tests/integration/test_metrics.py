"""Prometheus metrics over a real uvicorn server: operations, promotion and
archival counters, store and embedder latency, the candidates gauge, and who
may read them."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.graphql.app import create_app
from graphmem.server.observability.metrics import MAX_OPERATION_NAMES, Metrics
from graphmem.server.observability.request_ids import RequestInfo
from graphmem.settings import Settings
from tests.integration.conftest import serve

# A surface suite: what it checks is the surface, the same on every backend; the
# store suites beneath it run on Neo4j as well (tests/conftest.py).
pytestmark = pytest.mark.backends("falkordb")

S = "thread-1"
REMEMBER = """mutation Remember($input: MemoryInput!) {
  remember(input: $input) { memory { id } }
}"""
RUN = """mutation RunPromotion($session: ID!) {
  runPromotion(sessionId: $session) { promoted }
}"""
ARCHIVE = """mutation Archive { archiveStale { archived } }"""


Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def parse(text: str) -> Samples:
    """Every sample of a scrape, by name and label set."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    """One sample's value; 0 when the series does not exist yet."""
    return samples.get((name, frozenset(labels.items())), 0.0)


def scrape(http: httpx.Client, **headers: str) -> Samples:
    response = http.get("/metrics", headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    return parse(response.text)


@pytest.fixture
def http(gm: GraphMem) -> Iterator[httpx.Client]:
    with serve(create_app(gm)) as client:
        yield client


def post(http: httpx.Client, query: str, variables: dict | None = None) -> dict:
    response = http.post("/graphql", json={"query": query, "variables": variables or {}})
    return response.json()


def test_operations_are_counted_by_name_type_and_outcome(http: httpx.Client) -> None:
    for content in ("first", "second"):
        body = post(http, REMEMBER, {"input": {"content": content}})
        assert "errors" not in body, body
    post(http, "{ memories(first: 5) { edges { node { id } } } }")
    body = post(http, "query Broken { memory(id: 1, nope: 2) { id } }")
    assert body["errors"], body

    samples = scrape(http)

    ops = "graphmem_graphql_operations_total"
    assert value(samples, ops, operation="Remember", type="mutation", outcome="ok") == 2
    assert value(samples, ops, operation="memories", type="query", outcome="ok") == 1
    assert value(samples, ops, operation="Broken", type="query", outcome="client_error") == 1
    seconds = "graphmem_graphql_operation_duration_seconds_count"
    assert value(samples, seconds, operation="Remember", type="mutation") == 2
    assert value(samples, seconds, operation="Broken", type="query") == 1
    requests = "graphmem_http_requests_total"
    assert value(samples, requests, method="POST", path="/graphql", status="200") == 4
    # Every write ran the batched write statement once, timed under its name.
    statements = "graphmem_store_statement_duration_seconds_count"
    assert value(samples, statements, statement="remember_many", access="write") == 2
    assert value(samples, statements, statement="list_memories", access="read") == 1


def test_routes_are_labelled_by_template_not_by_raw_path(http: httpx.Client) -> None:
    assert http.get("/healthz").status_code == 200
    assert http.get("/no/such/page/123").status_code == 404

    samples = scrape(http)

    requests = "graphmem_http_requests_total"
    assert value(samples, requests, method="GET", path="/healthz", status="200") == 1
    assert value(samples, requests, method="GET", path="unmatched", status="404") == 1
    assert not any("/no/such" in str(labels) for _, labels in samples)


def test_promotion_and_archival_runs_are_counted(
    http: httpx.Client, gm: GraphMem, clock: ManualClock
) -> None:
    # A risk at confidence 0.9 scores above the 0.6 threshold; an assumption at 0.2 does not.
    strong = {"content": "token expiry breaks the nightly job", "memory_type": "risk"}
    gm.remember({**strong, "confidence": 0.9, "session_id": S})
    gm.remember(
        {"content": "maybe the cache is cold", "memory_type": "assumption", "confidence": 0.2}
        | {"session_id": S}
    )
    before = scrape(http)

    run = post(http, RUN, {"session": S})
    assert len(run["data"]["runPromotion"]["promoted"]) == 1, run
    clock.advance(2 * 86_400)  # the weak one is now stale in its tier
    archived = post(http, ARCHIVE)
    assert len(archived["data"]["archiveStale"]["archived"]) == 1, archived

    after = scrape(http)

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("graphmem_promotion_triggers_total", trigger="manual") == 1
    assert grew("graphmem_promotion_runs_total", trigger="manual") == 1
    assert grew("graphmem_promoted_memories_total", trigger="manual") == 1
    assert grew("graphmem_promotion_failures_total", trigger="manual") == 0
    assert grew("graphmem_promotion_run_duration_seconds_count", trigger="manual") == 1
    assert grew("graphmem_archival_runs_total") == 1
    assert grew("graphmem_archived_memories_total") == 1
    assert grew("graphmem_events_total", event="archival.completed") == 1


def test_candidates_waiting_are_counted_per_project(http: httpx.Client, gm: GraphMem) -> None:
    for content in ("alpha beta", "gamma delta", "epsilon zeta"):
        gm.remember({"content": content, "source": "auto_extracted"})
    gm.remember({"content": "eta theta", "source": "auto_extracted"}, project_id="other")
    gm.remember({"content": "a person's own note", "source": "manual"})

    samples = scrape(http)

    assert value(samples, "graphmem_candidates_waiting", project="default") == 3
    assert value(samples, "graphmem_candidates_waiting", project="other") == 1


def test_the_candidates_count_is_reused_until_it_is_stale(gm: GraphMem) -> None:
    gm.remember({"content": "one candidate", "source": "auto_extracted"})
    cached, fresh = Metrics(candidates_ttl=3600.0), Metrics(candidates_ttl=0.0)
    for metrics in (cached, fresh):
        metrics.count_in(gm)
        assert waiting(metrics) == 1

    gm.remember({"content": "another candidate", "source": "auto_extracted"})

    assert waiting(cached) == 1, "a scrape within the time to live must not scan the graph"
    assert waiting(fresh) == 2


def waiting(metrics: Metrics) -> float:
    samples = parse(generate_latest(metrics.registry).decode())
    return value(samples, "graphmem_candidates_waiting", project="default")


def test_client_chosen_operation_names_cannot_grow_the_series_without_bound() -> None:
    metrics = Metrics()
    for n in range(MAX_OPERATION_NAMES + 50):
        request = RequestInfo(id="r", method="POST", path="/graphql")
        request.operation, request.operation_type, request.outcome = f"Op{n}", "query", "ok"
        metrics.observe_request(request, "/graphql", 200, 0.001)
    odd = RequestInfo(id="r", method="POST", path="/graphql", operation="bad name\n")
    odd.operation_type = "query"
    metrics.observe_request(odd, "/graphql", 200, 0.001)

    samples = parse(generate_latest(metrics.registry).decode())

    names = {
        dict(labels)["operation"]
        for name, labels in samples
        if name == "graphmem_graphql_operations_total"
    }
    assert len(names) == MAX_OPERATION_NAMES + 1
    ops = "graphmem_graphql_operations_total"
    assert value(samples, ops, operation="other", type="query", outcome="ok") == 51


def test_embedding_calls_are_timed(egm: GraphMem) -> None:
    with serve(create_app(egm)) as http:
        body = post(http, REMEMBER, {"input": {"content": "vectors are float32"}})
        assert "errors" not in body, body
        samples = scrape(http)

    assert value(samples, "graphmem_embedding_duration_seconds_count") >= 1
    assert value(samples, "graphmem_embedded_texts_total") >= 1
    assert value(samples, "graphmem_embedding_duration_seconds_sum") > 0


def test_metrics_need_an_admin_key_when_the_server_requires_keys(gm: GraphMem) -> None:
    _, admin = gm.keys.create("operator", ["default"], "admin")
    _, reader = gm.keys.create("agent", ["default"], "read")
    with serve(create_app(gm, Settings(auth="required"))) as http:
        anonymous = http.get("/metrics")
        as_reader = http.get("/metrics", headers={"authorization": f"Bearer {reader}"})
        as_admin = http.get("/metrics", headers={"authorization": f"Bearer {admin}"})
        # A browser's GET is not the GraphiQL page here: it needs the key too.
        as_browser = http.get("/metrics", headers={"Accept": "text/html"})

    assert anonymous.status_code == 401
    assert anonymous.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
    assert as_reader.status_code == 403
    assert "admin" in as_reader.json()["errors"][0]["message"]
    assert as_admin.status_code == 200
    assert "graphmem_http_requests_total" in as_admin.text
    assert as_browser.status_code == 401


def test_each_app_counts_only_its_own_requests(gm: GraphMem) -> None:
    with serve(create_app(gm)) as first, serve(create_app(gm)) as second:
        first.get("/healthz")
        first.get("/healthz")
        second.get("/healthz")
        one, two = scrape(first), scrape(second)

    requests = "graphmem_http_requests_total"
    assert value(one, requests, method="GET", path="/healthz", status="200") == 2
    assert value(two, requests, method="GET", path="/healthz", status="200") == 1
