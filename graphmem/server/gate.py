"""The HTTP gate in front of the API: body size, who is calling, how often.

One ASGI middleware so every API surface mounted behind it (GraphQL over HTTP
and websockets, MCP over HTTP) gets the same rules, and a refused request is
answered before any of it is parsed or reaches the store.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from graphql import GraphQLFormattedError
from starlette.concurrency import run_in_threadpool
from starlette.responses import HTMLResponse, JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from graphmem.domain.auth import OPEN, Principal
from graphmem.domain.errors import (
    STORE_UNAVAILABLE_MESSAGE,
    GraphMemError,
    PayloadTooLargeError,
    RateLimitedError,
    StorageFullError,
    StoreUnavailableError,
    UnauthenticatedError,
)
from graphmem.server.ratelimit import RateLimiter
from graphmem.settings import env_name

BODY_LIMIT = env_name("max_body_bytes")
"""The variable a too large body is told to raise."""

PRINCIPAL = "principal"
"""Where the gate leaves the caller, in ``scope["state"]`` (``request.state.principal``);
``None`` on a websocket whose credentials arrive in its first message."""


class Gate:
    def __init__(
        self,
        app: ASGIApp,
        *,
        auth_required: bool,
        limiter: RateLimiter,
        max_body_bytes: int,
        paths: Iterable[str] = ("/graphql",),
        ide_path: str | None = None,
        ide_html: str | None = None,
    ) -> None:
        self.app = app
        self.auth_required = auth_required
        self.limiter = limiter
        self.max_body_bytes = max_body_bytes
        self.paths = tuple(paths)
        self.ide_path = ide_path
        """Where a browser's GET gets the GraphiQL page, which holds no data."""
        self.ide_html = ide_html
        """The GraphiQL page, answered by the gate itself to a browser without a key
        (``None``: no page, as in production mode)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or not scope["path"].startswith(self.paths):
            await self.app(scope, receive, send)
            return
        try:
            if self._wants_ide_page(scope):
                # A keyless request never reaches the app: the gate answers with the static
                # page itself, so no spelling of a query parameter can run an operation.
                await HTMLResponse(self.ide_html or "")(scope, receive, send)
                return
            principal = await self._principal(scope)
            self.limiter.admit(principal.key_id if principal is not None else None)
            if scope["type"] == "http":
                receive = await self._bounded_body(scope, receive)
        except GraphMemError as exc:
            await _refuse(scope, receive, send, exc)
            return
        scope.setdefault("state", {})[PRINCIPAL] = principal
        await self.app(scope, receive, send)

    def _wants_ide_page(self, scope: Scope) -> bool:
        """A browser without a key loading GraphiQL, where keys are required.

        Only the method, the path and the Accept header decide it; the query string
        and body are never looked at, because the page is served whatever they hold.
        """
        return (
            self.auth_required
            and self.ide_html is not None
            and scope["type"] == "http"
            and scope["path"] == self.ide_path
            and scope["method"] in ("GET", "HEAD")
            and _header(scope, b"authorization") is None
            and "text/html" in (_header(scope, b"accept") or "").lower()
        )

    async def _principal(self, scope: Scope) -> Principal | None:
        token = bearer_token(_header(scope, b"authorization"))
        if token is not None:
            keys = scope["app"].state.gm.keys
            return await run_in_threadpool(keys.authenticate, token)
        if not self.auth_required:
            return OPEN
        if scope["type"] == "websocket":
            return None  # graphql-transport-ws sends it in connection_init
        raise UnauthenticatedError("an API key is required: send 'Authorization: Bearer <key>'")

    async def _bounded_body(self, scope: Scope, receive: Receive) -> Receive:
        """Read the body up to the limit, then hand the app a replay of it."""
        declared = _header(scope, b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_body_bytes:
            raise PayloadTooLargeError(int(declared), self.max_body_bytes, setting=BODY_LIMIT)
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return _replay([message], receive)
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.max_body_bytes:
                raise PayloadTooLargeError(size, self.max_body_bytes, setting=BODY_LIMIT)
            if not message.get("more_body", False):
                break
        body = {"type": "http.request", "body": b"".join(chunks), "more_body": False}
        return _replay([body], receive)


STATUS = {
    "UNAUTHENTICATED": 401,
    "FORBIDDEN": 403,
    "PAYLOAD_TOO_LARGE": 413,
    "RATE_LIMITED": 429,
    "STORE_UNAVAILABLE": 503,
    "STORAGE_FULL": 503,
}


def bearer_token(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer`` header; a malformed header is an
    error, not an anonymous request."""
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise UnauthenticatedError("the Authorization header must be 'Bearer <key>'")
    return token.strip()


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return value.decode("latin-1")
    return None


def _replay(messages: list[Message], receive: Receive) -> Receive:
    pending = list(messages)

    async def replay() -> Message:
        return pending.pop(0) if pending else await receive()

    return replay


def error_object(error: GraphMemError) -> GraphQLFormattedError:
    """One GraphQL error object for a request refused before it ran, so the HTTP
    answer and a websocket operation's ``error`` message say the same thing."""
    extensions: dict[str, Any] = {"code": error.code}
    if error.field:
        extensions["field"] = error.field
    message = error.message
    if isinstance(error, StoreUnavailableError) and not isinstance(error, StorageFullError):
        # Looking the key up failed: the detail (socket paths, hosts) is in the
        # store's log line under this request's id, not in the answer.
        message = STORE_UNAVAILABLE_MESSAGE
    return {"message": message, "extensions": extensions}


def refusal(error: GraphMemError) -> JSONResponse:
    """A refused request's answer: the GraphQL error shape, with its HTTP status."""
    headers = {}
    if isinstance(error, RateLimitedError):
        headers["retry-after"] = str(max(1, round(error.retry_after)))
    if isinstance(error, UnauthenticatedError):
        headers["www-authenticate"] = 'Bearer realm="graphmem"'
    return JSONResponse(
        {"errors": [error_object(error)]},
        status_code=STATUS.get(error.code, 400),
        headers=headers,
    )


async def _refuse(scope: Scope, receive: Receive, send: Send, error: GraphMemError) -> None:
    if scope["type"] == "websocket":
        # Closing before accepting answers the upgrade with 403.
        await send({"type": "websocket.close", "code": 1008, "reason": error.code})
        return
    await refusal(error)(scope, receive, send)
