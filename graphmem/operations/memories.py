"""Operations on memories and the relations between them."""

from __future__ import annotations

import builtins
from collections.abc import Mapping, Sequence
from typing import Any

from graphmem.domain.auth import Role
from graphmem.domain.checks import parse
from graphmem.domain.errors import NotFoundError
from graphmem.domain.inputs import validate_batch
from graphmem.domain.kinds import RelationType
from graphmem.domain.models import (
    Memory,
    MemoryFilter,
    MemoryInput,
    MemoryUpdate,
    Page,
    WriteOutcome,
    WriteResult,
)
from graphmem.domain.relations import Relation, RelationEvent
from graphmem.domain.scoring import ImportanceBreakdown
from graphmem.operations import documents as doc
from graphmem.operations.codec import decode, encode, read
from graphmem.operations.entry import operation
from graphmem.operations.requests import Batch, Call


def _remember(
    item: MemoryInput | Mapping[str, Any], project_id: str | None
) -> Call[tuple[Memory, WriteOutcome]]:
    document = """mutation($input: MemoryInput!, $p: ID) {
      remember(input: $input, projectId: $p) {
        memory { ...M } created match outcome relatedId reason
      }
    }"""

    def result(data: dict[str, Any]) -> tuple[Memory, WriteOutcome]:
        payload = data["remember"]
        memory = read(Memory, payload["memory"])
        return memory, _outcome({**payload, "id": memory.id})

    variables = {"input": doc.memory_input(parse(MemoryInput, item)), "p": project_id}
    return Call(document + doc.MEMORY, variables, result)


def _remember_many(
    items: Sequence[MemoryInput | Mapping[str, Any]], project_id: str | None, dedup: bool
) -> Call[list[WriteOutcome]]:
    document = """mutation($input: [MemoryInput!]!, $dedup: Boolean!, $p: ID) {
      rememberMany(input: $input, dedup: $dedup, projectId: $p) {
        id created match outcome relatedId reason
      }
    }"""

    def result(data: dict[str, Any]) -> list[WriteOutcome]:
        return [_outcome(o) for o in data["rememberMany"]]

    batch = [doc.memory_input(item) for item in validate_batch(items)]
    variables = {"input": batch, "dedup": dedup, "p": project_id}
    return Call(document, variables, result)


def _outcome(data: Mapping[str, Any]) -> WriteOutcome:
    return WriteOutcome(
        data["id"],
        data["created"],
        data["match"].lower() if data["match"] else None,
        result=WriteResult(data["outcome"].lower()),
        related_id=data["relatedId"],
        reason=data["reason"],
    )


class MemoryOperations:
    @operation(Role.WRITE)
    def remember(
        item: MemoryInput | Mapping[str, Any], *, project_id: str | None = None
    ) -> Call[Memory]:
        return _remember(item, project_id).then(lambda written: written[0])

    @operation(Role.WRITE, "remember")
    def remember_detailed(
        item: MemoryInput | Mapping[str, Any], *, project_id: str | None = None
    ) -> Call[tuple[Memory, WriteOutcome]]:
        """Like ``remember``, also saying whether it created a memory or merged into one."""
        return _remember(item, project_id)

    @operation(Role.WRITE)
    def remember_many(
        items: Sequence[MemoryInput | Mapping[str, Any]],
        *,
        project_id: str | None = None,
        dedup: bool = True,
    ) -> Call[list[str]]:
        """Write a batch; returns each item's memory id (an existing one where it merged)."""
        written = _remember_many(items, project_id, dedup)
        return written.then(lambda outcomes: [outcome.id for outcome in outcomes])

    @operation(Role.WRITE, "rememberMany")
    def remember_many_detailed(
        items: Sequence[MemoryInput | Mapping[str, Any]],
        *,
        project_id: str | None = None,
        dedup: bool = True,
    ) -> Call[list[WriteOutcome]]:
        """Write a batch in one request and one statement; one bad item writes nothing."""
        return _remember_many(items, project_id, dedup)

    @operation(Role.READ, "memory")
    def get(memory_id: str, *, project_id: str | None = None, as_of: Any = None) -> Call[Memory]:
        """One memory; with ``as_of`` (a time), as it stood then (docs/validity.md)."""

        def result(data: dict[str, Any]) -> Memory:
            if data["memory"] is None:
                raise NotFoundError(
                    f"id: no memory {memory_id!r} in {doc.project_name(project_id)}", field="id"
                )
            return read(Memory, data["memory"])

        document = """query($id: ID!, $p: ID, $asOf: DateTime) {
          memory(id: $id, projectId: $p, asOf: $asOf) { ...M }
        }"""
        variables = {"id": memory_id, "p": project_id, "asOf": doc.as_of(as_of)}
        return Call(document + doc.MEMORY, variables, result)

    @operation(Role.READ, "memory")
    def get_many(
        memory_ids: Sequence[str], *, project_id: str | None = None, as_of: Any = None
    ) -> Batch[list[Memory | None]]:
        """Memories in the order asked for, ``None`` where an id is unknown (DataLoader
        shape); with ``as_of``, as they stood then (``None`` where not yet written)."""
        at = doc.as_of(as_of)

        def part(ids: Sequence[str]) -> Call[list[Memory | None]]:
            document, variables = doc.aliased("memory", ids, "{ ...M }", doc.MEMORY, project_id, at)

            def result(data: dict[str, Any]) -> list[Memory | None]:
                return [decode(Memory | None, data[f"a{n}"]) for n in range(len(ids))]

            return Call(document, variables, result)

        return Batch([part(ids) for ids in doc.chunked(memory_ids)])

    @operation(Role.READ, "memories")
    def list(
        filter: MemoryFilter | Mapping[str, Any] | None = None,
        *,
        first: int = 20,
        after: str | None = None,
        project_id: str | None = None,
        as_of: Any = None,
    ) -> Call[Page]:
        """A page of memories, newest first, continued with ``after=page.end_cursor``;
        with ``as_of`` (a time), the memories that held then, with their tiers and
        statuses then (docs/validity.md)."""
        document = """query($filter: MemoryFilter, $first: Int!, $after: String, $p: ID,
                           $asOf: DateTime) {
          memories(filter: $filter, first: $first, after: $after, projectId: $p, asOf: $asOf) {
            edges { node { ...M } }
            pageInfo { hasNextPage startCursor endCursor }
          }
        }"""

        def result(data: dict[str, Any]) -> Page:
            connection = data["memories"]
            info = connection["pageInfo"]
            return Page(
                items=[read(Memory, edge["node"]) for edge in connection["edges"]],
                has_next=info["hasNextPage"],
                end_cursor=info["endCursor"],
                start_cursor=info["startCursor"],
            )

        variables = {
            "filter": encode(parse(MemoryFilter, filter)) if filter is not None else None,
            "first": first,
            "after": after,
            "p": project_id,
            "asOf": doc.as_of(as_of),
        }
        return Call(document + doc.MEMORY, variables, result)

    @operation(Role.WRITE, "updateMemory")
    def update(
        memory_id: str,
        changes: MemoryUpdate | Mapping[str, Any],
        *,
        project_id: str | None = None,
    ) -> Call[Memory]:
        document = """mutation($id: ID!, $input: MemoryUpdateInput!, $p: ID) {
          updateMemory(id: $id, input: $input, projectId: $p) { ...M }
        }"""
        parsed = parse(MemoryUpdate, changes)
        encoded: dict[str, Any] = encode(parsed)
        encoded["validFrom"] = doc.iso(parsed.valid_from)
        encoded["validTo"] = doc.iso(parsed.valid_to)
        variables = {"id": memory_id, "input": encoded, "p": project_id}
        return doc.memory_call(document, "updateMemory", variables)

    @operation(Role.WRITE)
    def record_access(memory_id: str, *, project_id: str | None = None) -> Call[Memory]:
        """Count one use of a memory and rescore it."""
        return doc.memory_mutation("recordAccess", memory_id, project_id)

    @operation(Role.WRITE, "giveFeedback")
    def feedback(memory_id: str, value: int, *, project_id: str | None = None) -> Call[Memory]:
        """Record +1 (useful), 0 (neutral) or -1 (wrong or unhelpful)."""
        document = """mutation($id: ID!, $value: Int!, $p: ID) {
          giveFeedback(id: $id, value: $value, projectId: $p) { ...M }
        }"""
        variables = {"id": memory_id, "value": value, "p": project_id}
        return doc.memory_call(document, "giveFeedback", variables)

    @operation(Role.WRITE)
    def pin(memory_id: str, *, project_id: str | None = None) -> Call[Memory]:
        return doc.memory_mutation("pin", memory_id, project_id)

    @operation(Role.WRITE)
    def unpin(memory_id: str, *, project_id: str | None = None) -> Call[Memory]:
        return doc.memory_mutation("unpin", memory_id, project_id)

    @operation(Role.READ, "memory")
    def importance_breakdown(memory: Memory) -> Call[ImportanceBreakdown]:
        """The score as of now on the server, factor by factor."""
        document = f"""query($id: ID!, $p: ID) {{
          memory(id: $id, projectId: $p) {{
            importanceBreakdown {{ preset total {doc.COMPONENTS} }}
          }}
        }}"""

        def result(data: dict[str, Any]) -> ImportanceBreakdown:
            if data["memory"] is None:
                raise NotFoundError(
                    f"memory: no memory {memory.id!r} in {doc.project_name(memory.project_id)}",
                    field="memory",
                )
            return read(ImportanceBreakdown, data["memory"]["importanceBreakdown"])

        return Call(document, {"id": memory.id, "p": memory.project_id}, result)

    @operation(Role.WRITE)
    def forget(memory_id: str, *, project_id: str | None = None) -> Call[None]:
        """Delete a memory and its edges: the only path that deletes anything."""
        document = "mutation($id: ID!, $p: ID) { forget(id: $id, projectId: $p) }"
        return Call(document, {"id": memory_id, "p": project_id}, lambda _: None)


class RelationOperations:
    @operation(Role.WRITE)
    def relate(
        from_id: str,
        to_id: str,
        type: RelationType | str,
        *,
        rationale: str | None = None,
        weight: float = 1.0,
        project_id: str | None = None,
    ) -> Call[Relation]:
        """Add (or update) a typed edge between two memories of one project."""
        document = """mutation($from: ID!, $to: ID!, $type: RelationType!, $rationale: String,
                               $weight: Float!, $p: ID) {
          relate(fromId: $from, toId: $to, type: $type, rationale: $rationale, weight: $weight,
                 projectId: $p) { ...R }
        }"""
        variables = {
            "from": from_id,
            "to": to_id,
            "type": doc.relation_type(type).name,
            "rationale": rationale,
            "weight": weight,
            "p": project_id,
        }
        return Call(document + doc.RELATION, variables, lambda data: read(Relation, data["relate"]))

    @operation(Role.WRITE)
    def supersede(
        old_id: str,
        new_id: str,
        *,
        rationale: str | None = None,
        project_id: str | None = None,
    ) -> Call[Relation]:
        """Mark ``new_id`` as replacing ``old_id``; the old memory is kept, not deleted."""
        document = """mutation($old: ID!, $new: ID!, $rationale: String, $p: ID) {
          supersede(oldId: $old, newId: $new, rationale: $rationale, projectId: $p) { ...R }
        }"""
        variables = {"old": old_id, "new": new_id, "rationale": rationale, "p": project_id}
        return Call(
            document + doc.RELATION, variables, lambda data: read(Relation, data["supersede"])
        )

    @operation(Role.WRITE, attributed="removed_by")
    def unrelate(
        from_id: str,
        to_id: str,
        type: RelationType | str,
        *,
        reason: str,
        removed_by: str = "api",
        project_id: str | None = None,
    ) -> Call[Relation]:
        """Remove one edge, logged as an event with who removed it (``removed_by``)
        and why; returns the edge as it was. Removing a SUPERSEDES edge restores
        the older memory. No such edge: ``NotFoundError``, nothing written."""
        document = """mutation($from: ID!, $to: ID!, $type: RelationType!, $reason: String!,
                               $by: String, $p: ID) {
          unrelate(fromId: $from, toId: $to, type: $type, reason: $reason, by: $by,
                   projectId: $p) { ...R }
        }"""
        variables = {
            "from": from_id,
            "to": to_id,
            "type": doc.relation_type(type).name,
            "reason": reason,
            "by": removed_by,
            "p": project_id,
        }
        return Call(
            document + doc.RELATION, variables, lambda data: read(Relation, data["unrelate"])
        )

    @operation(Role.READ)
    def relation_events(
        memory_id: str, *, limit: int = 50, project_id: str | None = None
    ) -> Call[builtins.list[RelationEvent]]:
        """Relations removed from or to a memory, newest first, with who and why."""
        document = """query($id: ID!, $limit: Int!, $p: ID) {
          relationEvents(memoryId: $id, limit: $limit, projectId: $p) {
            id type fromId toId rationale weight createdAt removedBy reason at
          }
        }"""
        variables = {"id": memory_id, "limit": limit, "p": project_id}
        return Call(
            document,
            variables,
            lambda data: [read(RelationEvent, e) for e in data["relationEvents"]],
        )

    @operation(Role.READ, "memory")
    def relations(
        memory_ids: Sequence[str], *, project_id: str | None = None
    ) -> Batch[builtins.list[builtins.list[Relation]]]:
        """Edges touching each memory, grouped per id in the order asked for."""

        def part(ids: Sequence[str]) -> Call[list[list[Relation]]]:
            document, variables = doc.aliased(
                "memory", ids, "{ relations { ...R } }", doc.RELATION, project_id
            )

            def result(data: dict[str, Any]) -> list[list[Relation]]:
                found = [data[f"a{n}"] for n in range(len(ids))]
                return [[read(Relation, r) for r in m["relations"]] if m else [] for m in found]

            return Call(document, variables, result)

        return Batch([part(ids) for ids in doc.chunked(memory_ids)])
