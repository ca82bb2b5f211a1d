"""The whatIf query against a real server and graph: the diff, the sides, and
bad variants refused naming the key, with nothing written either way."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from graphmem.api import GraphMem
from graphmem.domain.auth import Role
from graphmem.domain.clock import ManualClock
from graphmem.graphql.app import create_app
from graphmem.settings import Settings
from tests.integration.conftest import GraphQLClient, Rejected, serve

# A surface suite: what it checks is the surface, the same on every backend; the
# store suites beneath it run on Neo4j as well (tests/conftest.py).
pytestmark = pytest.mark.backends("falkordb")

WHAT_IF = """query($variant: WhatIfInput!) {
  whatIf(variant: $variant) {
    projectId at sessions durationMs changed
    current { preset promoted archived rules }
    variant { preset promoted archived rules }
    transitions { current variant count }
    changes {
      memory { id tier }
      current { outcome toTier score }
      variant { outcome toTier score }
    }
  }
}"""


def risk(content: str, session: str = "s1") -> dict[str, Any]:
    """Scores 0.675 when fresh under the default preset."""
    return {"content": content, "memory_type": "risk", "confidence": 0.9, "session_id": session}


def test_what_if_shows_the_diff_and_writes_nothing(
    gql: GraphQLClient,
    gm: GraphMem,
    clock: ManualClock,
    graph_snapshot: Callable[[], Any],
) -> None:
    hot = gm.remember(risk("tokens expire after an hour")).id
    before = graph_snapshot()

    report = gql.data(
        WHAT_IF, {"variant": {"rulesYaml": "promote_threshold: 0.7\n", "preset": "default"}}
    )["whatIf"]

    assert report["projectId"] == "default" and report["sessions"] == 1
    assert report["current"]["promoted"] == 1 and report["variant"]["promoted"] == 0
    assert report["variant"]["rules"]["promote_threshold"] == 0.7
    assert report["current"]["rules"]["promote_threshold"] == 0.6
    assert report["transitions"] == [{"current": "PROMOTE", "variant": "STAY", "count": 1}]
    (change,) = report["changes"]
    assert change["memory"] == {"id": hot, "tier": "WORKING"}
    assert change["current"]["outcome"] == "PROMOTE" and change["current"]["toTier"] == "EPISODIC"
    assert change["variant"] == {
        "outcome": "STAY",
        "toTier": None,
        "score": pytest.approx(0.675, abs=1e-3),
    }
    assert graph_snapshot() == before


def test_weights_and_rules_as_json(gql: GraphQLClient, gm: GraphMem) -> None:
    gm.remember(risk("tokens expire after an hour"))
    report = gql.data(
        WHAT_IF,
        {"variant": {"weights": {"salience": 0.0}, "rules": {"promote_threshold": 0.5}}},
    )["whatIf"]
    # Without salience the risk scores (0.2 + 0.225) / 0.75 = 0.567: still over 0.5.
    assert report["changes"] == []
    assert report["transitions"] == [{"current": "PROMOTE", "variant": "PROMOTE", "count": 1}]


@pytest.mark.parametrize(
    ("variant", "field"),
    [
        ({"rulesYaml": "promote_treshold: 0.5\n"}, "variant.rulesYaml.promote_treshold"),
        ({"rules": {"promote_threshold": 1.5}}, "variant.rules.promote_threshold"),
        ({"weights": {"novelty": 1}}, "variant.weights.novelty"),
        ({"preset": "sky"}, "variant.preset"),
        ({"weights": [1, 2]}, "variant.weights"),
    ],
)
def test_bad_variants_are_refused_naming_the_key(
    rejected: Rejected, gm: GraphMem, variant: dict[str, Any], field: str
) -> None:
    gm.remember(risk("tokens expire after an hour"))
    rejected(WHAT_IF, {"variant": variant}, "INVALID_INPUT", field)


def test_what_if_needs_an_admin_key(gm: GraphMem) -> None:
    gm.remember(risk("tokens expire after an hour"))
    _, writer = gm.keys.create("writer", ["default"], Role.WRITE)
    _, admin = gm.keys.create("admin", ["default"], Role.ADMIN)
    variables = {"variant": {"rules": {"promote_threshold": 0.7}}}
    with serve(create_app(gm, Settings.model_validate(dict(auth="required")))) as http:

        def ask(key: str) -> dict[str, Any]:
            headers = {"Authorization": f"Bearer {key}"}
            payload = {"query": WHAT_IF, "variables": variables}
            return http.post("/graphql", json=payload, headers=headers).json()

        refused = ask(writer)
        assert refused["errors"][0]["extensions"]["code"] == "FORBIDDEN"
        assert refused["data"]["whatIf"] is None
        assert ask(admin)["data"]["whatIf"]["changed"] == 1
