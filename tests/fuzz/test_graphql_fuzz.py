"""Generated GraphQL documents and variables against a real server over HTTP.

Documents come from ``schema.graphql`` through hypothesis-graphql, both valid
ones and ones with a schema violation, some with their text corrupted, and
some with their ids swapped for ids of real memories so mutations reach the
store. Whatever arrives, the server must answer without a 500, without a
traceback or a Python class name, with ``extensions.code`` on every error and
without an INTERNAL one (that is an exception nobody mapped), and a request
that was refused must leave the graph exactly as it was.

Run with ``-s`` to see how many requests were sent.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import UTC
from pathlib import Path
from typing import Any

import graphql
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis_graphql import Mode, mutations, queries

from graphmem.api import GraphMem
from tests.fuzz.conftest import FUZZ, Fingerprint
from tests.fuzz.strategies import HOSTILE, MEMORY_FIELDS, inputs
from tests.integration.conftest import GraphQLClient

# A surface suite: what it checks is the surface, the same on every backend; the
# store suites beneath it run on Neo4j as well (tests/conftest.py).
pytestmark = pytest.mark.backends("falkordb")

SDL = (Path(__file__).parents[2] / "schema.graphql").read_text()

LEAKS = re.compile(
    r"Traceback|File \"|\b[A-Z]\w*(Error|Exception)\(|"
    r"\b(KeyError|TypeError|AttributeError|ValueError|IndexError|NameError|RecursionError|"
    r"UnicodeEncodeError|UnicodeDecodeError|OverflowError|ZeroDivisionError|AssertionError|"
    r"ResponseError|ValidationError)\b|errors\.pydantic\.dev|redis\.|site-packages"
)

ID_ARGUMENTS = {"id", "fromId", "toId", "intoId", "oldId", "newId", "memoryId"}
"""Arguments that name a memory: generated values are swapped for real ids at times."""

MUTATIONS = [
    name
    for name in graphql.build_schema(SDL).mutation_type.fields
    # The consistency check writes its report from a background thread, after
    # the response: the graph would change under the fingerprint.
    if name != "runConsistencyCheck"
]

_string_node = st.text(max_size=20).map(lambda s: graphql.StringValueNode(value=s))
SCALARS = {
    "DateTime": st.one_of(
        st.datetimes(timezones=st.just(UTC)).map(
            lambda d: graphql.StringValueNode(value=d.isoformat())
        ),
        _string_node,
        st.integers().map(lambda i: graphql.IntValueNode(value=str(i))),
    ),
    "JSON": _string_node,
}

SENT: Counter[str] = Counter()
OUTCOMES: Counter[str] = Counter()


@pytest.fixture(scope="module", autouse=True)
def report_count() -> Iterator[None]:
    yield
    total = sum(SENT.values())
    detail = ", ".join(f"{kind} {n}" for kind, n in sorted(SENT.items()))
    print(f"\nGraphQL fuzz: {total} requests sent ({detail})")
    print("outcomes: " + ", ".join(f"{kind} {n}" for kind, n in OUTCOMES.most_common()))


def documents(kind: str) -> st.SearchStrategy[graphql.DocumentNode]:
    generate = queries if kind == "query" else mutations
    fields = None if kind == "query" else MUTATIONS

    def build(mode: Mode) -> st.SearchStrategy[graphql.DocumentNode]:
        return generate(
            SDL,
            fields=fields,
            custom_scalars=SCALARS,
            mode=mode,
            # Valid documents without NUL reach past validation more often.
            allow_x00=mode is Mode.NEGATIVE,
            print_ast=lambda doc: doc,
        )

    return st.one_of(build(Mode.POSITIVE), build(Mode.NEGATIVE))


def with_real_ids(document: graphql.DocumentNode, ids: list[str], picks: list[int]) -> str:
    """The document with some memory-id arguments replaced by existing ids, and
    some project arguments by valid projects."""
    picks = list(picks)

    class Swap(graphql.Visitor):
        def enter_argument(self, node: graphql.ArgumentNode, *_: object) -> Any:
            if node.name.value == "projectId" and picks and picks[-1] % 2:
                project = ["default", "p-1"][picks.pop() % 4 // 2]
                return graphql.ArgumentNode(
                    name=node.name, value=graphql.StringValueNode(value=project)
                )
            if node.name.value in ID_ARGUMENTS and picks and ids:
                pick = picks.pop()
                if pick < len(ids):
                    return graphql.ArgumentNode(
                        name=node.name, value=graphql.StringValueNode(value=ids[pick])
                    )
            return None

    return graphql.print_ast(graphql.visit(document, Swap()))


def corrupt(text: str, cut: int, insert: str) -> str:
    """Break a document's text: cut it short somewhere, or splice in junk."""
    at = cut % (len(text) + 1)
    return text[:at] + insert + text[at + len(insert) :]


@pytest.fixture
def seeded(gm: GraphMem) -> list[str]:
    """Memories for generated ids to hit: a candidate, a rule, related ones."""
    ids = gm.remember_many(
        [
            {"content": text, "tags": ["seed"], "source": "auto_extracted", "session_id": "s-1"}
            for text in HOSTILE[:6]
        ]
        + [{"content": "a seeded rule", "memory_type": "rule", "rationale": "seeded"}],
        dedup=False,
    )
    gm.relate(ids[-1], ids[0], "CONSTRAINS", rationale="seeded")
    return ids


def send(
    gql: GraphQLClient,
    fingerprint: Callable[[], Fingerprint],
    kind: str,
    payload: dict[str, Any],
    *,
    raw: str | None = None,
) -> dict[str, Any] | None:
    """Send one request and check every invariant; returns the parsed body."""
    before = fingerprint()
    # Python's encoder, unlike httpx's, lets NaN and lone surrogates through (as
    # ``NaN`` and ``\ud800``), which is what a hostile client sends.
    content = json.dumps(payload) if raw is None else raw
    response = gql.http.post(
        "/graphql", content=content, headers={"content-type": "application/json"}
    )
    SENT[kind] += 1
    text = response.text
    assert response.status_code < 500, (response.status_code, text[:2000])
    assert not LEAKS.search(text), (LEAKS.search(text).group(0), text[:2000])
    try:
        body = response.json()
    except ValueError:
        # Only a body that is no GraphQL request at all may get a plain HTTP refusal.
        assert raw is not None and response.status_code == 400, (response.status_code, text)
        OUTCOMES["HTTP 400"] += 1
        assert fingerprint() == before
        return None
    assert isinstance(body, dict), body
    errors = body.get("errors") or []
    for error in errors:
        code = (error.get("extensions") or {}).get("code")
        assert code, error
        assert code != "INTERNAL", (error, payload)
    data = body.get("data")
    OUTCOMES.update({(error.get("extensions") or {}).get("code") for error in errors})
    if any((data or {}).values()):
        OUTCOMES["data"] += 1
    top_level = all(len(error.get("path") or []) <= 1 for error in errors)
    if errors and top_level and not any((data or {}).values()):
        assert fingerprint() == before, ("a refused request wrote", payload, errors)
    return body


@FUZZ
@given(
    document=documents("mutation"),
    picks=st.lists(st.integers(0, 9), max_size=8),
    damage=st.one_of(st.none(), st.tuples(st.integers(0, 10_000), st.text(max_size=4))),
)
def test_generated_mutations(
    gm: GraphMem, gql: GraphQLClient, graph_fingerprint, seeded, document, picks, damage
):
    text = with_real_ids(document, seeded, picks)
    if damage is not None:
        text = corrupt(text, *damage)
    send(gql, graph_fingerprint, "mutation", {"query": text})


@FUZZ
@given(
    document=documents("query"),
    picks=st.lists(st.integers(0, 9), max_size=8),
    damage=st.one_of(st.none(), st.tuples(st.integers(0, 10_000), st.text(max_size=4))),
)
def test_generated_queries(
    gm: GraphMem, gql: GraphQLClient, graph_fingerprint, seeded, document, picks, damage
):
    text = with_real_ids(document, seeded, picks)
    if damage is not None:
        text = corrupt(text, *damage)
    send(gql, graph_fingerprint, "query", {"query": text})


# -- variables ------------------------------------------------------------------

VARIABLE_DOCUMENTS = {
    "remember": "mutation($input: MemoryInput!, $projectId: ID) {"
    " remember(input: $input, projectId: $projectId) { created memory { id content tags } } }",
    "update": "mutation($id: ID!, $input: MemoryUpdateInput!) {"
    " updateMemory(id: $id, input: $input) { id content tags rationale evidence } }",
    "relate": "mutation($from: ID!, $to: ID!, $type: RelationType!, $rationale: String,"
    " $weight: Float!) { relate(fromId: $from, toId: $to, type: $type,"
    " rationale: $rationale, weight: $weight) { type rationale weight } }",
    "reject": "mutation($id: ID!, $reason: String!) {"
    " rejectCandidate(id: $id, reason: $reason) { id archiveReason } }",
    "session": "mutation($id: ID, $name: String, $max: Int) {"
    " openSession(id: $id, name: $name, maxItems: $max) { id name } }",
    "memories": "query($filter: MemoryFilter, $first: Int!, $after: String) {"
    " memories(filter: $filter, first: $first, after: $after) {"
    " edges { cursor node { id } } pageInfo { endCursor } } }",
    "review": "query($filter: ReviewFilter, $first: Int!, $after: String) {"
    " reviewQueue(filter: $filter, first: $first, after: $after) { edges { cursor } } }",
    "search": "query($q: String!, $limit: Int!, $filters: SearchFilters, $depth: Int!) {"
    " search(query: $q, limit: $limit, filters: $filters, depth: $depth) { hits { score } } }",
    "context": "query($hint: String!, $max: Int!, $w: Float!) {"
    " knowledgeContext(contextHint: $hint, maxResults: $max, recencyWeight: $w) { candidates } }",
}

_json = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=12),
        st.sampled_from(HOSTILE),
    ),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner),
    max_leaves=8,
)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _enum_case(name: str, value: Any) -> Any:
    enums = {"memory_type", "source", "suggested_by", "self_assessment", "tier"}
    return value.upper() if name in enums and isinstance(value, str) else value


memory_input = inputs(MEMORY_FIELDS).map(
    lambda drawn: {_camel(k): _enum_case(k, v) for k, v in drawn.sent().items()}
)

VARIABLES = {
    "remember": st.fixed_dictionaries(
        {"input": st.one_of(memory_input, _json)},
        optional={"projectId": st.one_of(st.just("p-1"), _json)},
    ),
    "update": st.fixed_dictionaries(
        {"id": st.sampled_from(["$0", "$1", "missing"]), "input": st.one_of(memory_input, _json)}
    ),
    "relate": st.fixed_dictionaries(
        {
            "from": st.sampled_from(["$0", "$6", "missing"]),
            "to": st.sampled_from(["$1", "$0"]),
            "type": st.sampled_from(["ENABLES", "SUPERSEDES", "enables", "X"]),
            "rationale": st.one_of(st.none(), st.sampled_from(HOSTILE), _json),
            "weight": st.one_of(st.floats(0, 1), _json),
        }
    ),
    "reject": st.fixed_dictionaries(
        {
            "id": st.sampled_from(["$2", "$6", "missing"]),
            "reason": st.one_of(*map(st.just, HOSTILE), _json),
        }
    ),
    "session": st.fixed_dictionaries(
        {},
        optional={
            "id": st.one_of(st.from_regex(r"\A[a-z0-9]{1,8}\Z"), _json),
            "name": st.one_of(st.sampled_from(HOSTILE), _json),
            "max": _json,
        },
    ),
    "memories": st.fixed_dictionaries(
        {"first": st.one_of(st.integers(-2, 202), _json)},
        optional={"filter": _json, "after": _json},
    ),
    "review": st.fixed_dictionaries(
        {"first": st.one_of(st.integers(-2, 202), _json)},
        optional={"filter": _json, "after": _json},
    ),
    "search": st.fixed_dictionaries(
        {
            "q": st.one_of(st.sampled_from(HOSTILE), _json),
            "limit": st.one_of(st.integers(-1, 101), _json),
            "depth": st.one_of(st.integers(-1, 4), _json),
        },
        optional={"filters": _json},
    ),
    "context": st.fixed_dictionaries(
        {
            "hint": st.one_of(st.sampled_from(HOSTILE), _json),
            "max": st.one_of(st.integers(-1, 51), _json),
            "w": st.one_of(st.floats(-1, 2), _json),
        }
    ),
}


def _resolve(value: Any, ids: list[str]) -> Any:
    """``"$n"`` stands for the n-th seeded memory's id."""
    if isinstance(value, str) and re.fullmatch(r"\$\d", value):
        return ids[int(value[1:])]
    return value


@FUZZ
@given(
    case=st.sampled_from(sorted(VARIABLE_DOCUMENTS)).flatmap(
        lambda name: st.tuples(st.just(name), VARIABLES[name])
    ),
    extra=st.one_of(st.none(), _json),
)
def test_variables(gm: GraphMem, gql: GraphQLClient, graph_fingerprint, seeded, case, extra):
    name, variables = case
    variables = {key: _resolve(value, seeded) for key, value in variables.items()}
    payload: dict[str, Any] = {"query": VARIABLE_DOCUMENTS[name], "variables": variables}
    if extra is not None:
        payload["variables"] = {**variables, "unexpected": extra}
    send(gql, graph_fingerprint, "variables", payload)


@FUZZ
@given(
    body=st.one_of(
        _json.map(json.dumps),
        st.text(max_size=40),
        st.sampled_from(
            [
                '{"query": null}',
                '{"query": 5}',
                '{"query": "{ memories { edges { node { id } } } }", "variables": []}',
                '{"query": "{ memories { edges { node { id } } } }", "variables": "x"}',
                '{"query": "query A { __typename } query B { __typename }"}',
                '{"query": "query A { __typename }", "operationName": "B"}',
                '{"query": "{ memories(first: 1e999) { pageInfo { hasNextPage } } }"}',
                '{"query": "mutation($w: Float!) { relate(fromId: \\"a\\", toId: \\"b\\",'
                ' type: ENABLES, weight: $w) { weight } }", "variables": {"w": NaN}}',
                '{"query": "{ search(query: \\"\\\\u0000\\") { notes } }"}',
                '{"query": "{ search(query: \\"\\\\ud800\\") { notes } }"}',
                '{"query": "{ memory(id: \\"\\\\ud800\\") { id } }"}',
                '{"query": "{ memory(id: \\"a\\\\u0000\\") { id } }"}',
                '{"query": "{ ' + "memories { edges { node { id } } } " * 50 + '}"}',
                '{"query": "' + "{ a " * 200 + "}" * 200 + '"}',
            ]
        ),
    )
)
def test_raw_bodies(gm: GraphMem, gql: GraphQLClient, graph_fingerprint, body):
    send(gql, graph_fingerprint, "raw body", {}, raw=body)
