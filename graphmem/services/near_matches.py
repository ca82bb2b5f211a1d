"""Near matches of a batch's new memories, and what the restatement check makes of them.

Exact repeats are counted before this runs; what is left is each new row
against the live memories closest to it, from the vector index or, without
embeddings, the full-text index. ``graphmem.domain.restatement`` judges each
pair: the same statement merges, a new value from the same source supersedes
the old one, anything else that differs is flagged as a possible contradiction.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from graphmem.domain.errors import InvalidInputError
from graphmem.domain.kinds import MemoryType, Status
from graphmem.domain.models import Memory, WriteOutcome, WriteResult
from graphmem.domain.restatement import fetch_floor, judge, judge_events, readable
from graphmem.domain.restatement.verdicts import Judgement, Verdict
from graphmem.domain.text import jaccard, tokens
from graphmem.domain.viewer import acting_agent
from graphmem.services.base import Basics, Service
from graphmem.services.retrieval.fulltext import query_terms
from graphmem.services.write_batch import merge_into, replace, union
from graphmem.store.knn import Answer, Reach, nearest
from graphmem.store.queries import near_matches as near

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
SCAN_PAIRS = 5_000
"""A batch whose items times its project's memories is at most this many pairs
is compared with every memory of the project, exactly (about 7 ms at this
many), instead of through the vector index: FalkorDB's stale vectors made the
index's answers short, and a write asked it 3.8 times on average under a mixed
load (``benchmarks.load``)."""
SIZE_SECONDS = 60.0
"""How long a project's memory count is reused to choose between the two."""
MAX_PROJECTS = 10_000
"""Projects whose counts are kept at once."""
NEAR_DUPLICATE_TEXT_K = 5
"""Full-text matches whose token overlap is measured, without embeddings."""
NEAR_DUPLICATE_TEXT_MAX_BATCH = 50
"""Without embeddings, near duplicates are looked for in batches up to this size (the
writes of an agent at work); a full-text lookup per item would dominate a bulk load,
which gets exact dedup only."""


class NearMatches(Service):
    """Looks up and judges the near matches of new memories; see the module docstring."""

    def __init__(self, basics: Basics) -> None:
        super().__init__(basics)
        self._sizes: dict[str, tuple[int, float]] = {}
        """Per project, its memory count and until when it is reused (monotonic)."""

    def resolve(
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
        per row, in one round trip. A claim that names a value it replaces ("X
        instead of Y") or holds a value or a name (``restatement.fetch_floor``)
        also has up to three matches from ``correction_similarity`` judged after
        those, where only a correction or another value in one slot is read.
        The first match judged the same statement takes the row as a merge (its
        wording kept as a variant). Otherwise the nearest match judged different makes the row an
        update that supersedes it (a new value from the same source) or a
        candidate flagged as a possible contradiction. Returns the rows (and
        vectors) still to create, and the SUPERSEDES edges to write with them. A
        row without a word to compare is created as it is. A row the judge fails
        on refuses the whole batch, naming the item by its place in ``positions``
        (``None`` for one item).
        """
        if vectors:
            found = self._nearest_by_vector(rows, vectors, project)
            measure: Literal["cosine", "jaccard"] = "cosine"
        elif len(rows) <= NEAR_DUPLICATE_TEXT_MAX_BATCH:
            found = self._nearest_by_words(rows, project)
            measure = "jaccard"
        else:
            return rows, vectors, []
        kept_rows, kept_vectors, supersedes = [], [], []
        for index, row in enumerate(rows):
            target, judgement, other = self._judged(row, found.get(index, []), measure, positions)
            if target is not None:
                _merge(row, target, judgement, merges, outcomes)
                continue
            kept_rows.append(row)
            if vectors:
                kept_vectors.append(vectors[index])
            if judgement is not None and other is not None:
                supersedes += _differ(row, other, judgement, outcomes)
        return kept_rows, kept_vectors, supersedes

    def _judged(
        self,
        row: Mapping[str, Any],
        matches: Sequence[Mapping[str, Any]],
        measure: Literal["cosine", "jaccard"],
        positions: Mapping[str, int] | None,
    ) -> tuple[Mapping[str, Any] | None, Judgement | None, Mapping[str, Any] | None]:
        """What ``_decide`` makes of one row's near matches; a row without a word
        to compare is never merged, flagged or superseding. A row the judge
        fails on refuses the batch: nothing is written yet."""
        if not readable(row["content"]):
            return None, None, None
        # Only memories with the same audience: a private wording merged into a
        # shared memory, or an edge between the two, would show one to the other.
        hits = [hit for hit in matches if _audience(hit) == _audience(row)]
        try:
            return self._decide(row, hits, measure)
        except Exception as exc:
            field = f"items[{positions[row['id']]}].content" if positions else "content"
            raise InvalidInputError(
                f"{field}: could not be compared with its near matches ({exc})", field=field
            ) from exc

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
        self, rows: list[dict[str, Any]], vectors: list[Any], project: str
    ) -> dict[int, list[Mapping[str, Any]]]:
        """Each item's near matches, most similar first: every item asked in one
        statement, again as far as ``NEAR_DUPLICATES`` reaches. An answer that
        found none keeps what a smaller ``k`` found.

        The statement takes the lowest of the items' floors
        (``restatement.fetch_floor``: under ``candidate_similarity`` only for a
        claim naming a value it replaces, or holding a value or name another
        could stand in for); each item keeps what is at or above its own. How
        far the index is followed is decided by the matches from
        ``candidate_similarity`` alone, so those are the same as with no lower
        floor; up to ``NEAR_MATCHES_JUDGED`` matches under it are judged after
        them (only a correction or a changed value in one slot is read there)."""
        limits = self.rules.restatement
        floors = [
            limits.candidate_similarity
            if row.get("memory_type") == MemoryType.EVENT.value
            else fetch_floor(row["content"], limits)
            for row in rows
        ]
        far: dict[int, list[Mapping[str, Any]]] = {}

        scanned = self._scanned(project, len(vectors))

        def ask(k: int, items: list[int]) -> dict[int, Answer]:
            found = near.by_vector(
                self.store,
                [{"index": i, "vector": vectors[i]} for i in items],
                project,
                threshold=min(floors[i] for i in items),
                k=k,
                exact=scanned,
            )
            answered = {answer.index: answer for answer in found}
            answers = {}
            for i in items:
                item = answered.get(i)
                if item is None:  # an item the index gave nothing for has no row
                    answers[i] = Answer([], 0)
                    continue
                hits = sorted(item.hits, key=lambda h: -h["similarity"])
                close = [dict(h) for h in hits if h["similarity"] >= limits.candidate_similarity]
                if lower := [
                    h for h in hits if floors[i] <= h["similarity"] < limits.candidate_similarity
                ]:
                    far[i] = lower
                answers[i] = Answer(close, item.seen)
            return answers

        found: dict[int, list[Mapping[str, Any]]] = {}
        every = list(range(len(vectors)))
        answers = (
            ask(NEAR_DUPLICATES.k, every).items()
            if scanned
            else nearest(self.store, ask, every, NEAR_DUPLICATES)
        )
        for i, answer in answers:
            if answer.rows:
                found[i] = [*answer.rows[:NEAR_MATCHES_JUDGED]]
        for i, lower in far.items():
            found[i] = [*found.get(i, []), *lower[:NEAR_MATCHES_JUDGED]]
        return found

    def _scanned(self, project: str, items: int) -> bool:
        """Whether ``items`` new memories are compared with every memory of the
        project (at most ``SCAN_PAIRS`` pairs) rather than through the index.
        The count is read once a ``SIZE_SECONDS``, and grows by the items asked
        about in between (most of them are written), so a project loaded in
        batches turns to the index before the next count says so."""
        now = time.monotonic()
        size, until = self._sizes.get(project, (0, 0.0))
        if until <= now:
            size = near.project_size(self.store, project)
            until = now + SIZE_SECONDS
            if len(self._sizes) >= MAX_PROJECTS:
                self._sizes.clear()
        self._sizes[project] = (size + items, until)
        return items * size <= SCAN_PAIRS

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
        for hit in near.by_words(self.store, items, project, k=NEAR_DUPLICATE_TEXT_K):
            mine = tokens(rows[hit.index]["content"])
            scored = sorted(
                (
                    {**other, "similarity": jaccard(mine, tokens(other["content"]))}
                    for other in hit.hits
                ),
                key=lambda other: -other["similarity"],
            )
            close: list[Mapping[str, Any]] = [
                other for other in scored if other["similarity"] >= self.rules.dedup_jaccard
            ]
            if close:
                found[hit.index] = close[:NEAR_MATCHES_JUDGED]
        return found


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


def _merge(
    row: Mapping[str, Any],
    target: Mapping[str, Any],
    judgement: Judgement | None,
    merges: dict[str, dict[str, Any]],
    outcomes: list[WriteOutcome],
) -> None:
    """The row merges into ``target``: its counts, evidence and tags join the
    merge, its wording is kept as a variant, and its outcome names the memory
    it went into."""
    merge = merge_into(merges, target["id"], row["occurrence_count"], row["evidence"], row["tags"])
    merge["variants"] = union(merge.get("variants", []), [row["content"]])
    merge.setdefault("match", "near")
    merge.setdefault("similarity", target["similarity"])
    replace(
        outcomes,
        row["id"],
        WriteOutcome(
            id=target["id"],
            created=False,
            match="near",
            result=WriteResult.MERGED_NEAR,
            reason=judgement.reason if judgement else None,
        ),
    )


def _differ(
    row: dict[str, Any],
    other: Mapping[str, Any],
    judgement: Judgement,
    outcomes: list[WriteOutcome],
) -> list[dict[str, Any]]:
    """The row is created beside ``other``, which it differs from: as its update
    (the SUPERSEDES edge to write, returned) or as a candidate flagged as a
    possible contradiction of it; its outcome says which."""
    judgement = _weighed(row, other, judgement)
    edges: list[dict[str, Any]] = []
    if judgement.verdict is Verdict.SUPERSEDE:
        edges.append({"new_id": row["id"], "old_id": other["id"], "rationale": judgement.reason})
        result = WriteResult.SUPERSEDED
    else:
        row.update(
            status=Status.CANDIDATE.value,
            conflicts_with=other["id"],
            conflict_reason=judgement.reason,
        )
        result = WriteResult.FLAGGED_CONFLICT
    replace(
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
    return edges


def _weighed(row: Mapping[str, Any], other: Mapping[str, Any], judgement: Judgement) -> Judgement:
    """A newer value stated with less confidence than the one it would replace
    does not supersede it: the two conflict until someone decides."""
    if judgement.verdict is not Verdict.SUPERSEDE or not _less_certain(row, other):
        return judgement
    return Judgement(
        Verdict.CONFLICT,
        judgement.difference,
        f"{judgement.reason}, stated with less confidence "
        f"({row['confidence']} < {other['confidence']})",
    )
