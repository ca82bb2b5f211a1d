"""A retrieval request is declared once, on its model: GraphQL's arguments, the
client's document and variables, the MCP tool's parameters and the CLI's
options are read from it (``graphmem.domain.retrieval.arguments``). A field
added to a model reaches every surface with no line written for it there."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Annotated, Any

import pytest
import strawberry
import typer
from graphql import parse as parse_document
from graphql import validate
from pydantic import Field
from typer.testing import CliRunner

from graphmem.cli.retrieval import options_of
from graphmem.domain.retrieval import ContextRequest, SearchRequest
from graphmem.domain.retrieval.arguments import REQUIRED, Said, arguments
from graphmem.graphql.schema import schema
from graphmem.graphql.types.common import Info
from graphmem.graphql.types.requests import arguments_of
from graphmem.mcp.params import request_fields
from graphmem.operations import documents as doc
from graphmem.operations.retrieval import CONTEXT, HITS


class Wider(ContextRequest):
    """knowledgeContext with one more optional field, declared here alone."""

    nearest_first: Annotated[bool, Said(mcp="Nearest first, for an agent.")] = Field(
        default=False, description="Order the memories by distance."
    )
    until: datetime | None = Field(default=None, description="Up to this time.")


def graphql_arguments(field: str) -> dict[str, Any]:
    return schema._schema.query_type.fields[field].args  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("field", "model", "own"),
    [
        ("knowledgeContext", ContextRequest, {"recordAccess", "projectId", "agentId"}),
        ("search", SearchRequest, {"projectId", "agentId"}),
    ],
)
def test_the_graphql_arguments_are_the_models_fields_and_the_fields_own(
    field: str, model: type[Any], own: set[str]
) -> None:
    args = graphql_arguments(field)
    declared = {a.camel: a for a in arguments(model)}

    assert set(args) == set(declared) | own
    for name, argument in declared.items():
        shown = args[name]
        assert shown.description == argument.described("graphql"), name
        if argument.nullable:
            assert shown.default_value is None, name
        elif argument.default is not REQUIRED:
            expected = argument.default
            assert shown.default_value in (expected, getattr(expected, "name", expected)), name


def test_the_clients_documents_are_valid_against_the_servers_schema() -> None:
    context, _ = doc.requested(
        "knowledgeContext",
        ContextRequest(context_hint="what to do"),
        CONTEXT,
        doc.Extra("recordAccess", "Boolean", None),
        doc.Extra("projectId", "ID", None),
        doc.Extra("agentId", "ID", None),
    )
    found, _ = doc.requested("search", SearchRequest(query="q"), HITS)

    for document in (context + doc.MEMORY, found + doc.MEMORY):
        assert validate(schema._schema, parse_document(document)) == []


def test_a_new_field_is_a_graphql_argument_with_its_default_and_description() -> None:
    @strawberry.type
    class Query:
        @strawberry.field
        @arguments_of(Wider, placed={"project_id": "session_id"})
        def ask(self, info: Info, *, project_id: strawberry.ID | None = None, **asked: Any) -> str:
            request = Wider.model_validate(asked)
            return json.dumps([request.nearest_first, request.until is not None, project_id])

    wide = strawberry.Schema(query=Query)
    sdl = wide.as_str()

    assert '"""Order the memories by distance."""\n    nearestFirst: Boolean! = false' in sdl
    assert "sessionId: ID = null\n    projectId: ID = null\n" in sdl
    answer = wide.execute_sync(
        '{ ask(contextHint: "abc", nearestFirst: true, until: "2026-01-01T00:00:00Z",'
        ' projectId: "p") }'
    )
    assert answer.errors is None
    assert json.loads(answer.data["ask"]) == [True, True, "p"]  # type: ignore[index]


def test_a_new_field_is_a_variable_of_the_clients_document() -> None:
    when = datetime(2026, 1, 1, tzinfo=UTC)
    document, variables = doc.requested(
        "knowledgeContext", Wider(context_hint="abc", nearest_first=True, until=when), "{ x }"
    )

    assert "$nearestFirst: Boolean!" in document and "nearestFirst: $nearestFirst" in document
    assert "$until: DateTime" in document and "until: $until" in document
    assert variables["nearestFirst"] is True
    assert variables["until"] == "2026-01-01T00:00:00+00:00"


def test_a_new_field_is_a_tool_parameter_worded_for_an_agent() -> None:
    params = {p.name: p for p in request_fields(Wider)}

    assert list(params)[-2:] == ["nearest_first", "until"]
    assert params["nearest_first"].default is False
    assert "Nearest first, for an agent." in repr(params["nearest_first"].annotation)
    assert "Up to this time." in repr(params["until"].annotation)


def test_a_new_field_is_a_cli_option_with_its_help_and_limits() -> None:
    seen: dict[str, Any] = {}
    app = typer.Typer()

    @app.command()
    @options_of(Wider, spelled=("context_hint",))
    def ask(hint: Annotated[str, typer.Argument()], **asked: Any) -> None:
        seen.update(Wider.model_validate({**asked, "context_hint": hint}).model_dump())

    runner = CliRunner()
    done = runner.invoke(app, ["abc", "--nearest-first", "--max-results", "7"])
    assert done.exit_code == 0, done.output
    assert (seen["nearest_first"], seen["max_results"]) == (True, 7)
    shown = runner.invoke(app, ["--help"], env={"COLUMNS": "300"}).output
    assert "Order the memories by distance." in shown
    assert "How many memories to return, best first. 1 to 50." in shown
