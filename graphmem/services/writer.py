"""The remember pipeline: validated items become memories, duplicates merge.

A batch is written by one statement: new memories with their embeddings, and
items that repeat a live memory (the same normalised text, or, with dedup, a
near match ``graphmem.domain.restatement`` judges the same statement) counted into
it. A near match that says something else is stored as its own memory: an
update superseding the old one, or a candidate flagged as a possible
contradiction. A failure leaves the batch entirely unwritten. What follows
the write (activations earned by recurrence, an agent's "remember this", the
memory-limit trigger) runs after it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from graphmem.domain import textscope
from graphmem.domain.errors import InvalidInputError
from graphmem.domain.ids import new_id
from graphmem.domain.lifecycle import SHORT_TERM
from graphmem.domain.models import (
    DEFAULT_SESSION,
    Memory,
    MemoryInput,
    MemoryType,
    Status,
    SuggestedBy,
    WriteOutcome,
    WriteResult,
    check_not_future,
    check_validity,
    initial_status,
    memory_from_fields,
)
from graphmem.domain.restatement import Judgement, Verdict, judge, judge_events, readable
from graphmem.domain.scoring import ScoreInputs
from graphmem.domain.text import content_key, jaccard, tokens
from graphmem.domain.viewer import acting_agent
from graphmem.services.autolinks import AutoLinker
from graphmem.services.base import Basics, Service
from graphmem.services.embeddings import Vector, memory_text
from graphmem.services.events import ChangeKind
from graphmem.services.memories import Embed, Memories
from graphmem.services.projects import Projects
from graphmem.services.promotion import PromotionEngine, Trigger
from graphmem.services.retrieval.fulltext import query_terms
from graphmem.services.sharing import Sharing
from graphmem.services.staging import Stager
from graphmem.store import Row
from graphmem.store.knn import Answer, Reach, nearest

M = TypeVar("M", bound=Mapping[str, Any])

NEAR_MATCHES_JUDGED = 3
"""Near matches per new memory the restatement check reads, most similar first: a
paraphrase ranked below a contradiction of it still merges."""
NEAR_DUPLICATES = Reach(
    k=20, most=1_280, enough=NEAR_MATCHES_JUDGED, widen=False, shadowed_below=0.5, chases=None
)
"""How far the vector index is followed for a new memory's near duplicates: 20
neighbours, then 80, 320 and 1,280 past FalkorDB's stale vectors, which hide
the live one from a kNN: after 15 accesses a paraphrase of a memory no longer
found it among the nearest 20, and after 40 the index gave nothing for a k of
20 or 80. An item the index gave fewer than half of ``k`` for, with fewer
matches than are judged, is asked again while that brings more (or still
nothing); a few shadows leave the live memory among what the index gives."""
NEAR_DUPLICATE_TEXT_K = 5
"""Full-text matches whose token overlap is measured, without embeddings."""
NEAR_DUPLICATE_TEXT_MAX_BATCH = 50
"""Without embeddings, near duplicates are looked for in batches up to this size (the
writes of an agent at work); a full-text lookup per item would dominate a bulk load,
which gets exact dedup only."""


@dataclass
class Written:
    """What a batch write did: each item's outcome, and the fields of the memories it
    wrote as the pipeline left them (none for a memory changed after the write)."""

    outcomes: list[WriteOutcome]
    fields: dict[str, Mapping[str, Any]] = field(default_factory=dict)

    def memory(self, memory_id: str) -> Memory | None:
        """The memory as written, or ``None`` when only a read can tell."""
        known = self.fields.get(memory_id)
        return memory_from_fields(known) if known is not None else None

    def changed(self, memory_ids: Iterable[str]) -> None:
        """Memories a later step (activation, promotion) changed since the write."""
        for memory_id in memory_ids:
            self.fields.pop(memory_id, None)


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
    ) -> None:
        super().__init__(basics)
        self.stager = stager
        self.promotion = promotion
        self.memories = memories
        self.embed = embed
        self.projects = projects
        self.sharing = sharing
        self.links = links

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
        project = project_id
        inputs = self.sharing.attributed(inputs, project)
        now = self._now()
        _check_occurred_at(inputs, now)
        _check_validity(inputs, now)
        keys = [content_key(item.content) for item in inputs]
        comparable = [dedup and readable(item.content) for item in inputs]
        wanted = [key for key, can in zip(keys, comparable, strict=True) if can]
        existing = self.stager.exact_duplicates(wanted, project_id=project) if wanted else {}
        rows: list[dict[str, Any]] = []
        new_by_key: dict[str, list[dict[str, Any]]] = {}
        merges: dict[str, dict[str, Any]] = {}
        outcomes: list[WriteOutcome] = []
        window = self.rules.restatement.event_window_seconds
        positions: dict[str, int] = {}
        """Each created row's place in the batch, for an error that names it."""
        for position, (item, key, can) in enumerate(zip(inputs, keys, comparable, strict=True)):
            when = now if item.occurred_at is None else item.occurred_at
            event = item.memory_type is MemoryType.EVENT
            same = _repeated(existing.get(key, []), event, when, window) if can else None
            first = _repeated(new_by_key.get(key, []), event, when, window) if can else None
            if same is not None:
                merge = _merge_into(merges, same["id"], 1, item.evidence, item.tags)
                merge.update(match="exact", similarity=1.0)
                outcomes.append(_exact(same["id"]))
            elif first is not None:
                first["occurrence_count"] += 1
                first["evidence"] = _union(first["evidence"], item.evidence)
                first["tags"] = _union(first["tags"], item.tags)
                outcomes.append(_exact(first["id"]))
            else:
                row = self._new_row(item, project, now)
                row["content_key"] = key
                rows.append(row)
                new_by_key.setdefault(key, []).append(row)
                positions[row["id"]] = position
                outcomes.append(WriteOutcome(id=row["id"], created=True))
        # One embedding call per batch, before anything is written.
        vectors = self.embed([memory_text(row["content"], row.get("rationale")) for row in rows])
        supersedes: list[dict[str, Any]] = []
        if dedup and rows:
            rows, vectors, supersedes = self._judge_near_matches(
                rows, vectors, merges, outcomes, project, positions if len(inputs) > 1 else None
            )
        links = self._auto_links(rows, project)
        # Memories, their embeddings, their links and the merges go in one
        # statement: a failure leaves the batch entirely unwritten, never half written.
        (written,) = self.store.write(
            "remember_many",
            {
                "project_id": project,
                "session_ids": sorted({row["session_id"] for row in rows}),
                "rows": [
                    {
                        "props": row,
                        "embedding": vector,
                        "event_id": new_id(),
                        "dedup": readable(row["content"]),
                    }
                    for row, vector in zip(rows, vectors or _no_vectors(rows), strict=True)
                ],
                "event_window": window,
                "merges": self.stager.merge_params(list(merges.values())),
                "links": links,
                "dedup": dedup,
                "now": now,
            },
        )
        if written["raced"]:
            rows = self._raced(rows, written["raced"], outcomes)
        # The statement returns the memories it merged into as they now stand
        # (a memory merged into twice: its later fields last); the ones it
        # created hold exactly the rows it was given.
        merged = {m["id"]: m for m in written["merged"]}
        result = Written(outcomes, {**merged, **{row["id"]: row for row in rows}})
        self._changed(ChangeKind.CREATED, [row["id"] for row in rows], project)
        if written["linked"]:
            created_ids = {row["id"] for row in rows}
            linked_to = sorted({link["to_id"] for link in links if link["from_id"] in created_ids})
            self._changed(ChangeKind.RELATED, linked_to, project)
        candidates = [row["id"] for row in rows if row["status"] == Status.CANDIDATE.value]
        if candidates:
            self.telemetry.emit("candidate.added", now, project_id=project, memory_ids=candidates)
        merged_into = [memory_from_fields(m) for m in merged.values()]
        result.changed(self.stager.merged(merged_into, project_id=project))
        created = {row["id"] for row in rows}
        self._supersede([e for e in supersedes if e["new_id"] in created], project, now)
        self._note_session_use(inputs, outcomes, project)
        # Only a candidate that recurred within the batch can have earned
        # activation already: fresh rows have no feedback or evidence.
        recurred = [
            memory_from_fields(row)
            for row in rows
            if row["occurrence_count"] > 1 and row["status"] == Status.CANDIDATE.value
        ]
        result.changed(self.stager.activate_earned(recurred, project_id=project))
        self._agent_decisions(inputs, result, project)
        self._memory_limits(written["sessions"], result, project)
        return result

    def _auto_links(self, rows: Sequence[Mapping[str, Any]], project: str) -> list[dict[str, Any]]:
        """The links the project's ``auto_links`` ask for (``graphmem.services.autolinks``)."""
        if not rows:
            return []
        return self.links.plan(rows, self.projects.settings(project_id=project).auto_links, project)

    @staticmethod
    def _raced(
        rows: list[dict[str, Any]], raced: Sequence[Row], outcomes: list[WriteOutcome]
    ) -> list[dict[str, Any]]:
        """Rows the write counted into a memory that another writer of the same
        text created after this batch looked: they became exact merges."""
        into = {merge["row_id"]: merge["id"] for merge in raced}
        for n, outcome in enumerate(outcomes):
            if outcome.id in into:
                outcomes[n] = _exact(into[outcome.id])
        return [row for row in rows if row["id"] not in into]

    def _judge_near_matches(
        self,
        rows: list[dict[str, Any]],
        vectors: list[Any] | None,
        merges: dict[str, dict[str, Any]],
        outcomes: list[WriteOutcome],
        project: str,
        positions: Mapping[str, int] | None,
    ) -> tuple[list[dict[str, Any]], list[Any] | None, list[dict[str, Any]]]:
        """Judge each new row against its nearest live memories (``graphmem.domain.restatement``).

        Near matches come from the vector index (cosine at or above
        ``restatement.candidate_similarity``) or, without embeddings, from the
        full-text index (token Jaccard at or above ``dedup_jaccard``); one lookup
        per row, in one round trip. The first match judged the same statement
        takes the row as a merge (its wording kept as a variant). Otherwise the
        nearest match judged different makes the row an update that supersedes it
        (a new value from the same source) or a candidate flagged as a possible
        contradiction. Returns the rows (and vectors) still to create, and the
        SUPERSEDES edges to write with them. A row without a word to compare is
        created as it is. A row the judge fails on refuses the whole batch,
        naming the item by its place in ``positions`` (``None`` for one item).
        """
        if vectors:
            found = self._nearest_by_vector(vectors, project)
            measure: Literal["cosine", "jaccard"] = "cosine"
        elif len(rows) <= NEAR_DUPLICATE_TEXT_MAX_BATCH:
            found = self._nearest_by_words(rows, project)
            measure = "jaccard"
        else:
            return rows, vectors, []
        kept_rows, kept_vectors, supersedes = [], [], []
        for index, row in enumerate(rows):
            if not readable(row["content"]):
                kept_rows.append(row)
                if vectors:
                    kept_vectors.append(vectors[index])
                continue  # no word to compare: never merged, flagged or superseding
            # Only memories with the same audience: a private wording merged into a
            # shared memory, or an edge between the two, would show one to the other.
            hits = [hit for hit in found.get(index, []) if _audience(hit) == _audience(row)]
            try:
                merge_into, judgement, other = self._decide(row, hits, measure)
            except Exception as exc:
                # Nothing is written yet: the whole batch is refused, naming the item.
                field = f"items[{positions[row['id']]}].content" if positions else "content"
                raise InvalidInputError(
                    f"{field}: could not be compared with its near matches ({exc})", field=field
                ) from exc
            if merge_into is not None:
                merge = _merge_into(
                    merges, merge_into["id"], row["occurrence_count"], row["evidence"], row["tags"]
                )
                merge["variants"] = _union(merge.get("variants", []), [row["content"]])
                merge.setdefault("match", "near")
                merge.setdefault("similarity", merge_into["similarity"])
                _replace(
                    outcomes,
                    row["id"],
                    WriteOutcome(
                        id=merge_into["id"],
                        created=False,
                        match="near",
                        result=WriteResult.MERGED_NEAR,
                        reason=judgement.reason if judgement else None,
                    ),
                )
                continue
            kept_rows.append(row)
            if vectors:
                kept_vectors.append(vectors[index])
            if judgement is None or other is None:
                continue
            if judgement.verdict is Verdict.SUPERSEDE and _less_certain(row, other):
                judgement = Judgement(
                    Verdict.CONFLICT,
                    judgement.difference,
                    f"{judgement.reason}, stated with less confidence "
                    f"({row['confidence']} < {other['confidence']})",
                )
            if judgement.verdict is Verdict.SUPERSEDE:
                supersedes.append(
                    {"new_id": row["id"], "old_id": other["id"], "rationale": judgement.reason}
                )
                result = WriteResult.SUPERSEDED
            else:
                row.update(
                    status=Status.CANDIDATE.value,
                    conflicts_with=other["id"],
                    conflict_reason=judgement.reason,
                )
                result = WriteResult.FLAGGED_CONFLICT
            _replace(
                outcomes,
                row["id"],
                WriteOutcome(
                    id=row["id"],
                    created=True,
                    result=result,
                    related_id=other["id"],
                    reason=judgement.reason,
                ),
            )
        return kept_rows, kept_vectors, supersedes

    def _decide(
        self,
        row: Mapping[str, Any],
        hits: Sequence[Mapping[str, Any]],
        measure: Literal["cosine", "jaccard"],
    ) -> tuple[Mapping[str, Any] | None, Judgement | None, Mapping[str, Any] | None]:
        """(the memory to merge into, the judgement, the memory it differs from)."""
        differs: tuple[Judgement, Mapping[str, Any]] | None = None
        event = row.get("memory_type") == MemoryType.EVENT.value
        for hit in hits:
            if event != (hit.get("memory_type") == MemoryType.EVENT.value):
                continue  # an event and a claim: neither restates the other
            if event:
                judgement = judge_events(
                    row["content"],
                    hit["content"],
                    row["occurred_at"] - (hit.get("occurred_at") or 0.0),
                    thresholds=self.rules.restatement,
                )
            else:
                judgement = judge(
                    row["content"],
                    hit["content"],
                    hit["similarity"],
                    measure=measure,
                    same_source=_same_source(row, hit),
                    thresholds=self.rules.restatement,
                )
            if judgement.verdict is Verdict.MERGE:
                return hit, judgement, None
            if differs is None and judgement.verdict is not Verdict.DISTINCT:
                differs = (judgement, hit)
        if differs is None:
            return None, None, None
        return None, differs[0], differs[1]

    def _nearest_by_vector(
        self, vectors: list[Any], project: str
    ) -> dict[int, list[Mapping[str, Any]]]:
        """Each item's near matches, most similar first: every item asked in one
        statement, again as far as ``NEAR_DUPLICATES`` reaches. An answer that
        found none keeps what a smaller ``k`` found."""

        def ask(k: int, items: list[int]) -> dict[int, Answer]:
            rows = self.store.read(
                "near_duplicates",
                {
                    "items": [{"index": i, "vector": vectors[i]} for i in items],
                    "project_id": project,
                    "threshold": self.rules.restatement.candidate_similarity,
                    "k": k,
                },
            )
            answered = {row["index"]: row for row in rows}
            # An item the index gave nothing for has no row.
            return {
                i: Answer(sorted(row["hits"], key=lambda h: -h["similarity"]), row["seen"])
                if (row := answered.get(i)) is not None
                else Answer([], 0)
                for i in items
            }

        found: dict[int, list[Mapping[str, Any]]] = {}
        for i, answer in nearest(self.store, ask, range(len(vectors)), NEAR_DUPLICATES):
            if answer.rows:
                found[i] = [*answer.rows[:NEAR_MATCHES_JUDGED]]
        return found

    def near_duplicates(self, memory: Memory, *, project: str) -> list[str]:
        """The live memories whose words are close to this one's (token Jaccard
        at or above ``dedup_jaccard``), closest first: what a reviewer compares a
        candidate with before approving it. By words, whatever the embedder:
        a reviewer asks which texts say nearly the same, and the queue must not
        embed every candidate it lists."""
        found = self._nearest_by_words([{"content": memory.content}], project)
        return [hit["id"] for hit in found.get(0, []) if hit["id"] != memory.id]

    def _nearest_by_words(
        self, rows: list[dict[str, Any]], project: str
    ) -> dict[int, list[Mapping[str, Any]]]:
        # A near duplicate shares at least 80% of the words, so it almost surely
        # has the longest (rarest) few: requiring those keeps each match set small
        # even in a project of 100,000 memories. Held to what the writer may read
        # of the project (graphmem.domain.textscope): another project's matches would
        # take the places of this one's.
        dialect, viewer = self.store.dialect, acting_agent()
        items = [
            {
                "index": i,
                "query": dialect.scoped(
                    dialect.all_of(sorted(terms, key=len, reverse=True)[:3]), project, viewer
                ),
            }
            for i, row in enumerate(rows)
            if (terms := query_terms(row["content"]))
        ]
        if not items:
            return {}
        found: dict[int, list[Mapping[str, Any]]] = {}
        hits = self.store.read(
            "near_duplicates_text",
            {"items": items, "project_id": project, "k": NEAR_DUPLICATE_TEXT_K},
        )
        for hit in hits:
            mine = tokens(rows[hit["index"]]["content"])
            scored = sorted(
                (
                    {**other, "similarity": jaccard(mine, tokens(other["content"]))}
                    for other in hit["hits"]
                ),
                key=lambda other: -other["similarity"],
            )
            close: list[Mapping[str, Any]] = [
                other for other in scored if other["similarity"] >= self.rules.dedup_jaccard
            ]
            if close:
                found[hit["index"]] = close[:NEAR_MATCHES_JUDGED]
        return found

    def _supersede(self, edges: list[dict[str, Any]], project: str, now: float) -> None:
        """The SUPERSEDES edges of the updates this batch created. A statement of
        their own, right after the batch: folded into it, the batch statement
        grows past what some Bolt servers accept."""
        if not edges:
            return
        done = self.store.write(
            "supersede_many", {"supersedes": edges, "project_id": project, "now": now}
        )
        self._changed(
            ChangeKind.RELATED, [row[end] for row in done for end in ("new_id", "old_id")], project
        )

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

    def _memory_limits(self, sessions: Sequence[Row], result: Written, project: str) -> None:
        for session in sessions:
            limit = session["max_items"] or self.rules.short_term_max
            if session["working"] >= limit:
                self.promotion.run(
                    session["session_id"],
                    project_id=project,
                    trigger=Trigger.MEMORY_LIMIT,
                    rotate_limit=limit,
                )
                # The run may have moved any memory of the session.
                result.changed(
                    [
                        memory_id
                        for memory_id, fields in result.fields.items()
                        if fields.get("session_id") == session["session_id"]
                    ]
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
            "occurred_at": now if item.occurred_at is None else item.occurred_at,
            "updated_at": now,
        }
        row["valid_from"] = row["occurred_at"] if item.valid_from is None else item.valid_from
        if item.valid_to is not None:
            row["valid_to"] = item.valid_to
        if item.memory_type is not None:
            row["memory_type"] = item.memory_type.value
        if item.self_assessment is not None:
            row["self_assessment"] = item.self_assessment.value
        if item.rationale is not None:
            row["rationale"] = item.rationale
        if item.agent_id is not None:
            row["agent_id"] = item.agent_id
        if item.visibility is not None:
            row["visibility"] = item.visibility.value
        row[textscope.FIELD] = textscope.text_scope(project, item.agent_id, row.get("visibility"))
        agent_decision = item.suggested_by is SuggestedBy.AGENT
        if item.occurred_at is None or item.occurred_at >= now:
            fields = self.scorer.fresh_fields(
                item.memory_type,
                item.confidence,
                item.self_assessment,
                agent_decision=agent_decision,
            )
        else:  # an event of the past is as old as it is, not as old as its write
            inputs = ScoreInputs(
                memory_type=item.memory_type,
                confidence=item.confidence,
                access_count=0,
                last_used_at=item.occurred_at,
                self_assessment=item.self_assessment,
                agent_decision=agent_decision,
            )
            fields = self.scorer.stored_fields(inputs, now)
        row.update(fields)
        return row


def _check_occurred_at(inputs: Sequence[MemoryInput], now: float) -> None:
    """No item may have happened later than a small clock skew past ``now``."""
    for index, item in enumerate(inputs):
        for name in ("occurred_at", "valid_from"):
            value = getattr(item, name)
            if value is not None:
                field = name if len(inputs) == 1 else f"items[{index}].{name}"
                check_not_future(value, now, field=field)


def _check_validity(inputs: Sequence[MemoryInput], now: float) -> None:
    """No item's validity may end before it begins: ``valid_from``, else
    ``occurred_at``, else the write (an end in the past needs a start given)."""
    for index, item in enumerate(inputs):
        if item.valid_to is None:
            continue
        start = next(t for t in (item.valid_from, item.occurred_at, now) if t is not None)
        field = "valid_to" if len(inputs) == 1 else f"items[{index}].valid_to"
        check_validity(start, item.valid_to, field=field)


def _no_vectors(rows: Sequence[Mapping[str, Any]]) -> list[Vector | None]:
    """A batch's embeddings when the embedder is off: none for each row."""
    return [None] * len(rows)


def _repeated(known: Sequence[M], event: bool, when: float, window: float) -> M | None:
    """The first memory with the same text that an item repeats: a claim repeats
    a claim; an event only an event of the same moment (two "Haha" a day apart
    are two turns)."""
    for other in known:
        if (other.get("memory_type") == MemoryType.EVENT.value) != event:
            continue
        if not event or abs((other.get("occurred_at") or 0.0) - when) <= window:
            return other
    return None


def _same_source(row: Mapping[str, Any], other: Mapping[str, Any]) -> bool:
    """Written by the same agent (or, without agent ids, the same kind of source):
    a changed value from it is an update, from anyone else a possible contradiction."""
    return (row.get("agent_id"), row.get("source")) == (other.get("agent_id"), other.get("source"))


def _audience(memory: Mapping[str, Any]) -> tuple[str, str | None]:
    """Who sees a memory: every agent of the project, or one agent only."""
    if memory.get("visibility", "shared") == "private":
        return "private", memory.get("agent_id")
    return "shared", None


def _less_certain(row: Mapping[str, Any], other: Mapping[str, Any]) -> bool:
    """A new value stated with less confidence than the one it would replace does
    not replace it: "the TTL might be 60 s" beside "the TTL is 30 s" is for review."""
    known = other.get("confidence")
    return known is not None and row["confidence"] < known


def _replace(outcomes: list[WriteOutcome], row_id: str, outcome: WriteOutcome) -> None:
    for n, known in enumerate(outcomes):
        if known.id == row_id:
            outcomes[n] = outcome


def _exact(memory_id: str) -> WriteOutcome:
    """An item counted into the live memory with its normalised text."""
    return WriteOutcome(id=memory_id, created=False, match="exact", result=WriteResult.MERGED_EXACT)


def _merge_into(
    merges: dict[str, dict[str, Any]],
    memory_id: str,
    occurrences: int,
    evidence: Iterable[str],
    tags: Iterable[str],
) -> dict[str, Any]:
    """The batch's merge into ``memory_id``, counting one more item into it."""
    merge = merges.setdefault(
        memory_id, {"id": memory_id, "occurrences": 0, "evidence": [], "tags": []}
    )
    merge["occurrences"] += occurrences
    merge["evidence"] = _union(merge["evidence"], evidence)
    merge["tags"] = _union(merge["tags"], tags)
    return merge


def _union(first: list[str], more: Iterable[str]) -> list[str]:
    return list(dict.fromkeys([*first, *more]))
