"""Every knowledgeContext answer is on record, on both backends: a delivery per
answer (the API, GraphQL over HTTP, the client, the prompt hook), read back by
session, agent, time, memory and change; bounded by count and age; an agent
sees only its own deliveries and not the memories it may not read; a forgotten
memory leaves the record readable; export and import carry the record."""

from __future__ import annotations

import io
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
from mcp import ClientSession
from typer.testing import CliRunner

from graphmem import Client, GraphMem
from graphmem.cli import app
from graphmem.domain.clock import ManualClock
from graphmem.domain.deliveries import Given, hint_digest
from graphmem.domain.errors import InvalidInputError
from graphmem.domain.kinds import RelationType
from graphmem.domain.retention import Deliveries, RetentionRules
from graphmem.graphql.app import create_app
from graphmem.server.scheduler import Scheduler
from graphmem.services.transfer import export_project, import_project
from graphmem.settings import Settings
from graphmem.store import Store
from tests.conftest import cypher
from tests.integration.conftest import GraphQLClient, serve
from tests.integration.test_inject import hook, prompt
from tests.integration.test_mcp import call, http_server, over_http
from tests.integration.test_metrics import scrape, value

DAY = 86_400.0
HINT = "how do we deploy the release train"


def write(gm: GraphMem, content: str, **fields: object) -> str:
    return gm.remember({"content": content, "memory_type": "decision", **fields}).id


def seeded(gm: GraphMem, session_id: str = "s1") -> dict[str, str]:
    """Three memories of ``session_id`` (a request naming a session reads only its own)."""
    s = {"session_id": session_id}
    return {
        "train": write(gm, "The release train leaves on Thursdays at noon.", **s),
        "deploy": write(gm, "We deploy the release train from the main branch.", **s),
        "rota": write(gm, "The on-call rota for the release train is set on Mondays.", **s),
    }


def at(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def test_each_answer_is_recorded_with_its_memories_by_rank(gm: GraphMem, clock: ManualClock):
    seeded(gm)
    answer = gm.knowledge_context(HINT, session_id="s1", max_results=3)
    assert answer.items
    (delivery,) = gm.deliveries().items
    assert delivery.at == clock.now()
    assert delivery.session_id == "s1" and delivery.agent_id is None
    assert delivery.hint is None and delivery.hint_sha256 == hint_digest(HINT)
    given = [(g.rank, g.memory_id, g.score, g.state) for g in delivery.memories]
    expected = [
        (rank, item.memory.id, pytest.approx(item.score), Given.CURRENT)
        for rank, item in enumerate(answer.items, start=1)
    ]
    assert given == expected
    assert [g.memory.content for g in delivery.memories if g.memory] == [
        item.memory.content for item in answer.items
    ]


def test_an_answer_with_nothing_is_recorded_too(gm: GraphMem):
    gm.knowledge_context("nothing is stored yet here")
    (delivery,) = gm.deliveries().items
    assert delivery.memories == []


def test_the_hint_is_kept_as_text_when_the_setting_says(store: Store, clock: ManualClock):
    rules = RetentionRules(deliveries=Deliveries(hint="text"))
    gm = GraphMem(store, clock=clock, rules=rules)
    gm.knowledge_context(HINT)
    assert gm.deliveries().items[0].hint == HINT


def test_no_record_when_it_is_off(store: Store, clock: ManualClock):
    gm = GraphMem(store, clock=clock, rules=RetentionRules(deliveries=Deliveries(enabled=False)))
    seeded(gm)
    gm.knowledge_context(HINT)
    assert gm.deliveries().items == []


def test_what_a_session_or_agent_was_given_between_two_times(gm: GraphMem, clock: ManualClock):
    seeded(gm)
    start = clock.now()
    gm.knowledge_context(HINT, session_id="s1")
    clock.advance(60)
    gm.knowledge_context(HINT, session_id="s2")
    clock.advance(60)
    gm.knowledge_context(HINT, session_id="s1", agent_id="bot")
    clock.advance(60)
    gm.knowledge_context(HINT, session_id="s1")

    def listed(**flt: object) -> list[tuple[str | None, str | None, float]]:
        return [(d.session_id, d.agent_id, d.at - start) for d in gm.deliveries(flt).items]

    assert listed(session_id="s1") == [("s1", None, 180), ("s1", "bot", 120), ("s1", None, 0)]
    assert listed(agent_id="bot") == [("s1", "bot", 120)]
    window = {"since": at(start + 60), "until": at(start + 180)}
    assert listed(**window) == [("s1", "bot", 120), ("s2", None, 60)]
    assert listed(session_id="s1", **window) == [("s1", "bot", 120)]


def test_pages_follow_the_cursor_newest_first(gm: GraphMem, clock: ManualClock):
    for _ in range(5):
        gm.knowledge_context(HINT)
        clock.advance(1)
    first = gm.deliveries(first=2)
    assert first.has_next and len(first.items) == 2
    second = gm.deliveries(first=2, after=first.end_cursor)
    third = gm.deliveries(first=2, after=second.end_cursor)
    times = [d.at for page in (first, second, third) for d in page.items]
    assert times == sorted(times, reverse=True) and len(set(times)) == 5
    assert not third.has_next


def test_which_deliveries_gave_a_memory(gm: GraphMem):
    ids = seeded(gm)
    gm.knowledge_context("when does the release train leave", max_results=1)
    gm.knowledge_context("who sets the on-call rota", max_results=1)
    gave = {d.memories[0].memory_id for d in gm.deliveries().items}
    assert len(gave) == 2
    for memory_id in gave:
        (delivery,) = gm.deliveries({"memory_id": memory_id}).items
        assert delivery.memories[0].memory_id == memory_id
    assert gm.deliveries({"memory_id": "no-such-memory"}).items == []
    assert ids["train"] in gave


def test_sessions_given_memories_since_superseded_or_marked(gm: GraphMem, clock: ManualClock):
    ids = seeded(gm)
    rests = write(gm, "Friday deploys rest on the Thursday release train.", session_id="s1")
    seeded(gm, "s2")
    gm.relate(ids["train"], rests, RelationType.ENABLES)
    gm.knowledge_context("release train Thursday Friday deploys", session_id="s1")
    gm.knowledge_context("the on-call rota is set on Mondays", session_id="s2", max_results=1)
    assert gm.deliveries({"changed": True}).items == []
    clock.advance(60)
    newer = write(gm, "The release train leaves on Wednesdays at noon.")
    gm.supersede(ids["train"], newer)
    (changed,) = gm.deliveries({"changed": True}).items
    assert changed.session_id == "s1"
    states = {g.memory_id: g.state for g in changed.memories}
    assert states[ids["train"]] is Given.SUPERSEDED
    assert states[rests] is Given.MARKED
    assert {g.memory_id for g in changed.changed} == {ids["train"], rests}


def test_a_forgotten_memory_leaves_the_record_readable(gm: GraphMem):
    ids = seeded(gm)
    gm.knowledge_context(HINT, session_id="s1")
    gm.forget(ids["train"])
    (delivery,) = gm.deliveries().items
    gone = [g for g in delivery.memories if g.memory_id == ids["train"]]
    assert [(g.state, g.memory) for g in gone] == [(Given.FORGOTTEN, None)]
    assert gm.deliveries({"memory_id": ids["train"]}).items == [delivery]
    assert gm.deliveries({"changed": True}).items == [delivery]


def test_an_agent_sees_its_own_deliveries_and_not_what_it_may_not_read(
    gm: GraphMem,
):
    shared = write(gm, "The release train leaves on Thursdays at noon.", agent_id="bot")
    private = write(
        gm,
        "The release train deploy key is rotated monthly.",
        agent_id="bot",
        visibility="private",
    )
    gm.knowledge_context(HINT, agent_id="bot")
    gm.knowledge_context(HINT, agent_id="other")
    gm.knowledge_context(HINT)
    bot = gm.as_agent("bot")
    (mine,) = bot.deliveries().items
    assert mine.agent_id == "bot"
    assert {g.memory_id for g in mine.memories} >= {shared, private}
    assert gm.as_agent("other").deliveries({"agent_id": "bot"}).items == []
    (theirs,) = gm.as_agent("other").deliveries().items
    assert theirs.agent_id == "other" and private not in {g.memory_id for g in theirs.memories}
    assert len(gm.deliveries().items) == 3
    # The private memory passes to another agent: the bot may no longer read it.
    cypher(gm.store, "MATCH (m:Memory {id: $id}) SET m.agent_id = 'other'", {"id": private})
    (mine,) = bot.deliveries().items
    (hidden,) = [g for g in mine.memories if g.state is Given.HIDDEN]
    assert hidden.memory_id is None and hidden.memory is None
    assert private not in {g.memory_id for g in mine.memories}


def test_retention_by_count_and_by_age(store: Store, clock: ManualClock):
    rules = RetentionRules(deliveries=Deliveries(keep_count=3, keep_days=2))
    gm = GraphMem(store, clock=clock, rules=rules)
    for _ in range(5):
        gm.knowledge_context(HINT)
        clock.advance(1)
    other = gm.knowledge_context(HINT, project_id="other")
    assert other is not None
    stats = gm.prune_deliveries()
    assert (stats.stored, stats.pruned) == (3, 2)
    assert gm.prune_deliveries(project_id="other").stored == 1
    kept = [d.at for d in gm.deliveries().items]
    assert kept == sorted(kept, reverse=True) and len(kept) == 3
    clock.advance(DAY)
    gm.knowledge_context(HINT)
    clock.advance(1.5 * DAY)
    stats = gm.prune_deliveries()
    assert (stats.stored, stats.pruned) == (1, 3)
    assert gm.deliveries().items[0].at == clock.now() - 1.5 * DAY


def test_bad_filters_are_refused_by_name(gm: GraphMem):
    with pytest.raises(InvalidInputError, match="first"):
        gm.deliveries(first=0)
    with pytest.raises(InvalidInputError, match="after"):
        gm.deliveries(after="not-a-cursor")
    with pytest.raises(InvalidInputError, match="until"):
        gm.deliveries({"since": at(100), "until": at(50)})
    with pytest.raises(InvalidInputError, match=r"sessionId|session_id"):
        gm.deliveries({"session_id": "no spaces allowed"})


def test_graphql_the_client_and_the_prompt_hook_each_leave_a_delivery(gm: GraphMem, tmp_path: Path):
    """Over HTTP: a knowledgeContext query, the remote client's call and the prompt
    hook (which asks the server's knowledgeContext) are each on record, and the
    deliveries query and the client read them back alike."""
    ids = seeded(gm, "s9")
    work = tmp_path / "work"
    work.mkdir()
    with serve(create_app(gm)) as http:
        gql = GraphQLClient(http)
        answer = gql.data(
            "{ knowledgeContext(contextHint: "
            '"when does the release train leave", sessionId: "s9", maxResults: 2)'
            " { items { memory { id } score } } }"
        )["knowledgeContext"]["items"]
        with Client(str(http.base_url)) as client:
            client.knowledge_context("who sets the on-call rota", session_id="s9", max_results=1)
            done = hook(
                event=prompt(work, HINT),
                url=str(http.base_url.join("/graphql")),
                data_dir=tmp_path / "no-store",
            )
            assert done.returncode == 0, done.stderr
            page = client.deliveries(first=10)
        listed = gql.data(
            "query($f: DeliveryFilter) { deliveries(filter: $f, first: 10) {"
            " edges { cursor node { sessionId hintSha256 at"
            " memories { rank score memoryId state memory { content } } } }"
            " pageInfo { hasNextPage endCursor } } }",
            {"f": {"sessionId": "s9"}},
        )["deliveries"]
    assert len(page.items) == 3
    assert [d.hint_sha256 for d in page.items][-2:] == [
        hint_digest("who sets the on-call rota"),
        hint_digest("when does the release train leave"),
    ]
    first = listed["edges"][-1]["node"]
    assert [(g["rank"], g["memoryId"]) for g in first["memories"]] == [
        (rank, item["memory"]["id"]) for rank, item in enumerate(answer, start=1)
    ]
    assert [g["score"] for g in first["memories"]] == pytest.approx([i["score"] for i in answer])
    assert {g["state"] for g in first["memories"]} == {"CURRENT"}
    assert len(listed["edges"]) == 2 and not listed["pageInfo"]["hasNextPage"]
    hooked = page.items[0]
    assert hooked.session_id is None and hooked.hint_sha256 == hint_digest(HINT)
    assert ids["train"] in {g.memory_id for d in page.items for g in d.memories}


def test_graphql_names_the_bad_field(gm: GraphMem):
    with serve(create_app(gm)) as http:
        error = GraphQLClient(http).error(
            '{ deliveries(filter: {since: "2026-01-02T00:00:00Z", until: "2026-01-01T00:00:00Z"})'
            " { edges { cursor } } }"
        )
    assert "until" in error["message"]


def test_the_cli_lists_deliveries_and_says_a_forgotten_memory_is_gone(data_dir: Path):
    with GraphMem.open(Settings(data_dir=data_dir, embedder="none")) as gm:
        ids = seeded(gm)
        gm.knowledge_context(HINT, session_id="s1")
        gm.knowledge_context(HINT, session_id="s2")
        gm.forget(ids["train"])
    unset = {k: None for k in os.environ if k.startswith("GRAPHMEM_")}
    env = {**unset, "GRAPHMEM_DATA_DIR": str(data_dir), "GRAPHMEM_EMBEDDER": "none"}
    runner = CliRunner()
    done = runner.invoke(app, ["deliveries", "--session", "s1"], env=env, terminal_width=300)
    assert done.exit_code == 0, done.output
    assert "1 delivery" in done.stdout and f"{ids['train']} forgotten" in done.stdout
    changed = runner.invoke(app, ["deliveries", "--changed"], env=env, terminal_width=300)
    assert "1 delivery" in changed.stdout and "s1" in changed.stdout
    refused = runner.invoke(app, ["deliveries", "--first", "0"], env=env)
    assert refused.exit_code == 1 and "first" in refused.output


def test_the_schedulers_project_pass_prunes_and_metrics_show_it(store: Store, clock: ManualClock):
    rules = RetentionRules(deliveries=Deliveries(keep_count=2, keep_days=None))
    gm = GraphMem(store, clock=clock, rules=rules)
    seeded(gm)
    for _ in range(5):
        gm.knowledge_context(HINT)
        clock.advance(1)
    scheduler = Scheduler(gm, busy_fraction=1.0, evaluation_interval_seconds=None)
    with serve(create_app(gm)) as http:
        scheduler.tick()
        clock.advance(rules.archive_interval_seconds)
        scheduler.tick()
        assert len(gm.deliveries().items) == 2
        samples = scrape(http)  # the app's own registry: it counts only this store
    assert value(samples, "graphmem_deliveries_pruned_total") == 3
    assert value(samples, "graphmem_deliveries_stored", project="default") == 2


def test_export_and_import_carry_deliveries(gm: GraphMem, store: Store, clock: ManualClock):
    """A project's deliveries travel in graphmem's JSONL: into another project they
    read back the same, a forgotten memory still named and gone, and importing
    the file again adds nothing."""
    ids = seeded(gm)
    gm.knowledge_context(HINT, session_id="s1", agent_id="bot")
    clock.advance(5)
    gm.knowledge_context("who sets the on-call rota", session_id="s1")
    gm.forget(ids["rota"])
    exported = io.StringIO()
    counts = export_project(store, "default", exported)
    assert counts.counts["delivery"] == 2
    for _ in range(2):
        exported.seek(0)
        import_project(store, exported, project_id="copy")

    def shown(project: str) -> list[tuple[object, ...]]:
        return [
            (d.at, d.agent_id, d.session_id, d.hint_sha256,
             [(g.rank, g.score, g.state) for g in d.memories])
            for d in gm.deliveries(project_id=project).items
        ]  # fmt: skip

    assert shown("copy") == shown("default") and len(shown("copy")) == 2
    gone = [g for d in gm.deliveries(project_id="copy").items for g in d.memories
            if g.state is Given.FORGOTTEN]  # fmt: skip
    assert gone and all(g.memory_id is not None for g in gone)
    assert gm.as_agent("bot").deliveries(project_id="copy").items[0].agent_id == "bot"


def test_the_mcp_tool_leaves_a_delivery(gm: GraphMem):
    ids = seeded(gm)

    async def scenario(session: ClientSession) -> None:
        await call(session, "knowledge_context", context_hint=HINT, session_id="s1")

    with http_server(gm) as url:
        over_http(url, scenario)
    (delivery,) = gm.deliveries().items
    assert delivery.session_id == "s1" and delivery.hint_sha256 == hint_digest(HINT)
    assert ids["train"] in {g.memory_id for g in delivery.memories}
