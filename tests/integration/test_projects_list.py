"""Which projects there are: ``GraphMem.project_ids`` and the ``projects`` query
over real HTTP, each caller seeing only the projects its key holds, so a
surface can tell a project name with a typo from a project with nothing in it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from graphmem.api import GraphMem
from graphmem.domain.auth import Role
from graphmem.graphql.app import create_app
from graphmem.settings import Settings
from tests.integration.conftest import GraphQLClient, serve

PROJECTS = "{ projects }"


@pytest.fixture
def filled(gm: GraphMem) -> GraphMem:
    """A memory in ``alpha``, a session in ``beta``, settings in ``gamma``."""
    gm.remember({"content": "Alpha deploys on Tuesdays"}, project_id="alpha")
    gm.open_session("s-1", project_id="beta")
    gm.set_project_settings(auto_links=["previous_turn"], project_id="gamma")
    return gm


def test_a_project_exists_once_it_holds_memories_sessions_or_settings(filled: GraphMem) -> None:
    assert filled.project_ids() == ["alpha", "beta", "gamma"]
    # Reading a project's settings or memories does not make it exist.
    filled.project_settings(project_id="nosuch")
    assert filled.list(project_id="nosuch").items == []
    assert "nosuch" not in filled.project_ids()


def test_graphql_lists_every_project_to_open_local_access(
    filled: GraphMem, gql: GraphQLClient
) -> None:
    assert gql.data(PROJECTS) == {"projects": ["alpha", "beta", "gamma"]}


def test_the_projects_query_names_no_project(filled: GraphMem, gql: GraphQLClient) -> None:
    error = gql.error('{ projects(projectId: "alpha") }')
    assert error["extensions"]["code"] == "INVALID_INPUT"
    assert "projectId" in error["message"]


@pytest.fixture
def keyed(filled: GraphMem) -> Iterator[httpx.Client]:
    settings = Settings.model_validate(dict(auth="required", rate_limit=0))
    with serve(create_app(filled, settings)) as http:
        yield http


def projects_for(http: httpx.Client, token: str) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"}
    return http.post("/graphql", json={"query": PROJECTS}, headers=headers).json()


@pytest.mark.parametrize(
    ("projects", "role", "agent", "seen"),
    [
        (["alpha"], Role.READ, None, ["alpha"]),
        (["nosuch"], Role.READ, None, []),
        (["gamma", "alpha", "nosuch"], Role.WRITE, None, ["alpha", "gamma"]),
        (["beta"], Role.READ, "ana", ["beta"]),
        (["alpha", "beta", "gamma"], Role.ADMIN, None, ["alpha", "beta", "gamma"]),
    ],
)
def test_a_key_sees_only_its_own_projects_that_exist(
    filled: GraphMem,
    keyed: httpx.Client,
    projects: list[str],
    role: Role,
    agent: str | None,
    seen: list[str],
) -> None:
    _, token = filled.keys.create("caller", projects, role, agent_id=agent)
    assert projects_for(keyed, token) == {"data": {"projects": seen}}


def test_a_keyless_caller_is_refused_where_keys_are_required(keyed: httpx.Client) -> None:
    response = keyed.post("/graphql", json={"query": PROJECTS})
    assert response.status_code == 401
    assert "data" not in response.json()
