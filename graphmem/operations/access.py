"""What a caller may do with an operation, decided here for every surface.

GraphQL and the MCP tools both resolve a call's project, check the caller's
role, attribute a logged change and check a project a copy goes to with these
functions and the operation's catalogue entry, so a rule cannot hold on one
surface and not on the other.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from graphmem.domain.auth import Principal, Role
from graphmem.domain.errors import ForbiddenError
from graphmem.operations.codec import camel
from graphmem.operations.entry import Entry


def scope(
    principal: Principal,
    entry: Entry,
    requested: str | None,
    default: str,
    arguments: Mapping[str, Any],
) -> str | None:
    """The project the call acts in, checked against the caller before anything
    else runs: its projects and role, whether it may cover every agent's
    memories, and any other project the call names (``None`` for an operation
    that names no project)."""
    if entry.cross_project:
        if not principal.role.includes(entry.role):
            raise ForbiddenError(
                f"this API key's role is {principal.role.value}; this operation "
                f"needs {entry.role.value}"
            )
        return None
    project = principal.project_for(requested, default, entry.role)
    agent = principal.agent_id
    if entry.whole_project and agent is not None:
        raise ForbiddenError(
            f"this API key acts as agent {agent!r}; this operation covers every agent's "
            "memories and needs a key bound to no agent"
        )
    if entry.changes_visibility:
        _may_change_visibility(principal)
    if entry.target is not None:
        _may_write_in(principal, arguments[entry.target], default, camel(entry.target))
    return project


def _may_write_in(principal: Principal, project: str, default: str, field: str) -> None:
    try:
        principal.project_for(project, default, Role.WRITE)
    except ForbiddenError:
        raise ForbiddenError(
            f"{field}: this API key may not write in the project named", field=field
        ) from None


def attribution(given: str | None, principal: Principal, surface: str) -> str:
    """Who a logged change names: who the caller says, else its API key, else the
    surface it came through."""
    key = principal.key_id
    return given or (f"key:{key}" if key else surface)


def _may_change_visibility(principal: Principal) -> None:
    """An agent changes who sees its own memories; a key bound to no agent must be
    an admin's to change anyone's."""
    if principal.agent_id is None and not principal.role.includes(Role.ADMIN):
        raise ForbiddenError(
            "only the memory's own agent, or an admin key, may share or unshare it"
        )


def readable(principal: Principal, projects: Iterable[str]) -> list[str]:
    """The projects among ``projects`` that the caller may read."""
    allowed = principal.projects
    return [project for project in projects if allowed is None or project in allowed]
