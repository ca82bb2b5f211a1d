"""The GraphQL schema: the operations of every area merged into one Query and
one Mutation.

Each area (memories, promotion, review, ...) keeps its types and resolvers in
a module of its own; adding an area means adding its classes to the lists
below. Every operation takes an optional ``projectId`` (the tenant boundary;
the server's default project when absent) but ``projects``, which lists the
caller's projects; who may run each is its catalogue entry's to say
(graphmem.graphql.tenancy). Every mutation result is null
only when that mutation failed, so one failure does not hide the results of
the other mutations in a document.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from datetime import datetime
from functools import partial

import strawberry
from graphql import GraphQLError
from strawberry.extensions import (
    AddValidationRules,
    DisableIntrospection,
    MaxAliasesLimiter,
    MaxTokensLimiter,
    QueryDepthLimiter,
    SchemaExtension,
    ValidationCache,
)
from strawberry.tools import merge_types
from strawberry.types import ExecutionContext

from graphmem.graphql.consolidation import ConsolidationMutation
from graphmem.graphql.deliveries import DeliveryQuery
from graphmem.graphql.errors import ClientErrors, should_log
from graphmem.graphql.evaluation import EvaluationMutation, EvaluationQuery
from graphmem.graphql.failures import FailureMutation, FailureQuery
from graphmem.graphql.loaders import FreshReads
from graphmem.graphql.memories import MemoryMutation, MemoryQuery
from graphmem.graphql.projects import ProjectMutation, ProjectQuery
from graphmem.graphql.promotion import PromotionMutation, PromotionQuery
from graphmem.graphql.retrieval import RetrievalQuery
from graphmem.graphql.review import ReviewMutation, ReviewQuery
from graphmem.graphql.scalars import DateTime
from graphmem.graphql.sharing import SharingMutation, SharingQuery
from graphmem.graphql.subscriptions import Subscription
from graphmem.graphql.tenancy import guard
from graphmem.graphql.whatif import WhatIfQuery
from graphmem.server.observability.operations import OperationRecorder
from graphmem.settings import Settings


def _merged(name: str, parts: tuple[type, ...]) -> type:
    """One root type from the areas' parts; two areas naming one field is an error,
    not a silent override."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        return merge_types(name, parts)


Query = guard(
    _merged(
        "Query",
        (
            MemoryQuery,
            PromotionQuery,
            ReviewQuery,
            EvaluationQuery,
            RetrievalQuery,
            DeliveryQuery,
            WhatIfQuery,
            FailureQuery,
            ProjectQuery,
            SharingQuery,
        ),
    )
)
Mutation = guard(
    _merged(
        "Mutation",
        (
            MemoryMutation,
            PromotionMutation,
            ReviewMutation,
            EvaluationMutation,
            FailureMutation,
            ProjectMutation,
            SharingMutation,
            ConsolidationMutation,
        ),
    )
)


class GraphMemSchema(strawberry.Schema):
    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        """Log only what an operator must see; client mistakes would drown it out."""
        super().process_errors([e for e in errors if should_log(e)], execution_context)


def _limits(settings: Settings) -> list[Callable[[], SchemaExtension]]:
    """The server's limits per document: depth, aliases, tokens and, in
    production, no introspection.

    Agents send the same few documents over and over, so each text is validated
    once (``ValidationCache``), and the cache is keyed by the rules too. The
    depth and alias limiters make a new rule class each time one is made, and
    one is made per request: every document missed the cache and was validated
    again (a fifth of the server's CPU under mixed load). So their rules are
    made once, here, and every request adds the same ones. (Parse caching is
    left out: its parse errors would skip the error handling of ClientErrors.)"""
    rules = [
        *QueryDepthLimiter(max_depth=settings.server.max_query_depth).validation_rules,
        *MaxAliasesLimiter(max_alias_count=settings.server.max_aliases).validation_rules,
    ]
    if settings.server.mode == "production":
        rules += DisableIntrospection().validation_rules
    return [
        partial(AddValidationRules, rules),
        partial(MaxTokensLimiter, max_token_count=settings.server.max_tokens),
    ]


def build_schema(settings: Settings | None = None) -> GraphMemSchema:
    """The schema with the server's limits (``_limits``)."""
    settings = settings or Settings.model_construct()
    return GraphMemSchema(
        query=Query,
        mutation=Mutation,
        subscription=Subscription,
        scalar_overrides={datetime: DateTime},
        extensions=[
            OperationRecorder,
            ClientErrors,
            *_limits(settings),
            ValidationCache,
            FreshReads,
        ],
    )


schema = build_schema()


def export_sdl() -> str:
    """The schema as SDL, the text of ``schema.graphql``."""
    return schema.as_str() + "\n"


if __name__ == "__main__":
    print(export_sdl(), end="")
