"""``schema.graphql`` is the contract clients generate code from; it must be the
schema the server actually runs."""

from __future__ import annotations

from pathlib import Path

from graphql import GraphQLNonNull, GraphQLObjectType, GraphQLSchema, build_schema

from graphmem.graphql.schema import export_sdl

SCHEMA_FILE = Path(__file__).resolve().parents[2] / "schema.graphql"


def object_type(schema: GraphQLSchema, name: str) -> GraphQLObjectType:
    found = schema.get_type(name)
    assert isinstance(found, GraphQLObjectType), name
    return found


def test_schema_graphql_matches_the_code() -> None:
    assert SCHEMA_FILE.read_text() == export_sdl(), (
        "schema.graphql is stale: python -m graphmem.graphql.schema > schema.graphql"
    )


def test_export_is_valid_sdl_ending_with_a_newline() -> None:
    sdl = export_sdl()

    assert sdl.endswith("}\n") and not sdl.endswith("\n\n")
    build_schema(sdl)


def test_every_operation_takes_an_optional_project() -> None:
    schema = build_schema(export_sdl())
    operations = {**object_type(schema, "Query").fields, **object_type(schema, "Mutation").fields}

    assert {
        "memory",
        "memories",
        "session",
        "remember",
        "recordAccess",
        "giveFeedback",
        "pin",
        "unpin",
        "relate",
        "supersede",
        "updateMemory",
        "forget",
        "openSession",
        "pauseSession",
        "closeSession",
    } <= set(operations)
    # Listing the caller's projects is about no one project.
    assert object_type(schema, "Query").fields["projects"].args == {}
    for name, field in operations.items():
        if name == "projects":
            continue
        project = field.args.get("projectId")
        assert project is not None, name
        assert not isinstance(project.type, GraphQLNonNull), name


def test_memories_is_a_relay_connection() -> None:
    schema = build_schema(export_sdl())
    memories = object_type(schema, "Query").fields["memories"]

    assert set(memories.args) == {
        "filter",
        "first",
        "after",
        "projectId",
        "asOf",
    }
    assert set(object_type(schema, "MemoryConnection").fields) == {"edges", "pageInfo"}
    assert set(object_type(schema, "MemoryEdge").fields) == {"cursor", "node"}
    assert set(object_type(schema, "PageInfo").fields) == {
        "hasNextPage",
        "hasPreviousPage",
        "startCursor",
        "endCursor",
    }
