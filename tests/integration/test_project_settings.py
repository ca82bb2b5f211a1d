"""Project settings on every surface: the Python API, GraphQL over real HTTP
(an admin key to change them), the remote clients and the CLI, all reading and
writing the same properties of the ``:Project`` node."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from graphmem import AsyncClient, Client, GraphMem
from graphmem.domain.auth import Role
from graphmem.domain.errors import ForbiddenError, InvalidInputError
from graphmem.domain.kinds import AutoLink
from graphmem.domain.projects import ProjectSettings
from graphmem.graphql.app import create_app
from graphmem.settings import Settings
from graphmem.store.falkordb import FalkorStore
from tests.conftest import cypher
from tests.integration.conftest import GraphQLClient, Rejected, serve
from tests.integration.conftest import run_cli as cli

SETTINGS = "query($p: ID) { projectSettings(projectId: $p) { projectId autoLinks } }"
SET = """mutation($input: ProjectSettingsInput!, $p: ID) {
  setProjectSettings(input: $input, projectId: $p) { projectId autoLinks }
}"""


def test_python_api_defaults_set_and_keep(gm: GraphMem) -> None:
    assert gm.project_settings() == ProjectSettings()
    done = gm.set_project_settings(auto_links=["same_entity", "PREVIOUS_TURN", "same_entity"])
    assert done.auto_links == [AutoLink.PREVIOUS_TURN, AutoLink.SAME_ENTITY]
    assert gm.project_settings().auto_links == done.auto_links
    # A change naming no setting keeps every one.
    assert gm.set_project_settings({}).auto_links == done.auto_links
    assert gm.project_settings(project_id="other").auto_links == []


def test_settings_are_properties_of_the_project_node(gm: GraphMem, store: FalkorStore) -> None:
    gm.set_project_settings(auto_links=["previous_turn"], project_id="alpha")
    rows = cypher(store, "MATCH (p:Project {id: 'alpha'}) RETURN p.auto_links, p.created_at")
    assert rows[0][0] == ["previous_turn"] and rows[0][1] is not None


def test_graphql_reads_and_changes_settings(gql: GraphQLClient, gm: GraphMem) -> None:
    assert gql.data(SETTINGS)["projectSettings"] == {"projectId": "default", "autoLinks": []}
    changed = gql.data(SET, {"input": {"autoLinks": ["PREVIOUS_TURN"]}, "p": "alpha"})
    assert changed["setProjectSettings"] == {"projectId": "alpha", "autoLinks": ["PREVIOUS_TURN"]}
    assert gm.project_settings(project_id="alpha").auto_links == [AutoLink.PREVIOUS_TURN]
    kept = gql.data(SET, {"input": {}, "p": "alpha"})["setProjectSettings"]
    assert kept["autoLinks"] == ["PREVIOUS_TURN"]
    off = gql.data(SET, {"input": {"autoLinks": []}, "p": "alpha"})["setProjectSettings"]
    assert off["autoLinks"] == []


def test_graphql_sets_a_projects_default_visibility(gql: GraphQLClient, gm: GraphMem) -> None:
    query = """mutation($input: ProjectSettingsInput!, $p: ID) {
      setProjectSettings(input: $input, projectId: $p) { autoLinks defaultVisibility }
    }"""
    unset = gql.data(query, {"input": {}, "p": "alpha"})["setProjectSettings"]
    assert unset == {"autoLinks": [], "defaultVisibility": None}
    done = gql.data(query, {"input": {"defaultVisibility": "PRIVATE"}, "p": "alpha"})
    assert done["setProjectSettings"]["defaultVisibility"] == "PRIVATE"
    assert gm.default_visibility("alpha").value == "private"
    assert gm.default_visibility().value == "shared"


def test_graphql_refuses_an_unknown_link_and_writes_nothing(rejected: Rejected) -> None:
    variables = {"input": {"autoLinks": ["NEXT_TURN"]}}
    error = rejected(SET, variables, "INVALID_INPUT", "input.autoLinks[0]")
    assert "NEXT_TURN" in error["message"]


def test_changing_settings_needs_an_admin_key(gm: GraphMem) -> None:
    _, writer = gm.keys.create("writer", ["default"], Role.WRITE)
    _, admin = gm.keys.create("admin", ["default"], Role.ADMIN)
    settings = Settings.model_validate(dict(auth="required", rate_limit=0))
    with serve(create_app(gm, settings)) as http:

        def send(key: str, query: str, variables: dict[str, Any]) -> dict[str, Any]:
            headers = {"Authorization": f"Bearer {key}"}
            return http.post(
                "/graphql", json={"query": query, "variables": variables}, headers=headers
            ).json()

        refused = send(writer, SET, {"input": {"autoLinks": ["SAME_ENTITY"]}})
        assert refused["errors"][0]["extensions"]["code"] == "FORBIDDEN"
        assert gm.project_settings().auto_links == []
        # Reading them is a reader's right.
        assert send(writer, SETTINGS, {})["data"]["projectSettings"]["autoLinks"] == []
        done = send(admin, SET, {"input": {"autoLinks": ["SAME_ENTITY"]}})
        assert done["data"]["setProjectSettings"]["autoLinks"] == ["SAME_ENTITY"]
        with Client(str(http.base_url), api_key=writer) as client, pytest.raises(ForbiddenError):
            client.set_project_settings(auto_links=[])
    assert gm.project_settings().auto_links == [AutoLink.SAME_ENTITY]


@pytest.fixture
def url(gm: GraphMem) -> Iterator[str]:
    with serve(create_app(gm)) as http:
        yield str(http.base_url)


def test_clients_read_and_change_settings(url: str, gm: GraphMem) -> None:
    with Client(url, project_id="alpha") as client:
        assert client.project_settings() == ProjectSettings()
        done = client.set_project_settings(auto_links=["previous_turn", "same_entity"])
        assert done == gm.project_settings(project_id="alpha")
        assert done.auto_links == [AutoLink.PREVIOUS_TURN, AutoLink.SAME_ENTITY]
        with pytest.raises(InvalidInputError) as bad:
            client.set_project_settings(auto_links=["sideways"])
        assert bad.value.field.startswith("auto_links")

    async def remote() -> ProjectSettings:
        async with AsyncClient(url) as client:
            await client.set_project_settings({"auto_links": ["same_entity"]}, project_id="beta")
            return await client.project_settings(project_id="beta")

    assert asyncio.run(remote()).auto_links == [AutoLink.SAME_ENTITY]
    assert gm.project_settings(project_id="beta").auto_links == [AutoLink.SAME_ENTITY]


def opened(data_dir: Path) -> Callable[[], GraphMem]:
    return lambda: GraphMem.open(Settings(data_dir=data_dir, embedder="none"))


def test_cli_shows_and_sets_settings(data_dir: Path) -> None:
    shown = cli(data_dir, "project", "settings")
    assert shown.exit_code == 0, shown.output
    assert "auto_links" in shown.stdout and "none" in shown.stdout
    both = "previous_turn,same_entity"
    changed = cli(data_dir, "project", "settings", "--auto-links", both, "--project", "alpha")
    assert changed.exit_code == 0, changed.output
    assert "previous_turn, same_entity" in changed.stdout and "alpha" in changed.stdout
    with opened(data_dir)() as gm:
        assert gm.project_settings(project_id="alpha").auto_links == list(AutoLink)
        assert gm.project_settings().auto_links == []
    off = cli(data_dir, "project", "settings", "--auto-links", "none", "--project", "alpha")
    assert off.exit_code == 0 and "none" in off.stdout
    with opened(data_dir)() as gm:
        assert gm.project_settings(project_id="alpha").auto_links == []


def test_cli_sets_the_default_visibility(data_dir: Path) -> None:
    shown = cli(data_dir, "project", "settings")
    assert "default_visibility" in shown.stdout and "unset" in shown.stdout
    done = cli(data_dir, "project", "settings", "--default-visibility", "private")
    assert done.exit_code == 0, done.output
    assert "private" in done.stdout
    bad = cli(data_dir, "project", "settings", "--default-visibility", "secret")
    assert bad.exit_code == 1
    assert "INVALID_INPUT" in bad.stderr and "default_visibility" in bad.stderr
    with opened(data_dir)() as gm:
        assert gm.project_settings().default_visibility is not None
        assert gm.default_visibility().value == "private"


def test_cli_names_a_bad_link(data_dir: Path) -> None:
    bad = cli(data_dir, "project", "settings", "--auto-links", "previous_turn,sideways")
    assert bad.exit_code == 1
    assert "INVALID_INPUT" in bad.stderr and "auto_links" in bad.stderr
    with opened(data_dir)() as gm:
        assert gm.project_settings().auto_links == []
