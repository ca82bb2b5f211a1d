"""knowledgeContext over HTTP from the running server, on the standard library.

The server keeps the embedding model loaded, so this path gets hybrid
retrieval for the price of one local request. It must fail fast: a server
that is not running shows as a refused connection (the caller may then read
the store itself), one that does not answer within the timeout as an error.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from graphmem.hooks.errors import HookError, ServerUnavailable
from graphmem.hooks.render import Recalled

DEFAULT_URL = "http://127.0.0.1:8000/graphql"
DEFAULT_TIMEOUT_S = 2.0
LOOPBACK = ("127.0.0.1", "localhost", "::1")

QUERY = """
query Inject($hint: String!, $maxResults: Int!, $projectId: ID) {
  knowledgeContext(contextHint: $hint, maxResults: $maxResults, projectId: $projectId) {
    items { score memory { id content memoryType } }
  }
}
"""


def server_url() -> str:
    return os.environ.get("GRAPHMEM_URL") or DEFAULT_URL


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
    body = json.dumps({"query": QUERY, "variables": variables}).encode()
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
    return _items(payload)


def _opener(url: str) -> urllib.request.OpenerDirector:
    """A direct connection to a local server: a proxy set for the outside world
    must not see, or slow down, requests to this machine."""
    if urlsplit(url).hostname in LOOPBACK:
        return urllib.request.build_opener(urllib.request.ProxyHandler({}))
    return urllib.request.build_opener()


def _items(payload: bytes) -> list[Recalled]:
    try:
        document: Any = json.loads(payload)
    except ValueError:
        raise HookError("the server's answer is not JSON") from None
    if isinstance(document, dict) and document.get("errors"):
        raise HookError(_graphql_error(document["errors"][0]))
    try:
        return [_recalled(item) for item in document["data"]["knowledgeContext"]["items"]]
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
