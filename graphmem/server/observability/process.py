"""Process-wide set-up for ``graphmem serve``: log format and level, and the
tracer provider when tracing is on."""

from __future__ import annotations

from graphmem.server.observability.logs import configure_logging, log_settings
from graphmem.server.observability.tracing import configure_provider


def configure_serving(*, log_level: str | None = None) -> None:
    """Log as ``GRAPHMEM_LOG_FORMAT`` says (by default readable lines to a terminal,
    else JSON) at ``log_level``, else ``GRAPHMEM_LOG_LEVEL``, else INFO; a bad value
    fails here, naming it."""
    configure_logging(log_settings(level=log_level))
    configure_provider()
