"""The Python API: every surface (GraphQL, CLI, benchmarks) calls this.

Each operation is scoped to one project; an id from another project behaves
exactly like an id that does not exist. Inputs are validated before anything
is written, so a rejected call leaves the store unchanged.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import TypeAdapter, ValidationError

from graphmem.archival import Archiver, ArchiveResult
from graphmem.clock import Clock, SystemClock, stored_now
from graphmem.config import Settings
from graphmem.embeddings import Embedder, embedder_named, memory_text
from graphmem.errors import ConflictError, InvalidInputError, NotFoundError
from graphmem.evaluator import ConsistencyReport, Evaluator, Job
from graphmem.events import ChangeKind, EventBus
from graphmem.ids import new_id
from graphmem.keys import ApiKeys
from graphmem.lifecycle import SHORT_TERM
from graphmem.migrations import MigrationReport, migrate
from graphmem.models import (
    DEFAULT_SESSION,
    MAX_BATCH_SIZE,
    MAX_PAGE_SIZE,
    MAX_RATIONALE_CHARS,
    BulkReviewResult,
    Identifier,
    Memory,
    MemoryFilter,
    MemoryInput,
    MemoryUpdate,
    Page,
    PromotionEvent,
    PromotionStats,
    Relation,
    RelationType,
    ReviewFilter,
    ReviewItem,
    ReviewPage,
    Session,
    SessionState,
    StagingEvent,
    Status,
    SuggestedBy,
    Tier,
    WriteOutcome,
    check_text,
    initial_status,
    invalid_input,
    memory_from_fields,
    parse,
)
from graphmem.policy import InjectionPolicy
from graphmem.promotion import CLOSE_LIMIT, PromotionEngine, RunResult, Trigger
from graphmem.retention import RetentionRules
from graphmem.retrieval import (
    BackfillResult,
    ContextRequest,
    ContextResult,
    Neighborhood,
    Retrieval,
    SearchFilters,
    SearchMode,
    SearchResult,
)
from graphmem.retrieval.context import (
    DEFAULT_MAX_RESULTS,
    DEFAULT_MIN_CONFIDENCE,
    DEFAULT_RECENCY_WEIGHT,
)
from graphmem.retrieval.fulltext import query_terms
from graphmem.retrieval.fusion import DEFAULT_MIN_RELEVANCE
from graphmem.scoring import ImportanceBreakdown, ImportanceScorer
from graphmem.staging import (
    Evidence,
    Signal,
    Stager,
    content_key,
    earned_signal,
    jaccard,
    tokens,
)
from graphmem.store import Row, Store
from graphmem.telemetry import Telemetry

_identifier = TypeAdapter(Identifier)
NEAR_DUPLICATE_K = 20
"""Neighbours asked of the vector index per new memory when looking for a near duplicate."""
NEAR_DUPLICATE_TEXT_K = 5
"""Full-text matches whose token overlap is measured, without embeddings."""
NEAR_DUPLICATE_TEXT_MAX_BATCH = 50
"""Without embeddings, near duplicates are looked for in batches up to this size (the
writes of an agent at work); a full-text lookup per item would dominate a bulk load,
which gets exact dedup only."""
_batch = TypeAdapter(list[MemoryInput])
_RELATE_STATEMENT = {
    RelationType.CONSTRAINS: "relate_constrains",
    RelationType.ENABLES: "relate_enables",
    RelationType.RELATED_TO: "relate_related_to",
    RelationType.SUPERSEDES: "relate_supersedes",
}


class GraphMem:
    """A memory store bound to one backend, one clock and one scorer."""

    def __init__(
        self,
        store: Store,
        *,
        clock: Clock | None = None,
        scorer: ImportanceScorer | None = None,
        rules: RetentionRules | None = None,
        telemetry: Telemetry | None = None,
        project_id: str = "default",
        embedder: Embedder | None = None,
    ) -> None:
        self.store = store
        self.clock = clock or SystemClock()
        self.scorer = scorer or ImportanceScorer()
        self.rules = rules or RetentionRules()
        self.telemetry = telemetry or Telemetry()
        self.default_project = _check_identifier("project_id", project_id)
        services = {
            "clock": self.clock,
            "scorer": self.scorer,
            "rules": self.rules,
            "telemetry": self.telemetry,
        }
        self.promotion = PromotionEngine(store, **services)
        self.archiver = Archiver(store, **services)
        self.stager = Stager(store, **services)
        self.embedder = embedder
        """Embeds memories as they are written; ``None``: full text and relations only."""
        self.retrieval = Retrieval(
            store,
            clock=self.clock,
            scorer=self.scorer,
            telemetry=self.telemetry,
            embedder=embedder,
            policy=InjectionPolicy(candidate_min_score=self.rules.candidate_slot_min_score),
        )
        self.evaluator = Evaluator(store, **services, record_evidence=self.record_evidence)
        self.keys = ApiKeys(store, self.clock)
        self.events = EventBus(self.telemetry)
        """What happens to memories, for live subscribers (GraphQL subscriptions)."""

    @classmethod
    def open(cls, settings: Settings | None = None, *, clock: Clock | None = None) -> GraphMem:
        """Open the store the settings describe (the embedded one by default)."""
        from graphmem.store.factory import open_store

        settings = settings or Settings()
        return cls(
            open_store(settings),
            clock=clock,
            scorer=ImportanceScorer(settings.scoring_preset),
            rules=RetentionRules.load(settings.retention_file),
            project_id=settings.project,
            embedder=embedder_named(settings.embedder, threads=settings.embedder_threads),
        )

    def close(self) -> None:
        # Queued evaluations finish before the store they write to closes.
        self.evaluator.close()
        self.store.close()

    def __enter__(self) -> GraphMem:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- memories ----------------------------------------------------------

    def remember(
        self, item: MemoryInput | Mapping[str, Any], *, project_id: str | None = None
    ) -> Memory:
        return self.remember_detailed(item, project_id=project_id)[0]

    def remember_detailed(
        self, item: MemoryInput | Mapping[str, Any], *, project_id: str | None = None
    ) -> tuple[Memory, WriteOutcome]:
        """Like ``remember``, also saying whether it created a memory or merged into one."""
        (outcome,) = self.remember_many_detailed([item], project_id=project_id)
        return self.get(outcome.id, project_id=project_id), outcome

    def remember_many(
        self,
        items: Sequence[MemoryInput | Mapping[str, Any]],
        *,
        project_id: str | None = None,
        dedup: bool = True,
    ) -> list[str]:
        """Write a batch; returns each item's memory id (an existing one where it merged)."""
        outcomes = self.remember_many_detailed(items, project_id=project_id, dedup=dedup)
        return [outcome.id for outcome in outcomes]

    def remember_many_detailed(
        self,
        items: Sequence[MemoryInput | Mapping[str, Any]],
        *,
        project_id: str | None = None,
        dedup: bool = True,
    ) -> list[WriteOutcome]:
        """Write a batch in one statement; duplicates merge instead of creating nodes.

        The whole batch is validated first: one bad item rejects the batch and
        nothing is written. With ``dedup``, an item whose normalised text
        matches a live memory of the project (or an earlier item of the same
        batch) counts as another occurrence of it.
        """
        project = self._project(project_id)
        inputs = self._validate_batch(items)
        if not inputs:
            return []
        now = self._now()
        keys = [content_key(item.content) for item in inputs]
        existing = self.stager.exact_duplicates(keys, project_id=project) if dedup else {}
        rows: list[dict[str, Any]] = []
        new_by_key: dict[str, dict[str, Any]] = {}
        merges: dict[str, dict[str, Any]] = {}
        outcomes: list[WriteOutcome] = []
        for item, key in zip(inputs, keys, strict=True):
            if dedup and key in existing:
                merge = merges.setdefault(
                    existing[key],
                    {"id": existing[key], "occurrences": 0, "evidence": [], "tags": []},
                )
                merge["occurrences"] += 1
                merge["evidence"] = _union(merge["evidence"], item.evidence)
                merge["tags"] = _union(merge["tags"], item.tags)
                merge.update(match="exact", similarity=1.0)
                outcomes.append(WriteOutcome(id=existing[key], created=False, match="exact"))
            elif dedup and key in new_by_key:
                first = new_by_key[key]
                first["occurrence_count"] += 1
                first["evidence"] = _union(first["evidence"], item.evidence)
                first["tags"] = _union(first["tags"], item.tags)
                outcomes.append(WriteOutcome(id=first["id"], created=False, match="exact"))
            else:
                row = self._new_row(item, project, now)
                row["content_key"] = key
                rows.append(row)
                new_by_key[key] = row
                outcomes.append(WriteOutcome(id=row["id"], created=True))
        # One embedding call per batch, before anything is written.
        vectors = self.retrieval.embed_memories(
            [memory_text(row["content"], row.get("rationale")) for row in rows]
        )
        if dedup and rows:
            rows, vectors = self._merge_near_duplicates(rows, vectors, merges, outcomes, project)
        # Memories, their embeddings and the merges go in one statement: a
        # failure leaves the batch entirely unwritten, never half written.
        (written,) = self.store.write(
            "remember_many",
            {
                "project_id": project,
                "session_ids": sorted({row["session_id"] for row in rows}),
                "rows": [
                    {"props": row, "embedding": vector, "event_id": new_id()}
                    for row, vector in zip(rows, vectors or [None] * len(rows), strict=True)
                ],
                "merges": self.stager.merge_params(list(merges.values())),
                "dedup": dedup,
                "now": now,
            },
        )
        if written["raced"]:
            rows = self._raced(rows, written["raced"], outcomes)
        self._changed(ChangeKind.CREATED, [row["id"] for row in rows], project)
        candidates = [row["id"] for row in rows if row["status"] == Status.CANDIDATE.value]
        if candidates:
            self.telemetry.emit("candidate.added", now, project_id=project, memory_ids=candidates)
        self.stager.merged(written["merged"] + written["raced"], project_id=project)
        # Only a candidate that recurred within the batch can have earned
        # activation already: fresh rows have no feedback or evidence.
        recurred = [
            memory_from_fields(row)
            for row in rows
            if row["occurrence_count"] > 1 and row["status"] == Status.CANDIDATE.value
        ]
        self.stager.activate_earned(recurred, project_id=project)
        self._agent_decisions(inputs, outcomes, project)
        self._memory_limits(written["sessions"], project)
        return outcomes

    @staticmethod
    def _raced(
        rows: list[dict[str, Any]], raced: Sequence[Row], outcomes: list[WriteOutcome]
    ) -> list[dict[str, Any]]:
        """Rows the write counted into a memory that another writer of the same
        text created after this batch looked: they became exact merges."""
        into = {merge["row_id"]: merge["id"] for merge in raced}
        for n, outcome in enumerate(outcomes):
            if outcome.id in into:
                outcomes[n] = WriteOutcome(id=into[outcome.id], created=False, match="exact")
        return [row for row in rows if row["id"] not in into]

    def _merge_near_duplicates(
        self,
        rows: list[dict[str, Any]],
        vectors: list[Any],
        merges: dict[str, dict[str, Any]],
        outcomes: list[WriteOutcome],
        project: str,
    ) -> tuple[list[dict[str, Any]], list[Any]]:
        """Turn new rows close enough to a live memory into merges: embedding cosine
        at or above ``dedup_similarity``, or, without embeddings, token Jaccard at
        or above ``dedup_jaccard`` among the full-text index's best matches.

        One index lookup per row, in one round trip; returns the rows (and their
        vectors) that are still new.
        """
        if vectors:
            found = self._nearest_by_vector(vectors, project)
        elif len(rows) <= NEAR_DUPLICATE_TEXT_MAX_BATCH:
            found = self._nearest_by_words(rows, project)
        else:
            return rows, vectors
        if not found:
            return rows, vectors
        kept_rows, kept_vectors = [], []
        for index, row in enumerate(rows):
            if index not in found:
                kept_rows.append(row)
                if vectors:
                    kept_vectors.append(vectors[index])
                continue
            existing, similarity = found[index]
            merge = merges.setdefault(
                existing, {"id": existing, "occurrences": 0, "evidence": [], "tags": []}
            )
            merge["occurrences"] += row["occurrence_count"]
            merge["evidence"] = _union(merge["evidence"], row["evidence"])
            merge["tags"] = _union(merge["tags"], row["tags"])
            merge.setdefault("match", "near")
            merge.setdefault("similarity", similarity)
            for n, outcome in enumerate(outcomes):
                if outcome.id == row["id"]:
                    outcomes[n] = WriteOutcome(id=existing, created=False, match="near")
        return kept_rows, kept_vectors

    def _nearest_by_vector(self, vectors: list[Any], project: str) -> dict[int, tuple[str, float]]:
        rows = self.store.read(
            "near_duplicates",
            {
                "items": [{"index": i, "vector": v} for i, v in enumerate(vectors)],
                "project_id": project,
                "threshold": self.rules.dedup_similarity,
                "k": NEAR_DUPLICATE_K,
            },
        )
        return {r["index"]: (r["id"], r["similarity"]) for r in rows if r["id"] is not None}

    def _nearest_by_words(
        self, rows: list[dict[str, Any]], project: str
    ) -> dict[int, tuple[str, float]]:
        # A near duplicate shares at least 80% of the words, so it almost surely
        # has the longest (rarest) few: requiring those keeps each match set small
        # even in a project of 100,000 memories.
        both = " AND " if self.store.dialect == "neo4j" else " "
        items = [
            {"index": i, "query": both.join(sorted(terms, key=len, reverse=True)[:3])}
            for i, row in enumerate(rows)
            if (terms := query_terms(row["content"]))
        ]
        if not items:
            return {}
        found: dict[int, tuple[str, float]] = {}
        hits = self.store.read(
            "near_duplicates_text",
            {"items": items, "project_id": project, "k": NEAR_DUPLICATE_TEXT_K},
        )
        for hit in hits:
            mine = tokens(rows[hit["index"]]["content"])
            scored = [
                (jaccard(mine, tokens(content)), memory_id) for memory_id, content in hit["hits"]
            ]
            best = max(scored, default=(0.0, ""))
            if best[0] >= self.rules.dedup_jaccard:
                found[hit["index"]] = (best[1], best[0])
        return found

    def _validate_batch(
        self, items: Sequence[MemoryInput | Mapping[str, Any]]
    ) -> list[MemoryInput]:
        if len(items) > MAX_BATCH_SIZE:
            raise InvalidInputError(
                f"items: at most {MAX_BATCH_SIZE} memories per batch, got {len(items)}",
                field="items",
            )
        try:
            # One validator call for the whole batch: per-item calls cost as much
            # as the database write.
            return _batch.validate_python(items)
        except ValidationError as exc:

            def locate(loc: tuple[Any, ...]) -> str:
                if not loc:
                    return "items"
                index, *rest = loc
                name = ".".join(str(part) for part in rest)
                if len(items) == 1:
                    return name
                return f"items[{index}].{name}" if name else f"items[{index}]"

            raise invalid_input(exc, locate=locate) from None

    def _agent_decisions(
        self, inputs: Sequence[MemoryInput], outcomes: Sequence[WriteOutcome], project: str
    ) -> None:
        """An agent's "remember this" is promoted at once, new or merged."""
        wanted = {
            outcome.id
            for item, outcome in zip(inputs, outcomes, strict=True)
            if item.suggested_by is SuggestedBy.AGENT
        }
        if not wanted:
            return
        written = self.get_many(sorted(wanted), project_id=project)
        short_term = [m for m in written if m is not None and m.tier in SHORT_TERM]
        if short_term:
            self.promotion.promote_now(short_term, project_id=project)

    def _memory_limits(self, sessions: Sequence[Row], project: str) -> None:
        for session in sessions:
            limit = session["max_items"] or self.rules.short_term_max
            if session["working"] >= limit:
                self.promotion.run(
                    session["session_id"],
                    project_id=project,
                    trigger=Trigger.MEMORY_LIMIT,
                    rotate_limit=limit,
                )

    def _new_row(self, item: MemoryInput, project: str, now: float) -> dict[str, Any]:
        row: dict[str, Any] = {
            "id": new_id(),
            "project_id": project,
            "session_id": item.session_id or DEFAULT_SESSION,
            "content": item.content,
            "tier": item.tier.value,
            "status": initial_status(item.source).value,
            "confidence": item.confidence,
            "access_count": 0,
            "occurrence_count": 1,
            "feedback": 0,
            "feedback_count": 0,
            "pinned": item.pinned,
            "source": item.source.value,
            "suggested_by": item.suggested_by.value,
            "tags": item.tags,
            "evidence": item.evidence,
            "created_at": now,
            "updated_at": now,
        }
        if item.memory_type is not None:
            row["memory_type"] = item.memory_type.value
        if item.self_assessment is not None:
            row["self_assessment"] = item.self_assessment.value
        if item.rationale is not None:
            row["rationale"] = item.rationale
        if item.agent_id is not None:
            row["agent_id"] = item.agent_id
        row.update(
            self.scorer.fresh_fields(
                item.memory_type,
                item.confidence,
                item.self_assessment,
                agent_decision=item.suggested_by is SuggestedBy.AGENT,
            )
        )
        return row

    def get(self, memory_id: str, *, project_id: str | None = None) -> Memory:
        (memory,) = self.get_many([memory_id], project_id=project_id)
        if memory is None:
            raise self._missing(memory_id, project_id)
        return memory

    def get_many(
        self, memory_ids: Sequence[str], *, project_id: str | None = None
    ) -> list[Memory | None]:
        """Memories in the order asked for, ``None`` where an id is unknown (DataLoader shape)."""
        rows = self.store.read(
            "get_memories", {"ids": list(memory_ids), "project_id": self._project(project_id)}
        )
        found = {row["memory"]["id"]: _memory(row) for row in rows}
        return [found.get(memory_id) for memory_id in memory_ids]

    def list(
        self,
        filter: MemoryFilter | Mapping[str, Any] | None = None,
        *,
        first: int = 20,
        after: str | None = None,
        project_id: str | None = None,
    ) -> Page:
        """A page of memories, newest first, continued with ``after=page.end_cursor``."""
        flt = parse(MemoryFilter, filter or {})
        if type(first) is not int or not 1 <= first <= MAX_PAGE_SIZE:
            raise InvalidInputError(f"first: must be between 1 and {MAX_PAGE_SIZE}", field="first")
        after_created_at, after_id = _decode_cursor(after) if after else (None, None)
        rows = self.store.read(
            "list_memories",
            {
                "project_id": self._project(project_id),
                "tier": flt.tier.value if flt.tier else None,
                "status": flt.status.value if flt.status else None,
                "memory_type": flt.memory_type.value if flt.memory_type else None,
                "session_id": flt.session_id,
                "pinned": flt.pinned,
                "tags": flt.tags,
                "include_archived": flt.include_archived,
                "include_candidates": flt.include_candidates,
                "after_created_at": after_created_at,
                "after_id": after_id,
                "limit": first + 1,
            },
        )
        items = [_memory(row) for row in rows[:first]]
        return Page(
            items=items,
            has_next=len(rows) > first,
            start_cursor=encode_cursor(items[0]) if items else None,
            end_cursor=encode_cursor(items[-1]) if items else None,
        )

    def update(
        self,
        memory_id: str,
        changes: MemoryUpdate | Mapping[str, Any],
        *,
        project_id: str | None = None,
    ) -> Memory:
        update = parse(MemoryUpdate, changes)
        fields = update.model_dump(mode="json", exclude_none=True)
        if not fields:
            raise InvalidInputError("changes: name at least one field to change", field="changes")
        project = self._project(project_id)
        current = self.get(memory_id, project_id=project)
        now = self._now()
        merged = current.model_copy(update=fields)
        fields.update(self.scorer.stored_fields(merged, now))
        fields["updated_at"] = now
        if update.content is not None:
            fields["content_key"] = content_key(update.content)
        reembed = update.content is not None or update.rationale is not None
        vector = None
        if reembed:  # embedded before the write; with embeddings off the stale vector goes
            vectors = self.retrieval.embed_memories([memory_text(merged.content, merged.rationale)])
            vector = vectors[0] if vectors else None
        rows = self.store.write(
            "update_memory",
            {
                "id": memory_id,
                "project_id": project,
                "changes": fields,
                "reembed": reembed,
                "embedding": vector,
            },
        )
        if not rows:
            raise self._missing(memory_id, project)
        memory = _memory(rows[0])
        self._changed(ChangeKind.UPDATED, [memory_id], project)
        # A person editing or re-categorising a candidate has confirmed it.
        return self._activate(memory, Signal.EDIT, project)

    def _activate(self, memory: Memory, signal: Signal, project: str) -> Memory:
        if memory.status is not Status.CANDIDATE:
            return memory
        self.stager.activate([(memory.id, signal)], project_id=project)
        return self.get(memory.id, project_id=project)

    def record_access(self, memory_id: str, *, project_id: str | None = None) -> Memory:
        """Count one use of a memory and rescore it."""
        project = self._project(project_id)
        rows = self.store.write(
            "record_access", {"id": memory_id, "project_id": project, "now": self._now()}
        )
        if not rows:
            raise self._missing(memory_id, project)
        return self._rescore(_memory(rows[0]), project)

    def feedback(self, memory_id: str, value: int, *, project_id: str | None = None) -> Memory:
        """Record +1 (useful), 0 (neutral) or -1 (wrong or unhelpful)."""
        if value not in (-1, 0, 1):
            raise InvalidInputError("value: feedback must be -1, 0 or 1", field="value")
        project = self._project(project_id)
        rows = self.store.write(
            "add_feedback",
            {"id": memory_id, "project_id": project, "value": value, "now": self._now()},
        )
        if not rows:
            raise self._missing(memory_id, project)
        memory = self._rescore(_memory(rows[0]), project)
        self._changed(ChangeKind.FEEDBACK, [memory_id], project)
        if self.stager.activate_earned([memory], project_id=project):
            return self.get(memory_id, project_id=project)
        return memory

    def _rescore(self, memory: Memory, project: str) -> Memory:
        fields = self.scorer.stored_fields(memory, self._now())
        self.store.write(
            "set_importance",
            {
                "id": memory.id,
                "project_id": project,
                "access_count": memory.access_count,
                "feedback_count": memory.feedback_count,
                "fields": fields,
            },
        )
        return memory.model_copy(update={"importance": fields["importance"]})

    def pin(self, memory_id: str, *, project_id: str | None = None) -> Memory:
        return self._set_pinned(memory_id, True, project_id)

    def unpin(self, memory_id: str, *, project_id: str | None = None) -> Memory:
        return self._set_pinned(memory_id, False, project_id)

    def _set_pinned(self, memory_id: str, pinned: bool, project_id: str | None) -> Memory:
        project = self._project(project_id)
        rows = self.store.write(
            "set_pinned",
            {"id": memory_id, "project_id": project, "pinned": pinned, "now": self._now()},
        )
        if not rows:
            raise self._missing(memory_id, project)
        memory = _memory(rows[0])
        self._changed(ChangeKind.PINNED if pinned else ChangeKind.UNPINNED, [memory_id], project)
        return self._activate(memory, Signal.PIN, project) if pinned else memory

    def importance_breakdown(self, memory: Memory) -> ImportanceBreakdown:
        """The score as of now, factor by factor (stored scores age between writes)."""
        return self.scorer.score_with_breakdown(memory, self._now())

    def forget(self, memory_id: str, *, project_id: str | None = None) -> None:
        """Delete a memory and its edges: the only path that deletes anything."""
        project = self._project(project_id)
        rows = self.store.write("forget_memory", {"id": memory_id, "project_id": project})
        if not rows or not rows[0]["deleted"]:
            raise self._missing(memory_id, project)
        self._changed(ChangeKind.FORGOTTEN, [memory_id], project)

    # -- relations ---------------------------------------------------------

    def relate(
        self,
        from_id: str,
        to_id: str,
        type: RelationType | str,
        *,
        rationale: str | None = None,
        weight: float = 1.0,
        project_id: str | None = None,
    ) -> Relation:
        """Add (or update) a typed edge between two memories of one project."""
        try:
            relation_type = RelationType(type)
        except ValueError:
            allowed = ", ".join(t.value for t in RelationType)
            raise InvalidInputError(f"type: must be one of {allowed}", field="type") from None
        if from_id == to_id:
            raise InvalidInputError("to_id: a memory cannot relate to itself", field="to_id")
        if not isinstance(weight, int | float) or not 0.0 <= weight <= 1.0:
            raise InvalidInputError("weight: must be between 0 and 1", field="weight")
        if rationale is not None:
            rationale = check_text("rationale", rationale, max_chars=MAX_RATIONALE_CHARS)
        project = self._project(project_id)
        check = self.store.read(
            "memory_pair", {"from_id": from_id, "to_id": to_id, "project_id": project}
        )[0]
        if not check["from_exists"]:
            raise self._missing(from_id, project, field="from_id")
        if not check["to_exists"]:
            raise self._missing(to_id, project, field="to_id")
        if relation_type is RelationType.SUPERSEDES and check["to_supersedes_from"]:
            raise ConflictError(
                f"to_id: {to_id} already supersedes {from_id}; the edge would close a cycle",
                field="to_id",
            )
        rows = self.store.write(
            _RELATE_STATEMENT[relation_type],
            {
                "from_id": from_id,
                "to_id": to_id,
                "project_id": project,
                "rationale": rationale,
                "weight": weight,
                "now": self._now(),
            },
        )
        if not rows:  # deleted between the check and the write
            raise self._missing(from_id, project, field="from_id")
        self._changed(ChangeKind.RELATED, [from_id, to_id], project)
        return Relation(type=relation_type, **rows[0])

    def supersede(
        self,
        old_id: str,
        new_id: str,
        *,
        rationale: str | None = None,
        project_id: str | None = None,
    ) -> Relation:
        """Mark ``new_id`` as replacing ``old_id``; the old memory is kept, not deleted."""
        try:
            return self.relate(
                new_id, old_id, RelationType.SUPERSEDES, rationale=rationale, project_id=project_id
            )
        except (InvalidInputError, NotFoundError, ConflictError) as exc:
            renamed = {"from_id": "new_id", "to_id": "old_id"}
            field = renamed.get(exc.field or "", exc.field)
            message = exc.message
            if exc.field in renamed:
                message = message.replace(f"{exc.field}:", f"{field}:", 1)
            raise type(exc)(message, field=field) from None

    def relations(
        self, memory_ids: Sequence[str], *, project_id: str | None = None
    ) -> list[list[Relation]]:
        """Edges touching each memory, grouped per id in the order asked for."""
        rows = self.store.read(
            "relations_of", {"ids": list(memory_ids), "project_id": self._project(project_id)}
        )
        grouped: dict[str, list[Relation]] = {memory_id: [] for memory_id in memory_ids}
        for row in rows:
            memory_id = row.pop("memory_id")
            grouped[memory_id].append(Relation(**row))
        return [grouped[memory_id] for memory_id in memory_ids]

    # -- sessions ----------------------------------------------------------

    def open_session(
        self,
        session_id: str | None = None,
        *,
        name: str | None = None,
        max_items: int | None = None,
        project_id: str | None = None,
    ) -> Session:
        session_id = _check_identifier("session_id", session_id) if session_id else new_id()
        if name is not None and len(name) > 200:
            raise InvalidInputError("name: at most 200 characters", field="name")
        if max_items is not None and not 1 <= max_items <= 1_000_000:
            raise InvalidInputError("max_items: must be between 1 and 1000000", field="max_items")
        rows = self.store.write(
            "open_session",
            {
                "project_id": self._project(project_id),
                "session_id": session_id,
                "name": name,
                "max_items": max_items,
                "now": self._now(),
            },
        )
        return _session(rows[0])

    def pause_session(self, session_id: str, *, project_id: str | None = None) -> Session:
        """Promote what is worth keeping, then pause: the run finishes before the pause does."""
        project = self._project(project_id)
        self.get_session(session_id, project_id=project)
        self.promotion.run(session_id, project_id=project, trigger=Trigger.PAUSE)
        return self._set_session_state(session_id, SessionState.PAUSED, project)

    def close_session(self, session_id: str, *, project_id: str | None = None) -> Session:
        """A final, uncapped promotion run, then close: every pending item gets its chance."""
        project = self._project(project_id)
        self.get_session(session_id, project_id=project)
        self.promotion.run(session_id, project_id=project, trigger=Trigger.CLOSE, limit=CLOSE_LIMIT)
        return self._set_session_state(session_id, SessionState.CLOSED, project)

    def _set_session_state(
        self, session_id: str, state: SessionState, project_id: str | None
    ) -> Session:
        project = self._project(project_id)
        rows = self.store.write(
            "set_session_state",
            {
                "project_id": project,
                "session_id": session_id,
                "state": state.value,
                "now": self._now(),
            },
        )
        if not rows:
            raise NotFoundError(
                f"session_id: no session {session_id!r} in project {project!r}", field="session_id"
            )
        return _session(rows[0])

    def get_sessions(
        self, session_ids: Iterable[str], *, project_id: str | None = None
    ) -> list[Session | None]:
        ids = list(session_ids)
        rows = self.store.read(
            "get_sessions", {"ids": ids, "project_id": self._project(project_id)}
        )
        found = {row["session"]["id"]: _session(row) for row in rows}
        return [found.get(session_id) for session_id in ids]

    def get_session(self, session_id: str, *, project_id: str | None = None) -> Session:
        (session,) = self.get_sessions([session_id], project_id=project_id)
        if session is None:
            project = self._project(project_id)
            raise NotFoundError(
                f"session_id: no session {session_id!r} in project {project!r}", field="session_id"
            )
        return session

    # -- promotion and archival ---------------------------------------------

    def run_promotion(
        self, session_id: str, *, dry_run: bool = False, project_id: str | None = None
    ) -> RunResult:
        """Promote a session's worthy short-term memories now (or show what would move)."""
        project = self._project(project_id)
        return self.promotion.run(
            session_id, project_id=project, trigger=Trigger.MANUAL, dry_run=dry_run
        )

    def promotion_stats(self, session_id: str, *, project_id: str | None = None) -> PromotionStats:
        project = self._project(project_id)
        rows = self.store.read("session_stats", {"project_id": project, "session_id": session_id})
        if not rows:
            raise _missing_session(session_id, project)
        stats = {k: v for k, v in rows[0]["stats"].items() if v is not None}
        return PromotionStats(
            session_id=stats["id"],
            project_id=stats["project_id"],
            enabled=stats.get("promotion_enabled", True),
            interval_seconds=stats.get(
                "promotion_interval_seconds", self.rules.promotion_interval_seconds
            ),
            next_run_at=stats.get("next_promotion_at"),
            runs=stats.get("promotion_runs", 0),
            total_promoted=stats.get("promotion_total", 0),
            **{k: v for k, v in stats.items() if k.startswith("last_")},
        )

    def promotion_events(
        self,
        *,
        memory_id: str | None = None,
        session_id: str | None = None,
        limit: int = 50,
        project_id: str | None = None,
    ) -> list[PromotionEvent]:
        """The promotion log of a memory or a session, newest first."""
        if (memory_id is None) == (session_id is None):
            raise InvalidInputError(
                "memory_id: name exactly one of memory_id and session_id", field="memory_id"
            )
        if not 1 <= limit <= MAX_PAGE_SIZE:
            raise InvalidInputError(f"limit: must be between 1 and {MAX_PAGE_SIZE}", field="limit")
        rows = self.store.read(
            "promotion_events",
            {
                "project_id": self._project(project_id),
                "memory_id": memory_id,
                "session_id": session_id,
                "limit": limit,
            },
        )
        return [PromotionEvent.model_validate(row["event"]) for row in rows]

    def enable_promotion(
        self,
        session_id: str,
        *,
        interval_seconds: float | None = None,
        project_id: str | None = None,
    ) -> PromotionStats:
        """Turn the periodic trigger on; the next run is one interval from now."""
        if interval_seconds is not None and not 1 <= interval_seconds <= 86_400:
            raise InvalidInputError(
                "interval_seconds: must be between 1 and 86400", field="interval_seconds"
            )
        return self._set_promotion(session_id, True, interval_seconds, project_id)

    def disable_promotion(
        self, session_id: str, *, project_id: str | None = None
    ) -> PromotionStats:
        return self._set_promotion(session_id, False, None, project_id)

    def _set_promotion(
        self, session_id: str, enabled: bool, interval: float | None, project_id: str | None
    ) -> PromotionStats:
        project = self._project(project_id)
        rows = self.store.write(
            "set_promotion_enabled",
            {
                "project_id": project,
                "session_id": session_id,
                "enabled": enabled,
                "interval_seconds": interval,
                "default_interval": self.rules.promotion_interval_seconds,
                "now": self._now(),
            },
        )
        if not rows:
            raise _missing_session(session_id, project)
        return self.promotion_stats(session_id, project_id=project)

    def archive_stale(
        self, *, dry_run: bool = False, project_id: str | None = None
    ) -> ArchiveResult:
        return self.archiver.archive_stale(project_id=self._project(project_id), dry_run=dry_run)

    def restore(self, memory_id: str, *, project_id: str | None = None) -> Memory:
        """Back to its previous tier, counted as just used (and rescored so)."""
        project = self._project(project_id)
        return self.archiver.restore(memory_id, project_id=project)

    # -- staging and review --------------------------------------------------

    def review_queue(
        self,
        filter: ReviewFilter | Mapping[str, Any] | None = None,
        *,
        order: str = "oldest",
        first: int = 20,
        after: str | None = None,
        project_id: str | None = None,
    ) -> ReviewPage:
        """Candidates awaiting review, ``oldest`` or most-``evidence`` first."""
        flt = parse(ReviewFilter, filter or {})
        if order not in ("oldest", "evidence"):
            raise InvalidInputError("order: must be 'oldest' or 'evidence'", field="order")
        if type(first) is not int or not 1 <= first <= MAX_PAGE_SIZE:
            raise InvalidInputError(f"first: must be between 1 and {MAX_PAGE_SIZE}", field="first")
        skip = decode_offset(after) if after else 0
        now = self._now()
        rows = self.store.read(
            "review_queue",
            {
                "project_id": self._project(project_id),
                "session_id": flt.session_id,
                "memory_type": flt.memory_type.value if flt.memory_type else None,
                "tags": flt.tags,
                "min_occurrences": flt.min_occurrences,
                "created_before": None
                if flt.older_than_seconds is None
                else now - flt.older_than_seconds,
                "order": order,
                "skip": skip,
                "limit": first + 1,
            },
        )
        items = [
            ReviewItem(
                memory=(memory := _memory(row)),
                occurrences=memory.occurrence_count,
                feedback=memory.feedback,
                age_seconds=max(0.0, now - memory.created_at),
                near_duplicates=self._near_duplicates(memory),
            )
            for row in rows[:first]
        ]
        has_next = len(rows) > first
        return ReviewPage(
            items=items,
            has_next=has_next,
            end_cursor=encode_offset(skip + len(items)) if items else None,
        )

    def _near_duplicates(self, memory: Memory) -> list[str]:
        """Live memories of the project whose text is close to this one's."""
        finder = getattr(self, "near_duplicate_finder", None)
        return finder(memory) if finder else []

    def approve(self, memory_id: str, *, project_id: str | None = None) -> Memory:
        """A reviewer's confirmation: candidate -> active (no-op if already active)."""
        project = self._project(project_id)
        memory = self.get(memory_id, project_id=project)
        if memory.tier is Tier.ARCHIVED:
            raise ConflictError(
                f"id: memory {memory_id!r} is archived; restore it first", field="id"
            )
        return self._activate(memory, Signal.APPROVE, project)

    def reject(self, memory_id: str, reason: str, *, project_id: str | None = None) -> Memory:
        """Archive a candidate with the reviewer's reason; it stays retrievable."""
        reason = (reason or "").strip()
        if not 1 <= len(reason) <= 500:
            raise InvalidInputError("reason: 1-500 characters", field="reason")
        project = self._project(project_id)
        memory = self.get(memory_id, project_id=project)
        if memory.status is not Status.CANDIDATE or memory.tier is Tier.ARCHIVED:
            raise ConflictError(f"id: memory {memory_id!r} is not a live candidate", field="id")
        self.stager.reject([memory_id], f"rejected: {reason}", project_id=project)
        return self.get(memory_id, project_id=project)

    def merge_memories(
        self, into_id: str, from_id: str, *, project_id: str | None = None
    ) -> Memory:
        """Fold ``from_id`` into ``into_id``; the absorbed memory is archived, not deleted."""
        if into_id == from_id:
            raise InvalidInputError("from_id: cannot merge a memory into itself", field="from_id")
        project = self._project(project_id)
        pair = self.get_many([into_id, from_id], project_id=project)
        for field, memory_id, memory in zip(
            ("into_id", "from_id"), (into_id, from_id), pair, strict=True
        ):
            if memory is None:
                raise self._missing(memory_id, project, field=field)
            if memory.tier is Tier.ARCHIVED:
                raise ConflictError(f"{field}: memory {memory_id!r} is archived", field=field)
        into, absorbed = pair
        assert into is not None and absorbed is not None
        now = self._now()
        # The survivor's new score and any activation it earns are worked out
        # here and written by the same statement as the merge: all or nothing.
        survivor = into.model_copy(
            update={
                "occurrence_count": into.occurrence_count + absorbed.occurrence_count,
                "access_count": into.access_count + absorbed.access_count,
                "feedback": into.feedback + absorbed.feedback,
                "feedback_count": into.feedback_count + absorbed.feedback_count,
                "last_seen": now,
            }
        )
        signal = earned_signal(Evidence.of(survivor), self.rules)
        rows = self.store.write(
            "merge_memories",
            {
                "into_id": into_id,
                "from_id": from_id,
                "project_id": project,
                "event_id": new_id(),
                "importance_fields": self.scorer.stored_fields(survivor, now),
                "access_count": survivor.access_count,
                "feedback_count": survivor.feedback_count,
                "signal": signal.value if signal else None,
                "activation_id": new_id(),
                "now": now,
            },
        )
        if not rows:
            raise self._missing(from_id, project, field="from_id")
        if rows[0]["activated"]:
            self.stager.activated([(into_id, Signal(rows[0]["activated"]))], project_id=project)
        return self.get(into_id, project_id=project)

    def bulk_review(
        self,
        filter: ReviewFilter | Mapping[str, Any] | None,
        action: str,
        *,
        reason: str | None = None,
        dry_run: bool = True,
        project_id: str | None = None,
    ) -> BulkReviewResult:
        """Approve or reject every candidate the filter selects; a dry run by default."""
        if action not in ("approve", "reject"):
            raise InvalidInputError("action: must be 'approve' or 'reject'", field="action")
        if action == "reject" and not (reason or "").strip():
            raise InvalidInputError("reason: a bulk reject needs a reason", field="reason")
        if reason is not None:  # the same limit as one rejection's reason
            reason = check_text("reason", reason.strip(), max_chars=500)
        project = self._project(project_id)
        matched: list[str] = []
        after = None
        while True:
            page = self.review_queue(filter, first=MAX_PAGE_SIZE, after=after, project_id=project)
            matched += [item.memory.id for item in page.items]
            if not page.has_next:
                break
            after = page.end_cursor
        applied: list[str] = []
        if not dry_run and matched:
            if action == "approve":
                applied = self.stager.activate(
                    [(memory_id, Signal.APPROVE) for memory_id in matched], project_id=project
                )
            else:
                applied = self.stager.reject(
                    matched, f"rejected: {reason.strip()}", project_id=project
                )
        return BulkReviewResult(action=action, dry_run=dry_run, matched=matched, applied=applied)

    def record_evidence(
        self, memory_id: str, relevance: float, *, project_id: str | None = None
    ) -> Memory:
        """Evaluator relevance evidence for a memory, in [0, 1]; may activate a candidate.

        The consistency evaluator reports through this one call; the strongest
        evidence seen is kept.
        """
        if not 0.0 <= relevance <= 1.0 or relevance != relevance:
            raise InvalidInputError("relevance: must be between 0 and 1", field="relevance")
        project = self._project(project_id)
        rows = self.store.write(
            "set_evaluator_relevance",
            {"id": memory_id, "project_id": project, "relevance": relevance, "now": self._now()},
        )
        if not rows:
            raise self._missing(memory_id, project)
        memory = _memory(rows[0])
        if self.stager.activate_earned([memory], project_id=project):
            return self.get(memory_id, project_id=project)
        return memory

    def evaluate(
        self,
        *,
        fix: bool = False,
        dry_run: bool = False,
        evidence: bool = False,
        project_id: str | None = None,
    ) -> ConsistencyReport:
        """Run the consistency evaluator over the project and store its report.

        ``fix`` applies the safe fixes (``dry_run``: only lists them);
        ``evidence`` writes each candidate's relevance through ``record_evidence``.
        """
        return self.evaluator.evaluate(
            self._project(project_id), fix=fix, dry_run=dry_run, evidence=evidence
        )

    def submit_consistency_check(
        self, *, fix: bool = False, evidence: bool = False, project_id: str | None = None
    ) -> Job:
        """Evaluate the project on a background thread; poll ``evaluator.job(id)``."""
        return self.evaluator.submit(self._project(project_id), fix=fix, evidence=evidence)

    def consistency_job(self, job_id: str, *, project_id: str | None = None) -> Job | None:
        """A job this process started for the project; ``None`` for any other id."""
        job = self.evaluator.job(job_id)
        return job if job is not None and job.project_id == self._project(project_id) else None

    def consistency_reports(
        self,
        *,
        limit: int = 20,
        before: float | None = None,
        report_id: str | None = None,
        full: bool = True,
        project_id: str | None = None,
    ) -> list[ConsistencyReport]:
        """Stored evaluator reports, newest first (``full=False``: summaries only)."""
        return self.evaluator.reports(
            self._project(project_id), limit=limit, before=before, report_id=report_id, full=full
        )

    def staging_events(
        self, memory_id: str, *, limit: int = 50, project_id: str | None = None
    ) -> list[StagingEvent]:
        if not 1 <= limit <= MAX_PAGE_SIZE:
            raise InvalidInputError(f"limit: must be between 1 and {MAX_PAGE_SIZE}", field="limit")
        rows = self.store.read(
            "staging_events",
            {"memory_id": memory_id, "project_id": self._project(project_id), "limit": limit},
        )
        return [
            StagingEvent.model_validate({k: v for k, v in row["event"].items() if v is not None})
            for row in rows
        ]

    def migrate(self) -> list[MigrationReport]:
        """Bring the graph to the current schema version; safe to run again."""
        return migrate(self.store, self.clock)

    # -- helpers -----------------------------------------------------------

    # -- retrieval -----------------------------------------------------------

    def knowledge_context(
        self,
        context_hint: str | ContextRequest | Mapping[str, Any],
        *,
        include_types: Sequence[str] | None = None,
        min_confidence: float = DEFAULT_MIN_CONFIDENCE,
        max_results: int = DEFAULT_MAX_RESULTS,
        recency_weight: float = DEFAULT_RECENCY_WEIGHT,
        include_superseded: bool = False,
        session_id: str | None = None,
        record_access: bool | None = None,
        project_id: str | None = None,
        min_relevance: float = DEFAULT_MIN_RELEVANCE,
    ) -> ContextResult:
        """What an agent should know right now (seed 002's knowledgeContext), best first.

        ``context_hint`` may also be the whole argument set: a ``ContextRequest``,
        or the LLM tool's arguments (``graphmem.retrieval.tool_definition``) as
        a mapping, validated the same way. Records an access on each memory
        returned unless ``record_access=False``.
        """
        project = self._project(project_id)
        if isinstance(context_hint, str):
            arguments: ContextRequest | Mapping[str, Any] = {
                "context_hint": context_hint,
                "include_types": include_types,
                "min_confidence": min_confidence,
                "max_results": max_results,
                "recency_weight": recency_weight,
                "include_superseded": include_superseded,
                "session_id": session_id,
                "min_relevance": min_relevance,
            }
        else:
            arguments = context_hint
        return self.retrieval.knowledge_context(
            arguments, project_id=project, record_access=record_access
        )

    def search(
        self,
        query: str,
        *,
        mode: SearchMode | str = SearchMode.HYBRID,
        limit: int = 10,
        filters: SearchFilters | Mapping[str, Any] | None = None,
        depth: int = 1,
        relation_types: Sequence[RelationType | str] | None = None,
        project_id: str | None = None,
        min_relevance: float = DEFAULT_MIN_RELEVANCE,
    ) -> SearchResult:
        """Hybrid search over vectors, full text and relations; every hit explains itself.

        Hits below ``min_relevance`` (0 to 1) are left out: nothing relevant
        gives no hits and a note, not the least unrelated memories."""
        project = self._project(project_id)
        arguments: dict[str, Any] = {
            "query": query,
            "mode": mode,
            "limit": limit,
            "filters": filters if filters is not None else {},
            "depth": depth,
            "min_relevance": min_relevance,
        }
        if relation_types is not None:
            arguments["relation_types"] = relation_types
        return self.retrieval.search(arguments, project_id=project)

    def neighborhood(
        self,
        memory_id: str,
        *,
        depth: int = 1,
        relation_types: Sequence[RelationType | str] | None = None,
        project_id: str | None = None,
    ) -> Neighborhood:
        """The memories within ``depth`` relations of one, and the relations between them."""
        return self.retrieval.neighborhood(
            memory_id,
            project_id=self._project(project_id),
            depth=depth,
            relation_types=relation_types,
        )

    def backfill_embeddings(
        self,
        *,
        batch_size: int = 256,
        limit: int | None = None,
        progress: bool = False,
        all_projects: bool = False,
        project_id: str | None = None,
    ) -> BackfillResult:
        """Embed the memories that have no embedding yet (``progress``: a bar on stderr)."""
        return self.retrieval.backfill(
            project_id=None if all_projects else self._project(project_id),
            batch_size=batch_size,
            limit=limit,
            progress=progress,
        )

    def _now(self) -> float:
        return stored_now(self.clock)

    def _changed(self, kind: ChangeKind, memory_ids: Sequence[str], project: str) -> None:
        """Report a write to telemetry, where live subscribers pick it up."""
        if memory_ids:
            self.telemetry.emit(
                "memory.changed",
                self._now(),
                project_id=project,
                memory_ids=list(memory_ids),
                kind=kind.value,
            )

    def _project(self, project_id: str | None) -> str:
        return (
            self.default_project
            if project_id is None
            else _check_identifier("project_id", project_id)
        )

    def _missing(
        self, memory_id: str, project_id: str | None, *, field: str = "id"
    ) -> NotFoundError:
        project = self._project(project_id)
        return NotFoundError(
            f"{field}: no memory {memory_id!r} in project {project!r}", field=field
        )


def _union(first: list[str], more: Iterable[str]) -> list[str]:
    return list(dict.fromkeys([*first, *more]))


def _missing_session(session_id: str, project: str) -> NotFoundError:
    return NotFoundError(
        f"session_id: no session {session_id!r} in project {project!r}", field="session_id"
    )


def _memory(row: Row) -> Memory:
    return memory_from_fields(row["memory"])


def _session(row: Row) -> Session:
    return Session.model_validate({k: v for k, v in row["session"].items() if v is not None})


def _check_identifier(field: str, value: str) -> str:
    try:
        return _identifier.validate_python(value)
    except ValidationError:
        raise InvalidInputError(
            f"{field}: must be 1-128 characters of letters, digits and . _ : @ -", field=field
        ) from None


def encode_offset(offset: int) -> str:
    return base64.urlsafe_b64encode(json.dumps({"offset": offset}).encode()).decode()


def decode_offset(cursor: str) -> int:
    try:
        offset = json.loads(base64.urlsafe_b64decode(cursor.encode()))["offset"]
        if type(offset) is int and 0 <= offset < 2**63:
            return offset
    except (ValueError, TypeError, KeyError, binascii.Error):
        pass
    raise InvalidInputError("after: not a cursor this API returned", field="after")


def encode_cursor(memory: Memory) -> str:
    raw = json.dumps([memory.created_at, memory.id]).encode()
    return base64.urlsafe_b64encode(raw).decode()


def _decode_cursor(cursor: str) -> tuple[float, str]:
    try:
        created_at, memory_id = json.loads(base64.urlsafe_b64decode(cursor.encode()))
        finite = type(created_at) in (int, float) and math.isfinite(created_at)
        if finite and isinstance(memory_id, str) and memory_id.isprintable():
            return float(created_at), memory_id
    except (ValueError, TypeError, binascii.Error):
        pass
    raise InvalidInputError("after: not a cursor this API returned", field="after")
