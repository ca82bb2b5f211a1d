"""knowledgeContext read from the store itself, for when no server is running.

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
from pathlib import Path

from graphmem.hooks.errors import HookError
from graphmem.hooks.render import Recalled

PROBE_TIMEOUT_S = 0.5


def recall(
    hint: str, *, project: str | None, max_results: int, api_key: str | None, start: bool
) -> list[Recalled]:
    # Imported here: the store, the services and their dependencies take
    # around half a second to import, which the server path never pays.
    from graphmem.api import GraphMem
    from graphmem.auth import OPEN, Role
    from graphmem.config import Settings
    from graphmem.store.embedded import SOCKET_NAME

    settings = Settings(embedder="none")
    embedded = settings.backend == "falkordb" and not settings.falkordb_url
    if embedded and not settings.data_dir.is_dir():
        raise HookError(f"no server is running and there is no store in {settings.data_dir}")
    if embedded and not start and not _listening(settings.data_dir / SOCKET_NAME):
        raise HookError(
            f"no server is running and the database in {settings.data_dir} is not either: "
            "start graphmem serve (or pass --fallback start)"
        )
    with GraphMem.open(settings) as gm:
        principal = gm.keys.authenticate(api_key) if api_key else OPEN
        scope = principal.project_for(project, gm.default_project, Role.READ)
        result = gm.knowledge_context(hint, max_results=max_results, project_id=scope)
    return [
        Recalled(
            id=item.memory.id,
            content=item.memory.content,
            memory_type=item.memory.memory_type.value if item.memory.memory_type else None,
            score=item.score,
        )
        for item in result.items
    ]


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
