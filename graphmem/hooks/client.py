"""knowledgeContext over HTTP from the running server, on the standard library.

The server keeps the embedding model loaded, so this path gets hybrid
retrieval for the price of one local request. It must fail fast: a server
that is not running shows as a refused connection (the caller may then read
the store itself), one that does not answer within the timeout as an error.

The server is the one named (``--url``, ``GRAPHMEM_URL``), else the one
serving the data directory (its ``serve.json``, as every server-first command
finds it: graphmem.server.discovery), else whatever listens on ``GRAPHMEM_PORT`` of
this machine (8000 unless set).
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from graphmem.hooks.errors import HookError, ServerUnavailable
from graphmem.hooks.render import Recalled, Recorded
from graphmem.server import discovery

DEFAULT_PORT = "8000"
DEFAULT_TIMEOUT_S = 2.0
LOOPBACK = ("127.0.0.1", "localhost", "::1")

QUERY = """
query Inject($hint: String!, $maxResults: Int!, $projectId: ID) {
  knowledgeContext(contextHint: $hint, maxResults: $maxResults, projectId: $projectId) {
    items { score memory { id content memoryType } }
  }
}
"""


RECORD_FAILURE = """
mutation Failure($input: FailureReportInput!, $projectId: ID) {
  recordFailure(input: $input, projectId: $projectId) {
    lessonStatus
    capsule { id occurrenceCount fix lessonId lesson { content } }
  }
}
"""


@dataclass(frozen=True)
class Server:
    url: str
    found_by: str
    """How the URL was chosen, for ``--explain``."""


def find_server(url: str | None = None) -> Server:
    """The server to ask: ``url`` (``--url``), else ``GRAPHMEM_URL``, else the one
    serving the data directory, else the configured port on this machine."""
    if url:
        return Server(url, "--url")
    if configured := os.environ.get("GRAPHMEM_URL"):
        return Server(configured, "GRAPHMEM_URL")
    directory = discovery.data_dir()
    if advertised := discovery.server_url(directory):
        return Server(advertised, f"the server of {directory}, from its {discovery.ADDRESS_FILE}")
    port = os.environ.get("GRAPHMEM_PORT")
    if port and not port.isdigit():
        raise HookError(f"GRAPHMEM_PORT: {port!r} is not a port number")
    found_by = "GRAPHMEM_PORT" if port else "the default port (no serve.json, no GRAPHMEM_PORT)"
    return Server(f"http://127.0.0.1:{port or DEFAULT_PORT}/graphql", found_by)


def recall(
    hint: str,
    *,
    project: str | None,
    max_results: int,
    url: str,
    timeout: float = DEFAULT_TIMEOUT_S,
    api_key: str | None = None,
) -> list[Recalled]:
    """The server's knowledgeContext for ``hint``, best first.

    Raises ``ServerUnavailable`` when no server listens at ``url``, and
    ``HookError`` when one does not answer in time or answers with an error
    (a bad key, a project the key cannot read).
    """
    variables = {"hint": hint, "maxResults": max_results, "projectId": project}
    return _items(_post(QUERY, variables, url=url, timeout=timeout, api_key=api_key))


def record_failure(
    report: dict[str, Any],
    *,
    project: str | None,
    url: str,
    timeout: float = DEFAULT_TIMEOUT_S,
    api_key: str | None = None,
) -> Recorded:
    """Report a failed tool call to the server's ``recordFailure``; errors as ``recall``."""
    variables = {"input": report, "projectId": project}
    payload = _post(RECORD_FAILURE, variables, url=url, timeout=timeout, api_key=api_key)
    try:
        result = _document(payload)["data"]["recordFailure"]
        capsule = result["capsule"]
        return Recorded(
            capsule_id=str(capsule["id"]),
            occurrences=int(capsule["occurrenceCount"]),
            fix=capsule["fix"],
            lesson_id=capsule["lessonId"],
            lesson_status=result["lessonStatus"],
            lesson=(capsule["lesson"] or {}).get("content"),
        )
    except (KeyError, TypeError, ValueError, AttributeError):
        raise HookError("the server's answer is not a recordFailure result") from None


def _post(
    query: str, variables: dict[str, Any], *, url: str, timeout: float, api_key: str | None
) -> bytes:
    """One GraphQL request's answer; ``ServerUnavailable`` when no server listens,
    ``HookError`` when one fails to answer in time or answers with an HTTP error."""
    body = json.dumps({"query": query, "variables": variables}).encode()
    headers = {"content-type": "application/json", "accept": "application/json"}
    if api_key:
        headers["authorization"] = f"Bearer {api_key}"
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with _opener(url).open(request, timeout=timeout) as response:
            payload = response.read()
    except urllib.error.HTTPError as exc:
        raise HookError(_http_error(exc)) from None
    except (urllib.error.URLError, ConnectionError, TimeoutError) as exc:
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, TimeoutError):
            # A server is there but busy: reading the store as well would only
            # add to its load and to the agent's wait.
            raise HookError(f"{url} did not answer within {timeout:g} s") from None
        raise ServerUnavailable(f"no server at {url}: {reason}") from None
    return payload


def _opener(url: str) -> urllib.request.OpenerDirector:
    """A direct connection to a local server: a proxy set for the outside world
    must not see, or slow down, requests to this machine."""
    if urlsplit(url).hostname in LOOPBACK:
        return urllib.request.build_opener(urllib.request.ProxyHandler({}))
    return urllib.request.build_opener()


def _document(payload: bytes) -> Any:
    try:
        document: Any = json.loads(payload)
    except ValueError:
        raise HookError("the server's answer is not JSON") from None
    if isinstance(document, dict) and document.get("errors"):
        raise HookError(_graphql_error(document["errors"][0]))
    return document


def _items(payload: bytes) -> list[Recalled]:
    try:
        return [_recalled(item) for item in _document(payload)["data"]["knowledgeContext"]["items"]]
    except (KeyError, TypeError, ValueError):
        raise HookError("the server's answer is not a knowledgeContext result") from None


def _recalled(item: dict[str, Any]) -> Recalled:
    memory = item["memory"]
    memory_id, content, memory_type = memory["id"], memory["content"], memory.get("memoryType")
    texts = isinstance(memory_id, str) and isinstance(content, str)
    if not texts or not isinstance(memory_type, str | None):
        raise ValueError("memory fields are not text")
    return Recalled(memory_id, content, memory_type, float(item["score"]))


def _graphql_error(error: Any) -> str:
    if not isinstance(error, dict):
        return f"server error: {error}"
    code = (error.get("extensions") or {}).get("code")
    message = error.get("message", "unknown error")
    return f"server error [{code}]: {message}" if code else f"server error: {message}"


def _http_error(exc: urllib.error.HTTPError) -> str:
    """An HTTP error status, with the GraphQL error inside it when there is one."""
    try:
        document = json.loads(exc.read())
        if isinstance(document, dict) and document.get("errors"):
            return f"HTTP {exc.code}, {_graphql_error(document['errors'][0])}"
    except (ValueError, OSError):
        pass
    return f"server answered HTTP {exc.code} {exc.reason}"
