"""Changes reach what rests on them, on both backends: each way a memory stops
being current marks the memories resting on it (by ENABLES or CONSTRAINS, up to
the depth), never an unrelated or merely RELATED_TO one; a cycle ends; the
mark is read back with its reason, listed, confirmed away, and cleared when the
change is undone."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import ClientSession
from typer.testing import CliRunner

from graphmem import Client, GraphMem
from graphmem.cli import app
from graphmem.domain.clock import ManualClock
from graphmem.domain.dependencies import MAX_DEPTH, Change
from graphmem.domain.errors import ConflictError
from graphmem.domain.kinds import RelationType, Source
from graphmem.domain.retention import RetentionRules
from graphmem.graphql.app import create_app
from graphmem.settings import Settings
from graphmem.store import Store
from tests.conftest import cypher
from tests.integration.conftest import GraphQLClient, serve
from tests.integration.test_mcp import call, http_server, over_http

DAY = 86_400.0


def write(gm: GraphMem, content: str, **fields: object) -> str:
    return gm.remember({"content": content, "memory_type": "decision", **fields}).id


def chain(gm: GraphMem, base: str) -> dict[str, str]:
    """base ENABLES d1 CONSTRAINS... : d1 rests on base, d2 on d1, d3 on d2;
    ``near`` only RELATED_TO the base; ``other`` shares its words, no edge."""
    ids = {
        "base": base,
        "d1": write(gm, "We deploy on Fridays because the release train leaves on Thursdays."),
        "d2": write(gm, "Friday deploys need the on-call engineer to stay until six."),
        "d3": write(gm, "The on-call rota is published every Monday."),
        "near": write(gm, "Release notes are written by the team lead."),
        "other": write(gm, "The release train of the mobile app runs on Thursdays too."),
    }
    gm.relate(ids["base"], ids["d1"], RelationType.ENABLES)
    gm.relate(ids["d1"], ids["d2"], RelationType.CONSTRAINS)
    gm.relate(ids["d2"], ids["d3"], RelationType.ENABLES)
    gm.relate(ids["base"], ids["near"], RelationType.RELATED_TO)
    return ids


def marked(gm: GraphMem, ids: dict[str, str]) -> set[str]:
    return {name for name, i in ids.items() if gm.get(i).review_mark is not None}


def _supersede(gm: GraphMem, base: str) -> str:
    new = write(gm, "The release train leaves on Wednesdays from March on.")
    gm.supersede(base, new)
    return new


def _forget(gm: GraphMem, base: str) -> None:
    gm.forget(base)


def _archive(gm: GraphMem, base: str) -> None:
    gm.archive(base, "the release train was retired")


WAYS: dict[Change, Callable[[GraphMem, str], object]] = {
    Change.SUPERSEDED: _supersede,
    Change.FORGOTTEN: _forget,
    Change.ARCHIVED: _archive,
}


@pytest.mark.parametrize("change", list(WAYS), ids=lambda c: c.value)
def test_a_change_marks_what_rests_on_it_to_the_depth_and_nothing_else(
    gm: GraphMem, change: Change
):
    ids = chain(gm, write(gm, "The release train leaves on Thursdays."))
    by = WAYS[change](gm, ids["base"])
    base = ids.pop("base")
    assert marked(gm, ids) == {"d1", "d2"}  # depth 2: d3 is three hops out
    mark = gm.get(ids["d2"]).review_mark
    assert mark is not None
    assert mark.change is change
    assert mark.cause_id == base
    assert mark.path == [RelationType.ENABLES, RelationType.CONSTRAINS]
    assert mark.by_id == (by if isinstance(by, str) else None)
    assert mark.reason.startswith(f"rests on {base} (ENABLES then CONSTRAINS), {change}")


def test_the_depth_setting_bounds_the_walk(store: Store, clock: ManualClock):
    gm = GraphMem(store, clock=clock, rules=RetentionRules(cascade_depth=1))
    ids = chain(gm, write(gm, "The release train leaves on Thursdays."))
    _supersede(gm, ids["base"])
    assert marked(gm, ids) - {"base"} == {"d1"}


def test_a_chain_of_ten_thousand_is_marked_only_to_the_deepest_setting(
    store: Store, clock: ManualClock
):
    """At the largest depth a setting allows, archiving the head of a 10,000-long
    ENABLES chain marks exactly the ten memories after it, whatever follows."""
    gm = GraphMem(store, clock=clock, rules=RetentionRules(cascade_depth=MAX_DEPTH))
    ids = [
        memory_id
        for start in (0, 5_000)  # the most one batch takes
        for memory_id in gm.remember_many(
            [
                {"content": f"Step {n} of the runbook.", "memory_type": "fact", "tier": "semantic"}
                for n in range(start, start + 5_000)
            ],
            dedup=False,
        )
    ]
    cypher(
        store,
        "UNWIND range(0, size($ids) - 2) AS i "
        "MATCH (a:Memory {id: $ids[i]}), (b:Memory {id: $ids[i + 1]}) "
        "CREATE (a)-[:ENABLES {created_at: 0.0, weight: 1.0}]->(b)",
        {"ids": ids},
    )
    gm.archive(ids[0], "the runbook was retired")
    marked_ids = [row[0] for row in cypher(
        store, "MATCH (m:Memory) WHERE m.review_change IS NOT NULL RETURN m.id", {}
    )]  # fmt: skip
    assert sorted(marked_ids) == sorted(ids[1 : MAX_DEPTH + 1])


def test_a_cycle_ends_and_marks_each_memory_once(gm: GraphMem):
    a = write(gm, "Service A is deployed before service B.")
    b = write(gm, "Service B is deployed after service A.")
    gm.relate(a, b, RelationType.ENABLES)
    gm.relate(b, a, RelationType.ENABLES)
    _supersede(gm, a)
    assert gm.get(b).review_mark is not None
    assert gm.get(a).review_mark is None  # superseded: not current, never marked
    assert [e.kind for e in gm.staging_events(b)].count("marked") == 1


def test_a_rejected_candidate_marks_what_rests_on_it(gm: GraphMem):
    base = write(gm, "Nightly builds run on the old runner.", source=Source.AUTO_EXTRACTED)
    assert gm.get(base).status.value == "candidate"
    rests = write(gm, "Build caches are kept on the old runner's disk.")
    gm.relate(base, rests, RelationType.ENABLES)
    gm.reject(base, "the old runner is gone")
    mark = gm.get(rests).review_mark
    assert mark is not None and mark.change is Change.REJECTED


def test_an_expired_memory_marks_its_dependents_once_when_checked(gm: GraphMem, clock: ManualClock):
    base = write(gm, "The freeze lasts until the end of the month.", valid_to=clock.now() + DAY)
    rests = write(gm, "No schema migrations are merged during the freeze.")
    gm.relate(base, rests, RelationType.CONSTRAINS)
    assert gm.check_expired() == []  # not expired yet
    clock.advance(2 * DAY)
    assert gm.check_expired() == [rests]
    mark = gm.get(rests).review_mark
    assert mark is not None and mark.change is Change.EXPIRED
    gm.confirm(rests, "still no migrations until the release")
    assert gm.check_expired() == []  # told once


def test_confirm_clears_the_mark_and_logs_it(gm: GraphMem):
    ids = chain(gm, write(gm, "The release train leaves on Thursdays."))
    _supersede(gm, ids["base"])
    page = gm.needs_review()
    assert {m.id for m in page.items} == {ids["d1"], ids["d2"]}
    confirmed = gm.confirm(ids["d1"], "we still deploy on Fridays")
    assert confirmed.review_mark is None
    assert {m.id for m in gm.needs_review().items} == {ids["d2"]}
    events = {e.kind: e for e in gm.staging_events(ids["d1"])}
    assert events["marked"].signal == "superseded"
    assert events["confirmed"].signal == "we still deploy on Fridays"
    with pytest.raises(ConflictError, match="not marked for review"):
        gm.confirm(ids["d1"])


def test_undoing_the_change_clears_the_marks_it_left(gm: GraphMem):
    ids = chain(gm, write(gm, "The release train leaves on Thursdays."))
    _archive(gm, ids["base"])
    assert marked(gm, ids) == {"d1", "d2"}
    gm.restore(ids["base"])
    assert marked(gm, ids) == set()
    new = _supersede(gm, ids["base"])
    assert marked(gm, ids) == {"d1", "d2"}
    gm.unrelate(new, ids["base"], RelationType.SUPERSEDES, reason="wrong", removed_by="tester")
    assert marked(gm, ids) == set()


def test_a_pinned_memory_is_not_archived_by_hand(gm: GraphMem):
    base = write(gm, "All services log in JSON.")
    gm.pin(base)
    with pytest.raises(ConflictError, match="pinned"):
        gm.archive(base, "logging moved")
    assert gm.get(base).tier.value != "archived"


def test_every_surface_shows_and_settles_a_mark(gm: GraphMem) -> None:
    """GraphQL, the remote client, MCP over HTTP and the CLI (served) say the
    same thing about one marked memory, and each settles one."""
    ids = chain(gm, write(gm, "The release train leaves on Thursdays."))
    with serve(create_app(gm)) as http:
        gql = GraphQLClient(http)
        gql.data(
            'mutation($id: ID!) { archiveMemory(id: $id, reason: "the train moved") { id } }',
            {"id": ids["base"]},
        )
        listed = gql.data(
            "{ needsReview { edges { node { id reviewChange reviewCause reviewPath "
            "reviewReason } } } }"
        )["needsReview"]["edges"]
        nodes = {edge["node"]["id"]: edge["node"] for edge in listed}
        assert set(nodes) == {ids["d1"], ids["d2"]}
        d1 = nodes[ids["d1"]]
        assert (d1["reviewChange"], d1["reviewCause"], d1["reviewPath"]) == (
            "ARCHIVED",
            ids["base"],
            ["ENABLES"],
        )
        assert d1["reviewReason"] == gm.get(ids["d1"]).review_mark.reason  # type: ignore[union-attr]
        context = gql.data(
            '{ knowledgeContext(contextHint: "why do we deploy on Fridays?", minRelevance: 0)'
            " { notes context items { memory { id } } } }"
        )["knowledgeContext"]
        assert any("need review" in note and ids["d1"] in note for note in context["notes"])
        assert "needs review: rests on" in context["context"]
        with Client(str(http.base_url)) as client:
            page = client.needs_review()
            assert {m.id for m in page.items} == {ids["d1"], ids["d2"]}
            assert client.confirm(ids["d1"], "still true").review_mark is None
        assert {m.id for m in gm.needs_review().items} == {ids["d2"]}
        hits = gql.data(
            '{ search(query: "on-call engineer Friday deploys", limit: 3) { hits { memory { id }'
            " explanation { notes } } } }"
        )["search"]["hits"]
        (d2,) = [h for h in hits if h["memory"]["id"] == ids["d2"]]
        assert any(n.startswith("needs review: rests on") for n in d2["explanation"]["notes"])


def test_mcp_shows_the_mark_in_a_compact_memory(gm: GraphMem) -> None:
    ids = chain(gm, write(gm, "The release train leaves on Thursdays."))
    _supersede(gm, ids["base"])

    async def scenario(session: ClientSession) -> None:
        got = await call(session, "get_memories", ids=[ids["d1"], ids["d3"]])
        by_id = {m["id"]: m for m in got["memories"]}
        assert by_id[ids["d1"]]["needs_review"].startswith(f"rests on {ids['base']} (ENABLES)")
        assert "needs_review" not in by_id[ids["d3"]]  # compact: left out while unset

    with http_server(gm) as url:
        over_http(url, scenario)


def test_the_cli_archives_by_hand_lists_marks_and_confirms(data_dir: Path) -> None:
    with GraphMem.open(Settings(data_dir=data_dir, embedder="none")) as gm:
        ids = chain(gm, write(gm, "The release train leaves on Thursdays."))
    unset = {k: None for k in os.environ if k.startswith("GRAPHMEM_")}
    env = {**unset, "GRAPHMEM_DATA_DIR": str(data_dir), "GRAPHMEM_EMBEDDER": "none"}
    runner = CliRunner()
    refused = runner.invoke(app, ["archive", ids["base"]], env=env)
    assert refused.exit_code == 1 and "reason" in refused.output
    done = runner.invoke(app, ["archive", ids["base"], "--reason", "the train moved"], env=env)
    assert done.exit_code == 0, done.output
    listed = runner.invoke(app, ["review", "--marked"], env=env, terminal_width=200)
    assert listed.exit_code == 0, listed.output
    assert "2 memories marked for review" in listed.stdout
    assert ids["d1"] in listed.stdout and ids["d3"] not in listed.stdout
    confirmed = runner.invoke(app, ["review", "--confirm", ids["d1"], "--reason", "ok"], env=env)
    assert confirmed.exit_code == 0, confirmed.output
    with GraphMem.open(Settings(data_dir=data_dir, embedder="none")) as gm:
        assert [m.id for m in gm.needs_review().items] == [ids["d2"]]
