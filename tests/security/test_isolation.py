"""Two tenants, interleaved, and a caller of one probing the other every way the
API allows: every query and mutation (generated from the schema, so a new
operation is probed without being listed here), every search mode, traversals,
promotion and evaluator runs, with ids guessed from the other project.

A probe leaks when the response holds the other project's data, or when an
id of the other project is answered differently from an id that does not exist.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from graphql import (
    GraphQLArgument,
    GraphQLEnumType,
    GraphQLField,
    GraphQLInputObjectType,
    GraphQLInputType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLScalarType,
    GraphQLUnionType,
    Undefined,
    get_named_type,
)

from graphmem.api import GraphMem
from graphmem.domain.auth import Role
from graphmem.domain.clock import ManualClock
from graphmem.domain.kinds import RelationType
from graphmem.graphql.app import create_app
from graphmem.graphql.schema import schema
from graphmem.settings import Settings
from tests.integration.conftest import serve

SECRET = "zebrafinch"
"""A word only the other project's memories hold."""
SHARED = "deployment"
"""A word both projects use, so searches have something to find on either side."""
MISSING = "0000000000000000nonexistent"
OWN_SIDE = {"fromId", "intoId", "newId"}
"""Arguments of two-memory operations that get the caller's own memory, so the
guessed id is the only foreign part."""
SELECTION_DEPTH = 4


def interleave(gm: GraphMem, clock: ManualClock) -> dict[str, dict[str, list[str]]]:
    """Both projects written turn by turn, with sessions, relations and candidates."""
    ids: dict[str, dict[str, list[str]]] = {}
    for project in ("alpha", "beta"):
        ids[project] = {"memory": [], "session": []}
        ids[project]["session"].append(gm.open_session(f"s-{project}", project_id=project).id)
    topics = [
        "the staging database is wiped every sunday night",
        "release builds must be signed with the hardware key",
        "the payment service retries twice before failing over",
        "log files rotate at one gigabyte and are kept a week",
        "the mobile app reads feature flags at start only",
        "backups are restored into a scratch cluster each month",
    ]
    for i, topic in enumerate(topics):
        for project in ("alpha", "beta"):
            word = SECRET if project == "beta" else "heron"
            memory = gm.remember(
                {
                    "content": f"{SHARED} of {project} ({word}): {topic}",
                    "tags": [project, SHARED],
                    "session_id": f"s-{project}",
                    "source": "auto_extracted" if i % 3 == 2 else "agent",
                    "pinned": i == 0,
                },
                project_id=project,
            )
            ids[project]["memory"].append(memory.id)
            clock.advance(60)
    for project in ("alpha", "beta"):
        first, second, third = ids[project]["memory"][:3]
        gm.relate(first, second, RelationType.CONSTRAINS, project_id=project)
        gm.relate(second, third, RelationType.RELATED_TO, project_id=project)
        gm.supersede(ids[project]["memory"][3], ids[project]["memory"][4], project_id=project)
    return ids


def fingerprint(gm: GraphMem, project: str) -> str:
    """Everything a project holds that a probe could change."""
    page = gm.list(first=200, project_id=project)
    memories = [m.model_dump(mode="json") for m in page.items]
    relations = gm.relations([m.id for m in page.items], project_id=project)
    sessions = gm.get_sessions([f"s-{project}"], project_id=project)
    return json.dumps(
        [
            memories,
            [[r.model_dump(mode="json") for r in rs] for rs in relations],
            [s.model_dump(mode="json") if s else None for s in sessions],
        ],
        sort_keys=True,
    )


def selection(type_: Any, depth: int) -> str:
    named = get_named_type(type_)
    if isinstance(named, GraphQLScalarType | GraphQLEnumType):
        return ""
    if isinstance(named, GraphQLUnionType):
        parts = [f"... on {t.name} {selection(t, depth)}" for t in named.types]
        return "{ __typename " + " ".join(parts) + " }"
    assert isinstance(named, GraphQLObjectType)
    fields = []
    for name, field in named.fields.items():
        if any(_required(a) for a in field.args.values()):
            continue
        inner = get_named_type(field.type)
        if isinstance(inner, GraphQLScalarType | GraphQLEnumType):
            fields.append(name)
        elif depth > 1:
            fields.append(f"{name} {selection(field.type, depth - 1)}")
    return "{ " + " ".join(fields or ["__typename"]) + " }"


def _required(argument: GraphQLArgument) -> bool:
    return isinstance(argument.type, GraphQLNonNull) and argument.default_value is Undefined


def values(type_: GraphQLInputType, name: str, guesses: dict[str, str]) -> list[Any]:
    """Candidate values for a required argument: the guessed ids for ids."""
    if isinstance(type_, GraphQLNonNull):
        return values(type_.of_type, name, guesses)
    if isinstance(type_, GraphQLList):
        return [[v] for v in values(type_.of_type, name, guesses)[:1]]
    if isinstance(type_, GraphQLEnumType):
        return list(type_.values)
    if isinstance(type_, GraphQLInputObjectType):
        return [
            {
                n: values(f.type, n, guesses)[0]
                for n, f in type_.fields.items()
                if isinstance(f.type, GraphQLNonNull) and f.default_value is Undefined
            }
        ]
    scalar = type_.name
    if scalar == "ID":
        if name in OWN_SIDE:
            return [guesses["own"]]
        return [guesses["session" if "session" in name.lower() else "memory"]]
    return {
        "String": [guesses["text"]],
        "Int": [1],
        "Float": [0.5],
        "Boolean": [False],
    }.get(scalar, [None])


def documents(
    operation: str, root: GraphQLObjectType, guesses: dict[str, str]
) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Every field of ``root`` with every value of its enum arguments."""
    for name, field in root.fields.items():
        required = {n: a for n, a in field.args.items() if _required(a) or n == "mode"}
        choices = [values(a.type, n, guesses) for n, a in required.items()]
        for combo in itertools.product(*choices):
            variables = dict(zip(required, combo, strict=True))
            yield name, render(operation, name, field, variables), variables


def render(operation: str, name: str, field: GraphQLField, variables: dict[str, Any]) -> str:
    declared = ", ".join(f"${n}: {field.args[n].type}" for n in variables)
    passed = ", ".join(f"{n}: ${n}" for n in variables)
    head = f"{operation}({declared})" if declared else operation
    call = f"{name}({passed})" if passed else name
    return f"{head} {{ {call} {selection(field.type, SELECTION_DEPTH)} }}"


@pytest.fixture
def tenants(egm: GraphMem, clock: ManualClock) -> Iterator[tuple[httpx.Client, str, dict]]:
    ids = interleave(egm, clock)
    _, alpha = egm.keys.create("alpha agent", ["alpha"], Role.ADMIN)
    settings = Settings.model_validate(dict(auth="required", rate_limit=0))
    with serve(create_app(egm, settings)) as http:
        http.headers["Authorization"] = f"Bearer {alpha}"
        yield http, ids


@pytest.mark.slow
def test_no_probe_reaches_the_other_project(egm: GraphMem, tenants: Any) -> None:
    http, ids = tenants
    beta_ids = set(ids["beta"]["memory"]) | set(ids["beta"]["session"])
    before = fingerprint(egm, "beta")
    probes = 0
    for operation, root in (
        ("query", schema._schema.query_type),
        ("mutation", schema._schema.mutation_type),
    ):
        own = ids["alpha"]["memory"][1]
        # Reads look for the other side's words; writes must not plant them here.
        text = f"{SHARED} {SECRET}" if operation == "query" else f"{SHARED} probe"
        for guessed in (
            {"memory": m, "session": ids["beta"]["session"][0], "own": own, "text": text}
            for m in ids["beta"]["memory"]
        ):
            missing = {"memory": MISSING, "session": MISSING, "own": own, "text": text}
            for (name, document, variables), (_, _, blank) in zip(
                documents(operation, root, guessed),
                documents(operation, root, missing),
                strict=True,
            ):
                probes += 1
                body = http.post(
                    "/graphql", json={"query": document, "variables": variables}
                ).json()
                assert SECRET not in json.dumps(body), (name, variables, body)
                assert not beta_ids & set(
                    re.findall(r"[0-9a-f]{16,}", json.dumps(body.get("data")))
                ), (name, body)
                guessed_id = any(isinstance(v, str) and v in beta_ids for v in variables.values())
                if "errors" in body or (operation == "query" and guessed_id):
                    other = http.post(
                        "/graphql", json={"query": document, "variables": blank}
                    ).json()
                    masked = _masked(body, beta_ids)
                    assert masked == _masked(other, {MISSING}), (name, variables, body, other)
    assert fingerprint(egm, "beta") == before
    print(f"isolation: {probes} cross-project probes, 0 leaks")
    assert probes > 100


def _masked(body: dict[str, Any], ids: set[str]) -> str:
    text = json.dumps(body, sort_keys=True)
    for guessed in ids:
        text = text.replace(guessed, "<id>")
    # Generated ids and times of the alpha side differ between two calls.
    return re.sub(r'"(runId|id|startedAt|finishedAt|at)": "[^"]*"', r'"\1": "-"', text)


def test_project_wide_runs_touch_only_their_project(
    egm: GraphMem, tenants: Any, clock: ManualClock
) -> None:
    http, ids = tenants
    beta_ids = set(ids["beta"]["memory"])
    before = fingerprint(egm, "beta")
    clock.advance(90 * 86_400)  # old enough for archival to find stale memories
    runs = [
        'mutation { runPromotion(sessionId: "s-alpha") { runId promoted } }',
        "mutation { archiveStale { archived } }",
        "mutation { bulkReview(action: APPROVE, filter: {}) { applied } }",
        "mutation { runConsistencyCheck { id } }",
    ]
    for document in runs:
        body = http.post("/graphql", json={"query": document}).json()
        assert "errors" not in body, body
        assert not beta_ids & set(re.findall(r"[0-9a-f]{16,}", json.dumps(body))), body
    egm.evaluator.close()  # the evaluation runs off the request path: wait for it
    reports = http.post(
        "/graphql", json={"query": "{ consistencyReports { projectId summary { memories } } }"}
    ).json()["data"]["consistencyReports"]
    assert [r["projectId"] for r in reports] == ["alpha"]
    assert reports[0]["summary"]["memories"] == len(ids["alpha"]["memory"])
    assert fingerprint(egm, "beta") == before
