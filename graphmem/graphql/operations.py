"""What every operation module shares: the ``projectId`` argument and the write helper.

Operations live in one module per area (memories, promotion, review, ...) and
``schema.py`` merges them into ``Query`` and ``Mutation``; keeping these two
pieces here lets each area follow the same conventions without importing
another area.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, ParamSpec, TypeVar

import strawberry
from starlette.concurrency import run_in_threadpool

from graphmem.graphql.types.common import Info

P = ParamSpec("P")
T = TypeVar("T")

ProjectId = Annotated[
    strawberry.ID | None,
    strawberry.argument(
        description="The tenant to act in; the server's default project when absent."
    ),
]


async def write(info: Info, call: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """Run a GraphMem write in a worker thread, then drop this request's cached
    reads: a later field of the same document must see what the write changed."""
    try:
        return await run_in_threadpool(call, *args, **kwargs)
    finally:
        info.context.loaders.forget_cached()
