"""What one agent of a project may see and steer beyond single memories, on every
surface: sessions (a session holding only another agent's private memories does
not exist for it; in a mixed one it counts and promotes only what it may read),
failure capsules (a report follows remember's visibility rule, and its capsule is
read only by those who may read its lesson), and the nested fields of an admin's
one-agent view (relations, sessions, logs and memories reached from a hit)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from mcp import ClientSession

from graphmem.api import GraphMem
from graphmem.client import Client
from graphmem.domain.auth import Role
from graphmem.domain.clock import ManualClock
from graphmem.domain.errors import InvalidInputError, NotFoundError
from graphmem.domain.kinds import RelationType, SessionState, Tier, Visibility
from graphmem.graphql.app import create_app
from graphmem.mcp.http import MCP_PATH, create_http_app
from graphmem.settings import Settings
from graphmem.store import Store
from tests.integration.conftest import serve
from tests.integration.test_mcp import call, over_http

SETTINGS = Settings.model_validate(dict(auth="required", rate_limit=0))
RULE = {"memory_type": "rule", "tags": ["critical"]}
"""A memory the next promotion run moves (a critical rule goes to procedural)."""


@pytest.fixture
def team(store: Store, clock: ManualClock) -> GraphMem:
    """A project whose agents write private memories unless they say otherwise."""
    gm = GraphMem(store, clock=clock)
    gm.set_project_settings(default_visibility="private")
    return gm


def keys(gm: GraphMem) -> dict[str, str]:
    return {
        "ana": gm.keys.create("ana", ["default"], Role.WRITE, agent_id="ana")[1],
        "ben": gm.keys.create("ben", ["default"], Role.ADMIN, agent_id="ben")[1],
        "admin": gm.keys.create("admin", ["default"], Role.ADMIN)[1],
    }


def post(http: httpx.Client, key: str, document: str, **variables: Any) -> dict[str, Any]:
    response = http.post(
        "/graphql",
        json={"query": document, "variables": variables},
        headers={"Authorization": f"Bearer {key}"},
    )
    body: dict[str, Any] = response.json()
    return body


def without(text: str, *ids: str) -> str:
    for memory_id in ids:
        text = text.replace(memory_id, "<id>")
    return text


# -- sessions ------------------------------------------------------------------------


def test_a_session_of_another_agents_private_memories_does_not_exist_for_it(
    team: GraphMem,
) -> None:
    ana, ben = team.as_agent("ana"), team.as_agent("ben")
    note = ana.remember({"content": "ana's deploy checklist", "session_id": "s-ana", **RULE})
    ana.remember({"content": "ana's scratch notes", "session_id": "s-ana"})
    assert note.visibility is Visibility.PRIVATE
    ben.open_session("s-empty")  # an empty session is every agent's

    hidden, unknown, empty = ben.get_sessions(["s-ana", "s-none", "s-empty"])
    assert hidden is None and unknown is None and empty is not None
    steering = {
        "get_session": lambda s: ben.get_session(s),
        "promotion_stats": lambda s: ben.promotion_stats(s),
        "pause_session": lambda s: ben.pause_session(s),
        "close_session": lambda s: ben.close_session(s),
        "run_promotion": lambda s: ben.run_promotion(s),
        "dry_run": lambda s: ben.run_promotion(s, dry_run=True),
        "enable_promotion": lambda s: ben.enable_promotion(s, interval_seconds=5),
        "disable_promotion": lambda s: ben.disable_promotion(s),
    }
    for name, steer in steering.items():
        answers = []
        for session_id in ("s-ana", "s-none"):
            with pytest.raises(NotFoundError) as missing:
                steer(session_id)
            answers.append((missing.value.field, missing.value.message.replace(session_id, "S")))
        assert answers[0] == answers[1], name
    assert ben.promotion_events(session_id="s-ana") == []
    # Nor may it write there: opening it, a memory or a failure report into it
    # is NOT_FOUND as steering it is, and stores nothing.
    before = team.list(first=100).items
    writes = {
        "open_session": lambda: ben.open_session("s-ana", name="ben's now"),
        "remember": lambda: ben.remember({"content": "ben was here", "session_id": "s-ana"}),
        "remember_many": lambda: ben.remember_many(
            [{"content": "ben's own"}, {"content": "ben again", "session_id": "s-ana"}]
        ),
        "record_failure": lambda: ben.record_failure(
            {"error": "OSError: disk full", "session_id": "s-ana", "visibility": "shared"}
        ),
    }
    for name, write in writes.items():
        with pytest.raises(NotFoundError) as refused:
            write()
        assert refused.value.code == "NOT_FOUND", name
        assert "no session 's-ana' in project 'default'" in refused.value.message, name
        assert refused.value.field in ("session_id", "items[1].session_id"), name
    assert team.list(first=100).items == before
    assert team.failure_capsules() == []
    assert ben.get_sessions(["s-ana"]) == [None]

    session = ana.get_session("s-ana")
    assert (session.state, session.name) == (SessionState.ACTIVE, None)
    assert team.get(note.id).tier is Tier.WORKING  # nothing was promoted
    assert ana.promotion_stats("s-ana").runs == 0
    assert team.get_session("s-ana") == session  # a caller bound to no agent sees it
    assert ana.close_session("s-ana").state is SessionState.CLOSED
    assert team.get(note.id).tier is Tier.PROCEDURAL  # ana's own close promotes it


def test_a_mixed_session_counts_and_promotes_only_what_the_caller_may_read(
    team: GraphMem, clock: ManualClock
) -> None:
    ana, ben = team.as_agent("ana"), team.as_agent("ben")
    hers = ana.remember({"content": "ana's rollback rule", "session_id": "s-mix", **RULE})
    ana.remember({"content": "ana's working note", "session_id": "s-mix"})
    told = ana.remember(
        {"content": "the team rule for rollbacks", "session_id": "s-mix", "visibility": "shared"}
        | RULE
    )
    ben.remember({"content": "ben's working note", "session_id": "s-mix"})

    assert ben.get_session("s-mix").id == "s-mix"  # it holds what ben may read
    dry = ben.run_promotion("s-mix", dry_run=True)
    assert [c.memory.id for c in dry.candidates] == [told.id]
    closed = ben.close_session("s-mix")
    assert closed.state is SessionState.CLOSED
    assert team.get(told.id).tier is Tier.PROCEDURAL
    assert team.get(hers.id).tier is Tier.WORKING  # ana's private rule stays where it was

    seen = ben.promotion_stats("s-mix")
    assert (seen.runs, seen.total_promoted, seen.last_promoted) == (1, 1, 1)
    assert seen.last_remaining == 1  # ben's own note; ana's two are not his to count
    assert [e.memory_id for e in ben.promotion_events(session_id="s-mix")] == [told.id]
    whole = team.promotion_stats("s-mix")
    assert whole.last_remaining == 3  # every working memory, as the run left them

    clock.advance(60)
    ana.open_session("s-mix")
    run = ana.run_promotion("s-mix")
    assert run.promoted == [hers.id] and run.remaining == 1  # ana's note; ben's is his
    assert ben.promotion_stats("s-mix").total_promoted == 1
    assert ana.promotion_stats("s-mix").total_promoted == 2
    assert (ben.promotion_stats("s-mix").last_promoted, team.promotion_stats("s-mix").runs) == (
        0,
        2,
    )


def test_a_write_at_a_sessions_memory_limit_rotates_only_what_its_agent_may_read(
    team: GraphMem,
) -> None:
    ana, ben = team.as_agent("ana"), team.as_agent("ben")
    told = ben.remember({"content": "the build uses make", "visibility": "shared"})
    team.open_session("s-ana", max_items=4)
    notes = [ana.remember({"content": f"ana's note {n}", "session_id": "s-ana"}) for n in "ab"]
    # A session of ana's private notes alone is one ben may not write in: a shared
    # note makes it one he sees.
    ana.remember({"content": "ana's note for all", "session_id": "s-ana", "visibility": "shared"})
    # Counted into the shared memory, the write adds nothing ben may read to s-ana.
    assert ben.remember({"content": "The build uses make!", "session_id": "s-ana"}).id == told.id
    assert team.promotion_stats("s-ana").runs == 0
    mine = ben.remember({"content": "ben's note in ana's session", "session_id": "s-ana"})
    assert [team.get(m.id).tier for m in notes] == [Tier.WORKING, Tier.WORKING]
    assert team.get(mine.id).tier is Tier.WORKING  # two are under ben's limit of four
    stats = ben.promotion_stats("s-ana")
    assert (stats.runs, stats.last_trigger, stats.last_remaining) == (1, "memory_limit", 2)
    assert team.promotion_stats("s-ana").last_remaining == 4


def test_sessions_are_hidden_the_same_way_over_graphql_and_the_client(team: GraphMem) -> None:
    ana = team.as_agent("ana")
    note = ana.remember({"content": "ana's migration plan", "session_id": "s-ana", **RULE})
    secret = keys(team)
    session = "query($id: ID!) { session(id: $id) { id state } }"
    stats = "query($id: ID!) { promotionStats(sessionId: $id) { runs totalPromoted } }"
    events = "query($id: ID) { promotionEvents(sessionId: $id) { memoryId } }"
    mutations = [
        "mutation($id: ID!) { pauseSession(id: $id) { state } }",
        "mutation($id: ID!) { closeSession(id: $id) { state } }",
    ]
    with serve(create_app(team, SETTINGS)) as http:
        ben = secret["ben"]
        assert post(http, ben, session, id="s-ana") == {"data": {"session": None}}
        assert post(http, ben, events, id="s-ana") == {"data": {"promotionEvents": []}}
        for document in [stats, *mutations]:
            hidden, unknown = (post(http, ben, document, id=s) for s in ("s-ana", "s-none"))
            assert hidden["data"] == unknown["data"] and len(hidden["errors"]) == 1, hidden
            assert hidden["errors"][0]["extensions"]["code"] == "NOT_FOUND"
            assert hidden["errors"][0]["extensions"] == unknown["errors"][0]["extensions"]
            assert hidden["errors"][0]["message"].replace("s-ana", "S") == unknown["errors"][0][
                "message"
            ].replace("s-none", "S")
        opened = post(http, ben, 'mutation { openSession(id: "s-ana") { id } }')
        assert opened["errors"][0]["extensions"] == {"code": "NOT_FOUND", "field": "id"}
        written = post(
            http,
            ben,
            "mutation($in: MemoryInput!) { remember(input: $in) { memory { id } } }",
            **{"in": {"content": "ben was here", "sessionId": "s-ana"}},
        )
        assert written["errors"][0]["extensions"] == {
            "code": "NOT_FOUND",
            "field": "input.sessionId",
        }
        assert "no session 's-ana' in project 'default'" in written["errors"][0]["message"]
        assert post(http, ben, session, id="s-ana") == {"data": {"session": None}}
        assert post(http, secret["ana"], session, id="s-ana")["data"]["session"] == {
            "id": "s-ana",
            "state": "ACTIVE",
        }
        with Client(str(http.base_url), ben) as client:
            assert client.get_sessions(["s-ana"]) == [None]
            with pytest.raises(NotFoundError) as missing:
                client.close_session("s-ana")
            assert missing.value.field == "id"  # as GraphQL names it, for any unknown id
            with pytest.raises(NotFoundError):
                client.promotion_stats("s-ana")
            with pytest.raises(NotFoundError):
                client.open_session("s-ana")
    assert team.get(note.id).tier is Tier.WORKING
    assert team.get_session("s-ana").state is SessionState.ACTIVE


# -- failure capsules ----------------------------------------------------------------

ERROR = "PermissionError: [Errno 13] Permission denied: '/srv/ana/deploy.key'"
COMMAND = "deploy --key /srv/ana/deploy.key --token t0ps3cret"


def test_a_failure_report_follows_remembers_visibility_rule(team: GraphMem) -> None:
    ana, ben = team.as_agent("ana"), team.as_agent("ben")
    private = ana.record_failure({"error": ERROR, "command": COMMAND, "session_id": "s1"})
    capsule = private.capsule
    assert (capsule.agent_id, capsule.visibility) == ("ana", Visibility.PRIVATE)
    lesson = ana.get(private.lesson_id or "")
    assert (lesson.agent_id, lesson.visibility) == ("ana", Visibility.PRIVATE)
    assert ana.failure_capsule(capsule.id) == capsule
    assert ana.failure_capsules() == [capsule]

    assert ben.get_many([lesson.id]) == [None]
    assert ben.failure_capsules() == [] and ben.failure_capsules(session_id="s1") == []
    for capsule_id in (capsule.id, "0" * 32):
        with pytest.raises(NotFoundError) as missing:
            ben.failure_capsule(capsule_id)
        assert missing.value.field == "id"
        assert capsule_id in missing.value.message
    assert team.failure_capsule(capsule.id) == capsule  # a caller bound to no agent sees all

    # The same failure reported by ben is his own capsule; ana's is not counted or shown.
    his = ben.record_failure({"error": ERROR, "command": "deploy"})
    assert his.created and his.capsule.id != capsule.id
    assert (his.capsule.agent_id, his.capsule.command) == ("ben", "deploy")
    assert ana.failure_capsule(capsule.id).occurrence_count == 1
    again = ana.record_failure({"error": ERROR, "fix": "chmod 600 the key"})
    assert not again.created and again.capsule.id == capsule.id
    assert again.capsule.occurrence_count == 2

    told = ana.record_failure({"error": "TimeoutError: registry", "visibility": "shared"})
    assert told.capsule.visibility is Visibility.SHARED
    assert ben.get(told.lesson_id or "").visibility is Visibility.SHARED
    assert {c.id for c in ben.failure_capsules()} == {his.capsule.id, told.capsule.id}
    unowned = team.record_failure({"error": "OSError: disk"})
    assert (unowned.capsule.agent_id, unowned.capsule.visibility) == (None, Visibility.SHARED)
    with pytest.raises(InvalidInputError) as refused:
        team.record_failure({"error": "OSError: disk", "visibility": "private"})
    assert refused.value.field == "visibility"

    # Unsharing the lesson of a shared capsule takes the capsule from the others too.
    ana.unshare(told.lesson_id or "")
    assert {c.id for c in ben.failure_capsules()} == {his.capsule.id, unowned.capsule.id}
    with pytest.raises(NotFoundError):
        ben.failure_capsule(told.capsule.id)


def test_failure_capsules_are_read_by_the_lessons_readers_on_every_surface(
    team: GraphMem,
) -> None:
    secret = keys(team)
    record = """mutation($input: FailureReportInput!) {
      recordFailure(input: $input) { created capsule { id agentId visibility lessonId } }
    }"""
    capsule = """query($id: ID!) { failureCapsule(id: $id) { id error command } }"""
    capsules = "{ failureCapsules { id error command lesson { id } } }"
    memory = "query($id: ID!) { memory(id: $id) { id content } }"
    with serve(create_app(team, SETTINGS)) as http:
        recorded = post(http, secret["ana"], record, input={"error": ERROR, "command": COMMAND})
        written = recorded["data"]["recordFailure"]["capsule"]
        assert (written["agentId"], written["visibility"]) == ("ana", "PRIVATE")
        ben = secret["ben"]
        hidden = post(http, ben, capsule, id=written["id"])
        unknown = post(http, ben, capsule, id="0" * 32)
        assert hidden["errors"][0]["extensions"] == unknown["errors"][0]["extensions"]
        assert without(hidden["errors"][0]["message"], written["id"]) == without(
            unknown["errors"][0]["message"], "0" * 32
        )
        assert post(http, ben, capsules) == {"data": {"failureCapsules": []}}
        assert post(http, ben, memory, id=written["lessonId"]) == {"data": {"memory": None}}
        own = post(http, secret["ana"], capsules)["data"]["failureCapsules"]
        assert [(c["id"], c["command"]) for c in own] == [(written["id"], COMMAND)]

        shared = {"error": "TimeoutError: registry", "visibility": "SHARED"}
        told = post(http, secret["ana"], record, input=shared)["data"]["recordFailure"]
        assert told["capsule"]["visibility"] == "SHARED"
        seen = post(http, ben, capsules)["data"]["failureCapsules"]
        assert [c["id"] for c in seen] == [told["capsule"]["id"]]

        with Client(str(http.base_url), secret["ana"]) as client:
            mine = client.record_failure({"error": "KeyError: 'region'", "visibility": "private"})
            assert (mine.capsule.agent_id, mine.capsule.visibility) == ("ana", Visibility.PRIVATE)
        with Client(str(http.base_url), ben) as client:
            assert [c.id for c in client.failure_capsules()] == [told["capsule"]["id"]]
            with pytest.raises(NotFoundError):
                client.failure_capsule(mine.capsule.id)

    async def scenario(session: ClientSession) -> None:
        private = await call(session, "record_failure", error="ValueError: bad port", full=True)
        assert private["capsule"]["visibility"] == "private"
        assert private["lesson"]["visibility"] == "private"
        shared = await call(
            session, "record_failure", error="ValueError: bad host", visibility="shared", full=True
        )
        assert shared["lesson"]["visibility"] == "shared"

    with serve(create_http_app(team, SETTINGS)) as http:
        over_http(f"{http.base_url}".rstrip("/") + MCP_PATH, scenario, key=secret["ana"])
    seen_by_ben = {c.error for c in team.as_agent("ben").failure_capsules()}
    assert seen_by_ben == {"TimeoutError: registry", "ValueError: bad host"}


# -- an admin's one-agent view, all the way down ------------------------------------


@pytest.fixture
def web(team: GraphMem) -> Iterator[dict[str, Any]]:
    ana, ben = team.as_agent("ana"), team.as_agent("ben")
    rule = ben.remember(
        {"content": "canary deploys go to five percent first", "visibility": "shared"}
    )
    hidden = ana.remember(
        {"content": "ana thinks canary deploys should skip europe", "session_id": "s-ana"}
    )
    ana.relate(hidden.id, rule.id, RelationType.CONSTRAINS, rationale="ana's private reason")
    failure = ana.record_failure(  # a shared lesson, active: knowledgeContext explains it
        {
            "error": "canary deploys failed in europe",
            "context_memory_ids": [hidden.id, rule.id],
            "fix": "canary deploys wait for the europe region",
            "visibility": "shared",
        }
    )
    with serve(create_app(team, SETTINGS)) as http:
        yield {"http": http, "rule": rule, "hidden": hidden, "failure": failure, **keys(team)}


def test_an_admins_agent_view_applies_to_every_nested_field(web: dict[str, Any]) -> None:
    http, rule, hidden = web["http"], web["rule"], web["hidden"]
    nested = """memory { id relations { fromId toId rationale } session { id }
                         promotionEvents { memoryId } stagingEvents { memoryId } }"""
    search = f"""query($agent: ID) {{
      search(query: "canary deploys", mode: FULLTEXT, agentId: $agent, minRelevance: 0) {{
        hits {{ {nested} }}
      }}
    }}"""
    as_ben = post(http, web["admin"], search, agent="ben")["data"]["search"]["hits"]
    lesson = web["failure"].lesson_id
    assert {h["memory"]["id"] for h in as_ben} == {rule.id, lesson}
    (found,) = [h["memory"] for h in as_ben if h["memory"]["id"] == rule.id]
    assert found["relations"] == []  # ana's private memory constrains it, unseen by ben
    assert hidden.id not in str(as_ben) and "private reason" not in str(as_ben)
    assert post(http, web["ben"], search)["data"]["search"]["hits"] == as_ben

    admin = post(http, web["admin"], search)["data"]["search"]["hits"]
    assert {h["memory"]["id"] for h in admin} == {rule.id, hidden.id, lesson}
    assert any(h["memory"]["relations"] for h in admin)  # the admin's own view keeps them

    context = f"""query($agent: ID) {{
      knowledgeContext(contextHint: "canary deploys in europe", agentId: $agent,
                       maxResults: 50, minRelevance: 0, recordAccess: false) {{
        items {{ {nested}
                 failure {{ id contextMemoryIds lesson {{ id }} contextMemories {{ id }} }} }}
      }}
    }}"""
    items = post(http, web["admin"], context, agent="ben")["data"]["knowledgeContext"]["items"]
    assert items and hidden.id not in str(items) and "private reason" not in str(items)
    failures = [i["failure"] for i in items if i["failure"]]
    assert [f["id"] for f in failures] == [web["failure"].capsule.id]
    assert failures[0]["contextMemoryIds"] == [rule.id]
    assert failures[0]["contextMemories"] == [{"id": rule.id}]
    assert post(http, web["ben"], context)["data"]["knowledgeContext"]["items"] == items


def test_a_lesson_never_counts_across_visibility(team: GraphMem) -> None:
    ana, ben = team.as_agent("ana"), team.as_agent("ben")
    shared = ben.record_failure({"error": ERROR, "command": COMMAND, "visibility": "shared"})
    # The same failure reported privately by ana teaches a lesson of the same
    # words: it is hers, and ben's shared lesson is neither counted nor activated.
    private = ana.record_failure({"error": ERROR, "command": COMMAND})
    assert private.lesson_id is not None and private.lesson_id != shared.lesson_id
    assert private.lesson_status == "candidate"
    theirs = team.get(shared.lesson_id or "")
    assert (theirs.occurrence_count, theirs.status.value) == (1, "candidate")
    mine = team.get(private.lesson_id)
    assert (mine.agent_id, mine.visibility, mine.content) == (
        "ana",
        Visibility.PRIVATE,
        theirs.content,
    )
    # Nor does ana's shared report count into her private lesson of those words.
    told = ana.record_failure({"error": "OSError: quota", "visibility": "private"})
    aloud = ana.record_failure({"error": "OSError: quota", "visibility": "shared"})
    assert aloud.lesson_id not in (None, told.lesson_id)
    assert team.get(told.lesson_id or "").occurrence_count == 1
    assert ben.get(aloud.lesson_id or "").visibility is Visibility.SHARED
    # Within one audience a repeat still counts on the lesson.
    again = ana.record_failure({"error": ERROR, "command": COMMAND})
    assert again.lesson_id == private.lesson_id and again.lesson_status == "active"


def test_a_memory_names_only_the_memories_its_reader_may_read(
    team: GraphMem, clock: ManualClock
) -> None:
    ana, ben = team.as_agent("ana"), team.as_agent("ben")
    old = ana.remember({"content": "deploys run on friday", "visibility": "shared"})
    new = ana.remember({"content": "deploys run on monday now"})  # private to ana
    ana.supersede(old.id, new.id)
    into = ana.remember({"content": "ana's own deploy checklist"})
    folded = ana.remember({"content": "the deploy checklist, shared", "visibility": "shared"})
    ana.merge_memories(into.id, folded.id)
    source = ana.remember({"content": "the signing key lives in the vault"})
    copy = ana.copy_memory(source.id, "mobile")
    ana.share(copy.id, project_id="mobile")
    private = {new.id, into.id, source.id}

    def named(memory: Any) -> str:
        return json.dumps(memory.model_dump(mode="json"))

    seen = [
        ben.get(old.id),
        ben.get(folded.id),
        ben.get(copy.id, project_id="mobile"),
        *ben.list(first=50, filter={"include_archived": True}).items,
        *(h.memory for h in ben.search("deploy checklist friday signing").hits),
    ]
    assert {old.id, folded.id, copy.id} <= {m.id for m in seen}
    for memory in seen:
        assert not any(p in named(memory) for p in private), named(memory)
    assert ben.get(old.id).superseded_by is None
    gone = ben.get(folded.id)
    assert (gone.merged_into, gone.archive_reason) == (None, "merged into another memory")
    assert ben.get(copy.id, project_id="mobile").copied_from is None
    # Its own agent, and a caller acting as no agent, read every name.
    assert ana.get(old.id).superseded_by == team.get(old.id).superseded_by == new.id
    assert team.get(folded.id).archive_reason == f"merged into {into.id}"
    assert ana.get(copy.id, project_id="mobile").copied_from == source.id
    # Shared again, the names come back.
    ana.share(new.id)
    assert ben.get(old.id).superseded_by == new.id


def test_a_restored_memory_names_only_the_memories_its_reader_may_read(
    team: GraphMem,
) -> None:
    ana, ben = team.as_agent("ana"), team.as_agent("ben")
    into = ana.remember({"content": "ana's own release checklist"})  # private to ana
    folded = [
        ana.remember(
            {"content": f"the release checklist, shared, part {n}", "visibility": "shared"}
        )
        for n in (1, 2)
    ]
    for memory in folded:
        ana.merge_memories(into.id, memory.id)
    restored = ben.restore(folded[0].id)
    assert (restored.tier, restored.merged_into) == (Tier.WORKING, None)
    with serve(create_app(team, SETTINGS)) as http:
        document = "mutation($id: ID!) { restore(id: $id) { id tier mergedInto archiveReason } }"
        body = post(http, keys(team)["ben"], document, id=folded[1].id)
    assert body == {
        "data": {
            "restore": {
                "id": folded[1].id,
                "tier": "WORKING",
                "mergedInto": None,
                "archiveReason": None,
            }
        }
    }
    assert into.id not in json.dumps(body)
    # Its own agent reads the name as stored.
    assert ana.get(folded[0].id).merged_into == team.get(folded[0].id).merged_into == into.id


def test_the_past_names_only_the_memories_its_reader_may_read(
    team: GraphMem, clock: ManualClock
) -> None:
    """A memory as of a past time is rebuilt from its logs (an archival's
    ``other_id`` and reason, a supersession): read so, it names what its reader
    may read only, on every read that takes ``as_of``."""
    ana, ben = team.as_agent("ana"), team.as_agent("ben")
    old = ana.remember({"content": "deploys run on friday", "visibility": "shared"})
    new = ana.remember({"content": "deploys run on monday now"})  # private to ana
    ana.supersede(old.id, new.id)
    into = ana.remember({"content": "ana's own deploy checklist"})
    folded = ana.remember({"content": "the deploy checklist, shared", "visibility": "shared"})
    ana.relate(folded.id, old.id, RelationType.RELATED_TO)
    ana.merge_memories(into.id, folded.id)
    clock.advance(60)
    at = clock.now()
    seen = [
        *ben.get_many([old.id, folded.id], as_of=at),
        *ben.list(first=50, filter={"include_archived": True}, as_of=at).items,
        *ben.neighborhood(old.id, depth=2, as_of=at).nodes,
        *ben.neighborhood(folded.id, depth=2, as_of=at).nodes,
    ]
    assert {old.id, folded.id} <= {m.id for m in seen if m is not None}
    for memory in seen:
        assert memory is not None
        text = json.dumps(memory.model_dump(mode="json"))
        assert new.id not in text and into.id not in text, text
    (gone,) = [m for m in ben.neighborhood(folded.id, as_of=at).nodes if m.id == folded.id]
    assert (gone.merged_into, gone.archive_reason) == (None, "merged into another memory")
    assert team.neighborhood(folded.id, as_of=at).nodes[0].merged_into == into.id
    with serve(create_app(team, SETTINGS)) as http:
        document = """query($id: ID!, $at: DateTime) {
          neighborhood(id: $id, depth: 2, asOf: $at) { nodes { id supersededBy mergedInto } }
        }"""
        when = datetime.fromtimestamp(at, UTC).isoformat()
        body = post(http, keys(team)["ben"], document, id=old.id, at=when)
    nodes = {n["id"]: n for n in body["data"]["neighborhood"]["nodes"]}
    assert nodes[old.id]["supersededBy"] is None and nodes[folded.id]["mergedInto"] is None


def test_whole_project_runs_in_an_agents_view_reach_only_what_it_may_read(
    team: GraphMem, clock: ManualClock
) -> None:
    """Archival, what-if and consolidation run in one agent's view (the Python
    API's ``as_agent``; keys bound to an agent may not run them at all) find,
    move and name only the memories that agent may read."""
    ana, ben = team.as_agent("ana"), team.as_agent("ben")
    private = [
        ana.remember({"content": content})
        for content in ("ana's own deploy checklist", "ana's own checklist for each deploy")
    ]
    ana.relate(private[0].id, private[1].id, RelationType.RELATED_TO)
    shared = [
        ben.remember({"content": f"a shared deploy note {n}", "visibility": "shared"})
        for n in (1, 2)
    ]
    hidden = {m.id for m in private}
    clock.advance(400 * 86_400)  # every memory stale
    planned = ben.archive_stale(dry_run=True)
    assert {i.memory_id for i in planned.items} == {m.id for m in shared}
    report = ben.what_if({"rules": {"archive_importance_below": 0.99}})
    assert not any(i in json.dumps(report.to_dict()) for i in hidden)
    assert set(ben.archive_stale().archived) == {m.id for m in shared}
    assert {team.get(i).tier for i in hidden} == {Tier.WORKING}
    (group,) = ana.consolidate(dry_run=True).groups
    (made,) = ana.consolidate(fingerprints=[group.fingerprint]).consolidated
    note = f"group {group.fingerprint}: already consolidated into {{}}; nothing written"
    again = ben.consolidate(fingerprints=[group.fingerprint])
    assert again.notes == [note.format("another memory")]
    assert team.consolidate(fingerprints=[group.fingerprint]).notes == [note.format(made.memory_id)]
