"""Who is calling, and what they may touch: roles and principals.

Projects are the tenant boundary. Every surface (GraphQL, MCP, the hook)
resolves a request's project through ``Principal.project_for`` before it calls
GraphMem, and every named statement filters by that project, so an id from a
project the caller cannot see behaves exactly like an id that does not exist.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from graphmem.domain.errors import ForbiddenError


class Role(StrEnum):
    """Each role includes the ones before it."""

    READ = "read"
    WRITE = "write"
    ADMIN = "admin"

    @property
    def rank(self) -> int:
        return list(Role).index(self)

    def includes(self, other: Role) -> bool:
        return self.rank >= other.rank


@dataclass(frozen=True)
class Principal:
    """The caller behind one request: a key's projects and role, or the open
    local principal (``projects is None``) of a loopback server without auth."""

    projects: frozenset[str] | None
    role: Role
    key_id: str | None = None
    agent_id: str | None = None
    """The agent a key bound to one acts as: it sees the shared memories of its
    projects and its own private ones, and writes as that agent only."""

    @classmethod
    def scoped(
        cls,
        projects: Iterable[str],
        role: Role,
        key_id: str | None = None,
        agent_id: str | None = None,
    ) -> Principal:
        return cls(frozenset(projects), role, key_id, agent_id)

    def project_for(self, requested: str | None, default: str, role: Role) -> str:
        """The project a call acts in, checked against this principal.

        A call that names no project acts in the key's only project when it has
        one, so a single-project key never needs to repeat it; otherwise in the
        server's default project.
        """
        if requested is None:
            requested = (
                next(iter(self.projects))
                if self.projects is not None and len(self.projects) == 1
                else default
            )
        if self.projects is not None and requested not in self.projects:
            raise ForbiddenError(
                f"this API key has no access to project {requested!r}", field="projectId"
            )
        if not self.role.includes(role):
            raise ForbiddenError(
                f"this API key's role is {self.role.value}; this operation needs {role.value}"
            )
        return requested


OPEN = Principal(projects=None, role=Role.ADMIN)
"""A loopback server run without auth: every project, every role."""
