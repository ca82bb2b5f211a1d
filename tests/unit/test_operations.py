"""The catalogue of operations: each declared once, and every surface held to it.

GraphQL refuses at import a root field no entry runs; these check the rest
without a server: no entry names a field that is gone, the access rules both
surfaces apply, and that each MCP tool hands its ``GraphMem`` method only
arguments it takes.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from strawberry.types.base import get_object_definition
from strawberry.utils.str_converters import to_camel_case

from graphmem.api import GraphMem
from graphmem.domain.auth import OPEN, Principal, Role
from graphmem.domain.errors import ForbiddenError
from graphmem.graphql.schema import Mutation, Query
from graphmem.mcp.server import TOOLS
from graphmem.mcp.tool import Tool
from graphmem.operations import access
from graphmem.operations.catalogue import ENTRIES, SERVED_ONLY, Operations, by_field
from graphmem.operations.requests import Call

WRITER = Principal.scoped(["alpha", "beta"], Role.WRITE, key_id="k1")
READER = Principal.scoped(["alpha"], Role.READ, key_id="k2")
AGENT = Principal.scoped(["alpha"], Role.ADMIN, key_id="k3", agent_id="bot")


def root_fields() -> set[str]:
    return {
        field.graphql_name or to_camel_case(field.python_name)
        for root in (Query, Mutation)
        for field in get_object_definition(root, strict=True).fields
    }


def test_every_entry_runs_fields_the_schema_has() -> None:
    assert set(by_field()) == root_fields()


def test_every_entry_is_served_by_a_graphmem_method() -> None:
    served = {entry.serves for entry in ENTRIES.values()} - {None}
    assert {name for name in served if not hasattr(GraphMem, str(name))} == set()
    assert {entry.name for entry in SERVED_ONLY if entry.serves is None} == {
        "knowledge_context_tool"
    }


def test_scope_checks_the_project_and_the_role() -> None:
    pin = ENTRIES["pin"]
    assert access.scope(WRITER, pin, "beta", "default", {}) == "beta"
    with pytest.raises(ForbiddenError, match="needs write"):
        access.scope(READER, pin, None, "default", {})
    with pytest.raises(ForbiddenError, match="no access to project 'beta'"):
        access.scope(READER, ENTRIES["get"], "beta", "default", {})


def test_an_agents_key_may_not_cover_the_whole_project() -> None:
    with pytest.raises(ForbiddenError, match="acts as agent 'bot'"):
        access.scope(AGENT, ENTRIES["consolidate"], None, "default", {})
    assert access.scope(AGENT, ENTRIES["pin"], None, "default", {}) == "alpha"


def test_listing_projects_names_none() -> None:
    assert access.scope(READER, ENTRIES["project_ids"], None, "default", {}) is None
    assert access.readable(READER, ["alpha", "beta"]) == ["alpha"]
    assert access.readable(OPEN, ["alpha", "beta"]) == ["alpha", "beta"]


@pytest.mark.parametrize("name", ["share", "unshare"])
def test_only_a_memorys_agent_or_an_admin_changes_who_sees_it(name: str) -> None:
    """Held on every surface alike: MCP's tools once let a write key bound to no
    agent share or unshare anyone's memory, where GraphQL refused it."""
    entry = ENTRIES[name]
    with pytest.raises(ForbiddenError, match="own agent, or an admin key"):
        access.scope(WRITER, entry, "alpha", "default", {})
    assert access.scope(AGENT, entry, None, "default", {}) == "alpha"
    admin = Principal.scoped(["alpha"], Role.ADMIN, key_id="k4")
    assert access.scope(admin, entry, None, "default", {}) == "alpha"
    assert access.scope(OPEN, entry, None, "default", {}) == "default"


def test_a_copy_goes_only_where_the_key_writes() -> None:
    copy = ENTRIES["copy_memory"]
    assert access.scope(WRITER, copy, "alpha", "default", {"to_project_id": "beta"}) == "alpha"
    with pytest.raises(ForbiddenError) as refused:
        access.scope(WRITER, copy, "alpha", "default", {"to_project_id": "gamma"})
    assert refused.value.field == "toProjectId"
    assert refused.value.message == "toProjectId: this API key may not write in the project named"


def test_a_removed_relation_names_who_removed_it() -> None:
    assert ENTRIES["unrelate"].attributed == "removed_by"
    assert access.attribution("ann", WRITER, "mcp") == "ann"
    assert access.attribution(None, WRITER, "mcp") == "key:k1"
    assert access.attribution(None, OPEN, "graphql") == "graphql"


def fields_at(model: Any, path: tuple[str, ...]) -> set[str]:
    for part in path:
        model = model.model_fields[part].annotation
    return set(model.model_fields)


@pytest.mark.parametrize("tool", TOOLS, ids=lambda tool: tool.name)
def test_each_tool_passes_its_method_only_arguments_it_takes(tool: Tool) -> None:
    entry = ENTRIES[tool.operation or tool.name]
    taken = inspect.signature(getattr(GraphMem, str(entry.serves))).parameters
    given = {param.into for param in tool.params if param.at is None}
    if not entry.cross_project:
        given.add("project_id")
    if tool.request is not None:
        into, model = tool.request
        given.add(into)
        for param in tool.params:
            if param.at is not None:
                assert param.into in fields_at(model, param.at), (tool.name, param.name)
    assert given <= set(taken), tool.name


def test_a_client_method_is_the_operation_sent() -> None:
    request = Operations.pin("m1", project_id="alpha")
    assert isinstance(request, Call)
    assert request.variables == {"id": "m1", "p": "alpha"}
    assert request.named("CliPin").document.startswith("mutation CliPin($id: ID!, $p: ID)")
    assert Operations.project_ids().named("CliProjects").document == (
        "query CliProjects { projects }"
    )
