"""Agents of one project, each with private memories, and one agent probing the
other's every way the API allows: every query and mutation of the schema over
real HTTP (generated from it, every search mode, with and without an agent view
asked for), every MCP tool (generated from its input schema), a subscription,
with the other agent's private ids guessed.

A probe leaks when the answer holds the other agent's private words or ids, or
when a private id is answered differently from an id that does not exist. The
shared memories are the control: the same probes must find them.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from graphql import GraphQLObjectType
from mcp import ClientSession

from graphmem.api import GraphMem
from graphmem.domain.auth import Role
from graphmem.domain.clock import ManualClock
from graphmem.domain.kinds import RelationType
from graphmem.graphql.app import create_app
from graphmem.graphql.schema import schema
from graphmem.mcp.http import MCP_PATH, create_http_app
from graphmem.services.events import Topic
from graphmem.settings import Settings
from tests.integration.conftest import serve
from tests.integration.test_mcp import over_http
from tests.integration.test_subscriptions import open_socket, wait_subscribed
from tests.security.test_isolation import MISSING, _masked, _required, render, values

PROJECT = "default"
ELSEWHERE = "elsewhere"
"""Another project the probing agent may write in: copies would land there."""
SECRET = "zebrafinch"
"""A word only the private memories of agent ana hold."""
COMMON = "deployment"
"""A word every memory holds, so searches find the shared ones."""
HIDDEN = "s-ana"
"""A session of ana's private memories alone: for ben it does not exist."""
OMIT = object()
"""An optional argument left out of one probe and given in the next."""
OPTIONAL = {"memoryId": "memory", "agentId": "agent", "mode": None}
"""Optional arguments probed too: a memory filter, the one-agent view, the search mode."""
AS_OF = {**OPTIONAL, "asOf": "at"}
"""The same, and every field that reads the past both now and as of a time."""
ENDING = {"forget", "supersede", "mergeMemories", "merge_memories", "rejectCandidate"}
ENDING |= {"reject_candidate", "bulkReview", "bulk_review"}
"""Writes that end the memory they are given: probed last, so every other field
reads it as populated."""


def populate(gm: GraphMem, clock: ManualClock) -> dict[str, list[str]]:
    """Two agents writing turn by turn: private and shared memories, relations
    across them, candidates, sharing, relation and promotion history."""
    ana, ben = gm.as_agent("ana"), gm.as_agent("ben")
    ids: dict[str, list[str]] = {"ana": [], "ana_shared": [], "ben": [], "ben_shared": []}
    gm.open_session("s-team")
    topics = [
        "the staging database is wiped every sunday night",
        "release builds must be signed with the hardware key",
        "the payment service retries twice before failing over",
        "log files rotate at one gigabyte and are kept a week",
        "the mobile app reads feature flags at start only",
    ]
    for i, topic in enumerate(topics):
        for name, view in (("ana", ana), ("ben", ben)):
            word = SECRET if name == "ana" else "heron"
            shared_topic = topics[(i + 2) % len(topics)] if name == "ben" else topic
            private = view.remember(
                {
                    "content": f"{COMMON} note of {name} ({word}): {topic}",
                    "visibility": "private",
                    "session_id": "s-team",
                    "source": "auto_extracted" if i % 2 else "agent",
                    "tags": [COMMON, name],
                }
            )
            shared = view.remember(
                {
                    "content": f"{COMMON} rule everyone follows, from {name}: {shared_topic}",
                    "visibility": "shared",
                    "session_id": "s-team",
                    "tags": [COMMON],
                }
            )
            ids[name].append(private.id)
            ids[f"{name}_shared"].append(shared.id)
            clock.advance(60)
    first, second, third, fourth, _ = ids["ana"]
    ana.relate(first, ids["ana_shared"][0], RelationType.CONSTRAINS)
    ana.relate(ids["ana_shared"][0], ids["ben_shared"][0], RelationType.RELATED_TO)
    ana.relate(second, third, RelationType.RELATED_TO)
    ana.relate(first, fourth, RelationType.ENABLES)
    ana.unrelate(first, fourth, RelationType.ENABLES, reason="not so", removed_by="ana")
    ana.share(fourth)
    ana.unshare(fourth)
    ana.remember({"content": f"{COMMON} note of ana ({SECRET}): {topics[1]}"})  # a merge
    ana.record_failure(
        {"error": "TimeoutError: upload stalled", "context_memory_ids": [first, second]}
    )
    gm.run_promotion("s-team")  # promotion events for every memory of the session
    ids["ana_more"] = _names_of_private_memories(gm, ana, ben, ids)
    # Shared memories whose records name ana's private ones: superseded by one,
    # merged into one (archived, its reason and archival log naming it), the
    # survivor of a merge of one.
    ids["naming"] = ids["ana_shared"][:3]
    return ids


def _names_of_private_memories(
    gm: GraphMem, ana: GraphMem, ben: GraphMem, ids: dict[str, list[str]]
) -> list[str]:
    """Shared records that name ana's private work: a shared memory superseded by
    a private one, one merged into a private one, a private one merged into a
    shared one (the survivor's staging log names it), a shared copy of a private
    one, a private lesson of the words of ben's shared lesson, and a session of
    ana's private memories alone (its name holds the private word). Returns the
    private ids so made."""
    private = {"visibility": "private", "session_id": "s-team", "tags": [COMMON]}
    newer = ana.remember({"content": f"{COMMON} {SECRET} replaces the sunday wipe", **private})
    ana.supersede(ids["ana_shared"][0], newer.id)
    kept = ana.remember({"content": f"{COMMON} {SECRET} keeps the signing rule", **private})
    ana.merge_memories(kept.id, ids["ana_shared"][1])
    folded = ana.remember({"content": f"{COMMON} {SECRET} note folded into a rule", **private})
    ana.merge_memories(ids["ana_shared"][2], folded.id)
    source = ana.remember({"content": f"{COMMON} {SECRET} copied note", **private})
    ana.share(ana.copy_memory(source.id, ELSEWHERE).id, project_id=ELSEWHERE)
    failure = {"error": "OSError: the release disk is full", "session_id": "s-team"}
    ben.record_failure({**failure, "visibility": "shared"})
    lesson = ana.record_failure({**failure, "visibility": "private"}).lesson_id
    ana.open_session(HIDDEN, name=f"{SECRET} plans")
    alone = ana.remember({"content": f"{COMMON} {SECRET} alone", **private, "session_id": HIDDEN})
    gm.run_promotion(HIDDEN)
    return [newer.id, kept.id, folded.id, source.id, alone.id, *([lesson] if lesson else [])]


@pytest.fixture
def team(egm: GraphMem, clock: ManualClock) -> Iterator[dict[str, Any]]:
    ids = populate(egm, clock)
    _, ben = egm.keys.create("ben", [PROJECT, ELSEWHERE], Role.ADMIN, agent_id="ben")
    _, ana = egm.keys.create("ana", [PROJECT], Role.WRITE, agent_id="ana")
    _, admin = egm.keys.create("admin", [PROJECT], Role.ADMIN)
    settings = Settings.model_validate(dict(auth="required", rate_limit=0))
    yield {"ids": ids, "ben": ben, "ana": ana, "admin": admin, "settings": settings}


def private_state(gm: GraphMem, ids: list[str]) -> str:
    """Ana's private memories as stored, and whatever was copied from them."""
    copies = [
        m.copied_from
        for m in gm.list(first=200, project_id=ELSEWHERE).items
        if m.copied_from in ids
    ]
    memories = [m.model_dump(mode="json") if m else None for m in gm.get_many(ids)]
    session = [s.model_dump(mode="json") if s else None for s in gm.get_sessions([HIDDEN])]
    held = [m.id for m in gm.list(first=200, filter={"session_id": HIDDEN}).items]
    stats = gm.promotion_stats(HIDDEN).model_dump(mode="json")
    return json.dumps([memories, copies, session, held, stats], sort_keys=True)


class Probes:
    """Counts probes and collects the leaks found, so one run reports them all."""

    def __init__(self, private_ids: set[str]) -> None:
        self.private = private_ids
        self.count = 0
        self.leaks: list[tuple[str, Any]] = []

    def kinds(self) -> list[str]:
        """What leaked, each kind once (the fields and what they named)."""
        return sorted({name for name, _ in self.leaks})

    def check(self, name: str, answer: Any, data: Any, blank: Any | None, compare: bool) -> None:
        """``data``: the part of ``answer`` that is not an error (which may repeat
        the id the caller sent)."""
        self.count += 1
        if SECRET in json.dumps(answer):
            self.leaks.append((f"{name}: the private word", answer))
        if self.private & set(re.findall(r"[0-9a-f]{16,}", json.dumps(data))):
            self.leaks.append((f"{name}: a private id", answer))
        if compare and _masked(answer, self.private) != _masked(blank, {MISSING}):
            self.leaks.append((f"{name}: a private id answered unlike a missing one", answer))


def documents(
    operation: str,
    root: GraphQLObjectType,
    guesses: dict[str, str],
    optional: dict[str, str | None] = OPTIONAL,
) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Every field of ``root``, with every enum value and each ``optional``
    argument both left out and given: ids guessed, the other agent's view asked
    for (``AS_OF``: a past time too)."""
    for name, field in root.fields.items():
        probed = {n: a for n, a in field.args.items() if _required(a) or n in optional}
        choices = []
        for arg_name, argument in probed.items():
            if arg_name == "toProjectId":
                choices.append([ELSEWHERE])
            elif arg_name in optional and not _required(argument):
                guess = optional[arg_name]
                given = [guesses[guess]] if guess else values(argument.type, arg_name, guesses)
                choices.append([OMIT, *given])
            else:
                choices.append(values(argument.type, arg_name, guesses))
        for combo in itertools.product(*choices):
            variables = {n: v for n, v in zip(probed, combo, strict=True) if v is not OMIT}
            yield name, render(operation, name, field, variables), variables


@pytest.mark.slow
def test_no_graphql_probe_reaches_another_agents_private_memories(
    egm: GraphMem, team: dict[str, Any], clock: ManualClock
) -> None:
    ids = team["ids"]
    now = datetime.fromtimestamp(clock.now(), UTC).isoformat()
    private = set(ids["ana"]) | set(ids["ana_more"])
    before = private_state(egm, ids["ana"] + ids["ana_more"])
    probes = Probes(private)
    with serve(create_app(egm, team["settings"])) as http:
        # The control: the owner finds her private memory, the other agent the shared ones.
        found = _search(http, team["ana"], f"{COMMON} {SECRET}")
        assert private & found
        found = _search(http, team["ben"], f"{COMMON} rule everyone follows")
        assert set(ids["ana_shared"]) & found and not private & found
        http.headers["Authorization"] = f"Bearer {team['ben']}"
        for operation, root in (
            ("query", schema._schema.query_type),
            ("mutation", schema._schema.mutation_type),
        ):
            own = ids["ben"][1]
            text = f"{COMMON} {SECRET}" if operation == "query" else f"{COMMON} probe"
            for guessed_id in ids["ana"]:
                guessed = {"memory": guessed_id, "session": "s-team", "own": own}
                missing = {"memory": MISSING, "session": "s-team", "own": own}
                for guesses in (guessed, missing):
                    guesses.update(text=text, agent="ana")
                for (name, document, variables), (_, _, blank_variables) in zip(
                    documents(operation, root, guessed),
                    documents(operation, root, missing),
                    strict=True,
                ):
                    answer = _post(http, document, variables)
                    uses_guess = guessed_id in variables.values()
                    compare = uses_guess and ("errors" in answer or operation == "query")
                    blank = _post(http, document, blank_variables) if compare else None
                    probes.check(name, answer, answer.get("data"), blank, compare)
        _probe_the_hidden_session(http, probes, ids["ben"][1])
        _probe_what_names_private_memories(http, probes, ids["naming"], ids["ben"][1], now)
    assert private_state(egm, ids["ana"] + ids["ana_more"]) == before
    print(
        f"agent isolation: {probes.count} GraphQL probes, {len(probes.leaks)} leaks", probes.kinds()
    )
    assert not probes.leaks, probes.leaks[:3]
    assert probes.count > 300


WRITES_INTO_A_SESSION = {
    "openSession": ("ID", None),
    "remember": ("MemoryInput", {"content": f"{COMMON} probe"}),
    "rememberMany": ("[MemoryInput!]", {"content": f"{COMMON} probe"}),
    "recordFailure": ("FailureReportInput", {"error": "OSError: probe"}),
}
"""Writes whose input may name a session, probed with the hidden one."""


def _probe_the_hidden_session(http: httpx.Client, probes: Probes, own: str) -> None:
    """Every field taking a session id, with ana's hidden session: reads find
    nothing, writes (the ones above too) are NOT_FOUND; nothing says its name."""
    guesses = {"memory": own, "session": HIDDEN, "own": own, "text": COMMON, "agent": "ana"}
    # Fields of sessions take the session's id as `id` (session, openSession, ...).
    as_id = {**guesses, "memory": HIDDEN}
    for operation, root in (
        ("query", schema._schema.query_type),
        ("mutation", schema._schema.mutation_type),
    ):
        probed = itertools.chain(
            documents(operation, root, guesses),
            (d for d in documents(operation, root, as_id) if "ession" in d[0]),
        )
        for name, document, variables in probed:
            if HIDDEN not in json.dumps(variables):
                continue
            answer = _post(http, document, variables)
            probes.check(name, answer, answer.get("data"), None, False)
            if operation == "mutation" and "errors" not in answer:
                probes.leaks.append((f"{name}: wrote into the hidden session", answer))
    for name, (kind, fields) in WRITES_INTO_A_SESSION.items():
        if fields is None:  # the session's own id
            value: Any = HIDDEN
            document = f'mutation($v: {kind}!) {{ {name}(id: $v, name: "probe") {{ id name }} }}'
        else:
            value = {**fields, "sessionId": HIDDEN}
            value = [value] if kind.startswith("[") else value
            document = f"mutation($v: {kind}!) {{ {name}(input: $v) {{ __typename }} }}"
        answer = _post(http, document, {"v": value})
        probes.check(name, answer, answer.get("data"), None, False)
        codes = [e.get("extensions", {}).get("code") for e in answer.get("errors", [])]
        if codes != ["NOT_FOUND"]:
            probes.leaks.append((f"{name}: into the hidden session", answer))


def _probe_what_names_private_memories(
    http: httpx.Client, probes: Probes, naming: list[str], own: str, now: str
) -> None:
    """Every query and mutation of the schema given the shared memories whose
    records name private ones, now and as of ``now`` (the memory as its history
    rebuilds it, with the archival log's ``other_id`` and reason): each answer
    names no private memory."""
    probed = []
    for memory_id in naming:
        guesses = {"memory": memory_id, "session": "s-team", "own": own, "agent": "ana", "at": now}
        for operation, root, text in (
            ("query", schema._schema.query_type, f"{COMMON} {SECRET}"),
            ("mutation", schema._schema.mutation_type, f"{COMMON} probe"),
        ):
            found = documents(operation, root, {**guesses, "text": text}, AS_OF)
            probed += [
                (operation == "mutation", name in ENDING, name, d, v) for name, d, v in found
            ]
    # Reads first, then writes, the ones ending a memory last (sorted is stable).
    for _, _, name, document, variables in sorted(probed, key=lambda p: p[:2]):
        answer = _post(http, document, variables)
        probes.check(name, answer, answer, None, False)  # no id sent is private


def _post(http: httpx.Client, document: str, variables: dict[str, Any]) -> dict[str, Any]:
    body: dict[str, Any] = http.post(
        "/graphql", json={"query": document, "variables": variables}
    ).json()
    return body


def _search(http: httpx.Client, key: str, query: str) -> set[str]:
    document = "query($q: String!) { search(query: $q, limit: 50) { hits { memory { id } } } }"
    body = http.post(
        "/graphql",
        json={"query": document, "variables": {"q": query}},
        headers={"Authorization": f"Bearer {key}"},
    ).json()
    return {hit["memory"]["id"] for hit in body["data"]["search"]["hits"]}


@pytest.mark.slow
def test_no_mcp_probe_reaches_another_agents_private_memories(
    egm: GraphMem, team: dict[str, Any], clock: ManualClock
) -> None:
    ids = team["ids"]
    now = datetime.fromtimestamp(clock.now(), UTC).isoformat()
    private = set(ids["ana"]) | set(ids["ana_more"])
    before = private_state(egm, ids["ana"])
    probes = Probes(private)
    controls: list[set[str]] = []

    async def scenario(session: ClientSession) -> None:
        found = await session.call_tool("search", {"query": f"{COMMON} rule everyone follows"})
        controls.append({h["memory"]["id"] for h in (found.structured_content or {})["hits"]})
        other_view = await session.call_tool("search", {"query": COMMON, "agent_id": "ana"})
        assert other_view.is_error
        error = (other_view.structured_content or {})["error"]
        assert (error["code"], error["field"]) == ("FORBIDDEN", "agent_id")
        for tool in (await session.list_tools()).tools:
            reads = bool(tool.annotations and tool.annotations.read_only_hint)
            # Reads look for the private word; writes must not plant it.
            text = f"{COMMON} {SECRET}" if reads else f"{COMMON} probe"
            for guessed_id in ids["ana"]:
                own = ids["ben"][1]
                probed = _tool_probes(tool.input_schema, guessed_id, own, text, now)
                for arguments, blank in probed:
                    answer = await session.call_tool(tool.name, arguments)
                    result = {"error": answer.is_error, "content": answer.structured_content}
                    data = None if answer.is_error else answer.structured_content
                    compare = guessed_id in json.dumps(arguments)
                    missing = None
                    if compare:
                        other = await session.call_tool(tool.name, blank)
                        missing = {"error": other.is_error, "content": other.structured_content}
                    probes.check(tool.name, result, data, missing, compare)
        await _call_on_what_names_private_memories(session, probes, ids, now)

    with serve(create_http_app(egm, team["settings"])) as http:
        over_http(f"{http.base_url}".rstrip("/") + MCP_PATH, scenario, key=team["ben"])
    assert set(ids["ana_shared"]) & controls[0]
    assert private_state(egm, ids["ana"]) == before
    print(f"agent isolation: {probes.count} MCP probes, {len(probes.leaks)} leaks", probes.kinds())
    assert not probes.leaks, probes.leaks[:3]
    assert probes.count > 100


async def _call_on_what_names_private_memories(
    session: ClientSession, probes: Probes, ids: dict[str, list[str]], now: str
) -> None:
    """Every tool given the shared memories whose records name private ones
    (with and without ``as_of``), the tools ending a memory last: no answer
    names a private memory."""
    tools = sorted((await session.list_tools()).tools, key=lambda t: t.name in ENDING)
    for tool in tools:
        reads = bool(tool.annotations and tool.annotations.read_only_hint)
        text = f"{COMMON} {SECRET}" if reads else f"{COMMON} probe"
        for named in ids["naming"]:
            for arguments, _ in _tool_probes(tool.input_schema, named, ids["ben"][1], text, now):
                answer = await session.call_tool(tool.name, arguments)
                result = {"error": answer.is_error, "content": answer.structured_content}
                probes.check(tool.name, result, result, None, False)  # no id sent is private


def _tool_probes(
    spec: dict[str, Any], guessed: str, own: str, text: str, now: str
) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """A tool's required arguments, with each id argument guessed in turn (the
    others the caller's own), beside the same call with a missing id. A list of
    ids holds the caller's own and the guessed (or missing) one. A tool taking
    ``as_of`` is probed with it left out and at ``now`` (the store's history)."""
    properties: dict[str, Any] = spec["properties"]
    wanted = [n for n in properties if n in spec.get("required", []) or n == "memory_id"]
    id_names = [n for n in wanted if n == "id" or (n.endswith("_id") and n != "to_project_id")]
    id_lists = [n for n in wanted if n == "ids" or n.endswith("_ids")]
    defs = spec.get("$defs", {})
    base = {
        n: _tool_value(n, properties[n], defs, text)
        for n in wanted
        if n not in id_names and n not in id_lists
    }
    modes = _enum(properties["mode"], defs) if "mode" in properties else [None]
    times = [None, now] if "as_of" in properties else [None]
    for name, mode, as_of in itertools.product([*id_names, *id_lists] or [None], modes, times):
        arguments = {**base, **{n: own for n in id_names}, **{n: [own] for n in id_lists}}
        if mode is not None:
            arguments["mode"] = mode
        if as_of is not None:
            arguments["as_of"] = as_of
        blank = dict(arguments)
        if name in id_lists:
            arguments[name], blank[name] = [own, guessed], [own, MISSING]
        elif name is not None:
            arguments[name], blank[name] = guessed, MISSING
        yield arguments, blank


def _enum(spec: dict[str, Any], defs: dict[str, Any]) -> list[Any]:
    """Every value an enum argument takes (every search mode)."""
    for option in spec.get("anyOf", [spec]):
        resolved = defs[option["$ref"].rsplit("/", 1)[-1]] if "$ref" in option else option
        if "enum" in resolved:
            return list(resolved["enum"])
    return [None]


def _tool_value(name: str, spec: dict[str, Any], defs: dict[str, Any], text: str) -> Any:
    if name == "to_project_id":
        return ELSEWHERE
    options = [
        defs[option["$ref"].rsplit("/", 1)[-1]] if "$ref" in option else option
        for option in spec.get("anyOf", [spec])
    ]
    kinds = {option.get("type") for option in options}
    for option in options:
        if "enum" in option:
            return option["enum"][0]
    if "array" in kinds:
        return []
    if "integer" in kinds:
        return max(1, spec.get("minimum", 1))
    if "number" in kinds:
        return 0.5
    if "boolean" in kinds:
        return False
    return text


def test_a_subscription_hears_of_shared_memories_only(egm: GraphMem, team: dict[str, Any]) -> None:
    ana = egm.as_agent("ana")
    with serve(create_app(egm, team["settings"])) as http, open_socket(http) as sock:
        assert sock.init({"authorization": f"Bearer {team['ben']}"}) == {"type": "connection_ack"}
        sock.subscribe("1", "subscription { memoryChanged { memoryId kind memory { id } } }")
        wait_subscribed(egm, PROJECT, Topic.CHANGED)
        hidden = ana.remember({"content": f"{COMMON} {SECRET} late", "visibility": "private"})
        seen = ana.remember({"content": f"{COMMON} late and shared", "visibility": "shared"})
        event = sock.next_event("1")
        assert event["memoryId"] == seen.id != hidden.id
        assert event["memory"] == {"id": seen.id}
        sock.assert_nothing_pending()


def test_shared_memories_reach_every_agent_and_sharing_is_logged(
    egm: GraphMem, team: dict[str, Any]
) -> None:
    ids = team["ids"]
    with serve(create_app(egm, team["settings"])) as http:

        def as_(key: str, document: str, variables: dict[str, Any]) -> dict[str, Any]:
            return http.post(
                "/graphql",
                json={"query": document, "variables": variables},
                headers={"Authorization": f"Bearer {team[key]}"},
            ).json()

        memory = "query($id: ID!) { memory(id: $id) { id agentId visibility } }"
        target = ids["ana"][0]
        assert as_("ben", memory, {"id": target})["data"]["memory"] is None
        share = "mutation($id: ID!) { share(id: $id) { visibility } }"
        unshare = "mutation($id: ID!) { unshare(id: $id) { visibility } }"
        own = as_("ben", share, {"id": ids["ben"][0]})
        assert own["data"]["share"]["visibility"] == "SHARED"  # an agent shares its own
        other = as_("ben", unshare, {"id": ids["ana_shared"][0]})
        assert other["errors"][0]["extensions"] == {"code": "FORBIDDEN", "field": "id"}

        shared = as_("ana", share, {"id": target})
        assert shared["data"]["share"]["visibility"] == "SHARED"
        assert as_("ben", memory, {"id": target})["data"]["memory"] == {
            "id": target,
            "agentId": "ana",
            "visibility": "SHARED",
        }
        hits = _search(http, team["ben"], f"{COMMON} {SECRET}")
        assert target in hits and not set(ids["ana"][1:]) & hits

        events = """query($m: ID) {
          sharingEvents(memoryId: $m) { memoryId kind by fromVisibility toVisibility }
        }"""
        logged = as_("ben", events, {"m": target})["data"]["sharingEvents"]
        assert logged == [
            {
                "memoryId": target,
                "kind": "shared",
                "by": "ana",
                "fromVisibility": "PRIVATE",
                "toVisibility": "SHARED",
            }
        ]
        as_("ana", unshare, {"id": target})
        assert as_("ben", memory, {"id": target})["data"]["memory"] is None
        kinds = [e["kind"] for e in as_("ana", events, {"m": target})["data"]["sharingEvents"]]
        assert kinds == ["unshared", "shared"]
        assert as_("ben", events, {"m": target})["data"]["sharingEvents"] == []


def test_an_admin_asks_for_one_agents_view_and_an_agent_for_no_other(
    egm: GraphMem, team: dict[str, Any]
) -> None:
    ids = team["ids"]
    context = """query($hint: String!, $agent: ID) {
      knowledgeContext(contextHint: $hint, agentId: $agent, maxResults: 50,
                       recordAccess: false, minRelevance: 0) { items { memory { id } } }
    }"""
    hint = {"hint": f"{COMMON} note {SECRET} signed hardware key"}
    with serve(create_app(egm, team["settings"])) as http:

        def ids_seen(key: str, agent: str | None) -> set[str]:
            body = http.post(
                "/graphql",
                json={"query": context, "variables": {**hint, "agent": agent}},
                headers={"Authorization": f"Bearer {team[key]}"},
            ).json()
            assert "errors" not in body, body
            return {i["memory"]["id"] for i in body["data"]["knowledgeContext"]["items"]}

        everything = ids_seen("admin", None)
        as_ben = ids_seen("admin", "ben")
        as_ana = ids_seen("admin", "ana")
        assert set(ids["ana"]) & everything and set(ids["ben"]) & everything
        assert not set(ids["ana"]) & as_ben and set(ids["ben"]) & as_ben
        assert not set(ids["ben"]) & as_ana and set(ids["ana"]) & as_ana
        assert ids_seen("ben", "ben") == ids_seen("ben", None) == as_ben

        refused = http.post(
            "/graphql",
            json={"query": context, "variables": {**hint, "agent": "ana"}},
            headers={"Authorization": f"Bearer {team['ben']}"},
        ).json()
        assert refused["errors"][0]["extensions"] == {"code": "FORBIDDEN", "field": "agentId"}
        bad = http.post(
            "/graphql",
            json={"query": context, "variables": {**hint, "agent": "ana smith!"}},
            headers={"Authorization": f"Bearer {team['admin']}"},
        ).json()
        assert bad["errors"][0]["extensions"] == {"code": "INVALID_INPUT", "field": "agentId"}
        assert "letters, digits and . _ : @ -" in bad["errors"][0]["message"]


def test_a_key_bound_to_an_agent_writes_as_it_only(egm: GraphMem, team: dict[str, Any]) -> None:
    remember = """mutation($input: MemoryInput!) {
      remember(input: $input) { memory { id agentId visibility } }
    }"""
    with serve(create_app(egm, team["settings"])) as http:
        http.headers["Authorization"] = f"Bearer {team['ben']}"
        written = http.post(
            "/graphql",
            json={"query": remember, "variables": {"input": {"content": "ben writes this"}}},
        ).json()["data"]["remember"]["memory"]
        assert (written["agentId"], written["visibility"]) == ("ben", "SHARED")
        as_other = {"content": "ben writes as ana", "agentId": "ana"}
        refused = http.post(
            "/graphql", json={"query": remember, "variables": {"input": as_other}}
        ).json()
        assert refused["errors"][0]["extensions"] == {"code": "FORBIDDEN", "field": "input.agentId"}
        report = """mutation($input: FailureReportInput!) {
          recordFailure(input: $input) { created }
        }"""
        forged = {"error": "ImportError: no module named yaml", "agentId": "ana"}
        refused = http.post("/graphql", json={"query": report, "variables": {"input": forged}})
        assert refused.json()["errors"][0]["extensions"] == {
            "code": "FORBIDDEN",
            "field": "input.agentId",
        }
        for whole_project in (
            "mutation { archiveStale { archived } }",
            "{ consistencyReports { id } }",
            "{ whatIf(variant: {}) { at } }",
        ):
            whole = http.post("/graphql", json={"query": whole_project}).json()
            assert whole["errors"][0]["extensions"]["code"] == "FORBIDDEN", whole
            assert "covers every agent's memories" in whole["errors"][0]["message"]
    assert not [m for m in egm.list(first=200).items if m.content == "ben writes as ana"]


def test_bad_agent_ids_are_refused_naming_the_field(egm: GraphMem) -> None:
    from graphmem.domain.errors import InvalidInputError

    for bad in ("", "ana smith", "-ana", "a" * 129, "ana/../ben"):
        with pytest.raises(InvalidInputError) as key:
            egm.keys.create("k", [PROJECT], Role.READ, agent_id=bad)
        assert key.value.field == "agentId"
        with pytest.raises(InvalidInputError) as view:
            egm.as_agent(bad)
        assert view.value.field == "agentId"
    with pytest.raises(InvalidInputError) as written:
        egm.remember({"content": "x", "agent_id": "ana smith"})
    assert written.value.field == "agent_id"
    with pytest.raises(InvalidInputError) as unowned:
        egm.remember({"content": "nobody's secret", "visibility": "private"})
    assert unowned.value.field == "visibility"
    assert egm.list().items == []
