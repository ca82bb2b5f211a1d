"""knowledgeContext read from (and failures written to) the store itself, for
when no server is running.

The embedding model is never loaded here (it takes seconds; a prompt hook
has milliseconds), so retrieval runs on the full-text index and the exact
knowledgeContext scoring, behind the same injection policy as the server.
An API key in the environment is honoured as the server would honour it:
it decides which project may be read.

Starting the embedded database takes seconds, and the hook would stop it
again on the way out, so by default the store is read only while its
database is running already (another graphmem process holds it, or it is a
server of its own); ``start=True`` starts it anyway.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphmem.hooks.errors import HookError
from graphmem.hooks.render import Recalled, Recorded

if TYPE_CHECKING:
    from graphmem.api import GraphMem
    from graphmem.domain.auth import Role

PROBE_TIMEOUT_S = 0.5


def recall(
    hint: str,
    *,
    project: str | None,
    max_results: int,
    budget_tokens: int,
    api_key: str | None,
    start: bool,
) -> Recalled:
    from graphmem.domain.auth import Role

    with _opened(start) as store:
        gm, scope = _scope(store, api_key, project, Role.READ)
        result = gm.knowledge_context(hint, max_results=max_results, project_id=scope)
    return Recalled(len(result.items), result.prompt_block(budget_tokens=budget_tokens))


def record_failure(
    report: dict[str, Any], *, project: str | None, api_key: str | None, start: bool
) -> Recorded:
    """Store a failed tool call's report in the store itself (its lesson is
    written without an embedding; ``graphmem backfill-embeddings`` adds it)."""
    from graphmem.domain.auth import Role

    with _opened(start) as store:
        gm, scope = _scope(store, api_key, project, Role.WRITE)
        fields = {_SNAKE.get(key, key): value for key, value in report.items()}
        outcome = gm.record_failure(fields, project_id=scope)
        lesson = gm.get(outcome.lesson_id, project_id=scope) if outcome.lesson_id else None
    return Recorded(
        capsule_id=outcome.capsule.id,
        occurrences=outcome.capsule.occurrence_count,
        fix=outcome.capsule.fix,
        lesson_id=outcome.lesson_id,
        lesson_status=outcome.lesson_status,
        lesson=lesson.content if lesson else None,
    )


_SNAKE = {"sessionId": "session_id"}
"""The report's GraphQL field names that differ from the Python API's."""


SOCKET_NAME = "falkordb.sock"
AOF_DIR = "appendonlydir"
"""Where the embedded database listens and keeps its data in the data directory:
graphmem.store.embedded's names, repeated here so that deciding there is nothing
to read costs no import of the store and its driver (the hook runs on every
prompt); tests/unit/test_import_contract.py holds them equal."""


@contextmanager
def _opened(start: bool) -> Iterator[GraphMem]:
    """The store, opened with embeddings off, if its database may be used."""
    from graphmem.settings import EmbeddingSettings, Settings

    settings = Settings(embedding=EmbeddingSettings(model="none"))
    if settings.store.backend == "falkordb" and not settings.store.falkordb_url:
        _require_embedded(settings.store.data_dir, start)
    # Imported only now: the store, the services and their dependencies take
    # around half a second to import, which the server path never pays.
    from graphmem.api import GraphMem

    with GraphMem.open(settings) as gm:
        yield gm


def _require_embedded(data_dir: Path, start: bool) -> None:
    """Refuse, saying why, when the data directory holds no store (an empty or
    missing directory, where opening one would make an empty store), or when its
    database is not running and ``start`` does not ask to start it."""
    if not (data_dir / AOF_DIR).is_dir():
        raise HookError(f"no server is running and there is no graphmem store at {data_dir}")
    if not start and not _listening(data_dir / SOCKET_NAME):
        raise HookError(
            f"no server is running and the database of the store at {data_dir} is not "
            "either: start graphmem serve (or pass --fallback start)"
        )


def _scope(
    gm: GraphMem, api_key: str | None, project: str | None, role: Role
) -> tuple[GraphMem, str]:
    """The store as an API key in the environment lets this call see it (its
    agent's view, for a key bound to one), and the project it may act in."""
    from graphmem.domain.auth import OPEN

    principal = gm.keys.authenticate(api_key) if api_key else OPEN
    project_id = principal.project_for(project, gm.default_project, role)
    return gm.as_agent(principal.agent_id), project_id


def _listening(path: Path) -> bool:
    """Whether a server accepts connections on the unix socket (a crash leaves a
    socket file nobody listens on)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(PROBE_TIMEOUT_S)
        try:
            probe.connect(str(path))
        except OSError:
            return False
    return True
