"""knowledgeContext and recordFailure from the running server.

The server keeps the embedding model loaded, so this path gets hybrid
retrieval for the price of one local request. It must fail fast: a server
that is not running shows as a refused connection (the caller may then read
the store itself), one that does not answer within the timeout as an error,
and a refusal (429, 503) is not waited out.

The calls are the client's (``Call``), and their answers are read by the
client's rules into its errors (``graphmem.client.answers``); only the send is
the standard library's rather than ``httpx``, whose import alone would take
longer than the rest of the hook on every prompt.

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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit

from graphmem.client.answers import headers, read
from graphmem.domain.errors import GraphMemError
from graphmem.hooks.errors import HookError, ServerUnavailable
from graphmem.hooks.render import Recalled, Recorded
from graphmem.operations.requests import Call
from graphmem.server import discovery
from graphmem.settings import names

T = TypeVar("T")

DEFAULT_PORT = "8000"
DEFAULT_TIMEOUT_S = 2.0
LOOPBACK = ("127.0.0.1", "localhost", "::1")

QUERY = """
query Inject($hint: String!, $maxResults: Int!, $budget: Int!, $projectId: ID) {
  knowledgeContext(contextHint: $hint, maxResults: $maxResults, projectId: $projectId) {
    context(budgetTokens: $budget)
    items { score }
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
    if configured := os.environ.get(names.URL):
        return Server(configured, names.URL)
    directory = discovery.data_dir()
    if advertised := discovery.server_url(directory):
        return Server(advertised, f"the server of {directory}, from its {discovery.ADDRESS_FILE}")
    port = os.environ.get(names.PORT)
    if port and not port.isdigit():
        raise HookError(f"{names.PORT}: {port!r} is not a port number")
    found_by = names.PORT if port else f"the default port (no serve.json, no {names.PORT})"
    return Server(f"http://127.0.0.1:{port or DEFAULT_PORT}/graphql", found_by)


def recall(
    hint: str,
    *,
    project: str | None,
    max_results: int,
    budget_tokens: int,
    url: str,
    timeout: float = DEFAULT_TIMEOUT_S,
    api_key: str | None = None,
) -> Recalled:
    """The server's knowledgeContext for ``hint``: how many memories matched and
    the block the server rendered of them within ``budget_tokens``.

    Raises ``ServerUnavailable`` when no server listens at ``url``, and
    ``HookError`` when one does not answer in time or answers with an error
    (a bad key, a project the key cannot read).
    """
    variables = {
        "hint": hint,
        "maxResults": max_results,
        "budget": budget_tokens,
        "projectId": project,
    }
    return _send(Call(QUERY, variables, recalled), url=url, timeout=timeout, api_key=api_key)


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
    call = Call(RECORD_FAILURE, variables, recorded)
    return _send(call, url=url, timeout=timeout, api_key=api_key)


def recalled(data: dict[str, Any]) -> Recalled:
    """The match count and the block of a knowledgeContext answer's data."""

    def read() -> Recalled:
        found = data["knowledgeContext"]
        block = found["context"]
        if not isinstance(block, str | None):
            raise ValueError("context is not text")
        return Recalled(len(found["items"]), block)

    return _reading("knowledgeContext", read)


def recorded(data: dict[str, Any]) -> Recorded:
    """The capsule and lesson of a recordFailure answer's data."""

    def read() -> Recorded:
        result = data["recordFailure"]
        capsule = result["capsule"]
        return Recorded(
            capsule_id=str(capsule["id"]),
            occurrences=int(capsule["occurrenceCount"]),
            fix=capsule["fix"],
            lesson_id=capsule["lessonId"],
            lesson_status=result["lessonStatus"],
            lesson=(capsule["lesson"] or {}).get("content"),
        )

    return _reading("recordFailure", read)


def _reading(field: str, read: Callable[[], T]) -> T:
    try:
        return read()
    except (KeyError, TypeError, ValueError, AttributeError):
        raise HookError(f"the server's answer is not a {field} result") from None


def _send(call: Call[T], *, url: str, timeout: float, api_key: str | None) -> T:
    """The call's result; ``ServerUnavailable`` when no server listens, ``HookError``
    when one fails to answer in time or answers with an error."""
    body = json.dumps(call.body()).encode()
    sent = {"content-type": "application/json", "accept": "application/json", **headers(api_key)}
    request = urllib.request.Request(url, data=body, headers=sent, method="POST")
    try:
        try:
            with _opener(url).open(request, timeout=timeout) as response:
                return read(call, response.status, response.read(), url=url, retry_after=None)
        except urllib.error.HTTPError as exc:
            # An error status still carries the server's GraphQL error, if any.
            return read(call, exc.code, exc.read(), url=url, retry_after=None)
    except GraphMemError as exc:
        raise HookError(_error(exc)) from None
    except (urllib.error.URLError, ConnectionError, TimeoutError) as exc:
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, TimeoutError):
            # A server is there but busy: reading the store as well would only
            # add to its load and to the agent's wait.
            raise HookError(f"{url} did not answer within {timeout:g} s") from None
        raise ServerUnavailable(f"no server at {url}: {reason}") from None


def _opener(url: str) -> urllib.request.OpenerDirector:
    """A direct connection to a local server: a proxy set for the outside world
    must not see, or slow down, requests to this machine."""
    if urlsplit(url).hostname in LOOPBACK:
        return urllib.request.build_opener(urllib.request.ProxyHandler({}))
    return urllib.request.build_opener()


def _error(exc: GraphMemError) -> str:
    """One line for a server's error: its code, unless the code is only the HTTP status."""
    if exc.code.startswith("HTTP_"):
        return f"server error: {exc}"
    return f"server error [{exc.code}]: {exc}"
