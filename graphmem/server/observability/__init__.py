"""Metrics, structured logs, request ids and optional tracing for the server.

Services report what they do through ``graphmem.services.telemetry``; this package
turns those events, the store's statements, the embedder's calls and each
HTTP request into Prometheus metrics (``/metrics``), log lines and, when
``GRAPHMEM_OTEL=1``, OpenTelemetry spans, without any service knowing.
``server.Observability`` is what an app installs.
"""
