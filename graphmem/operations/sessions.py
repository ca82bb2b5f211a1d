"""Operations on sessions, the threads of work memories are written in."""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from graphmem.domain.auth import Role
from graphmem.domain.checks import check_identifier
from graphmem.domain.errors import NotFoundError
from graphmem.domain.sessions import Session
from graphmem.operations import documents as doc
from graphmem.operations.codec import decode, read
from graphmem.operations.entry import operation
from graphmem.operations.requests import Batch, Call


def _session_call(document: str, field: str, variables: Mapping[str, Any]) -> Call[Session]:
    return Call(document + doc.SESSION, variables, lambda data: read(Session, data[field]))


def _session_change(name: str, session_id: str, project_id: str | None) -> Call[Session]:
    """``pauseSession`` or ``closeSession``."""
    document = f"mutation($id: ID!, $p: ID) {{ {name}(id: $id, projectId: $p) {{ ...S }} }}"
    return _session_call(document, name, {"id": session_id, "p": project_id})


class SessionOperations:
    @operation(Role.WRITE)
    def open_session(
        session_id: str | None = None,
        *,
        name: str | None = None,
        max_items: int | None = None,
        project_id: str | None = None,
    ) -> Call[Session]:
        document = """mutation($id: ID, $name: String, $max: Int, $p: ID) {
          openSession(id: $id, name: $name, maxItems: $max, projectId: $p) { ...S }
        }"""
        if session_id is not None:
            check_identifier("session_id", session_id)
        variables = {"id": session_id, "name": name, "max": max_items, "p": project_id}
        return _session_call(document, "openSession", variables)

    @operation(Role.WRITE)
    def pause_session(session_id: str, *, project_id: str | None = None) -> Call[Session]:
        """Promote what is worth keeping, then pause: the run finishes before the pause does."""
        return _session_change("pauseSession", session_id, project_id)

    @operation(Role.WRITE)
    def close_session(session_id: str, *, project_id: str | None = None) -> Call[Session]:
        """A final, uncapped promotion run, then close: every pending item gets its chance."""
        return _session_change("closeSession", session_id, project_id)

    @operation(Role.READ, "session")
    def get_sessions(
        session_ids: Iterable[str], *, project_id: str | None = None
    ) -> Batch[builtins.list[Session | None]]:
        def part(ids: Sequence[str]) -> Call[list[Session | None]]:
            document, variables = doc.aliased("session", ids, "{ ...S }", doc.SESSION, project_id)

            def result(data: dict[str, Any]) -> list[Session | None]:
                return [decode(Session | None, data[f"a{n}"]) for n in range(len(ids))]

            return Call(document, variables, result)

        return Batch([part(ids) for ids in doc.chunked(list(session_ids))])

    @operation(Role.READ, "session")
    def get_session(session_id: str, *, project_id: str | None = None) -> Call[Session]:
        def result(data: dict[str, Any]) -> Session:
            if data["session"] is None:
                raise NotFoundError(
                    f"session_id: no session {session_id!r} in {doc.project_name(project_id)}",
                    field="session_id",
                )
            return read(Session, data["session"])

        document = "query($id: ID!, $p: ID) { session(id: $id, projectId: $p) { ...S } }"
        return Call(document + doc.SESSION, {"id": session_id, "p": project_id}, result)
