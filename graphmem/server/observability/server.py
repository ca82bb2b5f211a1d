"""What observing one server takes: its metrics, the request middleware, the
``/metrics`` endpoint, and the hooks on the GraphMem it serves."""

from __future__ import annotations

from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response

from graphmem.api import GraphMem
from graphmem.domain.auth import Role
from graphmem.domain.errors import ForbiddenError
from graphmem.server.gate import refusal
from graphmem.server.observability.instruments import observe_embeddings, observe_statements
from graphmem.server.observability.logs import log_events
from graphmem.server.observability.metrics import Metrics
from graphmem.server.observability.middleware import RequestMiddleware
from graphmem.server.observability.tracing import tracing


class Observability:
    def __init__(self, *, auth_required: bool) -> None:
        self.metrics = Metrics()
        self.auth_required = auth_required
        """Metrics name every project, so a server that requires keys serves them to
        admin keys only."""

    def middleware(self) -> Middleware:
        return Middleware(RequestMiddleware, metrics=self.metrics)

    def watch(self, gm: GraphMem) -> None:
        """Count and log what ``gm`` does: its events, statements and embeddings."""
        gm.telemetry.subscribe(self.metrics.on_event)
        log_events(gm.telemetry)
        observe_statements(gm.store, self.metrics.observe_statement)
        traced = tracing()
        if traced is not None:
            observe_statements(gm.store, traced.statement_observer(gm.store.dialect))
        if gm.embedder is not None:
            observe_embeddings(gm.embedder, self.metrics.observe_embedding)
        self.metrics.count_in(gm)

    async def endpoint(self, request: Request) -> Response:
        """``GET /metrics`` in Prometheus' text format (the gate has checked the key)."""
        if self.auth_required:
            role = request.state.principal.role
            if not role.includes(Role.ADMIN):
                return refusal(
                    ForbiddenError(f"metrics need an admin API key; this key's role is {role}")
                )
        # Collecting may count candidates in the graph: off the event loop.
        body = await run_in_threadpool(generate_latest, self.metrics.registry)
        return Response(body, media_type=CONTENT_TYPE_LATEST)
