"""The store adapters: parameters reach the database verbatim."""

from __future__ import annotations

import re
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from graphmem.api import GraphMem
from graphmem.domain.deliveries import hint_digest
from graphmem.domain.errors import InvalidInputError, NotFoundError
from graphmem.domain.ids import new_id
from graphmem.store import Store
from graphmem.store.falkordb import FalkorStore, params_header
from graphmem.store.neo4j import _parameters as neo4j_parameters
from tests.conftest import cypher
from tests.integration.conftest import GraphQLClient

HOSTILE = [
    'quote " inside',
    "single ' quote",
    "back\\slash and trailing \\",
    "`}) MATCH (n) DETACH DELETE n //",
    "CYPHER x=1 RETURN 1",
    "new\nline\ttab\rreturn",
    "unicode é 漢字 😀",
    "$rows",
    '\\"',
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_strings_round_trip_and_change_nothing_else(gm: GraphMem, store: FalkorStore, text):
    bystander = gm.remember({"content": "bystander"})
    memory = gm.remember({"content": text, "tags": [text[:60]], "rationale": text})
    stored = gm.get(memory.id)
    assert (stored.content, stored.rationale, stored.tags) == (
        text.strip(),
        text,
        [text[:60].strip()],
    )
    assert gm.get(bystander.id).content == "bystander"
    assert len(gm.list(first=10).items) == 2


def echoed(store: Store, values: dict[str, Any]) -> list[Any]:
    """``values`` sent the way the store sends parameters (FalkorDB: as the text
    of a ``CYPHER`` header; Neo4j: as Bolt values, embeddings made lists of
    floats), as the database returns them."""
    returned = "RETURN " + ", ".join(f"${name}" for name in values)
    if isinstance(store, FalkorStore):
        return cypher(store, params_header(values) + returned)[0]
    return cypher(store, returned, neo4j_parameters(values))[0]


def test_value_types_round_trip(store: Store):
    values = {
        "i": 42,
        "f": 0.1,
        "tiny": 1.5e-300,
        "t": True,
        "n": None,
        "l": [1, "a", 2.5],
        "m": {"k": "v"},
    }
    row = echoed(store, values)
    assert row == [42, 0.1, 1.5e-300, True, None, [1, "a", 2.5], {"k": "v"}]


def test_an_embedding_is_sent_exactly_at_float32(store: Store):
    vector = array("f", [0.1, -1 / 3, 1e-8, 123456.789, -0.0, 2**-126])
    row = echoed(store, {"v": vector})
    # Each float32 is sent with the digits (FalkorDB) or the float64 (Neo4j)
    # that bring it back exactly.
    assert array("f", row[0]) == vector
    assert params_header({"v": array("f")}).endswith("=[] ")


def test_non_finite_numbers_are_refused():
    with pytest.raises(ValueError, match="NaN"):
        params_header({"x": float("nan")})
    with pytest.raises(ValueError, match="NaN"):
        params_header({"v": array("f", [0.5, float("inf")])})
    with pytest.raises(TypeError):
        params_header({"x": object()})


# -- hostile text in every write path ----------------------------------------------
#
# Each hostile string goes into one string field at a time, through the Python API
# and through GraphQL. A field either stores it verbatim (read back equal) or
# refuses it with INVALID_INPUT naming that field; the rest of the graph stays
# exactly as it was either way.

EVERY_PATH_HOSTILE = [
    *HOSTILE,
    "'",
    '"',
    "`",
    "`}) MATCH (n) DETACH DELETE n //",
    "'}) MATCH (n) DETACH DELETE n //",
    '"}) MATCH (n) DETACH DELETE n RETURN 1 //',
    "$param",
    "{",
    "}",
    "{x: 1}) MERGE (m:Memory {id: 'evil'",
    "RTL \u202eevil\u202c \u05e2\u05d1\u05e8\u05d9\u05ea \u0627\u0644\u0639\u0631\u0628",
    "emoji 👩‍👩‍👧 🇫🇷",
    "combining e\u0301\u0301 a\u0308\u20dd",
    "zero\u200bwidth\ufeff",
    "nul \x00 inside",
    "L" * 3_900 + " `}) MATCH (n) DETACH DELETE n //",
    "ok-id_1.2:3@x",
]

LIMITS = {
    "content": 10_000,
    "rationale": 4_000,
    "evidence": 2_000,
    "tags": 64,
    "reason": 500,
    "name": 200,
    "query": 1_000,
    "context_hint": 1_000,
}
IDENTIFIER = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}")


def allowed(field: str, text: str) -> bool:
    """Whether the documented limits let ``text`` into ``field``."""
    if field in ("session_id", "agent_id", "project_id"):
        return IDENTIFIER.fullmatch(text) is not None
    if field == "tags":  # the tests send a tag's first 64 characters
        text = text[:64]
    minimum = 3 if field == "context_hint" else 1
    return "\x00" not in text and minimum <= len(text.strip()) <= LIMITS[field]


Snapshot = tuple[list[tuple[set[Any], str]], list[tuple[set[Any], str]]]


def snapshot(store: FalkorStore) -> Snapshot:
    """Every node and edge, each with the ids that tie it to a memory, session or
    project; the record of what knowledgeContext gave is counted apart
    (``deliveries``), since a read adds to it by design."""
    nodes = cypher(
        store,
        "MATCH (n) WHERE NOT n:Delivery"
        " RETURN [n.id, n.memory_id, n.project_id], labels(n), properties(n)",
    )
    edges = cypher(
        store,
        "MATCH (a)-[r]->(b) RETURN [a.id, b.id, a.memory_id, b.memory_id, a.project_id],"
        " type(r), a.id, b.id, properties(r)",
    )
    return (
        [(set(keys), repr(rest)) for keys, *rest in nodes],
        [(set(keys), repr(rest)) for keys, *rest in edges],
    )


def deliveries(store: FalkorStore) -> list[str]:
    """The hint digests of the deliveries on record, sorted."""
    return sorted(row[0] for row in cypher(store, "MATCH (d:Delivery) RETURN d.hint_sha256"))


def changed(before: Snapshot, after: Snapshot, touched: set[str]) -> list[str]:
    """What differs between two snapshots outside ``touched``; empty when nothing does."""
    old, new = outside(before, touched), outside(after, touched)
    return [f"- {line}" for part in (0, 1) for line in sorted(set(old[part]) - set(new[part]))] + [
        f"+ {line}" for part in (0, 1) for line in sorted(set(new[part]) - set(old[part]))
    ]


def outside(taken: Snapshot, touched: set[str]) -> tuple[list[str], list[str]]:
    """The snapshot without what a write was aimed at (the memories, sessions or
    projects in ``touched``) and the log entries about them."""
    nodes, edges = taken
    return (
        sorted(text for keys, text in nodes if not keys & touched),
        sorted(text for keys, text in edges if not keys & touched),
    )


def _stripped(text: str) -> str:
    return text.strip()


@dataclass
class Write:
    """One string field of one write path: where the text goes and how to read it back."""

    field: str
    targets: Callable[[str], set[str]]
    """Ids (of memories, sessions, projects) the write may change, given the text."""
    write: Callable[[str], Any]
    read: Callable[[Any], Any]
    expect: Callable[[str], Any] = field(default=_stripped)


def _python_writes(gm: GraphMem) -> list[Write]:
    def carrier(**fields: Any) -> str:
        (memory_id,) = gm.remember_many(
            [{"content": f"carrier {new_id()}", "session_id": "s-1", **fields}], dedup=False
        )
        return memory_id

    first, second, updated = carrier(), carrier(), carrier()
    candidate = carrier(source="auto_extracted")
    bulk = carrier(source="auto_extracted", tags=["bulk-carrier"])
    made: list[str] = []

    def remember(**fields: Any) -> str:
        made.append(carrier(**fields))
        return made[-1]

    def new(text: str) -> set[str]:
        return set(made[-1:]) | {text}

    def get(memory_id: str) -> Any:
        return gm.get(memory_id)

    def relation(rel: Any) -> Any:
        return next(r for r in gm.relations([rel.from_id])[0] if r.to_id == rel.to_id).rationale

    def verbatim(text: str) -> str:
        return text

    def one(text: str, limit: int | None = None) -> list[str]:
        return [text[:limit].strip()]

    return [
        Write("content", new, lambda t: remember(content=t), lambda i: get(i).content),
        Write(
            "tags",
            new,
            lambda t: remember(tags=[t[:64]]),
            lambda i: get(i).tags,
            lambda t: one(t, 64),
        ),
        Write("rationale", new, lambda t: remember(rationale=t), lambda i: get(i).rationale),
        Write("evidence", new, lambda t: remember(evidence=[t]), lambda i: get(i).evidence, one),
        Write("agent_id", new, lambda t: remember(agent_id=t), lambda i: get(i).agent_id),
        Write("session_id", new, lambda t: remember(session_id=t), lambda i: get(i).session_id),
        Write(
            "content",
            lambda _: {updated},
            lambda t: gm.update(updated, {"content": t}),
            lambda m: get(m.id).content,
        ),
        Write(
            "tags",
            lambda _: {updated},
            lambda t: gm.update(updated, {"tags": [t[:64]]}),
            lambda m: get(m.id).tags,
            lambda t: one(t, 64),
        ),
        Write(
            "rationale",
            lambda _: {updated},
            lambda t: gm.update(updated, {"rationale": t}),
            lambda m: get(m.id).rationale,
        ),
        Write(
            "evidence",
            lambda _: {updated},
            lambda t: gm.update(updated, {"evidence": [t]}),
            lambda m: get(m.id).evidence,
            one,
        ),
        Write(
            "rationale",
            lambda _: {first, second},
            lambda t: gm.relate(first, second, "RELATED_TO", rationale=t),
            relation,
            verbatim,
        ),
        Write(
            "rationale",
            lambda _: {first, second},
            lambda t: gm.supersede(first, second, rationale=t),
            relation,
            verbatim,
        ),
        Write(
            "reason",
            lambda _: {candidate},
            lambda t: gm.reject(candidate, t),
            lambda m: get(m.id).archive_reason,
            lambda t: f"rejected: {t.strip()}",
        ),
        Write(
            "reason",
            lambda _: {bulk},
            lambda t: gm.bulk_review({"tags": ["bulk-carrier"]}, "reject", reason=t, dry_run=False),
            lambda _: get(bulk).archive_reason,
            lambda t: f"rejected: {t.strip()}",
        ),
        Write(
            "session_id",
            lambda t: {t},
            lambda t: gm.open_session(t),
            lambda s: gm.get_session(s.id).id,
            verbatim,
        ),
        Write(
            "name",
            lambda _: {"s-2"},
            lambda t: gm.open_session("s-2", name=t),
            lambda s: gm.get_session("s-2").name,
            verbatim,
        ),
        Write(
            "project_id",
            lambda t: {t},
            lambda t: gm.remember({"content": "elsewhere"}, project_id=t),
            lambda m: gm.get(m.id, project_id=m.project_id).project_id,
            verbatim,
        ),
    ]


def _settle(gm: GraphMem) -> None:
    """Bystanders the hostile writes must leave alone."""
    ids = gm.remember_many(
        [
            {"content": "bystander one", "tags": ["b"], "session_id": "s-1", "rationale": "r"},
            {"content": "bystander two", "evidence": ["e"], "session_id": "s-1"},
        ],
        dedup=False,
    )
    gm.relate(ids[0], ids[1], "ENABLES", rationale="bystander edge")
    gm.open_session("s-2", name="bystander session")


@pytest.mark.parametrize("text", EVERY_PATH_HOSTILE, ids=range(len(EVERY_PATH_HOSTILE)))
def test_hostile_text_in_every_python_write_path(gm: GraphMem, store: FalkorStore, text: str):
    _settle(gm)
    for write in _python_writes(gm):
        before = snapshot(store)
        valid = allowed(write.field, text)
        try:
            result = write.write(text)
        except InvalidInputError as exc:
            assert not valid, (write.field, exc.message)
            assert exc.field.split(".")[0] == write.field, exc.message
            assert exc.message.startswith(f"{exc.field}:"), exc.message
            assert snapshot(store) == before, f"refused {write.field} wrote"
            continue
        assert valid, f"{write.field} accepted {text[:40]!r}"
        assert write.read(result) == write.expect(text), write.field
        assert not changed(before, snapshot(store), write.targets(text)), write.field
    # Reads take the same text as data and change nothing but the record of
    # the context given.
    everything, given = snapshot(store), deliveries(store)
    for name, text_in, read in (
        ("query", text, lambda: gm.search(text, mode="FULLTEXT")),
        ("tags", text[:64], lambda: gm.search("carrier", filters={"tags": [text[:64]]})),
        ("context_hint", text, lambda: gm.knowledge_context(text, record_access=False)),
    ):
        try:
            read()
        except InvalidInputError as exc:
            assert not allowed(name, text_in), exc.message
            assert name in exc.field, exc.message
        else:
            assert allowed(name, text_in), name
    assert snapshot(store) == everything
    assert deliveries(store) == sorted(given + [hint_digest(text)] * allowed("context_hint", text))
    for lookup in (gm.get, lambda t: gm.update(t, {"content": "x"}), gm.forget):
        with pytest.raises((NotFoundError, InvalidInputError)):
            lookup(text)
    assert snapshot(store) == everything


def _graphql_writes(gm: GraphMem) -> list[tuple[Write, str]]:
    """The same fields through GraphQL: each write sends a document with the text
    in one variable; ``read`` gets the response's data."""
    (first, second, updated, candidate, bulk) = gm.remember_many(
        [
            {"content": f"carrier {n}", "session_id": "s-1", "source": source, "tags": tags}
            for n, source, tags in [
                (1, "agent", []),
                (2, "agent", []),
                (3, "agent", []),
                (4, "auto_extracted", []),
                (5, "auto_extracted", ["bulk-carrier"]),
            ]
        ],
        dedup=False,
    )
    remember = (
        "mutation($input: MemoryInput!, $project: ID) {"
        " remember(input: $input, projectId: $project) { memory { id } } }"
    )
    update = (
        "mutation($id: ID!, $input: MemoryUpdateInput!) { updateMemory(id: $id, input: $input)"
        " { id } }"
    )
    made: list[str] = []

    def memory(data: dict[str, Any]) -> Any:
        made.append(data["remember"]["memory"]["id"])
        return gm.get(made[-1])

    def new(text: str) -> set[str]:
        return set(made[-1:]) | {text}

    def created(**fields: Any) -> Callable[[str], tuple[str, dict[str, Any]]]:
        def variables(text: str) -> tuple[str, dict[str, Any]]:
            values = {k: v(text) if callable(v) else v for k, v in fields.items()}
            carrier = {"content": f"carrier {new_id()}", "sessionId": "s-1"}
            return remember, {"input": {**carrier, **values}}

        return variables

    def changed(**fields: Any) -> Callable[[str], tuple[str, dict[str, Any]]]:
        def variables(text: str) -> tuple[str, dict[str, Any]]:
            values = {k: v(text) if callable(v) else v for k, v in fields.items()}
            return update, {"id": updated, "input": values}

        return variables

    def relation(data: dict[str, Any]) -> Any:
        rel = next(iter(data.values()))
        return next(r for r in gm.relations([rel["fromId"]])[0] if r.to_id == rel["toId"]).rationale

    def verbatim(text: str) -> str:
        return text

    def one(text: str, limit: int | None = None) -> list[str]:
        return [text[:limit].strip()]

    def tag(text: str) -> list[str]:
        return [text[:64]]

    def get(memory_id: str) -> Any:
        return gm.get(memory_id)

    def elsewhere(text: str) -> tuple[str, dict[str, Any]]:
        return remember, {"input": {"content": "elsewhere", "sessionId": "s-1"}, "project": text}

    def in_project(data: dict[str, Any]) -> str:
        return data["remember"]["memory"]["id"]

    return [
        (Write("content", new, created(content=verbatim), lambda d: memory(d).content), ""),
        (Write("tags", new, created(tags=tag), lambda d: memory(d).tags, lambda t: one(t, 64)), ""),
        (Write("rationale", new, created(rationale=verbatim), lambda d: memory(d).rationale), ""),
        (
            Write(
                "evidence", new, created(evidence=lambda t: [t]), lambda d: memory(d).evidence, one
            ),
            "",
        ),
        (Write("agent_id", new, created(agentId=verbatim), lambda d: memory(d).agent_id), ""),
        (Write("session_id", new, created(sessionId=verbatim), lambda d: memory(d).session_id), ""),
        (
            Write(
                "content",
                lambda _: {updated},
                changed(content=verbatim),
                lambda _: get(updated).content,
            ),
            "",
        ),
        (
            Write(
                "tags",
                lambda _: {updated},
                changed(tags=tag),
                lambda _: get(updated).tags,
                lambda t: one(t, 64),
            ),
            "",
        ),
        (
            Write(
                "rationale",
                lambda _: {updated},
                changed(rationale=verbatim),
                lambda _: get(updated).rationale,
            ),
            "",
        ),
        (
            Write(
                "evidence",
                lambda _: {updated},
                changed(evidence=lambda t: [t]),
                lambda _: get(updated).evidence,
                one,
            ),
            "",
        ),
        (
            Write(
                "rationale",
                lambda _: {first, second},
                lambda t: (
                    "mutation($f: ID!, $t: ID!, $r: String) { relate(fromId: $f, toId: $t,"
                    " type: RELATED_TO, rationale: $r) { fromId toId } }",
                    {"f": first, "t": second, "r": t},
                ),
                relation,
                verbatim,
            ),
            "",
        ),
        (
            Write(
                "rationale",
                lambda _: {first, second},
                lambda t: (
                    "mutation($o: ID!, $n: ID!, $r: String) { supersede(oldId: $o,"
                    " newId: $n, rationale: $r) { fromId toId } }",
                    {"o": second, "n": first, "r": t},
                ),
                relation,
                verbatim,
            ),
            "",
        ),
        (
            Write(
                "reason",
                lambda _: {candidate},
                lambda t: (
                    "mutation($id: ID!, $r: String!) { rejectCandidate(id: $id,"
                    " reason: $r) { id } }",
                    {"id": candidate, "r": t},
                ),
                lambda _: get(candidate).archive_reason,
                lambda t: f"rejected: {t.strip()}",
            ),
            "",
        ),
        (
            Write(
                "reason",
                lambda _: {bulk},
                lambda t: (
                    "mutation($r: String) { bulkReview(action: REJECT, filter: {tags:"
                    ' ["bulk-carrier"]}, reason: $r, dryRun: false) { applied } }',
                    {"r": t},
                ),
                lambda _: get(bulk).archive_reason,
                lambda t: f"rejected: {t.strip()}",
            ),
            "",
        ),
        (
            Write(
                "session_id",
                lambda t: {t},
                lambda t: ("mutation($id: ID) { openSession(id: $id) { id } }", {"id": t}),
                lambda d: gm.get_session(d["openSession"]["id"]).id,
                verbatim,
            ),
            "id",
        ),
        (
            Write(
                "name",
                lambda _: {"s-2"},
                lambda t: (
                    'mutation($n: String) { openSession(id: "s-2", name: $n) { id } }',
                    {"n": t},
                ),
                lambda _: gm.get_session("s-2").name,
                verbatim,
            ),
            "",
        ),
        (
            Write(
                "project_id",
                lambda t: {t},
                elsewhere,
                lambda d: gm.get(in_project(d), project_id=gm_project(gm, in_project(d))).content,
                lambda _: "elsewhere",
            ),
            "projectId",
        ),
    ]


def gm_project(gm: GraphMem, memory_id: str) -> str:
    """The project a memory was written to (read raw: the API only looks inside one)."""
    (row,) = cypher(gm.store, "MATCH (m:Memory {id: $id}) RETURN m.project_id", {"id": memory_id})
    return row[0]


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


@pytest.mark.parametrize("text", EVERY_PATH_HOSTILE, ids=range(len(EVERY_PATH_HOSTILE)))
def test_hostile_text_in_every_graphql_write_path(
    gm: GraphMem, store: FalkorStore, gql: GraphQLClient, text: str
):
    _settle(gm)
    for write, argument in _graphql_writes(gm):
        before = snapshot(store)
        document, variables = write.write(text)
        body = gql.execute(document, variables)
        if body.get("errors"):
            (error,) = body["errors"]
            assert not allowed(write.field, text), (write.field, error)
            assert error["extensions"]["code"] == "INVALID_INPUT", error
            field = error["extensions"]["field"]
            assert (argument or _camel(write.field)) in field, (write.field, error)
            assert error["message"].startswith(f"{field}:"), error
            assert snapshot(store) == before, f"refused {write.field} wrote"
            continue
        assert allowed(write.field, text), f"{write.field} accepted {text[:40]!r}"
        assert write.read(body["data"]) == write.expect(text), write.field
        assert not changed(before, snapshot(store), write.targets(text)), write.field
    everything, given = snapshot(store), deliveries(store)
    for name, text_in, document in (
        ("query", text, "query($t: String!) { search(query: $t) { hits { score } } }"),
        (
            "tags",
            text[:64],
            'query($t: String!) { search(query: "carrier", filters: {tags: [$t]})'
            " { hits { score } } }",
        ),
        (
            "context_hint",
            text,
            "query($t: String!) { knowledgeContext(contextHint: $t, recordAccess: false)"
            " { candidates } }",
        ),
        ("id", text, "query($t: ID!) { memory(id: $t) { id } }"),
    ):
        body = gql.execute(document, {"t": text_in})
        if name == "id":
            assert body.get("data", {}).get("memory") is None, body
        if body.get("errors"):
            (error,) = body["errors"]
            assert error["extensions"]["code"] == "INVALID_INPUT", error
            assert name == "id" or not allowed(name, text_in), error
        else:
            assert name == "id" or allowed(name, text_in), name
    assert snapshot(store) == everything
    assert deliveries(store) == sorted(given + [hint_digest(text)] * allowed("context_hint", text))
