"""The commands that read or write through the running server when there is one:
``search``, ``context``, ``remember``, ``relate``, ``unrelate``, ``pin``,
``unpin``, ``feedback`` and ``forget``; ``list`` and ``show`` read through
``ServedReader``.

A CLI process that opens the store itself loads the embedding model, which
costs far more than the command's own work. ``graphmem serve`` keeps the model
loaded, so while one serves the same data directory the commands send it one
GraphQL request instead, and open the store themselves only when none answers.
The server is found through the address file in the data directory
(graphmem.server.discovery), as the prompt hook finds it, and is asked only
when it serves the store the command's own settings open: a server of the
data directory on another backend (or database, or graph) is passed over, so
these commands and those that always open the store act on one store.

Both paths act in the same project: ``--project``, else ``GRAPHMEM_PROJECT``
of the command's own environment (the server's may differ), else the
server's default (``default``, or an API key's only project).
"""

from __future__ import annotations

import builtins
import contextlib
import os
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TypeVar

import httpx

from graphmem.client.answers import headers
from graphmem.client.errors import ServerError
from graphmem.client.transport import answer
from graphmem.domain.errors import GraphMemError
from graphmem.operations.memories import MemoryOperations, RelationOperations
from graphmem.operations.projects import ProjectOperations
from graphmem.operations.requests import Request
from graphmem.server import discovery
from graphmem.server.discovery import ADDRESS_FILE as ADDRESS_FILE
from graphmem.settings import names


class Operations(MemoryOperations, RelationOperations, ProjectOperations):
    """The operations these commands send but those of retrieval, which
    ``retrieval_operations`` loads for the commands that retrieve. The
    catalogue's ``Operations`` holds every area's, whose modules load the models
    of sessions, review, evaluation and more: half of a command's start, for
    calls it never makes."""


def retrieval_operations() -> type[RetrievalOperations]:
    """The retrieval operations, imported only when a command retrieves: their
    models (hits, explanations, graph paths) are the slowest of these commands'
    own imports, and the commands that write never read them."""
    from graphmem.operations.retrieval import RetrievalOperations

    return RetrievalOperations


if TYPE_CHECKING:
    from graphmem.domain.kinds import RelationType
    from graphmem.domain.models import Memory, MemoryFilter, MemoryInput, Page, WriteOutcome
    from graphmem.domain.relations import Relation
    from graphmem.domain.retrieval import ContextResult, Neighborhood, SearchRequest, SearchResult
    from graphmem.domain.retrieval.context import ContextRequest
    from graphmem.domain.scoring import ImportanceBreakdown
    from graphmem.operations.retrieval import RetrievalOperations
    from graphmem.settings import Settings

T = TypeVar("T")

TIMEOUT_S = 30.0
"""A server that answers at all answers well within this; past it the command fails."""


@contextlib.contextmanager
def claimed(settings: Settings) -> Iterator[discovery.Claim]:
    """The data directory held by this server for the block (``discovery.claimed``):
    its entry names the backend and the store the settings open."""
    with discovery.claimed(
        settings.store.data_dir,
        settings.server.host,
        settings.server.port,
        backend=settings.store.backend,
        store=discovery.store_of(settings),
    ) as claim:
        yield claim


def other_store(settings: Settings) -> discovery.Entry | None:
    """The live server of this data directory when it serves another store than
    the one ``settings`` open (another backend, database, graph or address)."""
    entry = discovery.served(settings.store.data_dir)
    if entry is None or entry.store in (None, discovery.store_of(settings)):
        return None
    return entry


def server_url(settings: Settings) -> str | None:
    """The URL of the live server of this data directory, if one says it serves
    it and serves the store ``settings`` open: a command acts on the store its
    own settings name, whichever path answers (``common.opened`` says so when
    the server serves another)."""
    entry = discovery.served(settings.store.data_dir)
    if entry is None or entry.store not in (None, discovery.store_of(settings)):
        return None
    return entry.url


def project_named(project: str | None) -> str | None:
    """The project a command names: ``--project``, else ``GRAPHMEM_PROJECT``; ``None``
    leaves the choice to the store (its default, or an API key's only project).

    Sent to the server as it is, since the server's own ``GRAPHMEM_PROJECT`` is
    not the command's: without it a command with the variable set would act in
    another project through a server than without one."""
    return project or os.environ.get(names.PROJECT) or None


def search(
    settings: Settings, request: SearchRequest, *, project: str | None, agent: str | None = None
) -> SearchResult | None:
    """The server's answer to ``request``, or ``None`` when no server answers."""
    asked = retrieval_operations().search(
        request, project_id=project_named(project), agent_id=agent
    )
    return _send(settings, asked.named("CliSearch"))


def knowledge_context(
    settings: Settings,
    request: ContextRequest,
    *,
    record_access: bool | None,
    project: str | None,
    agent: str | None = None,
) -> ContextResult | None:
    """The server's knowledgeContext for ``request``, or ``None`` when no server answers."""
    asked = retrieval_operations().knowledge_context(
        request, record_access=record_access, project_id=project_named(project), agent_id=agent
    )
    return _send(settings, asked.named("CliContext"))


def projects(settings: Settings) -> list[str] | None:
    """The projects the server lists for this command's key (those it may read
    that hold anything), or ``None`` when no server answers."""
    return _send(settings, Operations.project_ids().named("CliProjects"))


def remember(
    settings: Settings, item: MemoryInput, *, project: str | None
) -> tuple[Memory, WriteOutcome] | None:
    """The server's remember of ``item``, or ``None`` when no server answers."""
    asked = Operations.remember_detailed(item, project_id=project_named(project))
    return _send(settings, asked.named("CliRemember"))


def relate(
    settings: Settings,
    from_id: str,
    to_id: str,
    relation_type: RelationType | str,
    *,
    rationale: str | None,
    weight: float,
    project: str | None,
) -> Relation | None:
    """The server's relate, or ``None`` when no server answers."""
    asked = Operations.relate(
        from_id,
        to_id,
        relation_type,
        rationale=rationale,
        weight=weight,
        project_id=project_named(project),
    )
    return _send(settings, asked.named("CliRelate"))


def unrelate(
    settings: Settings,
    from_id: str,
    to_id: str,
    relation_type: RelationType | str,
    *,
    reason: str,
    removed_by: str,
    project: str | None,
) -> Relation | None:
    """The server's unrelate, or ``None`` when no server answers."""
    asked = Operations.unrelate(
        from_id,
        to_id,
        relation_type,
        reason=reason,
        removed_by=removed_by,
        project_id=project_named(project),
    )
    return _send(settings, asked.named("CliUnrelate"))


def pin(settings: Settings, memory_id: str, *, project: str | None) -> Memory | None:
    asked = Operations.pin(memory_id, project_id=project_named(project))
    return _send(settings, asked.named("CliPin"))


def unpin(settings: Settings, memory_id: str, *, project: str | None) -> Memory | None:
    asked = Operations.unpin(memory_id, project_id=project_named(project))
    return _send(settings, asked.named("CliUnpin"))


def feedback(
    settings: Settings, memory_id: str, value: int, *, project: str | None
) -> Memory | None:
    asked = Operations.feedback(memory_id, value, project_id=project_named(project))
    return _send(settings, asked.named("CliFeedback"))


def forget(settings: Settings, memory_id: str, *, project: str | None) -> bool:
    """Whether the server forgot the memory; ``False`` when no server answers."""
    asked = Operations.forget(memory_id, project_id=project_named(project))
    return _answers(settings, asked.named("CliForget")) is not None


class NoServer(Exception):
    """No server answered a ``ServedReader`` call: the command reads the store itself."""


class ServedReader:
    """The reads ``list`` and ``show`` make, answered by the server of the data
    directory under the names and signatures of ``GraphMem``'s, so one command
    body runs on either. A call no server answers raises ``NoServer``; reads are
    safe to run again on the store opened here."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def _ask(self, request: Request[T], name: str) -> T:
        answers = _answers(self.settings, request.named(name))
        if answers is None:
            raise NoServer
        return request.combine(answers)

    def list(
        self,
        filter: MemoryFilter | dict[str, Any],
        *,
        first: int,
        after: str | None,
        project_id: str | None,
        as_of: float | str | None,
    ) -> Page:
        asked = Operations.list(
            filter, first=first, after=after, project_id=project_named(project_id), as_of=as_of
        )
        return self._ask(asked, "CliList")

    def get(
        self, memory_id: str, *, project_id: str | None, as_of: float | str | None = None
    ) -> Memory:
        asked = Operations.get(memory_id, project_id=project_named(project_id), as_of=as_of)
        return self._ask(asked, "CliShow")

    def get_many(
        self, memory_ids: builtins.list[str], *, project_id: str | None
    ) -> builtins.list[Memory | None]:
        asked = Operations.get_many(memory_ids, project_id=project_named(project_id))
        return self._ask(asked, "CliShow")

    def relations(
        self, memory_ids: builtins.list[str], *, project_id: str | None
    ) -> builtins.list[builtins.list[Relation]]:
        asked = Operations.relations(memory_ids, project_id=project_named(project_id))
        return self._ask(asked, "CliShow")

    def neighborhood(
        self, memory_id: str, *, project_id: str | None, as_of: float | str | None
    ) -> Neighborhood:
        asked = retrieval_operations().neighborhood(
            memory_id, project_id=project_named(project_id), as_of=as_of
        )
        return self._ask(asked, "CliShow")

    def importance_breakdown(self, memory: Memory) -> ImportanceBreakdown:
        return self._ask(Operations.importance_breakdown(memory), "CliShow")

    def project_ids(self) -> builtins.list[str]:
        return self._ask(Operations.project_ids(), "CliProjects")


def reader(settings: Settings) -> ServedReader | None:
    """A reader of the server of this data directory, if one serves the store the
    settings open."""
    return ServedReader(settings) if server_url(settings) is not None else None


def _send(settings: Settings, request: Request[T]) -> T | None:
    """``request`` answered by the server of this data directory; ``None`` when none
    answers, so the command runs locally. The client's requests and error mapping
    are used as they are; only the retries are left out (a command line waits
    for no one)."""
    answers = _answers(settings, request)
    return None if answers is None else request.combine(answers)


def _answers(settings: Settings, request: Request[Any]) -> list[Any] | None:
    """What the server read from each of ``request``'s calls; ``None`` when none answers."""
    url = server_url(settings)
    if url is None:
        return None
    answers = []
    # Only this machine's own server is ever named here: no proxy may see it.
    with httpx.Client(timeout=TIMEOUT_S, trust_env=False) as http:
        for call in request.parts():
            try:
                response = http.post(
                    url, json=call.body(), headers=headers(os.environ.get(names.API_KEY))
                )
            except httpx.TimeoutException:
                raise ServerError(
                    f"the server at {url} did not answer in {TIMEOUT_S:g} s", code="TIMEOUT"
                ) from None
            except httpx.TransportError:
                return None
            try:
                answers.append(answer(call, response))
            except GraphMemError as exc:
                raise _named_locally(exc) from None
    return answers


def _named_locally(error: GraphMemError) -> GraphMemError:
    """The server's error with its fields named as the store names them when
    opened locally (``toId`` -> ``to_id``, ``input.validTo`` -> ``valid_to``):
    a command prints the same error whichever path answered it."""
    names = {field: _snake(field.removeprefix("input.")) for field in error.fields}
    message = error.message
    for field, name in names.items():

        def swap(match: re.Match[str], name: str = name) -> str:
            return f"{match[1]}{name}:"

        message = re.sub(rf"(^|; ){re.escape(field)}:", swap, message)
    error.message = message
    error.args = (message,)
    error.field = names.get(error.field, error.field) if error.field else None
    error.fields = tuple(names.values())
    return error


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", lambda m: "_" + m[1].lower(), name)
