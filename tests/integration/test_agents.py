"""Agents sharing a project through the Python API, the remote client and the
command line: visibility and its default, sharing and its log, copies to another
project with their provenance."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphmem.api import GraphMem
from graphmem.client import Client
from graphmem.domain.auth import Role
from graphmem.domain.clock import ManualClock
from graphmem.domain.errors import ForbiddenError, InvalidInputError, NotFoundError
from graphmem.domain.kinds import Visibility
from graphmem.graphql.app import create_app
from graphmem.settings import Settings
from graphmem.store.falkordb import FalkorStore
from tests.conftest import cypher
from tests.integration.conftest import serve
from tests.integration.test_cli_retrieval import cli


def test_visibility_defaults_to_the_setting_and_is_shared_without_an_agent(
    store: FalkorStore, clock: ManualClock
) -> None:
    gm = GraphMem(store, clock=clock, default_visibility="private")
    assert gm.default_visibility() is Visibility.PRIVATE
    ana = gm.as_agent("ana")
    mine = ana.remember({"content": "ana keeps the rollout notes"})
    told = ana.remember({"content": "the team uses trunk based work", "visibility": "shared"})
    nobody = gm.remember({"content": "the build runs on every push"})
    assert (mine.agent_id, mine.visibility) == ("ana", Visibility.PRIVATE)
    assert told.visibility is Visibility.SHARED
    assert (nobody.agent_id, nobody.visibility) == (None, Visibility.SHARED)
    ben = gm.as_agent("ben")
    assert [m.id for m in ben.list().items] == [nobody.id, told.id]
    assert {m.id for m in gm.list().items} == {mine.id, told.id, nobody.id}
    with pytest.raises(InvalidInputError) as refused:
        gm.unshare(nobody.id)
    assert refused.value.field == "id"

    default = GraphMem(store, clock=clock)
    assert default.as_agent("ana").remember({"content": "a plain note"}).visibility.value == (
        "shared"
    )


def test_a_memory_stored_before_visibility_reads_as_shared(
    gm: GraphMem, store: FalkorStore
) -> None:
    old = gm.as_agent("ana").remember({"content": "written by an older version"})
    cypher(store, "MATCH (m:Memory {id: $id}) REMOVE m.visibility", {"id": old.id})
    assert gm.as_agent("ben").get(old.id).visibility is Visibility.SHARED
    assert gm.as_agent("ben").search("older version", mode="FULLTEXT").hits


def test_only_the_owner_or_a_caller_bound_to_no_agent_shares_and_each_change_is_logged(
    gm: GraphMem, clock: ManualClock
) -> None:
    ana, ben = gm.as_agent("ana"), gm.as_agent("ben")
    note = ana.remember({"content": "the cache key includes the locale", "visibility": "private"})
    with pytest.raises(NotFoundError):
        ben.share(note.id)  # another agent's private memory is not there for it
    clock.advance(5)
    assert ana.share(note.id).visibility is Visibility.SHARED
    assert ana.share(note.id).visibility is Visibility.SHARED  # already: nothing logged
    with pytest.raises(ForbiddenError) as refused:
        ben.unshare(note.id)
    assert refused.value.field == "id"
    clock.advance(5)
    assert gm.unshare(note.id).visibility is Visibility.PRIVATE
    events = gm.sharing_events(memory_id=note.id)
    assert [(e.kind, e.by, e.from_visibility, e.to_visibility) for e in events] == [
        ("unshared", "admin", Visibility.SHARED, Visibility.PRIVATE),
        ("shared", "ana", Visibility.PRIVATE, Visibility.SHARED),
    ]
    assert events[0].at > events[1].at
    assert ben.sharing_events() == []
    assert ana.sharing_events() == events


def test_a_copy_names_its_source_and_leaves_it_as_it_was(gm: GraphMem, clock: ManualClock) -> None:
    ana = gm.as_agent("ana")
    source = ana.remember(
        {"content": "retry the upload twice", "tags": ["io"], "visibility": "private"}
    )
    ana.record_access(source.id)
    before = gm.get(source.id)
    clock.advance(30)
    copy = ana.copy_memory(source.id, "mobile")
    assert copy.id != source.id and copy.project_id == "mobile"
    assert (copy.copied_from, copy.copied_from_project, copy.copied_by) == (
        source.id,
        "default",
        "ana",
    )
    assert copy.copied_at == before.updated_at + 30
    assert (copy.content, copy.tags, copy.agent_id, copy.visibility) == (
        source.content,
        source.tags,
        "ana",
        Visibility.PRIVATE,
    )
    assert copy.access_count == 0
    assert gm.get(source.id) == before
    assert gm.get(copy.id, project_id="mobile") == copy
    with pytest.raises(NotFoundError):
        gm.get(copy.id)  # not in the source's project
    (event,) = gm.sharing_events(memory_id=source.id)
    assert (event.kind, event.to_project_id, event.copy_id) == ("copied", "mobile", copy.id)
    with pytest.raises(NotFoundError):
        gm.as_agent("ben").copy_memory(source.id, "mobile")
    with pytest.raises(InvalidInputError) as same:
        ana.copy_memory(source.id, "default")
    assert same.value.field == "toProjectId"
    with pytest.raises(InvalidInputError) as bad:
        ana.copy_memory(source.id, "no such/project")
    assert bad.value.field == "toProjectId"


def test_the_client_shares_copies_and_asks_for_one_agents_view(
    gm: GraphMem, clock: ManualClock
) -> None:
    note = gm.as_agent("ana").remember(
        {"content": "the canary takes five percent", "visibility": "private"}
    )
    _, admin = gm.keys.create("admin", ["default", "web"], Role.ADMIN)
    _, ben_key = gm.keys.create("ben", ["default"], Role.WRITE, agent_id="ben")
    settings = Settings.model_validate(dict(auth="required", rate_limit=0))
    with serve(create_app(gm, settings)) as http:
        url = str(http.base_url)
        with Client(url, admin) as client, Client(url, ben_key) as ben:
            assert client.get(note.id).visibility is Visibility.PRIVATE
            assert ben.get_many([note.id]) == [None]
            query = {"mode": "FULLTEXT"}
            assert client.search("canary percent", agent_id="ana", **query).hits
            assert not client.search("canary percent", agent_id="ben", **query).hits
            with pytest.raises(ForbiddenError):
                ben.search("canary percent", agent_id="ana", **query)
            assert client.share(note.id).visibility is Visibility.SHARED
            assert ben.get(note.id).agent_id == "ana"
            copy = client.copy_memory(note.id, "web")
            assert copy.copied_from == note.id and copy.project_id == "web"
            with pytest.raises(ForbiddenError) as outside:
                ben.copy_memory(note.id, "web")
            assert outside.value.field == "toProjectId"
            kinds = [e.kind for e in ben.sharing_events(memory_id=note.id)]
            assert kinds == ["copied", "shared"]
            assert client.unshare(note.id).visibility is Visibility.PRIVATE
            with pytest.raises(ForbiddenError):  # a write key bound to no agent is no admin
                Client(url, gm.keys.create("w", ["default"], Role.WRITE)[1]).share(note.id)


def test_the_command_line_acts_as_an_agent(data_dir: Path) -> None:
    written = cli(
        data_dir,
        "remember",
        "ship the beta on fridays",
        "--agent",
        "ana",
        "--visibility",
        "private",
    )
    assert written.exit_code == 0, written.output
    assert "ana (private)" in written.stdout
    with GraphMem.open(Settings(data_dir=data_dir, embedder="none")) as gm:
        (note,) = gm.list().items

    def hits(agent: str) -> list[str]:
        shown = cli(data_dir, "search", "beta fridays", "--agent", agent, "--json")
        assert shown.exit_code == 0, shown.output
        return [hit["memory"]["id"] for hit in json.loads(shown.stdout)["hits"]]

    assert hits("ana") == [note.id] and hits("ben") == []
    context = cli(data_dir, "context", "beta on fridays", "--agent", "ben", "--json")
    assert json.loads(context.stdout)["items"] == []

    refused = cli(data_dir, "share", note.id, "--agent", "ben")
    assert refused.exit_code == 1 and "NOT_FOUND" in refused.output
    shared = cli(data_dir, "share", note.id, "--agent", "ana")
    assert shared.exit_code == 0, shared.output
    assert f"{note.id} (agent ana) is shared" in shared.stdout
    assert hits("ben") == [note.id]
    copied = cli(data_dir, "copy", note.id, "--to", "mobile", "--agent", "ana")
    assert copied.exit_code == 0 and f"copied {note.id} (default) to" in copied.stdout
    log = cli(data_dir, "sharing-events", "--memory", note.id)
    assert log.exit_code == 0
    assert "copied" in log.stdout and "private -> shared" in log.stdout
    bad = cli(data_dir, "search", "beta", "--agent", "ana smith")
    assert bad.exit_code == 1 and "agentId" in bad.output


def test_a_failure_capsule_names_only_the_context_memories_its_reader_sees(gm: GraphMem) -> None:
    ana = gm.as_agent("ana")
    mine = ana.remember({"content": "ana retries uploads by hand", "visibility": "private"})
    known = ana.remember({"content": "uploads go through the proxy", "visibility": "shared"})
    outcome = ana.record_failure(
        {"error": "TimeoutError: upload stalled", "context_memory_ids": [mine.id, known.id]}
    )
    assert sorted(outcome.capsule.context_memory_ids) == sorted([mine.id, known.id])
    (seen,) = gm.as_agent("ben").failure_capsules()
    assert seen.context_memory_ids == [known.id]
    with pytest.raises(ForbiddenError) as forged:
        ana.record_failure({"error": "KeyError: 'x'", "agent_id": "ben"})
    assert forged.value.field == "agentId"


def test_a_project_sets_its_own_default_visibility(store: FalkorStore, clock: ManualClock) -> None:
    gm = GraphMem(store, clock=clock)  # the server's default: shared
    gm.set_project_settings(default_visibility="private", project_id="team")
    assert gm.default_visibility("team") is Visibility.PRIVATE
    assert gm.default_visibility() is Visibility.SHARED
    ana = gm.as_agent("ana")
    mine = ana.remember({"content": "ana's notes on the flaky login test"}, project_id="team")
    assert mine.visibility is Visibility.PRIVATE
    assert gm.as_agent("ben").list(project_id="team").items == []
    elsewhere = ana.remember({"content": "the staging database is reset nightly"})
    assert elsewhere.visibility is Visibility.SHARED
    gm.set_project_settings(default_visibility="shared", project_id="team")
    later = ana.remember({"content": "the login test waits for the mail stub"}, project_id="team")
    assert later.visibility is Visibility.SHARED
