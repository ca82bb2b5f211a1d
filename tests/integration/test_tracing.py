"""OpenTelemetry spans with ``GRAPHMEM_OTEL=1``, caught by the SDK's in-memory
exporter; and without it, OpenTelemetry is not even imported."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from graphmem.api import GraphMem
from graphmem.graphql.app import create_app
from tests.integration.conftest import serve


@pytest.fixture(scope="module")
def exporter() -> InMemorySpanExporter:
    """The process's tracer provider can be set only once; every test here shares it."""
    exporter = InMemorySpanExporter()
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return exporter


def test_an_operation_is_a_span_and_its_statements_are_its_children(
    gm: GraphMem, backend: str, exporter: InMemorySpanExporter, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GRAPHMEM_OTEL", "1")
    gm.remember({"content": "spans have parents"})
    with serve(create_app(gm)) as http:
        exporter.clear()
        response = http.post(
            "/graphql",
            json={"query": "query Recent { memories(first: 5) { edges { node { id } } } }"},
        )
        assert "errors" not in response.json(), response.text

    spans = exporter.get_finished_spans()
    (operation,) = [s for s in spans if s.name == "query Recent"]
    assert operation.kind is SpanKind.SERVER
    assert operation.attributes["graphql.operation.name"] == "Recent"
    assert operation.attributes["graphql.operation.type"] == "query"
    assert operation.status.status_code is not StatusCode.ERROR
    children = [s for s in spans if s.parent and s.parent.span_id == operation.context.span_id]
    (listing,) = [s for s in children if s.name == "list_memories"]
    assert listing.kind is SpanKind.CLIENT
    assert listing.attributes["db.system.name"] == backend
    assert listing.attributes["graphmem.statement.access"] == "read"
    assert listing.context.trace_id == operation.context.trace_id
    assert operation.start_time <= listing.start_time <= listing.end_time <= operation.end_time


def test_without_the_switch_no_span_is_made(
    gm: GraphMem, exporter: InMemorySpanExporter, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GRAPHMEM_OTEL", raising=False)
    with serve(create_app(gm)) as http:
        exporter.clear()
        http.post("/graphql", json={"query": "{ memories(first: 5) { edges { node { id } } } }"})

    assert exporter.get_finished_spans() == ()


def test_without_the_switch_opentelemetry_is_not_imported() -> None:
    script = textwrap.dedent(
        """
        import sys
        from graphmem.graphql.schema import build_schema
        from graphmem.server.observability.server import Observability

        Observability(auth_required=False)
        result = build_schema().execute_sync("{ __typename }")
        assert result.errors is None, result.errors
        print(sorted(m for m in sys.modules if m.startswith("opentelemetry")))
        """
    )
    env = {k: v for k, v in os.environ.items() if k != "GRAPHMEM_OTEL"}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
