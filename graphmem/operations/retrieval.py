"""Operations that find memories: what an agent should know now, search, and
what relates to one memory."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from graphmem.domain.auth import Role
from graphmem.domain.checks import parse
from graphmem.domain.inputs import retrieval_request
from graphmem.domain.kinds import RelationType
from graphmem.domain.retrieval import (
    ContextRequest,
    ContextResult,
    Neighborhood,
    SearchRequest,
    SearchResult,
)
from graphmem.operations import documents as doc
from graphmem.operations.codec import read
from graphmem.operations.entry import Entry, operation
from graphmem.operations.requests import Call

KNOWLEDGE_CONTEXT_TOOL = Entry(
    "knowledge_context_tool", Role.READ, serves=None, fields=("knowledgeContextTool",)
)
"""knowledgeContext as an LLM tool's JSON schema: the server's own answer, the
same in every project."""


CONTEXT = f"""{{
  items {{ memory {{ ...M }} score {doc.COMPONENTS} {doc.HITS}
           failure {{ {doc.CAPSULE} }}
           path {{ seedId factor steps {{ type fromId toId }} }} }}
  weights {{ name weight }} maxAccessCount candidates notes tookMs
}}"""
"""What the client asks of a knowledgeContext answer: all of it."""

HITS = f"""{{
  hits {{ memory {{ ...M }} score explanation {{
    {doc.COMPONENTS} {doc.HITS} replaces notes
    path {{ seedId factor steps {{ type fromId toId }} }}
  }} }}
  mode retrievers notes tookMs
}}"""
"""What the client asks of a search answer: all of it."""


class RetrievalOperations:
    @operation(Role.READ)
    def knowledge_context(
        context_hint: str | ContextRequest | Mapping[str, Any],
        *,
        record_access: bool | None = None,
        project_id: str | None = None,
        agent_id: str | None = None,
        **options: Any,
    ) -> Call[ContextResult]:
        """What an agent should know right now, best first (see ``GraphMem.knowledge_context``)."""
        asked = retrieval_request(ContextRequest, "context_hint", context_hint, options)
        request = parse(ContextRequest, asked)
        document, variables = doc.requested(
            "knowledgeContext",
            request,
            CONTEXT,
            doc.Extra("recordAccess", "Boolean", record_access),
            doc.Extra("projectId", "ID", project_id),
            doc.Extra("agentId", "ID", doc.agent(agent_id)),
        )

        def result(data: dict[str, Any]) -> ContextResult:
            found = data["knowledgeContext"]
            weights = {w["name"]: w["weight"] for w in found["weights"]}
            return read(ContextResult, {**found, "weights": weights})

        return Call(document + doc.MEMORY, variables, result)

    @operation(Role.READ)
    def search(
        query: str | SearchRequest | Mapping[str, Any],
        *,
        project_id: str | None = None,
        agent_id: str | None = None,
        **options: Any,
    ) -> Call[SearchResult]:
        """Hybrid search over vectors, full text and relations; every hit explains itself."""
        request = parse(SearchRequest, retrieval_request(SearchRequest, "query", query, options))
        document, variables = doc.requested(
            "search",
            request,
            HITS,
            doc.Extra("projectId", "ID", project_id),
            doc.Extra("agentId", "ID", doc.agent(agent_id)),
        )
        filters = variables["filters"]
        for bound in ("createdAfter", "createdBefore"):  # epoch seconds, DateTime to GraphQL
            filters[bound] = doc.iso(filters[bound])
        return Call(
            document + doc.MEMORY, variables, lambda data: read(SearchResult, data["search"])
        )

    @operation(Role.READ)
    def neighborhood(
        memory_id: str,
        *,
        depth: int = 1,
        relation_types: Sequence[RelationType | str] | None = None,
        project_id: str | None = None,
        as_of: Any = None,
    ) -> Call[Neighborhood]:
        """The memories within ``depth`` relations of one, and the relations between
        them; with ``as_of`` (a time), those that existed then, as they stood."""
        document = """query($id: ID!, $depth: Int!, $types: [RelationType!], $p: ID,
                           $asOf: DateTime) {
          neighborhood(id: $id, depth: $depth, relationTypes: $types, projectId: $p,
                       asOf: $asOf) {
            centerId depth truncated nodes { ...M } edges { ...R }
          }
        }"""
        types = (
            None if relation_types is None else [doc.relation_type(t).name for t in relation_types]
        )
        variables = {
            "id": memory_id,
            "depth": depth,
            "types": types,
            "p": project_id,
            "asOf": doc.as_of(as_of),
        }
        return Call(
            document + doc.MEMORY + doc.RELATION,
            variables,
            lambda data: read(Neighborhood, data["neighborhood"]),
        )
