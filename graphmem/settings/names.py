"""How a setting's name becomes its environment variable, declared once.

Every setting has one flat name (``neo4j_uri``, ``data_dir``): the keyword
``Settings`` takes, the name a refusal reports, and, upper-cased behind the
prefix, the environment variable that sets it. This module imports nothing,
so the prompt hook and the client side of the CLI name the variables they read
without loading the settings model.
"""

from __future__ import annotations

PREFIX = "GRAPHMEM_"
"""What every variable graphmem reads starts with."""


def env_name(setting: str) -> str:
    """The environment variable of the setting named ``setting`` (its flat name)."""
    return f"{PREFIX}{setting.upper()}"


API_KEY = env_name("api_key")
"""The key a command or the hook sends (or checks against the store) as its caller."""
URL = env_name("url")
"""The GraphQL endpoint the hook asks, before the server of the data directory."""
MCP_PORT = env_name("mcp_port")
"""The port ``graphmem mcp --transport http`` binds when ``--port`` is not given."""
PROJECT = env_name("project")
"""The project a client-side command names when ``--project`` does not; the server's
own default project is the same variable, read by ``Settings``."""
PORT = env_name("port")
"""The port ``graphmem serve`` binds, read by the client side to find the server."""
DATA_DIR = env_name("data_dir")
"""The data directory, read by the client side before any settings are built."""
OTEL = env_name("otel")
"""``1`` turns OpenTelemetry spans on (the ``otel`` extra)."""
