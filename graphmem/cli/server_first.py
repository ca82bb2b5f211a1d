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
from collections.abc import Iterator
from pathlib import Path
from typing import TypeVar

import httpx

from graphmem.client import calls
from graphmem.client.errors import ServerError
from graphmem.client.transport import Call, answer, headers
from graphmem.config import Settings
from graphmem.models import Memory, MemoryInput, WriteOutcome
from graphmem.retrieval import ContextResult, SearchRequest, SearchResult
from graphmem.retrieval.context import ContextRequest

T = TypeVar("T")

ADDRESS_FILE = "serve.json"
TIMEOUT_S = 30.0
"""A server that answers at all answers well within this; past it the command fails."""


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
    settings: Settings, request: SearchRequest, *, project: str | None, agent: str | None = None
) -> SearchResult | None:
    """The server's answer to ``request``, or ``None`` when no server answers."""
    return _send(settings, calls.search(request, project, agent).named("CliSearch"))


def knowledge_context(
    settings: Settings,
    request: ContextRequest,
    *,
    record_access: bool | None,
    project: str | None,
    agent: str | None = None,
) -> ContextResult | None:
    """The server's knowledgeContext for ``request``, or ``None`` when no server answers."""
    call = calls.knowledge_context(request, record_access, project, agent)
    return _send(settings, call.named("CliContext"))


def remember(
    settings: Settings, item: MemoryInput, *, project: str | None
) -> tuple[Memory, WriteOutcome] | None:
    """The server's remember of ``item``, or ``None`` when no server answers."""
    return _send(settings, calls.remember_detailed(item, project).named("CliRemember"))


def _send(settings: Settings, call: Call[T]) -> T | None:
    """``call`` answered by the server of this data directory; ``None`` when none
    answers, so the command runs locally. The client's calls and error mapping
    are used as they are; only the retries are left out (a command line waits
    for no one)."""
    url = server_url(settings)
    if url is None:
        return None
    # Only this machine's own server is ever named here: no proxy may see it.
    with httpx.Client(timeout=TIMEOUT_S, trust_env=False) as http:
        try:
            response = http.post(
                url, json=call.body(), headers=headers(os.environ.get("GRAPHMEM_API_KEY"))
            )
        except httpx.TimeoutException:
            raise ServerError(
                f"the server at {url} did not answer in {TIMEOUT_S:g} s", code="TIMEOUT"
            ) from None
        except httpx.TransportError:
            return None
    return answer(call, response)
