"""graphmem as an MCP server: the agent-facing tools over stdio or streamable HTTP."""

from graphmem.mcp.server import create_server

__all__ = ["create_server"]
