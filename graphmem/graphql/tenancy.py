"""The tenant check every root field passes before its resolver runs.

Applied to the merged root types in one place rather than written into each
resolver, so no operation can be added without it: the resolver receives the
project already resolved for the caller (``projectId`` absent means the key's
only project, or the server's default) and checked against the caller's role.
"""

from __future__ import annotations

from typing import Any

from strawberry.extensions import FieldExtension
from strawberry.types.base import get_object_definition

from graphmem.auth import Role
from graphmem.errors import ForbiddenError
from graphmem.graphql.types import Info

ADMIN_MUTATIONS = frozenset(
    {
        "run_promotion",
        "enable_promotion",
        "disable_promotion",
        "archive_stale",
        "consolidate",
        "bulk_review",
        "run_consistency_check",
        "set_project_settings",
    }
)
"""Operations that act on a whole project or change how it runs, rather than on
memories an agent holds: they need an ``admin`` key."""

WHOLE_PROJECT_QUERIES = frozenset({"consistency_job", "consistency_report", "consistency_reports"})
"""Reads whose answer covers every agent's memories (the evaluator's findings name
them all): like the admin operations, refused to a key bound to an agent."""

CROSS_PROJECT_QUERIES = frozenset({"projects"})
"""Reads about which projects there are rather than about one: they take no
``projectId``, and their resolver answers with only what the caller's key holds."""


class Tenancy(FieldExtension):
    def __init__(
        self, role: Role, *, whole_project: bool = False, cross_project: bool = False
    ) -> None:
        self.role = role
        self.whole_project = whole_project
        """Acts on (or reports on) every agent's memories: no key bound to one may."""
        self.cross_project = cross_project
        """Names no project: only the role is checked here."""

    def _scoped(self, info: Info, kwargs: dict[str, Any]) -> dict[str, Any]:
        context = info.context
        if self.cross_project:
            if not context.principal.role.includes(self.role):
                raise ForbiddenError(
                    f"this API key's role is {context.principal.role.value}; this operation "
                    f"needs {self.role.value}"
                )
            return kwargs
        kwargs["project_id"] = context.principal.project_for(
            kwargs.get("project_id"), context.gm.default_project, self.role
        )
        agent = context.principal.agent_id
        if self.whole_project and agent is not None:
            raise ForbiddenError(
                f"this API key acts as agent {agent!r}; this operation covers every agent's "
                "memories and needs a key bound to no agent"
            )
        return kwargs

    def resolve(self, next_: Any, source: Any, info: Info, **kwargs: Any) -> Any:
        return next_(source, info, **self._scoped(info, kwargs))

    async def resolve_async(self, next_: Any, source: Any, info: Info, **kwargs: Any) -> Any:
        return await next_(source, info, **self._scoped(info, kwargs))


def guard(root: type, role: Role, *, admin: frozenset[str] = frozenset()) -> type:
    """Attach the tenant check to every field of a root type; a field without a
    ``projectId`` argument is a schema error, since nothing could scope it,
    unless it is one of ``CROSS_PROJECT_QUERIES``, which must take none."""
    for field in get_object_definition(root, strict=True).fields:
        scoped = any(argument.python_name == "project_id" for argument in field.arguments)
        if field.python_name in CROSS_PROJECT_QUERIES:
            if scoped:
                raise TypeError(f"{root.__name__}.{field.python_name} spans projects")
            field.extensions.append(Tenancy(role, cross_project=True))
            continue
        if not scoped:
            raise TypeError(f"{root.__name__}.{field.python_name} takes no projectId")
        needed = Role.ADMIN if field.python_name in admin else role
        whole = field.python_name in admin or field.python_name in WHOLE_PROJECT_QUERIES
        field.extensions.append(Tenancy(needed, whole_project=whole))
    return root
