"""The ASGI application ``graphmem serve`` runs: GraphQL at ``/graphql`` (GraphiQL
on a browser's GET), a liveness probe at ``/healthz``, a readiness probe at
``/readyz``, Prometheus metrics at ``/metrics``, the explorer at ``/explore``, and
at ``/`` a page listing them.

The GraphMem instance lives in ``app.state`` so one app shape serves both an
instance the caller owns (tests, embedding) and one the app opens and closes
itself around its lifespan (the service).
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from contextlib import ExitStack, asynccontextmanager
from html import escape
from itertools import accumulate
from pathlib import Path
from typing import Any, Literal, cast

from cross_web import HTTPException
from graphql import GraphQLError, OperationType, get_operation_ast, parse
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.types import Lifespan, Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import ASGIWebSocketAdapter, GraphQL
from strawberry.http import GraphQLRequestData
from strawberry.schema.base import BaseSchema
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import (
    BaseGraphQLTransportWSHandler,
    Operation,
)
from strawberry.subscriptions.protocols.graphql_transport_ws.types import ErrorMessage
from strawberry.types.unset import UNSET, UnsetType

from graphmem.api import GraphMem
from graphmem.domain.auth import OPEN
from graphmem.domain.errors import GraphMemError, InvalidInputError
from graphmem.graphql.loaders import Context
from graphmem.graphql.schema import build_schema
from graphmem.graphql.subscriptions import ConnectionContext, connection_init
from graphmem.server import explore, graphiql, serving
from graphmem.server.gate import PRINCIPAL, Gate, bearer_token, error_object, refusal
from graphmem.server.health import readiness
from graphmem.server.observability.server import Observability
from graphmem.server.ratelimit import RateLimiter
from graphmem.settings import Settings

MAX_JSON_DEPTH = 128
"""How deeply a request body (or a websocket message) may nest arrays and
objects. Python's JSON parser recurses once per level, so a body of 100,000
brackets, well under ``GRAPHMEM_MAX_BODY_BYTES``, would exhaust the stack; no
GraphQL request needs more than a few dozen levels."""

_STRING = re.compile(rb'"[^"\\]*+(?:\\.[^"\\]*+)*+"', re.DOTALL)
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")
_STEP = [{ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}.get(b, 0) for b in range(256)]


class BadJSONError(InvalidInputError):
    """A request body or websocket message that cannot be decoded. One error for
    every way (not UTF-8, not JSON, not an object, nested too deeply), so each
    gets the same answer: a 400 with a GraphQL error object over HTTP, close code
    4400 on a websocket."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"body: {reason}", field="body")
        self.reason = reason


def nested_deeper_than(data: str | bytes, limit: int) -> bool:
    """Whether arrays and objects in ``data`` nest deeper than ``limit``, found
    without recursion, before the parser could overflow the stack. Strings are
    cut out first, so brackets inside them do not count. Every step runs in C
    (a regular expression, ``translate``, ``accumulate``), so a megabyte of
    brackets costs tens of milliseconds, a fraction of a Python loop over them;
    the usual body, with few brackets, costs two counts."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return False
    brackets = _STRING.sub(b"", raw).translate(None, _NOT_BRACKET)
    if b"[" * (limit + 1) in brackets:
        return True  # the usual attack, found without adding anything up
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0) > limit


class WebSocketAdapter(ASGIWebSocketAdapter):
    async def iter_json(
        self, *, ignore_parsing_errors: bool = False
    ) -> AsyncGenerator[object, None]:
        """A message that cannot be decoded closes the connection with 4400, as
        graphql-transport-ws asks of an invalid message, and a reason naming what
        is wrong (strawberry would only catch text that is not JSON, and a message
        nested too deeply would end the connection as an unhandled error)."""
        messages = super().iter_json(ignore_parsing_errors=ignore_parsing_errors)
        try:
            async for message in messages:
                yield message
        except BadJSONError as exc:
            # A close reason is at most 123 bytes; the reasons are ASCII.
            await self.close(4400, f"message: {exc.reason}"[:123])


class TransportWSHandler(BaseGraphQLTransportWSHandler[Context, None]):
    async def run_operation(self, operation: Operation[Context, None]) -> None:
        """Read the connection's key again before each operation, as HTTP reads it
        for each request: a key revoked while the connection is open gets the
        error HTTP would give (``UNAUTHENTICATED``) as the operation's ``error``
        message, and the connection stays open, as for any refused operation.
        Done in the operation's own task, so the read does not hold up the
        connection's other messages."""
        context = self.context
        if isinstance(context, ConnectionContext):
            try:
                await context.check_key(fresh=True)
                # A websocket is no way around the key's limit: each operation
                # takes from the bucket its HTTP requests take from.
                cast(GraphQLView, self.view).limiter.admit(context.principal.key_id)
            except GraphMemError as exc:
                refused: ErrorMessage = {
                    "id": operation.id,
                    "type": "error",
                    "payload": [error_object(exc)],
                }
                await operation.send_operation_message(refused)
                return
        await super().run_operation(operation)


_HTTP_CODES = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED"}
"""The code of a request strawberry refuses, by its status: a GET without a
query where no GraphiQL is served (production mode) finds nothing, and any
other refusal is a request that is not a GraphQL request (``BAD_REQUEST``)."""


class GraphQLView(GraphQL[Context, None]):
    graphql_transport_ws_handler_class = TransportWSHandler
    websocket_adapter_class = WebSocketAdapter

    def __init__(self, schema: BaseSchema, *, limiter: RateLimiter, **options: Any) -> None:
        super().__init__(schema, **options)
        self.limiter = limiter
        """The gate's own: an operation over a websocket counts as a request does."""

    @property
    def graphql_ide_html(self) -> str:
        """The packaged GraphiQL page instead of strawberry's, which loads from a CDN."""
        return graphiql.page()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Every HTTP request it cannot take is answered as the gate answers its
        refusals, with one GraphQL error object and the HTTP status, where
        strawberry would answer a text line (or a 500 for a failure it does not
        expect): a body that cannot be decoded is ``INVALID_INPUT`` naming
        ``body``, the rest (a content type it does not take, no query, a
        mutation sent by GET) ``BAD_REQUEST``, with strawberry's reason."""
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        try:
            response = await self.run(Request(scope=scope, receive=receive))
        except BadJSONError as exc:
            response = refusal(exc)
        except HTTPException as exc:
            code = _HTTP_CODES.get(exc.status_code, "BAD_REQUEST")
            response = JSONResponse(
                {"errors": [{"message": exc.reason, "extensions": {"code": code}}]},
                status_code=exc.status_code,
            )
        await response(scope, receive, send)

    async def execute_operation(
        self,
        request: Request,
        request_adapter: Any,
        request_data: GraphQLRequestData | list[GraphQLRequestData],
        context: Context,
        root_value: None,
        sub_response: Response,
    ) -> Any:
        """A subscription sent over HTTP is refused as a bad request: run as a query
        it would end in an internal error, and events stream over websockets only."""
        for data in request_data if isinstance(request_data, list) else [request_data]:
            if _subscribes(data):
                raise HTTPException(400, SUBSCRIPTIONS_OVER_HTTP)
        return await super().execute_operation(
            request, request_adapter, request_data, context, root_value, sub_response
        )

    def decode_json(self, data: str | bytes) -> object:
        """Every body and message that cannot be decoded raises ``BadJSONError``:
        text that is not JSON, JSON that is not an object (``null``, ``5``), bytes
        that are not UTF-8, and arrays or objects nested deeper than
        ``MAX_JSON_DEPTH`` (checked before parsing: the parser would run out of
        stack first)."""
        if nested_deeper_than(data, MAX_JSON_DEPTH):
            raise BadJSONError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
        try:
            decoded = super().decode_json(data)
        except UnicodeDecodeError:
            raise BadJSONError("not UTF-8") from None
        except json.JSONDecodeError as exc:
            raise BadJSONError(f"not JSON ({exc})") from None
        except RecursionError:
            # Not reached while the check above holds; a deep enough stack still could.
            raise BadJSONError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels") from None
        if not isinstance(decoded, dict | list):
            raise BadJSONError("must be a JSON object")
        return decoded

    async def get_context(
        self, request: Request | WebSocket, response: Response | WebSocket
    ) -> Context:
        """A fresh context per request: DataLoader caches must not outlive it."""
        principal = request.state.principal if hasattr(request.state, PRINCIPAL) else None
        if isinstance(request, WebSocket):
            # The gate has refused a malformed header; this one is well formed.
            token = bearer_token(request.headers.get("authorization"))
            return ConnectionContext(
                gm=request.app.state.gm, upgrade_principal=principal, upgrade_token=token
            )
        return Context(gm=request.app.state.gm, principal=principal or OPEN)

    async def on_ws_connect(self, context: Context) -> UnsetType:
        await connection_init(context)
        return UNSET


SUBSCRIPTIONS_OVER_HTTP = (
    "subscriptions are served over a websocket at /graphql (the graphql-transport-ws "
    "protocol), not over HTTP"
)


def _subscribes(data: GraphQLRequestData) -> bool:
    """Whether the request's operation is a subscription; a document that does not
    parse is left for the schema to refuse with its own error."""
    if not isinstance(data.query, str) or "subscription" not in data.query:
        return False
    try:
        operation = get_operation_ast(parse(data.query), data.operation_name)
    except GraphQLError:
        return False
    return operation is not None and operation.operation is OperationType.SUBSCRIPTION


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


FAVICON = Path(__file__).parent / "static" / "favicon.svg"


async def favicon(_: Request) -> Response:
    """The tab icon of GraphiQL and /explore: browsers ask for ``/favicon.ico``
    whatever the page, and take an SVG answered there."""
    return FileResponse(
        FAVICON, media_type="image/svg+xml", headers={"cache-control": "max-age=86400"}
    )


def pages(*, graphiql: bool) -> dict[str, str]:
    """What the server answers at each address, for ``/`` and the start banner."""
    return {
        "/graphql": "GraphiQL (in a browser), and the GraphQL API"
        if graphiql
        else "the GraphQL API (no GraphiQL in production mode)",
        "/explore": "the graph explorer",
        "/healthz": "liveness",
        "/readyz": "readiness: the store and the embedder",
        "/metrics": "Prometheus metrics",
    }


def index(graphiql: bool) -> Callable[[Request], Awaitable[Response]]:
    """``/``: where to go, so the root of the address ``graphmem serve`` prints
    is not a bare 404. HTML for a browser, JSON otherwise."""
    listed = pages(graphiql=graphiql)

    async def answer(request: Request) -> Response:
        if "text/html" in request.headers.get("accept", ""):
            items = "".join(
                f'<li><a href="{path}">{path}</a>: {escape(what)}</li>'
                for path, what in listed.items()
            )
            return HTMLResponse(
                '<!doctype html><html lang="en"><head><meta charset="utf-8">'
                '<link rel="icon" href="/favicon.ico"><title>graphmem</title></head>'
                f"<body><h1>graphmem</h1><ul>{items}</ul></body></html>"
            )
        return JSONResponse({"service": "graphmem", "links": listed})

    return answer


def banner(settings: Settings, port: int) -> list[str]:
    """The addresses ``graphmem serve`` prints as it starts: the API (GraphiQL
    outside production mode) and the explorer."""
    base = f"http://{settings.server.host}:{port}"
    api = "GraphiQL" if settings.server.mode != "production" else "GraphQL API"
    return [f"graphmem: {api} at {base}/graphql", f"graphmem: explorer at {base}/explore"]


def _build(settings: Settings, lifespan: Lifespan[Starlette] | None = None) -> Starlette:
    ide: Literal["graphiql"] | None = None if settings.server.mode == "production" else "graphiql"
    limiter = RateLimiter(settings.server.rate_limit, settings.server.rate_burst)
    view = GraphQLView(
        build_schema(settings),
        limiter=limiter,
        graphql_ide=ide,
        subscription_protocols=(GRAPHQL_TRANSPORT_WS_PROTOCOL,),
        max_subscriptions_per_connection=MAX_SUBSCRIPTIONS_PER_CONNECTION,
    )
    gate = Middleware(
        Gate,
        auth_required=settings.server.auth_required,
        limiter=limiter,
        max_body_bytes=settings.server.max_body_bytes,
        paths=("/graphql", "/metrics"),
        ide_path="/graphql",
        ide_html=view.graphql_ide_html if ide else None,
    )
    # Outermost, so refused requests get a request id, a log line and a count too.
    observability = Observability(auth_required=settings.server.auth_required)
    app = Starlette(
        middleware=[observability.middleware(), gate],
        routes=[
            Route("/", index(graphiql=ide is not None), methods=["GET"]),
            Route("/favicon.ico", favicon, methods=["GET"]),
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
        # Each step blocks (the database starts, the model loads, a running job
        # finishes), so each runs off the event loop.
        owned = ExitStack()
        try:
            gm = await run_in_threadpool(lambda: owned.enter_context(GraphMem.open(settings)))
            app.state.gm = gm
            app.state.observability.watch(gm)
            # Startup completes (and the server listens) with the model loaded.
            await run_in_threadpool(lambda: owned.enter_context(serving.running(gm, settings)))
            yield
        finally:
            # The run in progress finishes before the store it writes to closes.
            await run_in_threadpool(owned.close)

    return _build(settings, lifespan)
