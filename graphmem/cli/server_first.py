"""``search``, ``context`` and ``remember`` through the running server when there is one.

A CLI process that opens the store itself loads the embedding model, which
costs far more than the command's own work. ``graphmem serve`` keeps the model
loaded, so while one serves the same data directory the commands send it one
GraphQL request instead, and open the store themselves only when none answers.

The server says where it listens in a file in its data directory, written
once it is ready and removed when it stops. A command uses only the server of
its own data directory: one listening on the usual port may serve another
store. A file left by a server that died names a process that is gone, or an
address that refuses the connection; either way the command runs locally.
"""

from __future__ import annotations

import contextlib
import json
import os
import urllib.error
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime
from enum import Enum
from pathlib import Path
from typing import Any

from graphmem.config import Settings
from graphmem.errors import GraphMemError
from graphmem.models import Memory, MemoryInput, WriteOutcome, WriteResult
from graphmem.retrieval import ContextResult, SearchRequest, SearchResult
from graphmem.retrieval.context import ContextRequest

ADDRESS_FILE = "serve.json"
TIMEOUT_S = 30.0
"""A server that answers at all answers well within this; past it the command fails."""

MEMORY = """
  id projectId sessionId content memoryType tier status confidence importance
  accessCount retrievalCount occurrenceCount feedback feedbackCount pinned source
  suggestedBy selfAssessment tags rationale evidence agentId supersededBy createdAt
  occurredAt updatedAt lastAccessedAt lastRetrievedAt promotedAt archivedAt archivedFrom
  archiveReason activatedAt lastSeen mergedInto variants conflictsWith conflictReason
"""
CAPSULE = """
  id projectId signature error attempted tool command files fix occurrenceCount
  sessionIds contextMemoryIds lessonId firstSeenAt lastSeenAt fixedAt
"""
COMPONENTS = "components { name value weight contribution }"
RETRIEVERS = "retrievers { retriever rank score }"
SEARCH = f"""
query CliSearch($query: String!, $mode: SearchMode!, $limit: Int!, $depth: Int!,
                $filters: SearchFilters, $relationTypes: [RelationType!], $projectId: ID,
                $minRelevance: Float!) {{
  search(query: $query, mode: $mode, limit: $limit, depth: $depth, filters: $filters,
         relationTypes: $relationTypes, projectId: $projectId, minRelevance: $minRelevance) {{
    mode retrievers notes tookMs
    hits {{
      score
      memory {{ {MEMORY} }}
      explanation {{
        {COMPONENTS} {RETRIEVERS} replaces notes
        path {{ seedId factor steps {{ type fromId toId }} }}
      }}
    }}
  }}
}}
"""
CONTEXT = f"""
query CliContext($hint: String!, $types: [MemoryType!], $minConfidence: Float!,
                 $maxResults: Int!, $recencyWeight: Float!, $includeSuperseded: Boolean!,
                 $includeArchived: Boolean!, $sessionId: ID, $recordAccess: Boolean,
                 $projectId: ID, $minRelevance: Float!, $occurredAfter: DateTime,
                 $occurredBefore: DateTime) {{
  knowledgeContext(contextHint: $hint, includeTypes: $types, minConfidence: $minConfidence,
                   maxResults: $maxResults, recencyWeight: $recencyWeight,
                   includeSuperseded: $includeSuperseded, includeArchived: $includeArchived,
                   sessionId: $sessionId, recordAccess: $recordAccess, projectId: $projectId,
                   minRelevance: $minRelevance, occurredAfter: $occurredAfter,
                   occurredBefore: $occurredBefore) {{
    maxAccessCount candidates notes tookMs
    weights {{ name weight }}
    items {{ score {COMPONENTS} {RETRIEVERS} memory {{ {MEMORY} }} failure {{ {CAPSULE} }} }}
  }}
}}
"""
REMEMBER = f"""
mutation CliRemember($input: MemoryInput!, $projectId: ID) {{
  remember(input: $input, projectId: $projectId) {{
    created match outcome relatedId reason memory {{ {MEMORY} }}
  }}
}}
"""
ENUM_VALUES = {
    "memoryType",
    "tier",
    "status",
    "source",
    "suggestedBy",
    "selfAssessment",
    "archivedFrom",
    "retriever",
    "retrievers",
    "match",
    "outcome",
}
"""Fields whose GraphQL enum names are the lower-case values of the Python enums."""
TIMES = {"At", "lastSeen"}
"""Field names (or endings) of times: ISO text in GraphQL, epoch seconds in Python."""


class ServerError(GraphMemError):
    """The running server refused the request (a bad key, bad input, its own error)."""

    code = "SERVER_ERROR"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        if code:
            self.code = code


def address_file(settings: Settings) -> Path:
    return Path(settings.data_dir) / ADDRESS_FILE


@contextlib.contextmanager
def advertised(settings: Settings, port: int) -> Iterator[None]:
    """While serving: say in the data directory where this process listens."""
    path = address_file(settings)
    host = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(settings.host, settings.host)
    host = f"[{host}]" if ":" in host else host
    url = f"http://{host}:{port}/graphql"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"pid": os.getpid(), "url": url}))
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            current = json.loads(path.read_text())
            if current.get("pid") == os.getpid():
                path.unlink()


def server_url(settings: Settings) -> str | None:
    """The URL of the live server of this data directory, if one says it serves it."""
    try:
        found = json.loads(address_file(settings).read_text())
        pid, url = int(found["pid"]), str(found["url"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:  # alive, owned by someone else
        pass
    return url


def search(
    settings: Settings, request: SearchRequest, *, project: str | None
) -> SearchResult | None:
    """The server's answer to ``request``, or ``None`` when no server answers."""
    filters = request.filters
    variables = {
        "query": request.query,
        "mode": request.mode.name,
        "limit": request.limit,
        "depth": request.depth,
        "relationTypes": [t.name for t in request.relation_types],
        "filters": {
            "types": [t.name for t in filters.types],
            "tiers": [t.name for t in filters.tiers],
            "statuses": [s.name for s in filters.statuses],
            "tags": list(filters.tags),
            "sessionId": filters.session_id,
            "minConfidence": filters.min_confidence,
            "createdAfter": _iso(filters.created_after),
            "createdBefore": _iso(filters.created_before),
            "occurredAfter": _iso(filters.occurred_after),
            "occurredBefore": _iso(filters.occurred_before),
            "includeCandidates": filters.include_candidates,
            "includeArchived": filters.include_archived,
            "includeSuperseded": filters.include_superseded,
        },
        "projectId": project,
        "minRelevance": request.min_relevance,
    }
    data = _request(settings, SEARCH, variables)
    return None if data is None else SearchResult.model_validate(_python(data["search"]))


def knowledge_context(
    settings: Settings,
    request: ContextRequest,
    *,
    record_access: bool | None,
    project: str | None,
) -> ContextResult | None:
    """The server's knowledgeContext for ``request``, or ``None`` when no server answers."""
    types = request.include_types
    variables = {
        "hint": request.context_hint,
        "types": [t.name for t in types] if types is not None else None,
        "minConfidence": request.min_confidence,
        "maxResults": request.max_results,
        "recencyWeight": request.recency_weight,
        "includeSuperseded": request.include_superseded,
        "includeArchived": request.include_archived,
        "sessionId": request.session_id,
        "recordAccess": record_access,
        "projectId": project,
        "minRelevance": request.min_relevance,
        "occurredAfter": request.occurred_after.isoformat() if request.occurred_after else None,
        "occurredBefore": request.occurred_before.isoformat() if request.occurred_before else None,
    }
    data = _request(settings, CONTEXT, variables)
    if data is None:
        return None
    result = _python(data["knowledgeContext"])
    result["weights"] = {w["name"]: w["weight"] for w in result["weights"]}
    return ContextResult.model_validate(result)


def remember(
    settings: Settings, item: MemoryInput, *, project: str | None
) -> tuple[Memory, WriteOutcome] | None:
    """The server's remember of ``item``, or ``None`` when no server answers."""
    given = {
        _camel(key): value.name if isinstance(value, Enum) else value
        for key, value in item.model_dump(exclude_none=True).items()
    }
    if item.occurred_at is not None:
        given["occurredAt"] = _iso(item.occurred_at)
    data = _request(settings, REMEMBER, {"input": given, "projectId": project})
    if data is None:
        return None
    payload = _python(data["remember"])
    memory = Memory.model_validate(payload["memory"])
    return memory, WriteOutcome(
        memory.id,
        payload["created"],
        payload["match"],
        result=WriteResult(payload["outcome"]),
        related_id=payload["related_id"],
        reason=payload["reason"],
    )


def _request(settings: Settings, query: str, variables: dict[str, Any]) -> dict[str, Any] | None:
    url = server_url(settings)
    if url is None:
        return None
    body = json.dumps({"query": query, "variables": variables}).encode()
    headers = {"content-type": "application/json", "accept": "application/json"}
    if key := os.environ.get("GRAPHMEM_API_KEY"):
        headers["authorization"] = f"Bearer {key}"
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    # Only this machine's own server is ever named here: no proxy may see it.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=TIMEOUT_S) as response:
            document = json.loads(response.read())
    except urllib.error.HTTPError as exc:
        document = _error_document(exc)
    except (urllib.error.URLError, ConnectionError) as exc:
        if isinstance(getattr(exc, "reason", None), TimeoutError):
            raise ServerError(f"the server at {url} did not answer in {TIMEOUT_S:g} s") from None
        return None
    errors = document.get("errors") if isinstance(document, dict) else None
    if errors:
        first = errors[0] if isinstance(errors[0], dict) else {"message": str(errors[0])}
        code = (first.get("extensions") or {}).get("code")
        raise ServerError(str(first.get("message", "unknown error")), code)
    return document["data"]


def _error_document(exc: urllib.error.HTTPError) -> dict[str, Any]:
    try:
        document = json.loads(exc.read())
    except (ValueError, OSError):
        document = None
    if isinstance(document, dict) and document.get("errors"):
        return document
    return {"errors": [{"message": f"the server answered HTTP {exc.code} {exc.reason}"}]}


def _python(value: Any, field: str = "") -> Any:
    """A GraphQL answer in the Python API's shape: snake_case fields, enum values, epochs."""
    if isinstance(value, dict):
        return {_snake(key): _python(item, key) for key, item in value.items()}
    if isinstance(value, list):
        return [_python(item, field) for item in value]
    if isinstance(value, str) and field in ENUM_VALUES:
        return value.lower()
    if isinstance(value, str) and any(field.endswith(t) for t in TIMES):
        return datetime.fromisoformat(value).timestamp()
    return value


def _iso(epoch: float | None) -> str | None:
    return None if epoch is None else datetime.fromtimestamp(epoch, UTC).isoformat()


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)
