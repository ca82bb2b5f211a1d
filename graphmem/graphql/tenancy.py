"""The tenant check every root field passes before its resolver runs.

Applied to the merged root types in one place rather than written into each
resolver, so no operation can be added without it: each root field runs an
operation of the catalogue (graphmem.operations.catalogue), whose entry says who may
run it, and the resolver receives the project already resolved for the caller
(``projectId`` absent means the key's only project, or the server's default)
and checked against the caller's role (graphmem.operations.access).
"""

from __future__ import annotations

from typing import Any

from strawberry.extensions import FieldExtension
from strawberry.types.base import get_object_definition
from strawberry.utils.str_converters import to_camel_case

from graphmem.graphql.types.common import Info
from graphmem.operations import access
from graphmem.operations.catalogue import by_field
from graphmem.operations.entry import Entry


class Tenancy(FieldExtension):
    def __init__(self, entry: Entry) -> None:
        self.entry = entry

    def _scoped(self, info: Info, kwargs: dict[str, Any]) -> dict[str, Any]:
        context = info.context
        project = access.scope(
            context.principal,
            self.entry,
            kwargs.get("project_id"),
            context.gm.default_project,
            kwargs,
        )
        if not self.entry.cross_project:
            kwargs["project_id"] = project
        return kwargs

    def resolve(self, next_: Any, source: Any, info: Info, **kwargs: Any) -> Any:
        return next_(source, info, **self._scoped(info, kwargs))

    async def resolve_async(self, next_: Any, source: Any, info: Info, **kwargs: Any) -> Any:
        return await next_(source, info, **self._scoped(info, kwargs))


def guard(root: type) -> type:
    """Attach the tenant check to every field of a root type. A field no catalogue
    entry runs is a schema error, and so is a field without a ``projectId``
    argument, since nothing could scope it, unless its entry names no project
    (then it must take none)."""
    entries = by_field()
    for field in get_object_definition(root, strict=True).fields:
        where = f"{root.__name__}.{field.python_name}"
        entry = entries.get(field.graphql_name or to_camel_case(field.python_name))
        if entry is None:
            raise TypeError(f"{where} runs no operation of the catalogue")
        scoped = any(argument.python_name == "project_id" for argument in field.arguments)
        if entry.cross_project and scoped:
            raise TypeError(f"{where} spans projects")
        if not entry.cross_project and not scoped:
            raise TypeError(f"{where} takes no projectId")
        field.extensions.append(Tenancy(entry))
    return root
