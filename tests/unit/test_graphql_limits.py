"""The schema's document limits: made once, so the validation cache can hit."""

from __future__ import annotations

import asyncio

from graphql.validation import NoSchemaIntrospectionCustomRule
from strawberry.extensions import AddValidationRules

from graphmem.graphql.schema import GraphMemSchema, build_schema
from graphmem.settings import ServerSettings, Settings


def added_rules(schema: GraphMemSchema) -> list[type]:
    """The validation rules one request's extensions add, as each request makes them."""
    made = [factory() for factory in schema.extensions]
    return [
        rule for ext in made if isinstance(ext, AddValidationRules) for rule in ext.validation_rules
    ]


def test_every_request_adds_the_same_rules() -> None:
    """The validation cache is keyed by the rules: a rule class made per request
    made every document a miss, validated again at every request."""
    schema = build_schema(Settings.model_validate(dict(mode="production")))
    first, second = added_rules(schema), added_rules(schema)
    assert len(first) == 3 and first == second
    assert NoSchemaIntrospectionCustomRule in first


def test_development_keeps_introspection() -> None:
    rules = added_rules(build_schema(Settings.model_validate(dict(mode="development"))))
    assert NoSchemaIntrospectionCustomRule not in rules and len(rules) == 2


def test_the_limits_still_refuse() -> None:
    schema = build_schema(
        Settings.model_construct(
            server=ServerSettings.model_construct(max_query_depth=1, max_aliases=1)
        )
    )
    for document, refusal in (
        ('{ knowledgeContext(contextHint: "x") { items { score } } }', "exceeds maximum"),
        ("{ a: __typename b: __typename }", "2 aliases found"),
    ):
        for _ in range(2):  # refused again once the verdict is cached
            result = asyncio.run(schema.execute(document))
            assert result.errors and refusal in result.errors[0].message, result.errors
