"""Consolidation, the job: read a project's groupable memories, group them
(``graphmem.domain.consolidation``), and write one consolidated memory per group.

Each group is one write: the consolidated memory (``source: consolidated``)
is created, ``SUPERSEDES`` every source, and each source is archived with the
reason ``consolidated into <id>``; a source that changed since it was read
makes the write do nothing, and the group is reported as skipped. The new
memory's vector is stored right after (one statement cannot write a vector
both backends read); should that fail, it is a memory without an embedding,
which ``backfill-embeddings`` completes. A dry run
reads and groups the same way and writes nothing; its groups carry
fingerprints, and an apply given those fingerprints consolidates only the
groups that are still exactly what the dry run showed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from graphmem.domain.analysis import indexed_fields
from graphmem.domain.consolidation import (
    ARCHIVE_REASON,
    FINGERPRINT_PATTERN,
    GROUPABLE_TIERS,
    Candidate,
    eligible,
    find_groups,
    merged_fields,
    rationale,
    version,
)
from graphmem.domain.errors import InvalidInputError
from graphmem.domain.ids import new_id
from graphmem.domain.kinds import Source, Status, SuggestedBy
from graphmem.domain.models import Memory
from graphmem.domain.results import Consolidated, ConsolidationResult, Group
from graphmem.domain.text import content_key
from graphmem.services.base import Basics, Service
from graphmem.services.cascade import Cascade
from graphmem.services.embeddings import memory_text
from graphmem.services.events import ChangeKind
from graphmem.services.memories import UNNAMED, unreadable
from graphmem.store.queries import consolidation, evaluator, retrieval

Embed = Callable[[Sequence[str]], Sequence[Sequence[float]] | None]
PAGE = 5_000
LOOKUP_BATCH = 500
EMBED_BATCH = 128
MAX_FINGERPRINTS = 10_000
MAX_VARIANTS = 20
MAX_RELATED = 1_000_000


class Consolidator(Service):
    def __init__(
        self,
        basics: Basics,
        *,
        embed: Embed,
    ) -> None:
        super().__init__(basics)
        self.embed = embed
        self.cascade = Cascade(basics)

    def run(
        self,
        *,
        project_id: str,
        dry_run: bool = False,
        fingerprints: Sequence[str] | None = None,
    ) -> ConsolidationResult:
        """Find the project's groups and (unless ``dry_run``) consolidate each.

        ``fingerprints``: consolidate only these groups of an earlier dry run;
        one whose members changed since is not found again and is skipped with
        a note.
        """
        wanted = _check_fingerprints(fingerprints)
        rules = self.rules.consolidation
        result = ConsolidationResult(project_id=project_id, dry_run=dry_run)
        candidates = list(self._candidates(project_id))
        ids = [c.memory.id for c in candidates if eligible(c)]
        result.scanned, result.eligible = len(candidates), len(ids)
        similar = self._similar(project_id, ids, rules.similarity, rules.neighbours)
        related = self._related(project_id) if rules.related_to else []
        groups = find_groups(candidates, similar, related, rules, self.rules.restatement)
        if wanted is not None:
            found = {g.fingerprint for g in groups}
            gone = sorted(wanted - found)
            applied = self._applied(project_id, gone)
            result.notes += [
                f"group {fp}: already consolidated into {applied[fp]}; nothing written"
                if fp in applied
                else f"group {fp}: changed since the dry run (a member was written, archived "
                "or regrouped); skipped, nothing written"
                for fp in gone
            ]
            groups = [g for g in groups if g.fingerprint in wanted]
        result.groups = groups
        if not dry_run:
            for start in range(0, len(groups), EMBED_BATCH):
                batch = groups[start : start + EMBED_BATCH]
                vectors = self.embed([memory_text(g.content, rationale(g.members)) for g in batch])
                for index, group in enumerate(batch):
                    vector = None if vectors is None else list(vectors[index])
                    self._apply(group, vector, result)
        self.telemetry.emit(
            "consolidation.completed",
            self._now(),
            project_id=project_id,
            dry_run=dry_run,
            groups=len(result.groups),
            consolidated=result.memories_consolidated,
            skipped=len(result.notes),
        )
        return result

    def _candidates(self, project_id: str) -> Iterator[Candidate]:
        after = ""
        tiers = sorted(t.value for t in GROUPABLE_TIERS)
        while True:
            found = consolidation.candidates(
                self.store, project_id, tiers=tiers, after=after, page=PAGE
            )
            yield from found
            if len(found) < PAGE:
                return
            after = found[-1].memory.id

    def _similar(
        self, project_id: str, ids: list[str], threshold: float, neighbours: int
    ) -> list[tuple[str, str, float]]:
        """Each memory's nearest neighbours at or over the threshold, its own stored
        vector the query (memories without one are grouped by relations only)."""
        pairs: list[tuple[str, str, float]] = []
        for start in range(0, len(ids), LOOKUP_BATCH):
            found = evaluator.near_duplicates(
                self.store,
                project_id,
                ids[start : start + LOOKUP_BATCH],
                k=neighbours + 1,
                threshold=threshold,
            )
            pairs += [(near.id, near.other, near.similarity) for near in found]
        return pairs

    def _related(self, project_id: str) -> list[tuple[str, str]]:
        return consolidation.related(self.store, project_id, MAX_RELATED)

    def _applied(self, project_id: str, fingerprints: list[str]) -> dict[str, str]:
        """Which of these fingerprints were consolidated already, and into which memory:
        applying a dry run's fingerprint a second time finds no such group any more.
        A memory the acting agent may not read is named "another memory"."""
        if not fingerprints:
            return {}
        found = consolidation.applied(self.store, project_id, fingerprints)
        hidden = unreadable(self.store, {a.id for a in found})
        return {a.fingerprint: UNNAMED if a.id in hidden else a.id for a in found}

    def _apply(self, group: Group, vector: list[float] | None, result: ConsolidationResult) -> None:
        now = self._now()
        central = group.central
        memory_id = new_id()
        props: dict[str, Any] = {
            "id": memory_id,
            "project_id": result.project_id,
            "session_id": central.session_id,
            "content": group.content,
            "content_key": content_key(group.content),
            "status": Status.ACTIVE.value,
            "source": Source.CONSOLIDATED.value,
            "suggested_by": SuggestedBy.IMPLICIT.value,  # unless merged_fields says agent
            "pinned": False,
            "variants": [m.content for m in group.members[1 : MAX_VARIANTS + 1]],
            # Written now (asOf reads a memory from when graphmem wrote it);
            # what it records happened from its earliest source on (occurred_at).
            "created_at": now,
            "updated_at": now,
            "activated_at": now,
            **merged_fields(group.members),
        }
        if central.memory_type is not None:
            props["memory_type"] = central.memory_type.value
        why = rationale(group.members)
        if why is not None:
            props["rationale"] = why
        agents = {m.agent_id for m in group.members}
        if len(agents) == 1 and central.agent_id is not None:
            props["agent_id"] = central.agent_id
        # One audience per group (consolidation.audience): private stays private.
        props["visibility"] = central.visibility.value
        props.update(self.scorer.stored_fields(Memory.model_validate(props), now))
        props.update(
            indexed_fields(
                result.project_id,
                props.get("agent_id"),
                props["visibility"],
                group.content,
                props.get("rationale"),
            )
        )
        written = consolidation.consolidate(
            self.store,
            result.project_id,
            session_id=central.session_id,
            sources=[version(m) for m in group.members],
            props=props,
            # The fingerprint names the group on each SUPERSEDES edge, so that
            # applying it again is told apart from a group that changed.
            rationale=f"consolidated (group {group.fingerprint}): {group.reason}",
            archive_reason=ARCHIVE_REASON.format(id=memory_id),
            now=now,
        )
        if written is None:
            result.notes.append(
                f"group {group.fingerprint} ({', '.join(group.member_ids)}): a member changed "
                "since it was read; skipped, nothing written"
            )
            return
        if vector is not None:  # derived data: backfill-embeddings redoes it if lost
            retrieval.set_embeddings(
                self.store,
                [{"id": memory_id, "project_id": result.project_id, "embedding": vector}],
            )
        result.consolidated.append(Consolidated(memory_id, written.sources, group.fingerprint))
        self._changed(ChangeKind.CREATED, [memory_id], result.project_id)
        self._changed(ChangeKind.UPDATED, group.member_ids, result.project_id)
        self.cascade.superseded(
            [(source, memory_id) for source in written.sources], project_id=result.project_id
        )


def _check_fingerprints(fingerprints: Sequence[str] | None) -> set[str] | None:
    if fingerprints is None:
        return None
    if isinstance(fingerprints, str) or len(fingerprints) > MAX_FINGERPRINTS:
        raise InvalidInputError(
            f"fingerprints: a list of at most {MAX_FINGERPRINTS} group fingerprints",
            field="fingerprints",
        )
    for index, value in enumerate(fingerprints):
        if not isinstance(value, str) or not FINGERPRINT_PATTERN.fullmatch(value):
            raise InvalidInputError(
                f"fingerprints[{index}]: {value!r} is not a group fingerprint "
                "(16 lower-case hex digits, as a dry run gives them)",
                field=f"fingerprints[{index}]",
            )
    return set(fingerprints)
