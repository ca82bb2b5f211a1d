"""The MCP server: GraphMem's agent-facing operations, one tool each.

A tool names the catalogue operation it runs (graphmem.operations), which
says who may call it and which ``GraphMem`` method serves it, and runs the
way every tool does (graphmem.mcp.tool). What a tool adds is what an agent
reads: its description, its parameters (a request model's fields wherever the
operation takes one, described for an agent; graphmem.mcp.params) and the
compact view it answers with (graphmem.mcp.results). The tools are declared
by what they do (graphmem.mcp.retrieval_tools, memory_tools, project_tools);
this module puts them, in that order, on one server.
"""

from __future__ import annotations

from graphmem import __version__
from graphmem.api import GraphMem
from graphmem.domain.auth import OPEN, Principal
from graphmem.mcp.memory_tools import MEMORY_TOOLS
from graphmem.mcp.project_tools import PROJECT_TOOLS
from graphmem.mcp.retrieval_tools import RETRIEVAL_TOOLS
from graphmem.mcp.tool import GraphMemMCP, served

INSTRUCTIONS = """\
graphmem is this agent's long-term memory. Before starting a task, call
knowledge_context with a sentence about the task and use what it returns.
When you learn something worth keeping (a decision, a convention, a lesson, a
risk), call remember; pass suggested_by="agent" when the user asked you to
remember it. Rate what helped or misled you with record_feedback, pin rules
that must not be forgotten, link memories with relate, and when a memory is
replaced by a newer one, call supersede instead of forgetting the old one.
get_memories reads memories whose ids you have; neighborhood shows what
constrains, enables or relates to one.
When a step fails, call record_failure with the error (and the fix once you
find it): a failure seen before comes back with what was learned from it.
"""

TOOLS = (*RETRIEVAL_TOOLS, *MEMORY_TOOLS, *PROJECT_TOOLS)


def create_server(gm: GraphMem, *, principal: Principal = OPEN) -> GraphMemMCP:
    """The MCP server over ``gm``. ``principal`` is who stdio clients act as;
    HTTP requests bring their own (see ``graphmem.mcp.http``)."""
    server = GraphMemMCP(
        "graphmem",
        version=__version__,
        instructions=INSTRUCTIONS,
        log_level="WARNING",
        warn_on_duplicate_tools=False,
    )
    server.stdio_principal = principal
    for tool in TOOLS:
        server.add_tool(
            served(tool, gm, principal),
            name=tool.name,
            description=tool.description,
            annotations=tool.annotations,
        )
    return server
