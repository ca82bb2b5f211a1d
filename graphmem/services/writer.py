"""The remember pipeline: validated items become memories, duplicates merge.

A batch is written by one statement: new memories with their embeddings, and
items that repeat a live memory (the same normalised text, or, with dedup, a
near match ``graphmem.domain.restatement`` judges the same statement) counted into
it. A near match that says something else is stored as its own memory: an
update superseding the old one, or a candidate flagged as a possible
contradiction (``graphmem.services.near_matches``). A failure leaves the batch
entirely unwritten. What follows the write (activations earned by recurrence,
an agent's "remember this", the memory-limit trigger) runs after it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from graphmem.domain.dependencies import Change, Changed
from graphmem.domain.kinds import MemoryType, Status, SuggestedBy
from graphmem.domain.lifecycle import SHORT_TERM
from graphmem.domain.models import Memory, MemoryInput, WriteOutcome, memory_from_fields
from graphmem.domain.restatement import readable
from graphmem.domain.sessions import DEFAULT_SESSION
from graphmem.domain.text import content_key
from graphmem.services.autolinks import AutoLinker
from graphmem.services.base import Basics, Service
from graphmem.services.cascade import Cascade
from graphmem.services.embeddings import Vector, memory_text
from graphmem.services.events import ChangeKind
from graphmem.services.memories import Embed, Memories
from graphmem.services.near_matches import NearMatches
from graphmem.services.projects import Projects
from graphmem.services.promotion import PromotionEngine, Trigger
from graphmem.services.sharing import Sharing
from graphmem.services.staging import Stager
from graphmem.services.write_batch import (
    Written,
    check_occurred_at,
    check_valid_span,
    exact,
    merge_into,
    new_row,
    repeated,
    repeated_live,
    union,
)
from graphmem.store.queries import memories as stored
from graphmem.store.queries.memories import Remembered, SessionLoad, Superseded


@dataclass
class _Batch:
    """A batch as ``Writer.write`` plans it before the write: the rows to
    create, the counts merged into live memories, and one outcome per item."""

    inputs: Sequence[MemoryInput]
    project: str
    now: float
    dedup: bool
    rows: list[dict[str, Any]] = field(default_factory=list)
    new_by_key: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    merges: dict[str, dict[str, Any]] = field(default_factory=dict)
    outcomes: list[WriteOutcome] = field(default_factory=list)
    positions: dict[str, int] = field(default_factory=dict)
    """Each created row's place in the batch, for an error that names it."""

    def count_into_live(self, memory_id: str, item: MemoryInput) -> None:
        """The item repeats a live memory: one more occurrence of it."""
        merge = merge_into(self.merges, memory_id, 1, item.evidence, item.tags)
        merge.update(match="exact", similarity=1.0)
        self.outcomes.append(exact(memory_id))

    def count_into_earlier(self, first: dict[str, Any], item: MemoryInput) -> None:
        """The item repeats an earlier item of the batch: counted into its row."""
        first["occurrence_count"] += 1
        first["evidence"] = union(first["evidence"], item.evidence)
        first["tags"] = union(first["tags"], item.tags)
        self.outcomes.append(exact(first["id"]))

    def create(self, row: dict[str, Any], key: str, position: int) -> None:
        """The item is new: its row is created."""
        row["content_key"] = key
        self.rows.append(row)
        self.new_by_key.setdefault(key, []).append(row)
        self.positions[row["id"]] = position
        self.outcomes.append(WriteOutcome(id=row["id"], created=True))


class Writer(Service):
    """Writes validated ``MemoryInput`` batches; see the module docstring."""

    def __init__(
        self,
        basics: Basics,
        *,
        stager: Stager,
        promotion: PromotionEngine,
        memories: Memories,
        embed: Embed,
        projects: Projects,
        sharing: Sharing,
        links: AutoLinker,
        near_matches: NearMatches,
    ) -> None:
        super().__init__(basics)
        self.stager = stager
        self.promotion = promotion
        self.memories = memories
        self.embed = embed
        self.projects = projects
        self.sharing = sharing
        self.links = links
        self.near_matches = near_matches
        self.cascade = Cascade(basics)

    def write_one(self, item: MemoryInput, *, project_id: str) -> tuple[Memory, WriteOutcome]:
        """One item written, and the memory it created or merged into as it now stands."""
        written = self.write([item], project_id=project_id)
        (outcome,) = written.outcomes
        memory = written.memory(outcome.id) or self.memories.get(outcome.id, project_id=project_id)
        return memory, outcome

    def write(
        self, inputs: Sequence[MemoryInput], *, project_id: str, dedup: bool = True
    ) -> Written:
        """Write a batch in one statement; duplicates merge instead of creating nodes.

        Each item is first the acting agent's, with its visibility settled
        (``Sharing.attributed``), whoever writes it. With ``dedup``, an item
        whose normalised text matches a live memory of the project (or an
        earlier item of the same batch) counts as another occurrence of it.
        """
        if not inputs:
            return Written([])
        inputs = self.sharing.attributed(inputs, project_id)
        now = self._now()
        check_occurred_at(inputs, now)
        check_valid_span(inputs, now)
        batch = self._plan(inputs, project_id, now, dedup)
        # One embedding call per batch, before anything is written.
        vectors = self.embed(
            [memory_text(row["content"], row.get("rationale")) for row in batch.rows]
        )
        vectors, supersedes = self._resolve_near_matches(batch, vectors)
        links = self._auto_links(batch.rows, project_id)
        written = self._remember_many(batch, vectors, links)
        if written.raced:
            batch.rows = self._raced(batch.rows, written.raced, batch.outcomes)
        return self._after_write(batch, written, links, supersedes)

    def _plan(self, inputs: Sequence[MemoryInput], project: str, now: float, dedup: bool) -> _Batch:
        """Each item counted into the live memory or the earlier item of the
        batch it repeats (same normalised text; an event only at the same
        moment), else a new row."""
        keys = [content_key(item.content) for item in inputs]
        comparable = [dedup and readable(item.content) for item in inputs]
        wanted = [key for key, can in zip(keys, comparable, strict=True) if can]
        existing = self.stager.exact_duplicates(wanted, project_id=project) if wanted else {}
        window = self.rules.restatement.event_window_seconds
        batch = _Batch(inputs, project, now, dedup)
        for position, (item, key, can) in enumerate(zip(inputs, keys, comparable, strict=True)):
            when = now if item.occurred_at is None else item.occurred_at
            event = item.memory_type is MemoryType.EVENT
            same = repeated_live(existing.get(key, []), event, when, window) if can else None
            first = repeated(batch.new_by_key.get(key, []), event, when, window) if can else None
            if same is not None:
                batch.count_into_live(same, item)
            elif first is not None:
                batch.count_into_earlier(first, item)
            else:
                batch.create(new_row(item, project, now, self.scorer), key, position)
        return batch

    def _resolve_near_matches(
        self, batch: _Batch, vectors: list[Vector] | None
    ) -> tuple[list[Vector] | None, list[dict[str, Any]]]:
        """With dedup, the new rows judged against their near matches
        (``NearMatches.resolve``): the rows left to create, their vectors, and
        the SUPERSEDES edges of the updates among them."""
        if not (batch.dedup and batch.rows):
            return vectors, []
        positions = batch.positions if len(batch.inputs) > 1 else None
        batch.rows, vectors, supersedes = self.near_matches.resolve(
            batch.rows, vectors, batch.merges, batch.outcomes, batch.project, positions
        )
        return vectors, supersedes

    def _remember_many(
        self, batch: _Batch, vectors: list[Vector] | None, links: list[dict[str, Any]]
    ) -> Remembered:
        """Memories, their embeddings, their links and the merges go in one
        statement: a failure leaves the batch entirely unwritten, never half written."""
        return stored.remember(
            self.store,
            batch.project,
            rows=batch.rows,
            vectors=vectors or _no_vectors(batch.rows),
            merges=self.stager.merge_params(list(batch.merges.values())),
            links=links,
            dedup=batch.dedup,
            event_window=self.rules.restatement.event_window_seconds,
            now=batch.now,
        )

    def _after_write(
        self,
        batch: _Batch,
        written: Remembered,
        links: Sequence[Mapping[str, Any]],
        supersedes: list[dict[str, Any]],
    ) -> Written:
        """What follows the batch statement: the changes announced, merged
        candidates staged, the updates' SUPERSEDES edges, session use, earned
        activations, an agent's "remember this" and the memory limits."""
        project = batch.project
        # The statement returns the memories it merged into as they now stand
        # (a memory merged into twice: its later fields last); the ones it
        # created hold exactly the rows it was given.
        merged = {m["id"]: m for m in written.merged}
        result = Written(batch.outcomes, {**merged, **{row["id"]: row for row in batch.rows}})
        self._announce(batch, links, linked=bool(written.linked))
        merged_into = [memory_from_fields(m) for m in merged.values()]
        result.changed(self.stager.merged(merged_into, project_id=project))
        created = {row["id"] for row in batch.rows}
        superseded = self._supersede(
            [e for e in supersedes if e["new_id"] in created], project, batch.now
        )
        self._mark_dependents(batch.rows, superseded, project)
        self._note_session_use(batch.inputs, batch.outcomes, project)
        result.changed(self.stager.activate_earned(_recurred(batch.rows), project_id=project))
        self._agent_decisions(batch.inputs, result, project)
        self._memory_limits(written.sessions, result, project)
        return result

    def _announce(self, batch: _Batch, links: Sequence[Mapping[str, Any]], *, linked: bool) -> None:
        """The memories created, those the batch linked them to when the
        statement wrote links (``linked``), and the new candidates."""
        project = batch.project
        created = [row["id"] for row in batch.rows]
        self._changed(ChangeKind.CREATED, created, project)
        if linked:
            created_ids = set(created)
            linked_to = sorted({link["to_id"] for link in links if link["from_id"] in created_ids})
            self._changed(ChangeKind.RELATED, linked_to, project)
        candidates = [row["id"] for row in batch.rows if row["status"] == Status.CANDIDATE.value]
        if candidates:
            self.telemetry.emit(
                "candidate.added", batch.now, project_id=project, memory_ids=candidates
            )

    def _auto_links(self, rows: Sequence[Mapping[str, Any]], project: str) -> list[dict[str, Any]]:
        """The links the project's ``auto_links`` ask for (``graphmem.services.autolinks``)."""
        if not rows:
            return []
        return self.links.plan(rows, self.projects.settings(project_id=project).auto_links, project)

    @staticmethod
    def _raced(
        rows: list[dict[str, Any]], into: Mapping[str, str], outcomes: list[WriteOutcome]
    ) -> list[dict[str, Any]]:
        """Rows the write counted into a memory that another writer of the same
        text created after this batch looked (``into``: row id -> memory id):
        they became exact merges."""
        for n, outcome in enumerate(outcomes):
            if outcome.id in into:
                outcomes[n] = exact(into[outcome.id])
        return [row for row in rows if row["id"] not in into]

    def _supersede(self, edges: list[dict[str, Any]], project: str, now: float) -> list[Superseded]:
        """The SUPERSEDES edges of the updates this batch created, as written. A
        statement of their own, right after the batch: folded into it, the batch
        statement grows past what some Bolt servers accept."""
        if not edges:
            return []
        done = stored.supersede(self.store, edges, project, now)
        self._changed(ChangeKind.RELATED, [i for e in done for i in (e.new_id, e.old_id)], project)
        return done

    def _mark_dependents(
        self, rows: Sequence[Mapping[str, Any]], superseded: Sequence[Superseded], project: str
    ) -> None:
        """What rests on a memory this batch superseded, or flagged as possibly
        contradicted, needs review (``graphmem.services.cascade``)."""
        changes = [Changed(e.old_id, Change.SUPERSEDED, e.new_id) for e in superseded]
        changes += [
            Changed(row["conflicts_with"], Change.CONTRADICTED, row["id"])
            for row in rows
            if row.get("conflicts_with")
        ]
        self.cascade.changed(changes, project_id=project)

    def _note_session_use(
        self, inputs: Sequence[MemoryInput], outcomes: Sequence[WriteOutcome], project: str
    ) -> None:
        """A session writing again what another session's memory holds is evidence
        for a long-term tier (``promotion.record_session_use``)."""
        by_session: dict[str, list[str]] = {}
        for item, outcome in zip(inputs, outcomes, strict=True):
            if not outcome.created:
                by_session.setdefault(item.session_id or DEFAULT_SESSION, []).append(outcome.id)
        for session_id, memory_ids in by_session.items():
            self.promotion.record_session_use(
                sorted(set(memory_ids)), session_id=session_id, project_id=project
            )

    def _agent_decisions(
        self, inputs: Sequence[MemoryInput], result: Written, project: str
    ) -> None:
        """An agent's "remember this" is promoted at once, new or merged."""
        wanted = sorted(
            {
                outcome.id
                for item, outcome in zip(inputs, result.outcomes, strict=True)
                if item.suggested_by is SuggestedBy.AGENT
            }
        )
        if not wanted:
            return
        known = {memory_id: result.memory(memory_id) for memory_id in wanted}
        unknown = [memory_id for memory_id, memory in known.items() if memory is None]
        if unknown:  # changed since the write: read as they now stand
            read = self.memories.get_many(unknown, project_id=project)
            known.update(zip(unknown, read, strict=True))
        short_term = [m for m in known.values() if m is not None and m.tier in SHORT_TERM]
        if short_term:
            promoted = self.promotion.promote_now(short_term, project_id=project)
            result.changed(promoted.promoted)

    def _memory_limits(
        self, sessions: Sequence[SessionLoad], result: Written, project: str
    ) -> None:
        for session in sessions:
            limit = session.max_items or self.rules.short_term_max
            if session.working >= limit:
                self.promotion.run(
                    session.session_id,
                    project_id=project,
                    trigger=Trigger.MEMORY_LIMIT,
                    rotate_limit=limit,
                )
                # The run may have moved any memory of the session.
                result.changed(
                    [
                        memory_id
                        for memory_id, fields in result.fields.items()
                        if fields.get("session_id") == session.session_id
                    ]
                )


def _recurred(rows: Sequence[Mapping[str, Any]]) -> list[Memory]:
    """Only a candidate that recurred within the batch can have earned
    activation already: fresh rows have no feedback or evidence."""
    return [
        memory_from_fields(row)
        for row in rows
        if row["occurrence_count"] > 1 and row["status"] == Status.CANDIDATE.value
    ]


def _no_vectors(rows: Sequence[Mapping[str, Any]]) -> list[Vector | None]:
    """A batch's embeddings when the embedder is off: none for each row."""
    return [None] * len(rows)
