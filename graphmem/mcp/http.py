"""The streamable HTTP transport: the MCP endpoint at ``/mcp``, behind the gate.

The same gate as the GraphQL API stands in front of it (keys, rate limit,
body size), so both surfaces follow one rule: a key is required unless the
server listens on loopback only, and a key that is sent always confines the
request to its projects and role. Each HTTP request is checked on its own,
so a revoked key stops working at its next request, and one MCP session
cannot borrow another request's rights.
"""

from __future__ import annotations

from starlette.applications import Starlette

from graphmem.api import GraphMem
from graphmem.mcp.server import create_server
from graphmem.server.gate import Gate
from graphmem.server.ratelimit import RateLimiter
from graphmem.settings import Settings

MCP_PATH = "/mcp"


def create_http_app(gm: GraphMem, settings: Settings) -> Starlette:
    """The ASGI app serving ``gm``. ``settings.server.host`` is where it will listen,
    which decides whether keys are required and the DNS rebinding protection
    the SDK applies (on for loopback)."""
    app = create_server(gm).streamable_http_app(
        streamable_http_path=MCP_PATH, host=settings.server.host
    )
    app.state.gm = gm
    app.add_middleware(
        Gate,
        auth_required=settings.server.auth_required,
        limiter=RateLimiter(settings.server.rate_limit, settings.server.rate_burst),
        max_body_bytes=settings.server.max_body_bytes,
        paths=(MCP_PATH,),
    )
    return app
