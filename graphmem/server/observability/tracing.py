"""Optional OpenTelemetry spans: one per GraphQL operation, one per store statement.

Off unless ``GRAPHMEM_OTEL=1``, and then the ``otel`` extra must be
installed; while it is off nothing of OpenTelemetry is imported and no span
is made. Spans go to the process's tracer provider: the one an outer
``opentelemetry-instrument`` set up, or the one ``configure_provider``
installs for ``graphmem serve`` (OTLP over HTTP to
``OTEL_EXPORTER_OTLP_ENDPOINT``, the exporter's own settings).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

from graphmem.domain.errors import InvalidInputError
from graphmem.settings import names

log = logging.getLogger(__name__)


def enabled() -> bool:
    return os.environ.get(names.OTEL, "").strip().lower() in ("1", "true")


def tracing() -> Tracing | None:
    """The process's tracing when ``GRAPHMEM_OTEL`` turns it on, else None."""
    return _tracing() if enabled() else None


@cache
def _tracing() -> Tracing:
    return Tracing()


class Tracing:
    def __init__(self) -> None:
        try:
            from opentelemetry import context, trace
        except ImportError:
            raise InvalidInputError(
                f"{names.OTEL}=1 needs OpenTelemetry: pip install 'graphmem[otel]'",
                field=names.OTEL,
            ) from None
        self._context = context
        self._trace = trace
        self._tracer = trace.get_tracer("graphmem")

    @contextmanager
    def operation(self) -> Iterator[Any]:
        """A span around one GraphQL operation, current while it runs so the
        statements it causes become its children; named once it is known."""
        span = self._tracer.start_span("GraphQL operation", kind=self._trace.SpanKind.SERVER)
        token = self._context.attach(self._trace.set_span_in_context(span))
        try:
            yield span
        finally:
            self._context.detach(token)
            span.end()

    def name_operation(self, span: Any, name: str, kind: str, outcome: str) -> None:
        span.update_name(f"{kind} {name}")
        span.set_attribute("graphql.operation.name", name)
        span.set_attribute("graphql.operation.type", kind)
        if outcome == "server_error":
            span.set_status(self._trace.StatusCode.ERROR)

    def statement_observer(self, dialect: str) -> Any:
        """A store observer that records each statement as a finished span.

        The span is made after the statement, back-dated by its duration: the
        wrapper then stays a pair of clock readings when tracing is off.
        """
        tracer, error = self._tracer, self._trace.StatusCode.ERROR
        client = self._trace.SpanKind.CLIENT

        def observe(name: str, access: str, seconds: float, ok: bool) -> None:
            end = time.time_ns()
            span = tracer.start_span(
                name,
                kind=client,
                start_time=end - int(seconds * 1e9),
                attributes={
                    "db.system.name": dialect,
                    "db.operation.name": name,
                    "graphmem.statement.access": access,
                },
            )
            if not ok:
                span.set_status(error)
            span.end(end_time=end)

        return observe


def configure_provider() -> None:
    """For ``graphmem serve``: export spans over OTLP/HTTP, unless something
    outside graphmem (``opentelemetry-instrument``) already set a provider."""
    if not enabled():
        return
    _tracing()  # a missing extra is reported here, at start
    from opentelemetry import trace
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    if not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        return
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    except ImportError:
        raise InvalidInputError(
            f"{names.OTEL}=1 needs the OTLP exporter: pip install 'graphmem[otel]'",
            field=names.OTEL,
        ) from None
    service = os.environ.get("OTEL_SERVICE_NAME", "graphmem")
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
