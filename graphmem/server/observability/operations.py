"""Names each GraphQL operation for the request's access log line, metrics and span.

The operation's name and type are known only inside strawberry, after
parsing; this extension writes them into the request's ``RequestInfo``,
where the middleware picks them up once the response is sent.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import nullcontext

from graphql import FieldNode, GraphQLError, OperationDefinitionNode
from strawberry.extensions import SchemaExtension
from strawberry.types import ExecutionContext

from graphmem.server.observability.request_ids import current_request
from graphmem.server.observability.tracing import tracing

SERVER_ERROR_CODES = frozenset({"INTERNAL", "STORE_UNAVAILABLE"})


class OperationRecorder(SchemaExtension):
    """Listed first among the schema's extensions, so it sees the result after
    the others (error masking among them) have finished with it."""

    def on_operation(self) -> Iterator[None]:
        started = time.perf_counter()
        traced = tracing()
        with traced.operation() if traced is not None else nullcontext() as span:
            yield
            context = self.execution_context
            name, kind = operation_of(context)
            outcome = outcome_of(context.result.errors if context.result else None)
            if traced is not None:
                traced.name_operation(span, name, kind, outcome)
        request = current_request()
        if request is not None:
            request.operation, request.operation_type = name, kind
            request.outcome = outcome
            request.operation_seconds = time.perf_counter() - started


def operation_of(context: ExecutionContext) -> tuple[str, str]:
    """The operation's name (its top-level fields when it has none) and type;
    ``unknown`` for what failed to parse."""
    document = context.graphql_document
    if document is None:
        return context.operation_name or "unknown", "unknown"
    wanted = context.operation_name
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    operation = next(
        (o for o in operations if wanted is None or (o.name and o.name.value == wanted)), None
    )
    if operation is None:
        return wanted or "unknown", "unknown"
    kind = operation.operation.value
    if operation.name is not None:
        return operation.name.value, kind
    fields = sorted(
        {s.name.value for s in operation.selection_set.selections if isinstance(s, FieldNode)}
    )
    return ",".join(fields) or "anonymous", kind


def outcome_of(errors: list[GraphQLError] | None) -> str:
    if not errors:
        return "ok"
    codes = {(error.extensions or {}).get("code") for error in errors}
    return "server_error" if codes & SERVER_ERROR_CODES else "client_error"
