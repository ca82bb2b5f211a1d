"""Links graphmem writes itself at ingest, when a project turns them on
(``ProjectSettings.auto_links``; off by default).

Each is a ``RELATED_TO`` edge from the memory being written to an earlier one,
with a rationale saying why it was added and a weight, written by the same
statement as the memory (``remember_many``), so a memory never exists without
its links or the other way round:

- ``previous_turn``: to the latest memory of the same session that happened at
  or before it (``occurred_at``, then creation; the batch's own earlier items
  count), rationale "previous turn of session S", weight 1;
- ``same_entity``: to the most recent memories that name one of its named
  entities (``graphmem.services.entities``), at most ``ENTITY_FAN_OUT`` per entity and
  ``MAX_ENTITY_LINKS`` per memory, rationale "both mention 'Alice'", weight
  0.5. An entity that at least ``COMMON_ENTITY`` memories of the store hold
  (the full-text index's count) links nothing: it says little about which
  memories belong together, and looking it up would read them all.

The lookups are reads before the write (two round trips per batch at most);
a memory deleted in between is simply not linked. docs/retrieval.md has what
each kind adds on the dev sets.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from graphmem.domain.kinds import AutoLink
from graphmem.services.entities import entities
from graphmem.store import Store
from graphmem.store.queries import relations

PREVIOUS_TURN_WEIGHT = 1.0
SAME_ENTITY_WEIGHT = 0.5
ENTITY_FAN_OUT = 3
"""Memories linked per shared entity: the most recent ones."""
MAX_ENTITY_LINKS = 8
"""same_entity links per memory, whatever the number of its entities."""
ENTITY_SCAN = 4 * ENTITY_FAN_OUT
"""Stored memories read per entity (most recent first): some of those whose text
holds the word do not name it as an entity (it starts their sentence)."""
COMMON_ENTITY = 1_000

Counts = Callable[[Sequence[str], str], Mapping[str, int]]
"""Words and a project -> how many of the project's memories the full-text index
matches per word."""
Scoped = Callable[[str, str], str]
"""A full-text query and a project -> the query held to that project's memories."""
Holders = dict[str, list[tuple[float, str]]]
"""Per entity, the memories that name it: (when it happened, id)."""


class AutoLinker:
    """Plans a batch's links; ``term_counts`` is the full-text index's count per word
    in the project, read at the time (a cached count would be taken before the
    batch is written, and the cache is what search computes IDF from), and
    ``scoped`` holds an index query to the project."""

    def __init__(self, store: Store, term_counts: Counts, scoped: Scoped) -> None:
        self.store = store
        self.term_counts = term_counts
        self.scoped = scoped

    def plan(
        self, rows: Sequence[Mapping[str, Any]], kinds: Collection[AutoLink], project_id: str
    ) -> list[dict[str, Any]]:
        """The links of ``rows`` (the memories about to be created), one per pair,
        as parameters of ``remember_many``."""
        if not rows or not kinds:
            return []
        links: dict[tuple[str, str], dict[str, Any]] = {}
        if AutoLink.PREVIOUS_TURN in kinds:
            for from_id, to_id, rationale in self._previous_turns(rows, project_id):
                _add(links, from_id, to_id, rationale, PREVIOUS_TURN_WEIGHT)
        if AutoLink.SAME_ENTITY in kinds:
            for from_id, to_id, rationale in self._same_entity(rows, project_id):
                _add(links, from_id, to_id, rationale, SAME_ENTITY_WEIGHT)
        return list(links.values())

    def _previous_turns(
        self, rows: Sequence[Mapping[str, Any]], project_id: str
    ) -> list[tuple[str, str, str]]:
        turns = [(row["session_id"], row["occurred_at"]) for row in rows]
        stored = {
            turn.index: (turn.occurred_at, turn.id)
            for turn in relations.previous_turns(self.store, turns, project_id)
        }
        links = []
        latest: dict[str, tuple[float, int, str]] = {}
        for i in _in_time_order(rows):
            row = rows[i]
            session = row["session_id"]
            options = [latest[session]] if session in latest else []
            if i in stored:  # stored before this batch: earlier than its rows at a tie
                options.append((stored[i][0], -1, stored[i][1]))
            if options:
                links.append((row["id"], max(options)[2], f"previous turn of session {session}"))
            latest[session] = (row["occurred_at"], i, row["id"])
        return links

    def _same_entity(
        self, rows: Sequence[Mapping[str, Any]], project_id: str
    ) -> list[tuple[str, str, str]]:
        named = [entities(row["content"]) for row in rows]
        wanted = sorted({entity for found in named for entity in found})
        if not wanted:
            return []
        counts = self.term_counts(wanted, project_id)
        usable = {e for e in wanted if counts.get(e, 0) < COMMON_ENTITY}
        holders = self._holders(usable, project_id)
        links = []
        for i in _in_time_order(rows):
            row = rows[i]
            shared = _shared_entities(row, named[i], usable, holders)
            for other, names in shared.items():
                mentioned = ", ".join(f"'{name}'" for name in names)
                links.append((row["id"], other, f"both mention {mentioned}"))
        return links

    def _holders(self, usable: Collection[str], project_id: str) -> Holders:
        """The stored memories that name each entity (when, id), from the
        most recent ``ENTITY_SCAN`` whose text holds it."""
        holders: Holders = {e: [] for e in usable}
        # Every usable entity is looked up: a count of 0 may be a few minutes old.
        stored = sorted(usable)
        if not stored:
            return holders
        queries = [(e, self.scoped(e, project_id)) for e in stored]
        for mention in relations.entity_mentions(self.store, queries, project_id, ENTITY_SCAN):
            for hit in mention.hits:
                if mention.entity in entities(hit.content or ""):
                    holders[mention.entity].append((hit.occurred_at, hit.id))
        return holders


def _shared_entities(
    row: Mapping[str, Any], named: Mapping[str, str], usable: Collection[str], holders: Holders
) -> dict[str, list[str]]:
    """The memories a row links to, each with the entities they share as the
    row spells them: the most recent holders of each entity, within the
    per-memory limit. The row then holds its entities for the rows after it."""
    shared: dict[str, list[str]] = {}
    for entity, spelled in named.items():
        if entity not in usable:
            continue
        recent = sorted(holders[entity], reverse=True)[:ENTITY_FAN_OUT]
        for _, other in recent:
            if other in shared or len(shared) < MAX_ENTITY_LINKS:
                shared.setdefault(other, []).append(spelled)
        holders[entity].append((row["occurred_at"], row["id"]))
    return shared


def _in_time_order(rows: Sequence[Mapping[str, Any]]) -> list[int]:
    """Row indexes by when they happened, the batch's order at a tie."""
    return sorted(range(len(rows)), key=lambda i: (rows[i]["occurred_at"], i))


def _add(
    links: dict[tuple[str, str], dict[str, Any]],
    from_id: str,
    to_id: str,
    rationale: str,
    weight: float,
) -> None:
    """One link per pair: a second reason joins the rationale, the higher weight stays."""
    if from_id == to_id:
        return
    known = links.get((from_id, to_id))
    if known is None:
        links[(from_id, to_id)] = {
            "from_id": from_id,
            "to_id": to_id,
            "rationale": rationale,
            "weight": weight,
        }
    else:
        known["rationale"] = f"{known['rationale']}; {rationale}"
        known["weight"] = max(known["weight"], weight)
