"""The consistency evaluator over GraphQL: a check runs off the request path as a
job, and its report round-trips through the graph."""

from __future__ import annotations

import time
from typing import Any

import pytest

from graphmem.api import GraphMem
from tests.conftest import cypher
from tests.integration.conftest import GraphQLClient

# A surface suite: what it checks is the surface, the same on every backend; the
# store suites beneath it run on Neo4j as well (tests/conftest.py).
pytestmark = pytest.mark.backends("falkordb")

RUN = """mutation($fix: Boolean! = false) {
  runConsistencyCheck(fix: $fix) { id projectId state submittedAt }
}"""
JOB = """query($id: ID!) {
  consistencyJob(id: $id) {
    id state error finishedAt
    report {
      id schemaVersion createdAt
      summary { memories relations findings errors warnings infos byCode { code count } }
      findings { code severity memoryIds message fix fixable details }
      json
    }
  }
}"""
REPORTS = """query($first: Int!) {
  consistencyReports(first: $first) {
    id summary { findings errors } findings(severity: ERROR) { code }
  }
}"""


def wait_for(gql: GraphQLClient, job_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        job = gql.data(JOB, {"id": job_id})["consistencyJob"]
        if job["state"] in ("succeeded", "failed"):
            return job
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} did not finish")


def test_a_check_runs_as_a_job_and_its_report_is_stored(gm: GraphMem, gql: GraphQLClient):
    old = gm.remember({"content": "Deploy on Fridays"})
    new = gm.remember({"content": "Never deploy on Fridays"})
    gm.supersede(old.id, new.id)
    # A cycle the API refuses to create, written behind its back.
    cypher(
        gm.store,
        "MATCH (a:Memory {id: $old}), (b:Memory {id: $new}) CREATE (a)-[:SUPERSEDES]->(b)",
        {"old": old.id, "new": new.id},
    )
    started = gql.data(RUN)["runConsistencyCheck"]
    assert started["state"] in ("queued", "running", "succeeded")
    job = wait_for(gql, started["id"])
    assert job["state"] == "succeeded", job
    report = job["report"]
    assert report["id"] == started["id"] and report["schemaVersion"] == 1
    codes = {f["code"] for f in report["findings"]}
    assert "SUPERSEDES_CYCLE" in codes
    cycle = next(f for f in report["findings"] if f["code"] == "SUPERSEDES_CYCLE")
    assert cycle["severity"] == "ERROR" and set(cycle["memoryIds"]) == {old.id, new.id}
    assert report["summary"]["memories"] == 2 and report["summary"]["errors"] >= 1
    assert '"schema_version": 1' in report["json"] or '"schema_version":1' in report["json"]

    other = gql.data(
        'query($id: ID!) { consistencyJob(id: $id, projectId: "other") { id } }',
        {"id": started["id"]},
    )
    assert other["consistencyJob"] is None, "a job is seen from its own project only"
    listed = gql.data(REPORTS, {"first": 5})["consistencyReports"]
    assert [r["id"] for r in listed] == [started["id"]]
    assert {"code": "SUPERSEDES_CYCLE"} in listed[0]["findings"]
    # The same report as the Python API reads it back from the graph.
    (stored,) = gm.consistency_reports()
    assert (
        stored.id == started["id"] and stored.summary()["errors"] == listed[0]["summary"]["errors"]
    )


def test_a_clean_graph_reports_no_errors(gm: GraphMem, gql: GraphQLClient):
    gm.remember({"content": "a fine memory", "memory_type": "fact"})
    job = wait_for(gql, gql.data(RUN)["runConsistencyCheck"]["id"])
    assert job["report"]["summary"]["errors"] == 0


def test_unknown_ids_and_bad_input(gql: GraphQLClient):
    assert gql.data('{ consistencyJob(id: "nope") { id } }')["consistencyJob"] is None
    assert gql.data('{ consistencyReport(id: "nope") { id } }')["consistencyReport"] is None
    error = gql.error("{ consistencyReports(first: 0) { id } }")
    assert error["extensions"]["code"] == "INVALID_INPUT"
    error = gql.error('mutation { runConsistencyCheck(projectId: "bad id") { id } }')
    assert error["extensions"]["code"] == "INVALID_INPUT"
