"""The ASGI application ``graphmem serve`` runs: GraphQL at ``/graphql`` (GraphiQL
on a browser's GET) and a liveness probe at ``/healthz``.

The GraphMem instance lives in ``app.state`` so one app shape serves both an
instance the caller owns (tests, embedding) and one the app opens and closes
itself around its lifespan (the service).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Lifespan
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL

from graphmem.api import GraphMem
from graphmem.config import Settings
from graphmem.graphql.loaders import Context
from graphmem.graphql.schema import schema
from graphmem.scheduler import Scheduler


class GraphQLView(GraphQL[Context, None]):
    async def get_context(
        self, request: Request | WebSocket, response: Response | WebSocket
    ) -> Context:
        """A fresh context per request: DataLoader caches must not outlive it."""
        return Context(gm=request.app.state.gm)


async def healthz(_: Request) -> JSONResponse:
    return JSONResponse({"status": "ok"})


def _build(lifespan: Lifespan[Starlette] | None = None) -> Starlette:
    return Starlette(
        routes=[
            Route("/graphql", GraphQLView(schema, graphql_ide="graphiql"), methods=["GET", "POST"]),
            Route("/healthz", healthz, methods=["GET"]),
        ],
        lifespan=lifespan,
    )


def create_app(gm: GraphMem) -> Starlette:
    """Serve a GraphMem the caller opened (and will close).

    No periodic jobs run here: the caller owns the instance and its time, and
    starts a ``Scheduler`` itself if it wants one.
    """
    app = _build()
    app.state.gm = gm
    return app


def create_app_from_settings(settings: Settings) -> Starlette:
    """Open the store at startup and close it at shutdown, so the server owns it,
    with periodic promotion and archival running meanwhile unless settings turn
    them off."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        gm = await run_in_threadpool(GraphMem.open, settings)
        app.state.gm = gm
        scheduler = Scheduler(gm) if settings.scheduler else None
        try:
            if scheduler is not None:
                scheduler.start()
            yield
        finally:
            # The run in progress finishes before the store it writes to closes.
            if scheduler is not None:
                await run_in_threadpool(scheduler.stop)
            await run_in_threadpool(gm.close)

    return _build(lifespan)
