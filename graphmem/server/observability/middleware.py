"""The ASGI middleware every HTTP request passes: a request id, metrics, an access log line.

It takes the caller's ``X-Request-ID`` when it is sane (see
``request_id_from``) or makes one, keeps it in the request context for log
lines and error messages, and returns it in the response's ``X-Request-ID``.
A failure nothing else caught becomes a 500 that names the request id, and
its traceback is logged under that id.
"""

from __future__ import annotations

import logging
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from graphmem.server.observability.logs import access_log
from graphmem.server.observability.metrics import Metrics
from graphmem.server.observability.request_ids import (
    HEADER,
    RequestInfo,
    enter,
    leave,
    request_id_from,
)

log = logging.getLogger(__name__)
_HEADER_BYTES = HEADER.encode()


class RequestMiddleware:
    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = RequestInfo(
            id=request_id_from(_incoming_id(scope)), method=scope["method"], path=scope["path"]
        )
        token = enter(request)
        started = time.perf_counter()
        status = 500
        response_started = False

        async def send_with_id(message: Message) -> None:
            nonlocal status, response_started
            if message["type"] == "http.response.start":
                response_started = True
                status = message["status"]
                headers = list(message.get("headers", ()))
                headers.append((_HEADER_BYTES, request.id.encode()))
                message["headers"] = headers
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except Exception:
            log.exception("unhandled error in %s %s", request.method, request.path)
            if response_started:
                raise
            await _internal_error(send_with_id, request.id)
        finally:
            seconds = time.perf_counter() - started
            route = _route(scope)
            self.metrics.observe_request(request, route, status, seconds)
            _log_access(request, status, seconds)
            leave(token)


def _incoming_id(scope: Scope) -> str | None:
    for name, value in scope["headers"]:
        if name == _HEADER_BYTES:
            return value.decode("latin-1")
    return None


def _route(scope: Scope) -> str:
    """The matched route's path template: raw paths would make a series per URL."""
    route = scope.get("route")
    path = getattr(route, "path", None)
    return path if isinstance(path, str) else "unmatched"


async def _internal_error(send: Send, request_id: str) -> None:
    body = f"Internal server error (request id {request_id})".encode()
    await send(
        {
            "type": "http.response.start",
            "status": 500,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _log_access(request: RequestInfo, status: int, seconds: float) -> None:
    if not access_log.isEnabledFor(logging.INFO):
        return
    duration_ms = round(seconds * 1000.0, 2)
    fields = {
        "method": request.method,
        "path": request.path,
        "operation": request.operation,
        "operation_type": request.operation_type,
        "status": status,
        "duration_ms": duration_ms,
    }
    access_log.info(
        "%s %s %s %.1fms",
        request.method,
        request.path,
        status,
        duration_ms,
        extra={"fields": fields},
    )
