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
    """Serve a GraphMem the caller opened (and will close)."""
    app = _build()
    app.state.gm = gm
    return app


def create_app_from_settings(settings: Settings) -> Starlette:
    """Open the store at startup and close it at shutdown, so the server owns it."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        gm = await run_in_threadpool(GraphMem.open, settings)
        app.state.gm = gm
        try:
            yield
        finally:
            await run_in_threadpool(gm.close)

    return _build(lifespan)
