"""Every curation can be undone, on both backends: a person's merge and a write's
(exact and near) merge, a supersede however made, a consolidation, an archive,
a rejection and a review mark; each undo is logged with who and why, refused
with what blocks it where a later change rests on it, and, taken newest first
after random sequences of curations, gives back the memories, fields and
relations that were there before them."""

from __future__ import annotations

import itertools
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import ClientSession
from typer.testing import CliRunner

from graphmem import Client, GraphMem
from graphmem.cli import app
from graphmem.domain.clock import ManualClock
from graphmem.domain.errors import ConflictError, InvalidInputError, NotFoundError
from graphmem.domain.kinds import RelationType, Source, Status, Tier
from graphmem.domain.undo import Curation
from graphmem.graphql.app import create_app
from graphmem.settings import Settings
from graphmem.store import Store
from tests.conftest import cypher
from tests.integration.conftest import GraphQLClient, serve
from tests.integration.test_mcp import call, http_server, over_http

REFRESH = [
    "The staging database is refreshed from production every Sunday night.",
    "Every Sunday night the staging database gets refreshed from production.",
]
PLAIN = [
    "Deploys go out through the blue-green pipeline.",
    "The billing service is written in Go.",
    "Invoices are stored for seven years.",
    "The mobile app ships every second Tuesday.",
    "Feature flags live in features.yaml.",
    "The search cluster runs on three nodes.",
]


def write(gm: GraphMem, content: str, **fields: Any) -> str:
    (memory_id,) = gm.remember_many(
        [{"content": content, "memory_type": "fact", **fields}], dedup=False
    )
    return memory_id


def undone_events(gm: GraphMem, memory_id: str) -> list[Any]:
    return [e for e in gm.staging_events(memory_id) if e.kind == "undone"]


def test_a_persons_merge_comes_apart_as_it_was(gm: GraphMem) -> None:
    into = write(gm, PLAIN[0], tags=["deploy"], evidence=["runbook"])
    absorbed = write(gm, PLAIN[1], tags=["deploy", "go"], evidence=["repo"])
    gm.record_access(absorbed)
    gm.feedback(absorbed, 1)
    before = gm.get_many([into, absorbed])
    gm.merge_memories(into, absorbed)
    merged = gm.get(absorbed)
    assert merged.tier is Tier.ARCHIVED and merged.merged_into == into

    done = gm.undo("merge", absorbed, reason="not the same fact", by="reviewer")

    assert done.restored == [absorbed] and done.created == []
    survivor, back = gm.get_many([into, absorbed])
    assert back.tier is before[1].tier and back.merged_into is None
    assert back.archive_reason is None
    for name in ("occurrence_count", "access_count", "feedback", "feedback_count", "status"):
        assert getattr(survivor, name) == getattr(before[0], name), name
    assert sorted(survivor.tags) == ["deploy"] and survivor.evidence == ["runbook"]
    (logged,) = undone_events(gm, absorbed)
    assert (logged.before, logged.after, logged.by) == ("merge", absorbed, "reviewer")
    assert logged.signal == "not the same fact"
    with pytest.raises(ConflictError, match="no merge into") as refused:
        gm.undo("merge", into, reason="again", by="reviewer")
    assert refused.value.field == "id"


def test_a_merge_into_a_memory_edited_since_is_refused_and_nothing_changes(
    gm: GraphMem,
) -> None:
    into = write(gm, PLAIN[0])
    absorbed = write(gm, PLAIN[1])
    gm.merge_memories(into, absorbed)
    gm.update(into, {"content": "Deploys go out through the canary pipeline."})
    before = gm.get_many([into, absorbed])
    with pytest.raises(ConflictError, match="edited after the merge"):
        gm.undo("merge", absorbed, reason="split them", by="reviewer")
    assert gm.get_many([into, absorbed]) == before
    assert undone_events(gm, absorbed) == []


def test_a_writes_exact_merge_becomes_a_memory_of_its_own(gm: GraphMem) -> None:
    first = gm.remember({"content": PLAIN[2], "memory_type": "fact", "tags": ["finance"]}).id
    again = gm.remember(
        {"content": PLAIN[2], "memory_type": "fact", "tags": ["legal"], "evidence": ["policy"]}
    )
    assert again.id == first and gm.get(first).occurrence_count == 2

    done = gm.undo(Curation.MERGE, first, reason="two separate rules", by="reviewer")

    (part_id,) = done.created
    survivor, part = gm.get_many([first, part_id])
    assert survivor.occurrence_count == 1 and survivor.tags == ["finance"]
    assert survivor.evidence == []
    assert part.content == PLAIN[2] and part.occurrence_count == 1
    assert part.tags == ["legal"] and part.evidence == ["policy"]
    with pytest.raises(ConflictError, match="no merge into"):
        gm.undo(Curation.MERGE, first, reason="again", by="reviewer")


def test_a_near_merge_gives_its_wording_back_as_a_memory(egm: GraphMem) -> None:
    first = egm.remember({"content": REFRESH[0], "memory_type": "fact"}).id
    near = egm.remember({"content": REFRESH[1], "memory_type": "fact"})
    assert near.id == first, "the restatement is merged as a near duplicate"
    assert REFRESH[1] in egm.get(first).variants

    (part_id,) = egm.undo("merge", first, reason="keep both", by="reviewer").created

    survivor, part = egm.get_many([first, part_id])
    assert part.content == REFRESH[1]
    assert REFRESH[1] not in survivor.variants and survivor.occurrence_count == 1
    hits = egm.search("staging database refreshed on Sunday night", mode="VECTOR", limit=5)
    assert part_id in [h.memory.id for h in hits.hits], "the part is embedded and found"


def test_a_supersede_is_undone_unless_its_successor_was_superseded_since(
    gm: GraphMem, clock: ManualClock
) -> None:
    old = write(gm, "The release train leaves on Thursdays.")
    new = write(gm, "The release train leaves on Wednesdays.")
    newest = write(gm, "The release train leaves on Tuesdays.")
    resting = write(gm, "We deploy on Fridays, after the release train.")
    gm.relate(old, resting, RelationType.ENABLES)
    gm.supersede(old, new)
    assert gm.get(resting).review_mark is not None
    clock.advance(60)
    gm.supersede(new, newest)
    with pytest.raises(ConflictError, match=f"{new} was itself superseded by {newest}"):
        gm.undo("supersede", old, reason="wrong", by="reviewer")
    assert gm.get(old).superseded_by == new

    gm.undo("supersede", new, reason="Tuesday was a typo", by="reviewer")
    done = gm.undo("supersede", old, reason="Thursday still holds", by="reviewer")

    assert done.restored == [old]
    assert gm.get(old).superseded_by is None and gm.get(old).valid_to is None
    assert gm.get(resting).review_mark is None, "the mark the supersede left goes with it"
    (event,) = [e for e in gm.relation_events(old) if e.type is RelationType.SUPERSEDES]
    assert (event.removed_by, event.reason) == (
        "reviewer",
        "supersede undone: Thursday still holds",
    )


def test_a_consolidation_gives_its_sources_back_and_is_archived(
    egm: GraphMem, clock: ManualClock
) -> None:
    sources = [write(egm, text) for text in REFRESH]
    other = write(egm, PLAIN[0])
    egm.relate(sources[0], other, RelationType.ENABLES)
    before = egm.get_many(sources)
    (done,) = egm.consolidate().consolidated
    clock.advance(60)

    undone = egm.undo("consolidation", done.memory_id, reason="they differ", by="reviewer")

    assert sorted(undone.restored) == sorted(sources) and undone.archived == [done.memory_id]
    for was, now in zip(before, egm.get_many(sources), strict=True):
        assert (now.tier, now.superseded_by, now.archive_reason) == (was.tier, None, None)
    consolidated = egm.get(done.memory_id)
    assert consolidated.tier is Tier.ARCHIVED and consolidated.source is Source.CONSOLIDATED
    assert "consolidation undone: they differ" in (consolidated.archive_reason or "")
    with pytest.raises(ConflictError, match="not a consolidated memory"):
        egm.undo("consolidation", done.memory_id, reason="again", by="reviewer")
    with pytest.raises(ConflictError, match="was archived by a consolidation"):
        (done2,) = egm.consolidate().consolidated
        egm.undo("archive", done2.source_ids[0], reason="bring it back", by="reviewer")


def test_an_archive_a_rejection_and_a_mark_are_undone(gm: GraphMem) -> None:
    base = write(gm, "The release train leaves on Thursdays.")
    resting = write(gm, "We deploy on Fridays, after the release train.")
    gm.relate(base, resting, RelationType.ENABLES)
    tier = gm.get(base).tier
    gm.archive(base, "retired")
    assert gm.get(resting).review_mark is not None
    gm.undo("archive", base, reason="it still runs", by="reviewer")
    assert gm.get(base).tier is tier and gm.get(resting).review_mark is None

    gm.archive(base, "retired again")
    gm.undo("mark", resting, reason="it does not rest on the train", by="reviewer")
    assert gm.get(resting).review_mark is None
    with pytest.raises(ConflictError, match="is not marked for review"):
        gm.undo("mark", resting, reason="again", by="reviewer")

    candidate = gm.remember_many(
        [{"content": PLAIN[3], "memory_type": "fact", "source": "agent"}], dedup=False
    )[0]
    if gm.get(candidate).status is Status.CANDIDATE:
        gm.reject(candidate, "not useful")
        with pytest.raises(ConflictError, match="archived by a rejection"):
            gm.undo("archive", candidate, reason="oops", by="reviewer")
        gm.undo("rejection", candidate, reason="useful after all", by="reviewer")
        back = gm.get(candidate)
        assert back.status is Status.CANDIDATE and back.tier is not Tier.ARCHIVED


def test_bad_undos_name_their_field_and_write_nothing(gm: GraphMem) -> None:
    memory = write(gm, PLAIN[4])
    with pytest.raises(InvalidInputError) as bad:
        gm.undo("rollback", memory, reason="x", by="me")
    assert bad.value.field == "curation" and "merge, supersede" in bad.value.message
    with pytest.raises(InvalidInputError) as bad:
        gm.undo("archive", memory, reason="  ", by="me")
    assert bad.value.field == "reason"
    with pytest.raises(ConflictError, match="is not archived"):
        gm.undo("archive", memory, reason="x", by="me")
    with pytest.raises(NotFoundError):
        gm.undo("archive", "no-such-memory", reason="x", by="me")
    assert undone_events(gm, memory) == []


def test_an_agent_cannot_undo_what_it_cannot_see(gm: GraphMem) -> None:
    alice = gm.as_agent("alice")
    private = alice.remember(
        {"content": PLAIN[5], "memory_type": "fact", "visibility": "private"}
    ).id
    alice.archive(private, "done")
    with pytest.raises(NotFoundError):
        gm.as_agent("bob").undo("archive", private, reason="mine now", by="bob")
    assert gm.get(private).tier is Tier.ARCHIVED
    alice.undo("archive", private, reason="still needed", by="alice")
    assert gm.get(private).tier is not Tier.ARCHIVED


def test_every_surface_undoes_and_says_the_same(gm: GraphMem, data_dir: Path) -> None:
    """GraphQL and the remote client over a real server, MCP over HTTP and the
    CLI each undo one curation, and name what blocks a refused one alike."""
    ids = [write(gm, text) for text in PLAIN[:5]]
    gm.merge_memories(ids[0], ids[1])
    for memory_id in ids[2:]:
        gm.archive(memory_id, "stale")
    with serve(create_app(gm)) as http:
        gql = GraphQLClient(http)
        done = gql.data(
            'mutation($id: ID!) { undo(curation: MERGE, id: $id, reason: "differ", by: "ann")'
            " { curation memoryId restored created archived } }",
            {"id": ids[1]},
        )["undo"]
        assert done == {
            "curation": "MERGE",
            "memoryId": ids[1],
            "restored": [ids[1]],
            "created": [],
            "archived": [],
        }
        events = gql.data(
            "query($id: ID!) { stagingEvents(memoryId: $id) { kind before after by signal } }",
            {"id": ids[1]},
        )["stagingEvents"]
        assert {"kind": "undone", "before": "merge", "after": ids[1], "by": "ann",
                "signal": "differ"} in events  # fmt: skip
        refused = gql.error(
            'mutation($id: ID!) { undo(curation: MERGE, id: $id, reason: "again") { memoryId } }',
            {"id": ids[1]},
        )
        assert refused["extensions"]["code"] == "CONFLICT"
        assert "no merge into" in refused["message"]
        with Client(str(http.base_url)) as client:
            undone = client.undo("archive", ids[2], reason="in use")
            assert undone.restored == [ids[2]] and undone.curation is Curation.ARCHIVE
            with pytest.raises(ConflictError, match="is not archived"):
                client.undo("archive", ids[2], reason="in use")

    async def scenario(session: ClientSession) -> None:
        got = await call(session, "undo", curation="archive", id=ids[3], reason="in use")
        assert got["restored"] == [ids[3]]

    with http_server(gm) as url:
        over_http(url, scenario)
    assert gm.get(ids[3]).tier is not Tier.ARCHIVED


def test_the_cli_undoes_and_names_what_blocks_it(data_dir: Path) -> None:
    with GraphMem.open(Settings(data_dir=data_dir, embedder="none")) as gm:
        memory_id = write(gm, PLAIN[0])
        gm.archive(memory_id, "stale")
    unset = {k: None for k in os.environ if k.startswith("GRAPHMEM_")}
    env = {**unset, "GRAPHMEM_DATA_DIR": str(data_dir), "GRAPHMEM_EMBEDDER": "none"}
    runner = CliRunner()
    done = runner.invoke(app, ["undo", "archive", memory_id, "--reason", "in use"], env=env)
    assert done.exit_code == 0, done.output
    assert f"undid the archive of {memory_id}; restored {memory_id}" in done.stdout
    again = runner.invoke(app, ["undo", "archive", memory_id, "--reason", "in use"], env=env)
    assert again.exit_code == 1 and "is not archived" in again.output
    bad = runner.invoke(app, ["undo", "rollback", memory_id, "--reason", "x"], env=env)
    assert bad.exit_code == 1 and "curation: must be one of" in bad.output
    with GraphMem.open(Settings(data_dir=data_dir, embedder="none")) as gm:
        (event,) = [e for e in gm.staging_events(memory_id) if e.kind == "undone"]
        assert event.by is not None and event.by.startswith("cli:")


# -- undoing random sequences newest first gives back what was there ----------

FIELDS = (
    "content",
    "tier",
    "status",
    "superseded_by",
    "merged_into",
    "occurrence_count",
    "access_count",
    "feedback",
    "feedback_count",
    "evidence",
    "tags",
    "variants",
    "pinned",
    "valid_to",
    "archive_reason",
    "review_change",
)


def state(store: Store, project: str) -> tuple[dict[str, tuple[Any, ...]], set[tuple[str, ...]]]:
    """Every memory of ``project`` (archived ones too) by id with the fields an
    undo must give back, and every relation between them."""
    columns = ", ".join(f"m.{name}" for name in FIELDS)
    rows = cypher(
        store, f"MATCH (m:Memory) WHERE m.project_id = $p RETURN m.id, {columns}", {"p": project}
    )
    memories = {
        row[0]: tuple(sorted(v) if isinstance(v, list) else v for v in row[1:]) for row in rows
    }
    edges = cypher(
        store,
        "MATCH (a:Memory)-[r]->(b:Memory) WHERE a.project_id = $p AND b.project_id = $p "
        "RETURN a.id, type(r), b.id",
        {"p": project},
    )
    return memories, {tuple(e) for e in edges}


SOURCES = ("agent", "manual", "agent", "manual", "auto_extracted", "agent", "auto_extracted")
"""Whose each text is: auto-extracted ones are candidates, which a rejection needs."""
PROJECTS = itertools.count()
"""A project of its own for each example: examples share the store."""

STEPS = st.lists(
    st.tuples(
        st.sampled_from(["merge", "supersede", "archive", "consolidate", "reject"]),
        st.integers(0, 7),
        st.integers(0, 7),
    ),
    min_size=1,
    max_size=6,
)


def curate(
    gm: GraphMem, step: tuple[str, int, int], ids: list[str], project: str
) -> tuple[str, str] | None:
    """Apply one step; what undoes it, or ``None`` where the store refused it or
    it changed nothing (a supersede made twice is one relation)."""
    kind, i, j = step
    a, b = ids[i], ids[j]
    try:
        if kind == "supersede" and gm.get(a, project_id=project).superseded_by == b:
            return None
        if kind == "merge":
            gm.merge_memories(a, b, project_id=project)
            return ("merge", b)
        if kind == "supersede":
            gm.supersede(a, b, project_id=project)
            return ("supersede", a)
        if kind == "archive":
            gm.archive(a, "step", project_id=project)
            return ("archive", a)
        if kind == "reject":
            gm.reject(a, "step", project_id=project)
            return ("rejection", a)
        done = gm.consolidate(project_id=project).consolidated
        return ("consolidation", done[0].memory_id) if done else None
    except (ConflictError, InvalidInputError, NotFoundError):
        return None


def undo_newest_first(
    egm: GraphMem, store: Store, clock: ManualClock, steps: list[tuple[str, int, int]]
) -> list[str]:
    """Write a project, curate it by ``steps``, undo newest first, and check that
    what was there before is back; returns the curations undone."""
    project = f"undo-{next(PROJECTS)}"
    texts = [*REFRESH, *PLAIN]
    ids = egm.remember_many(
        [
            {"content": text, "memory_type": "fact", "source": SOURCES[n % len(SOURCES)]}
            for n, text in enumerate(texts)
        ],
        dedup=False,
        project_id=project,
    )
    egm.relate(ids[2], ids[3], RelationType.ENABLES, project_id=project)
    egm.relate(ids[5], ids[0], RelationType.CONSTRAINS, project_id=project)
    before = state(store, project)
    undos = []
    for step in steps:
        clock.advance(1)  # each curation at its own time, as a supersede's order is read
        if (undo := curate(egm, step, ids, project)) is not None:
            undos.append(undo)

    for curation, memory_id in reversed(undos):
        egm.undo(curation, memory_id, reason="property", by="test", project_id=project)

    memories, edges = state(store, project)
    created = set(memories) - set(before[0])
    for memory_id in created:
        assert memories[memory_id][FIELDS.index("tier")] == "archived", "a consolidation's memory"
    assert {k: v for k, v in memories.items() if k not in created} == before[0]
    assert {e for e in edges if e[0] not in created and e[2] not in created} == before[1]
    return [curation for curation, _ in undos]


def test_one_of_each_curation_undone_newest_first(
    egm: GraphMem, store: Store, clock: ManualClock
) -> None:
    steps = [
        ("consolidate", 0, 0),
        ("merge", 3, 5),
        ("supersede", 2, 3),
        ("archive", 7, 0),
        ("reject", 4, 0),
        ("merge", 6, 4),
        ("supersede", 3, 6),
    ]
    undone = undo_newest_first(egm, store, clock, steps)
    assert set(undone) == {"consolidation", "merge", "supersede", "archive", "rejection"}, undone


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=STEPS)
def test_undoing_curations_newest_first_gives_back_what_was_there(
    egm: GraphMem, store: Store, clock: ManualClock, steps: list[tuple[str, int, int]]
) -> None:
    undo_newest_first(egm, store, clock, steps)
