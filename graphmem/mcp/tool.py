"""How a tool runs: one catalogue operation (graphmem.operations) as MCP clients
call it, and how its failures come back to them.

Every tool runs the same way, from its entry: the caller's principal resolves
and checks the project, as on GraphQL and with the same rules
(graphmem.operations.access); the arguments placed in the tool's request model
are validated into it, the model every surface builds; and the ``GraphMem``
method the entry names gets them as they are, so every rule stays in the
models and GraphMem. Deliberate errors come back as tool error results
(``is_error``) whose text and structured content name the code, the field and
the limit, which an agent can correct; anything else is reported as a crash
without detail.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp_types import CallToolResult, InputRequiredResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field, ValidationError

from graphmem.api import GraphMem
from graphmem.domain import checks
from graphmem.domain.auth import OPEN, Principal
from graphmem.domain.checks import Identifier
from graphmem.domain.errors import (
    STORE_UNAVAILABLE_MESSAGE,
    GraphMemError,
    StoreUnavailableError,
    UnauthenticatedError,
    invalid_input,
)
from graphmem.domain.viewer import acting_as
from graphmem.mcp import results
from graphmem.mcp.params import REQUIRED, Param, own
from graphmem.mcp.results import Called
from graphmem.operations import access
from graphmem.operations.catalogue import ENTRIES
from graphmem.server.gate import PRINCIPAL

_ARGUMENT_NAMES = {
    "projectId": "project_id",
    "agentId": "agent_id",
    "toProjectId": "to_project_id",
}
"""GraphMem's names for what the tools call otherwise."""

log = logging.getLogger(__name__)

ProjectId = Annotated[
    Identifier | None,
    Field(description="The project (tenant) to act in; the server's default when omitted."),
]

Full = Annotated[
    bool,
    Field(
        description="Whole records: every field of each memory (counts, times, provenance) "
        "and each score's parts. Only what an agent needs to decide and refer back (id, "
        "content, type, tier, status, score) when false."
    ),
]


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    annotations: ToolAnnotations
    params: Sequence[Param]
    """In the order clients see them; ``project_id`` follows unless the operation
    names no project."""
    view: Any
    """What the tool answers with: its output schema."""
    answer: Callable[[Any, Called], Any] | None = None
    """The view of ``GraphMem``'s result; ``view.of`` when absent."""
    operation: str | None = None
    """The catalogue operation it runs; the tool's name when absent."""
    request: tuple[str, type[BaseModel]] | None = None
    """The ``GraphMem`` argument the parameters placed ``at`` the request are
    validated into, as that model."""


class GraphMemMCP(MCPServer[Any]):
    """An MCPServer whose tool errors carry GraphMem's codes and fields, and whose
    tools act as the caller's agent when its key is bound to one."""

    stdio_principal: Principal = OPEN
    """Who stdio clients act as; HTTP requests bring their own."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            principal = self._caller(context)
            # The tool runs in a copy of this context (a worker thread's), agent included.
            with acting_as(principal.agent_id):
                return await super().call_tool(name, arguments, context)
        except UnauthenticatedError as exc:
            return _error_result(exc)
        except ToolError as exc:
            error = _deliberate(exc)
            if error is None:
                raise
            return _error_result(error)

    def _caller(self, context: Context[Any, Any] | None) -> Principal:
        """Who calls: the HTTP request's principal, or the process's own (stdio, or
        a call made in the process with no request)."""
        if context is None:
            return self.stdio_principal
        try:
            context.request_context  # noqa: B018 - raises outside a request
        except ValueError:
            return self.stdio_principal
        return _request_principal(context, self.stdio_principal)


def _deliberate(exc: ToolError) -> GraphMemError | None:
    """The GraphMem error behind a tool failure, if it was one a caller can fix.

    The SDK raises ``ToolError`` from a ``ValidationError`` when the arguments
    fail the tool's schema, and ``UnexpectedToolError`` around whatever the
    tool itself raised.
    """
    cause = exc.__cause__
    if isinstance(cause, ValidationError) and not isinstance(exc, UnexpectedToolError):
        return invalid_input(cause, locate=_argument_path)
    if isinstance(cause, GraphMemError):
        return cause
    return None


def _argument_path(loc: tuple[Any, ...]) -> str:
    """``("tags", 3)`` -> ``tags[3]``: the path as the caller wrote the argument."""
    path = str(loc[0]) if loc else ""
    for part in loc[1:]:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def _error_result(error: GraphMemError) -> CallToolResult:
    field, message = error.field, error.message
    if field in _ARGUMENT_NAMES:
        renamed = _ARGUMENT_NAMES[field]
        if message.startswith(f"{field}:"):
            message = renamed + message[len(field) :]
        field = renamed
    if isinstance(error, StoreUnavailableError):
        # The detail may name hosts or paths; the operator's log keeps it.
        log.warning("graph database unavailable: %s", error.message)
        message = STORE_UNAVAILABLE_MESSAGE
    return CallToolResult(
        content=[TextContent(type="text", text=f"error [{error.code}]: {message}")],
        structured_content={"error": {"code": error.code, "field": field, "message": message}},
        is_error=True,
    )


def _request_principal(ctx: Context[Any, Any], stdio: Principal) -> Principal:
    """The principal the HTTP gate found for this request, or the process's own
    over stdio (where there is no request)."""
    request = ctx.request_context.request
    if request is None:
        return stdio
    principal = getattr(request.state, PRINCIPAL, None)
    if not isinstance(principal, Principal):
        raise UnauthenticatedError("this request carries no credentials")
    return principal


def served(tool: Tool, gm: GraphMem, stdio: Principal) -> Callable[..., Any]:
    """The function the SDK calls for ``tool``, with the tool's parameters as its
    signature (the schema clients see), ``project_id`` last."""
    entry = ENTRIES[tool.operation or tool.name]
    serves = entry.serves
    if serves is None:
        raise TypeError(f"{tool.name}: {entry.name} is served by no GraphMem method")
    shown = [own(results.FULL, Full, False)] if results.compacts(tool.view) else []
    params = (
        [*tool.params, *shown]
        if entry.cross_project
        else [*tool.params, *shown, own("project_id", ProjectId, None)]
    )

    def run(ctx: Context[Any, Any], **arguments: Any) -> Any:
        caller = _request_principal(ctx, stdio)
        # Access is checked before the arguments.
        project = access.scope(
            caller, entry, arguments.get("project_id"), gm.default_project, arguments
        )
        given: dict[str, Any] = {}
        request: dict[str, Any] = {}
        for param in tool.params:
            value = arguments[param.name]
            if param.shape is not None:
                value = param.shape(value)
            if param.at is None:
                given[param.into] = value
            else:
                _place(request, param.at, param.into, value)
        if tool.request is not None:
            into, model = tool.request
            given[into] = checks.parse(model, request)
        if entry.attributed is not None:
            given[entry.attributed] = access.attribution(given[entry.attributed], caller, "mcp")
        if not entry.cross_project:
            given["project_id"] = project
        result = getattr(gm, serves)(**given)
        if tool.answer is None:
            view = tool.view.of(result)
        else:
            view = tool.answer(result, Called(gm, caller, project, arguments))
        return results.answer(view, full=arguments.get(results.FULL, True))

    context = inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context[Any, Any])
    run.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [context, *map(_parameter, params)], return_annotation=tool.view
    )
    run.__annotations__ = {
        "ctx": Context[Any, Any],
        **{param.name: param.annotation for param in params},
        "return": tool.view,
    }
    run.__name__ = run.__qualname__ = tool.name
    return run


def _parameter(param: Param) -> inspect.Parameter:
    default = inspect.Parameter.empty if param.default is REQUIRED else param.default
    return inspect.Parameter(
        param.name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=param.annotation
    )


def _place(request: dict[str, Any], at: tuple[str, ...], name: str, value: Any) -> None:
    for part in at:
        request = request.setdefault(part, {})
    request[name] = value
