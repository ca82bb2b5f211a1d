"""Full text's stored statistics stay exact through every write path.

A project's size and mean length, as each viewer reads them, are summed by
the database from the length every write stores with a memory's text
(graphmem.domain.analysis). Each test runs a random mix of writes over a few
projects and agents (remembers one by one and in batches, with repeats that
merge; edits of the text; forgets; archives and restores; sharing and
unsharing; copies; merges and their undo; consolidation and its undo; imports
of an export and of a Sky file; and writes sabotaged at their last row, which
must leave nothing), then compares the statistics with a recount of the
stored texts, for every project and viewer.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from graphmem.api import GraphMem
from graphmem.domain.analysis import text_length
from graphmem.domain.clock import ManualClock
from graphmem.domain.errors import ConflictError, InvalidInputError, NotFoundError
from graphmem.domain.viewer import acting_as
from graphmem.services.embeddings import MiniLMEmbedder
from graphmem.services.transfer import export_project, import_project
from graphmem.services.transfer.sky import Term, import_sky
from graphmem.store import Store
from graphmem.store.migrations import text_fields
from graphmem.store.queries import fulltext
from tests.conftest import cypher
from tests.integration.test_atomicity import NOT_A_PROPERTY, REFUSED, FaultyStore

PROJECTS = ("alpha", "beta")
AGENTS = (None, "ana", "ben")
SUBJECTS = ("the deploy queue", "the billing worker", "the login token", "the nightly export")
FACTS = (
    "retries three times",
    "must run behind the VPN",
    "is rebuilt every hour before the release",
    "expires after fifteen minutes",
    "is owned by the platform team",
)
WHY = (None, "after the March outage", "as agreed in review", "because of the audit")
RESTATEMENTS = (
    "The staging database is refreshed from production every Sunday night.",
    "Every Sunday night the staging database gets refreshed from production.",
    "Staging database refreshes from production run on Sunday nights. "
    "They lock the reporting tables while they run.",
)
"""Restatements of one fact, which consolidation folds into one memory."""


def _text(rng: random.Random) -> str:
    return f"{rng.choice(SUBJECTS).capitalize()} {rng.choice(FACTS)}."


def _item(rng: random.Random, agent: str | None) -> dict[str, Any]:
    """A memory to write as ``agent``: private now and then, when it has an agent."""
    visibility = rng.choice(["shared", "private"]) if agent else "shared"
    item: dict[str, Any] = {"content": _text(rng), "visibility": visibility}
    why = rng.choice(WHY)
    if why is not None:
        item["rationale"] = why
    return item


def recount(store: Store, project_id: str, viewer: str | None) -> tuple[int, int]:
    """The project's memories the viewer may read, and their texts' lengths summed,
    counted from the stored texts."""
    rows = cypher(
        store,
        "MATCH (m:Memory {project_id: $p}) RETURN m.content, m.rationale, m.agent_id, m.visibility",
        {"p": project_id},
    )
    readable = [
        (content, rationale)
        for content, rationale, agent, visibility in rows
        if viewer is None or agent is None or visibility != "private" or agent == viewer
    ]
    return len(readable), sum(text_length(c, r) for c, r in readable)


def stored(store: Store, project_id: str, viewer: str | None) -> tuple[int, int]:
    with acting_as(viewer):
        corpus = fulltext.corpus(store, project_id, sample=10_000)
    return corpus.documents, corpus.length


class Mix:
    """One random mix of writes; ``step`` runs one of them."""

    def __init__(
        self, store: Store, rng: random.Random, gm: GraphMem, faulty: FaultyStore, alone: bool
    ) -> None:
        self.store, self.rng, self.gm, self.faulty = store, rng, gm, faulty
        self.alone = alone
        """No other writer: no row can race, so a spoiled row is always refused."""

    def _write(self, project: str, count: int) -> None:
        """``count`` memories written by a random agent, one by one or in a batch."""
        agent = self.rng.choice(AGENTS)
        items = [_item(self.rng, agent) for _ in range(count)]
        if count == 1:
            self.gm.as_agent(agent).remember(items[0], project_id=project)
        else:
            self.gm.as_agent(agent).remember_many(items, project_id=project)

    def _some(self, project_id: str, **where: Any) -> str | None:
        rows = cypher(
            self.store,
            "MATCH (m:Memory {project_id: $p}) RETURN m.id, m.tier, m.agent_id ORDER BY m.id",
            {"p": project_id},
        )
        ids = [
            i
            for i, tier, agent in rows
            if where.get("tier") in (None, tier) and where.get("agent", agent) == agent
        ]
        return self.rng.choice(ids) if ids else None

    def step(self) -> None:
        rng, project = self.rng, self.rng.choice(PROJECTS)
        choice = rng.randrange(13)
        if choice <= 2:
            self._write(project, rng.randint(2, 5))
        elif choice == 3:
            self._write(project, 1)
        elif choice == 4 and (memory_id := self._some(project, agent=None)):
            change = rng.choice([{"content": _text(rng)}, {"rationale": rng.choice(WHY[1:])}])
            self.gm.update(memory_id, change, project_id=project)
        elif choice == 5 and (memory_id := self._some(project)):
            self.gm.forget(memory_id, project_id=project)
        elif choice == 6 and (memory_id := self._some(project)):
            tier = cypher(self.store, "MATCH (m:Memory {id: $i}) RETURN m.tier", {"i": memory_id})
            if tier[0][0] == "archived":
                self.gm.restore(memory_id, project_id=project)
            else:
                self.gm.archive(memory_id, "stale", project_id=project)
        elif choice == 7 and (memory_id := self._some(project, agent=rng.choice(AGENTS[1:]))):
            owner = cypher(
                self.store, "MATCH (m:Memory {id: $i}) RETURN m.agent_id", {"i": memory_id}
            )[0][0]
            agent = self.gm.as_agent(owner)
            if rng.random() < 0.5:
                agent.share(memory_id, project_id=project)
            else:
                agent.unshare(memory_id, project_id=project)
        elif choice == 8 and (memory_id := self._some(project, agent=None)):
            other = next(p for p in PROJECTS if p != project)
            self.gm.copy_memory(memory_id, other, project_id=project)
        elif choice == 9:
            self._merge(project)
        elif choice == 10:
            group = [{"content": t, "memory_type": "fact"} for t in RESTATEMENTS]
            self.gm.remember_many(group, dedup=False, project_id=project)
            result = self.gm.consolidate(project_id=project)
            if result.consolidated and rng.random() < 0.5:
                memory_id = result.consolidated[0].memory_id
                self.gm.undo("consolidation", memory_id, reason="test", project_id=project)
        elif choice == 11:
            self._import(project)
        else:
            self._sabotaged(project)

    def _merge(self, project: str) -> None:
        into, other = self._some(project, agent=None), self._some(project, agent=None)
        if into is None or other is None or into == other:
            return
        with_tier = cypher(
            self.store,
            "MATCH (m:Memory) WHERE m.id IN [$a, $b] AND m.tier <> 'archived' RETURN count(m)",
            {"a": into, "b": other},
        )
        if with_tier[0][0] == 2:
            self.gm.merge_memories(into, other, project_id=project)
            if self.rng.random() < 0.5:
                self.gm.undo("merge", into, reason="test", project_id=project)

    def _import(self, project: str) -> None:
        if self.rng.random() < 0.5:
            lines = io.StringIO()
            export_project(self.faulty, project, lines)
            import_project(self.faulty, io.StringIO(lines.getvalue()), project_id="imported")
        else:
            records = [
                json.dumps({"content": _text(self.rng), "ts": 1_700_000_000.0 + n, "type": "fact"})
                for n in range(self.rng.randint(1, 4))
            ]
            import_sky(self.faulty, records, project_id=project, term=Term.LONG, now=1.8e9)

    def _sabotaged(self, project: str) -> None:
        """A batch whose last new row cannot be stored: the write is refused whole,
        unless that row raced (another writer created its text after the batch
        looked), so it was counted into that memory and never stored itself."""
        spoiled: list[dict[str, Any]] = []

        def spoil(params: dict[str, Any]) -> None:
            if params["rows"]:
                params["rows"][-1]["embedding"] = NOT_A_PROPERTY
                spoiled.append(params["rows"][-1]["props"])

        self.faulty.sabotage["remember_many"] = spoil
        try:
            self._write(project, 3)
        except REFUSED:
            assert spoiled
        else:
            assert not (spoiled and self.alone)
            ids = [row["id"] for row in spoiled]
            assert not cypher(
                self.store, "MATCH (m:Memory) WHERE m.id IN $ids RETURN m", {"ids": ids}
            )
        finally:
            del self.faulty.sabotage["remember_many"]


@pytest.mark.parametrize("seed", [3, 17])
def test_stored_statistics_equal_a_recount_after_any_mix_of_writes(
    store: Store, clock: ManualClock, embedder: MiniLMEmbedder, seed: int
):
    faulty = FaultyStore(store)
    gm = GraphMem(faulty, clock=clock, embedder=embedder)  # type: ignore[arg-type]
    mix = Mix(store, random.Random(seed), gm, faulty, alone=True)
    for _ in range(40):
        mix.step()
        clock.advance(3_600)
    assert_exact(store)


def assert_exact(store: Store) -> None:
    for project in [*PROJECTS, "imported"]:
        for viewer in AGENTS:
            assert stored(store, project, viewer) == recount(store, project, viewer), (
                project,
                viewer,
            )
    lengths = cypher(store, "MATCH (m:Memory) RETURN m.content, m.rationale, m.text_length")
    assert lengths and all(length == text_length(c, r) for c, r, length in lengths)


def test_concurrent_writers_leave_the_statistics_exact(
    store: Store,
    connect_again: Callable[[], Store],
    clock: ManualClock,
    embedder: MiniLMEmbedder,
):
    """Three processes' worth of writers on one graph, each its own connection:
    a write another undid first (a forget of a forgotten memory, a merge of an
    archived one) is refused, and whatever lands, the statistics count it."""

    def writer(seed: int) -> None:
        other = connect_again()
        faulty = FaultyStore(other)
        gm = GraphMem(faulty, clock=clock, embedder=embedder)  # type: ignore[arg-type]
        mix = Mix(other, random.Random(seed), gm, faulty, alone=False)
        for _ in range(15):
            with contextlib.suppress(NotFoundError, ConflictError, InvalidInputError):
                mix.step()

    with ThreadPoolExecutor(max_workers=3) as pool:
        list(pool.map(writer, [5, 6, 7]))
    assert_exact(store)


def test_memories_a_script_wrote_are_counted_once_a_store_opens(gm: GraphMem, store: Store):
    """A Cypher script (or an older version) writes memories without the fields
    full text reads; opening the store (``text_fields``) gives them theirs."""
    gm.remember({"content": "The deploy queue retries three times."}, project_id="alpha")
    cypher(
        store,
        "UNWIND $texts AS t CREATE (:Memory {id: t[0], project_id: 'alpha', content: t[1],"
        " rationale: t[2], session_id: 'default', created_at: 1.8e9, updated_at: 1.8e9})",
        {"texts": [["s1", "Backups run nightly at two.", "per the audit"], ["s2", "Hi!", None]]},
    )
    assert stored(store, "alpha", None) != recount(store, "alpha", None)
    assert text_fields(store) == 2
    assert text_fields(store) == 0
    assert stored(store, "alpha", None) == recount(store, "alpha", None) == (3, 11)
    found = gm.search("backups nightly", mode="FULLTEXT", project_id="alpha")
    assert [hit.memory.id for hit in found.hits] == ["s1"]
