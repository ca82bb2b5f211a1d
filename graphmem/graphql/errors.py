"""How failures reach a GraphQL client: a clear message, ``extensions.code`` and,
when known, ``extensions.field`` naming the argument path as the client wrote it.

Three kinds of failure reach this module:

- GraphMem's own errors (bad input, unknown ids, conflicts, an unreachable
  store) carry a stable code and are safe to show, apart from the detail of an
  unreachable store, which may name hosts or paths;
- graphql-core's request errors (syntax, validation, variable coercion) are
  already clear; they get a code and the argument path they are about;
- anything else is a bug or an outage: it is logged and shown only as
  ``Internal server error (request id ...)`` so no traceback or internal detail
  leaks, and the id finds the logged traceback.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from typing import Any, TypeVar

from graphql import (
    BREAK,
    SKIP,
    ArgumentNode,
    DocumentNode,
    FieldNode,
    GraphQLError,
    GraphQLSyntaxError,
    ListValueNode,
    Node,
    ObjectValueNode,
    ValueNode,
    VariableDefinitionNode,
    VariableNode,
    Visitor,
    visit,
)
from pydantic import BaseModel, ValidationError
from strawberry.extensions import MaskErrors
from strawberry.utils.str_converters import to_camel_case

from graphmem.domain.clock import SHOWN_RANGE, as_datetime
from graphmem.domain.errors import (
    STORE_UNAVAILABLE_MESSAGE,
    STORED_TIME_OUT_OF_RANGE,
    GraphMemError,
    InvalidInputError,
    StorageFullError,
    StoreUnavailableError,
    invalid_input,
)
from graphmem.domain.models import Memory
from graphmem.server.observability.request_ids import current_request_id

INTERNAL_MESSAGE = "Internal server error"

# GraphMem names a few things differently from the GraphQL arguments that carry
# them, unless the operation has an argument of GraphMem's name (``sessionId`` in
# ``runPromotion``, but ``id`` in ``pauseSession``); a batch's ``items`` are
# ``rememberMany``'s ``input``.
_ARGUMENT_NAMES = {"changes": "input", "session_id": "id", "items": "input"}

# The document limits (GRAPHMEM_MAX_QUERY_DEPTH, _MAX_ALIASES, _MAX_TOKENS) report
# through graphql-core's validation and parser errors; these are their messages.
_LIMIT_MESSAGES = re.compile(
    r"exceeds maximum operation depth|aliases found\. Allowed|Document contains more than"
)

M = TypeVar("M", bound=BaseModel)


def parse_input(model: type[M], data: dict[str, Any], argument: str) -> M:
    """Validate a GraphQL input into its domain model, naming bad fields by their
    path in the request (``input.tags[0]``) rather than the Python one."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise RequestPathError.of(
            invalid_input(
                exc,
                locate=lambda loc: (
                    argument
                    + "".join(
                        f"[{part}]" if isinstance(part, int) else f".{to_camel_case(str(part))}"
                        for part in loc
                    )
                ),
                known=[to_camel_case(name) for name in model.model_fields],
            )
        ) from None


class BadValueError(ValueError):
    """A scalar value its parser cannot read (a time that is not one). Raised as
    a plain exception, not a ``GraphQLError``, so that graphql-core attaches the
    literal's node or the variable's path, from which the argument is named."""


class RequestPathError(InvalidInputError):
    """An input error whose fields are already paths in the request, as the
    client wrote them: ``variant.rules.promote_threshold`` keeps the snake_case
    key of a JSON value, which renaming to camelCase would turn into a key the
    client never sent."""

    @classmethod
    def of(cls, error: GraphMemError) -> RequestPathError:
        return cls(error.message, field=error.field, fields=error.fields)


def is_unexpected(error: GraphQLError) -> bool:
    """Errors raised by neither GraphMem nor graphql-core: bugs and outages."""
    original = error.original_error
    return original is not None and not isinstance(
        original, GraphMemError | GraphQLError | BadValueError
    )


def should_log(error: GraphQLError) -> bool:
    """Failures an operator needs to see; a client's mistakes are not among them."""
    return is_unexpected(error) or isinstance(error.original_error, StoreUnavailableError)


_unshowable: ContextVar[dict[str, GraphQLError] | None] = ContextVar("unshowable", default=None)
"""The memories of the operation being run whose stored times had to be shown
as the nearest showable one, by id."""


def report_unshowable(memory: Memory) -> None:
    """Say, beside the answer, that a memory holds a stored time no surface can
    show: the read goes on with the nearest time that can be shown, so one such
    row (raw Cypher, an older version) never fails a page."""
    reports = _unshowable.get()
    names = memory.unshowable_times()
    if reports is None or not names or memory.id in reports:
        return
    stored = ", ".join(f"{to_camel_case(n)} {getattr(memory, n)!r}" for n in names)
    shown = ", ".join(
        f"{to_camel_case(n)} as {as_datetime(getattr(memory, n)).isoformat()}" for n in names
    )
    reports[memory.id] = GraphQLError(
        f"memory {memory.id} stores a time outside {SHOWN_RANGE} ({stored}); it is shown "
        f"with {shown}. `graphmem migrate` repairs it.",
        extensions={
            "code": STORED_TIME_OUT_OF_RANGE,
            "memoryId": memory.id,
            "fields": [to_camel_case(n) for n in names],
        },
    )


class ClientErrors(MaskErrors):
    """Masks unexpected errors and gives every error a code (and field when known)."""

    def __init__(self) -> None:
        super().__init__(should_mask_error=is_unexpected, error_message=INTERNAL_MESSAGE)

    def anonymise_error(self, error: GraphQLError) -> GraphQLError:
        masked = super().anonymise_error(error)
        request_id = current_request_id()
        if request_id is not None:
            masked.message = f"{INTERNAL_MESSAGE} (request id {request_id})"
        masked.extensions = {"code": "INTERNAL"}
        return masked

    def on_operation(self) -> Iterator[None]:
        reports: dict[str, GraphQLError] = {}
        token = _unshowable.set(reports)
        try:
            yield from super().on_operation()
        finally:
            _unshowable.reset(token)
        context = self.execution_context
        result = context.result
        if result is not None and result.errors:
            result.errors = [
                _for_client(error, context.graphql_document) for error in result.errors
            ]
        if result is not None and reports:
            result.errors = [*(result.errors or []), *reports.values()]

    def on_stream_result(self, result: Any) -> Iterator[None]:
        """Subscriptions send each result as it comes, before the operation ends."""
        self._stream_result_processed = True
        self._process_stream_result(result)
        if result.errors:
            document = self.execution_context.graphql_document
            result.errors = [_for_client(error, document) for error in result.errors]
        yield


def _for_client(error: GraphQLError, document: DocumentNode | None) -> GraphQLError:
    if "code" in (error.extensions or {}):
        return error
    original = error.original_error
    if isinstance(original, StorageFullError):
        return _rebuilt(error, original.message, {"code": original.code})
    if isinstance(original, StoreUnavailableError):
        return _rebuilt(error, STORE_UNAVAILABLE_MESSAGE, {"code": original.code})
    if isinstance(original, GraphMemError):
        return _from_graphmem(error, original)
    return _from_request(error, document)


def _bad_value(error: GraphQLError) -> BadValueError | None:
    """The scalar parser's error behind a validation or variable error, if any."""
    cause: BaseException | None = error.original_error
    while isinstance(cause, GraphQLError):
        cause = cause.original_error
    return cause if isinstance(cause, BadValueError) else None


def _from_graphmem(error: GraphQLError, original: GraphMemError) -> GraphQLError:
    if original.field is None:
        return _rebuilt(error, original.message, {"code": original.code})
    arguments = _arguments(error)
    names = {
        field: field if isinstance(original, RequestPathError) else _request_path(field, arguments)
        for field in original.fields
    }
    message = renamed(original.message, names)
    extensions: dict[str, Any] = {"code": original.code, "field": names[original.field]}
    if len(names) > 1:
        extensions["fields"] = list(names.values())
    return _rebuilt(error, message, extensions)


def renamed(message: str, names: dict[str, str]) -> str:
    """The message with each field's problem under its new name: every problem of
    a message is ``field: what is wrong``, joined by ``; ``."""
    for field, name in names.items():

        def swap(match: re.Match[str], name: str = name) -> str:
            return f"{match[1]}{name}:"

        message = re.sub(rf"(^|; ){re.escape(field)}:", swap, message)
    return message


def _request_path(field: str, arguments: set[str]) -> str:
    """A GraphMem field name (``valid_to``, ``min_relevance``) as the request
    spells it: camelCase, and inside ``input`` when the operation takes one and
    has no argument of that name."""
    name = to_camel_case(field)
    head, rest = re.match(r"(\w*)(.*)", field, re.DOTALL).groups()  # type: ignore[union-attr]
    if to_camel_case(head) in arguments:
        return name
    if _ARGUMENT_NAMES.get(head) in arguments:
        return _ARGUMENT_NAMES[head] + to_camel_case(rest)
    return f"input.{name}" if "input" in arguments else name


def _arguments(error: GraphQLError) -> set[str]:
    """The argument names the failing field was called with."""
    return {
        argument.name.value
        for node in error.nodes or []
        if isinstance(node, FieldNode)
        for argument in node.arguments or ()
    }


def _rebuilt(error: GraphQLError, message: str, extensions: dict[str, Any]) -> GraphQLError:
    """A fresh error without the original exception, so nothing else of it can leak."""
    return GraphQLError(
        message,
        nodes=error.nodes,
        source=error.source,
        positions=error.positions,
        path=error.path,
        extensions={**(error.extensions or {}), **extensions},
    )


def _from_request(error: GraphQLError, document: DocumentNode | None) -> GraphQLError:
    if _LIMIT_MESSAGES.search(error.message):
        return _rebuilt(error, error.message, {"code": "LIMIT_EXCEEDED"})
    if isinstance(error, GraphQLSyntaxError):
        return _rebuilt(error, error.message, {"code": "GRAPHQL_PARSE_FAILED"})
    # A value the scalar's parser refused is told in its words, not graphql-core's.
    bad_value = _bad_value(error)
    problem = str(bad_value) if bad_value is not None else error.message
    nodes = error.nodes or []
    variable = next((n for n in nodes if isinstance(n, VariableDefinitionNode)), None)
    if variable is not None and error.path is None and len(nodes) == 1:
        # A variable's value failed coercion (or, if it is used nowhere, the
        # document failed validation and the fallback below applies).
        field = _variable_field(variable, error, document)
        if field is not None:
            return _rebuilt(error, f"{field}: {problem}", {"code": "INVALID_INPUT", "field": field})
    # Matched by source span, not identity: cached validation results may hold the
    # nodes of an earlier parse of the same text.
    spans = {_span(n) for n in nodes} - {None}
    field = _argument_path(document, lambda node: _span(node) in spans)
    if field is None:
        return _rebuilt(error, error.message, {"code": "GRAPHQL_VALIDATION_FAILED"})
    return _rebuilt(error, f"{field}: {problem}", {"code": "INVALID_INPUT", "field": field})


def _span(node: Node) -> tuple[int, int] | None:
    return (node.loc.start, node.loc.end) if node.loc else None


def _variable_field(
    definition: VariableDefinitionNode, error: GraphQLError, document: DocumentNode | None
) -> str | None:
    """Where the variable is used, plus the path inside its value that graphql-core
    puts right after the variable name (the value itself is not echoed before it)."""
    name = definition.variable.name.value
    usage = _argument_path(
        document, lambda node: isinstance(node, VariableNode) and node.name.value == name
    )
    if usage is None:
        return None
    inner = re.match(
        rf"Variable '\${re.escape(name)}' has invalid value at ((?:\.\w+|\[\d+\])+):",
        error.message,
    )
    return usage + inner.group(1) if inner else usage


def _argument_path(document: DocumentNode | None, matches: Callable[[Node], bool]) -> str | None:
    """The path (``input.tags[0]``) of the first argument value node that matches."""
    if document is None:
        return None
    finder = _ArgumentFinder(matches)
    visit(document, finder)
    return finder.path


class _ArgumentFinder(Visitor):
    def __init__(self, matches: Callable[[Node], bool]) -> None:
        super().__init__()
        self.matches = matches
        self.path: str | None = None

    def enter_argument(self, node: ArgumentNode, *_: object) -> object:
        name = node.name.value
        self.path = name if self.matches(node) else _value_path(node.value, self.matches, name)
        return SKIP if self.path is None else BREAK


def _value_path(value: ValueNode, matches: Callable[[Node], bool], path: str) -> str | None:
    if matches(value):
        return path
    children: Sequence[tuple[str, Node, ValueNode]] = ()
    if isinstance(value, ObjectValueNode):
        children = [(f"{path}.{f.name.value}", f, f.value) for f in value.fields]
    elif isinstance(value, ListValueNode):
        children = [(f"{path}[{i}]", item, item) for i, item in enumerate(value.values)]
    for child_path, holder, child in children:
        found = child_path if matches(holder) else _value_path(child, matches, child_path)
        if found is not None:
            return found
    return None
