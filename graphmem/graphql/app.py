"""The ASGI application ``graphmem serve`` runs: GraphQL at ``/graphql`` (GraphiQL
on a browser's GET), a liveness probe at ``/healthz``, a readiness probe at
``/readyz`` and Prometheus metrics at ``/metrics``.

The GraphMem instance lives in ``app.state`` so one app shape serves both an
instance the caller owns (tests, embedding) and one the app opens and closes
itself around its lifespan (the service).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.types import Lifespan
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL
from strawberry.types.unset import UNSET, UnsetType

from graphmem import explore, graphiql
from graphmem.api import GraphMem
from graphmem.auth import OPEN
from graphmem.config import Settings
from graphmem.gate import PRINCIPAL, Gate
from graphmem.graphql.loaders import Context
from graphmem.graphql.schema import build_schema
from graphmem.graphql.subscriptions import ConnectionContext, connection_init
from graphmem.health import readiness
from graphmem.observability.server import Observability
from graphmem.ratelimit import RateLimiter
from graphmem.scheduler import Scheduler


class GraphQLView(GraphQL[Context, None]):
    @property
    def graphql_ide_html(self) -> str:
        """The packaged GraphiQL page instead of strawberry's, which loads from a CDN."""
        return graphiql.page()

    def decode_json(self, data: str | bytes) -> object:
        """JSON that is not an object (``null``, ``5``) is refused like text that is not
        JSON at all, instead of failing inside strawberry; so is a body that is not
        UTF-8 (a 400, where the decoder's own error would be a 500)."""
        try:
            decoded = super().decode_json(data)
        except UnicodeDecodeError:
            raise json.JSONDecodeError("the request body must be UTF-8", "", 0) from None
        if not isinstance(decoded, dict | list):
            raise json.JSONDecodeError("the request body must be a JSON object", "", 0)
        return decoded

    async def get_context(
        self, request: Request | WebSocket, response: Response | WebSocket
    ) -> Context:
        """A fresh context per request: DataLoader caches must not outlive it."""
        principal = request.state.principal if hasattr(request.state, PRINCIPAL) else None
        if isinstance(request, WebSocket):
            return ConnectionContext(gm=request.app.state.gm, upgrade_principal=principal)
        return Context(gm=request.app.state.gm, principal=principal or OPEN)

    async def on_ws_connect(self, context: Context) -> UnsetType:
        await connection_init(context)
        return UNSET


MAX_SUBSCRIPTIONS_PER_CONNECTION = 20
"""Operations one websocket may run at once, so one client cannot hold unbounded
work on the server."""


async def healthz(_: Request) -> JSONResponse:
    """Liveness: the process answers. Nothing else, so a database outage does
    not get every graphmem process restarted (``/readyz`` reports that)."""
    return JSONResponse({"status": "ok"})


async def readyz(request: Request) -> JSONResponse:
    """Readiness: 200 when the store and the embedder can serve, else 503 with
    the reason of each part."""
    state = await readiness(request.app.state.gm)
    return JSONResponse(
        {"status": "ready" if state.ready else "unavailable", "checks": state.checks},
        status_code=200 if state.ready else 503,
        headers={"cache-control": "no-store"},
    )


def _build(settings: Settings, lifespan: Lifespan[Starlette] | None = None) -> Starlette:
    ide = None if settings.mode == "production" else "graphiql"
    view = GraphQLView(
        build_schema(settings),
        graphql_ide=ide,
        subscription_protocols=(GRAPHQL_TRANSPORT_WS_PROTOCOL,),
        max_subscriptions_per_connection=MAX_SUBSCRIPTIONS_PER_CONNECTION,
    )
    gate = Middleware(
        Gate,
        auth_required=settings.auth_required,
        limiter=RateLimiter(settings.rate_limit, settings.rate_burst),
        max_body_bytes=settings.max_body_bytes,
        paths=("/graphql", "/metrics"),
        ide_path="/graphql",
        ide_html=view.graphql_ide_html if ide else None,
    )
    # Outermost, so refused requests get a request id, a log line and a count too.
    observability = Observability(auth_required=settings.auth_required)
    app = Starlette(
        middleware=[observability.middleware(), gate],
        routes=[
            Route("/graphql", view, methods=["GET", "POST"]),
            WebSocketRoute("/graphql", view),
            Route("/healthz", healthz, methods=["GET"]),
            Route("/readyz", readyz, methods=["GET"]),
            Route("/metrics", observability.endpoint, methods=["GET"]),
            *explore.routes(),
            *graphiql.routes(),
        ],
        lifespan=lifespan,
    )
    app.state.observability = observability
    return app


def create_app(gm: GraphMem, settings: Settings | None = None) -> Starlette:
    """Serve a GraphMem the caller opened (and will close).

    No periodic jobs run here: the caller owns the instance and its time, and
    starts a ``Scheduler`` itself if it wants one.
    """
    app = _build(settings or Settings.model_construct())
    app.state.gm = gm
    app.state.observability.watch(gm)
    return app


def create_app_from_settings(settings: Settings) -> Starlette:
    """Open the store at startup and close it at shutdown, so the server owns it,
    with periodic promotion and archival running meanwhile unless settings turn
    them off."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        gm = await run_in_threadpool(GraphMem.open, settings)
        app.state.gm = gm
        app.state.observability.watch(gm)
        scheduler = Scheduler(gm) if settings.scheduler else None
        try:
            # Startup completes (and the server listens) with the model loaded.
            await run_in_threadpool(gm.warm)
            if scheduler is not None:
                scheduler.start()
            yield
        finally:
            # The run in progress finishes before the store it writes to closes.
            if scheduler is not None:
                await run_in_threadpool(scheduler.stop)
            await run_in_threadpool(gm.close)

    return _build(settings, lifespan)
