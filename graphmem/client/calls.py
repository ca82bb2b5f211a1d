"""Each ``GraphMem`` operation as one GraphQL call: its document, its variables
and how its data becomes the model the in-process method returns.

Inputs are validated here with the models ``GraphMem`` validates them with, so
a bad value fails before any request with the same error and message; the
clients only add the project, send the call and retry it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from graphmem.capsules import FailureCapsule, FailureOutcome, FailureReport
from graphmem.client.codec import decode, encode, read
from graphmem.client.transport import Call
from graphmem.errors import InvalidInputError, NotFoundError
from graphmem.inputs import validate_batch
from graphmem.models import (
    BulkReviewResult,
    Memory,
    MemoryFilter,
    MemoryInput,
    MemoryUpdate,
    Page,
    ProjectSettings,
    ProjectSettingsUpdate,
    PromotionEvent,
    PromotionStats,
    Relation,
    RelationEvent,
    RelationType,
    ReviewFilter,
    ReviewItem,
    ReviewPage,
    Session,
    SharingEvent,
    StagingEvent,
    WriteOutcome,
    WriteResult,
    check_identifier,
    epoch_seconds,
    parse,
)
from graphmem.results import ArchiveResult, ConsolidationResult, Job, RunResult
from graphmem.retrieval import (
    ContextRequest,
    ContextResult,
    Neighborhood,
    SearchRequest,
    SearchResult,
)
from graphmem.scoring import ImportanceBreakdown

if TYPE_CHECKING:
    from graphmem.evaluator import ConsistencyReport

MEMORY = """
fragment M on Memory {
  id projectId sessionId content memoryType tier status confidence importance
  accessCount retrievalCount occurrenceCount feedback feedbackCount pinned source
  suggestedBy selfAssessment tags rationale evidence agentId supersededBy createdAt
  occurredAt updatedAt lastAccessedAt lastRetrievedAt promotedAt archivedAt archivedFrom
  archiveReason activatedAt lastSeen mergedInto evaluatorRelevance variants conflictsWith
  conflictReason validFrom validTo
  visibility copiedFrom copiedFromProject copiedAt copiedBy
}"""
RELATION = "fragment R on Relation { type fromId toId rationale weight createdAt }"
SESSION = """
fragment S on Session {
  id projectId state name promotionEnabled promotionIntervalSeconds maxItems
  createdAt updatedAt
}"""
STATS = """
fragment P on PromotionStats {
  sessionId projectId enabled intervalSeconds nextRunAt runs totalPromoted lastRunAt
  lastRunId lastTrigger lastPromoted lastFailed lastRotated lastRemaining lastThreshold
}"""
PROJECT = "fragment G on ProjectSettings { autoLinks defaultVisibility }"
CAPSULE = """
  id projectId signature error attempted tool command files fix occurrenceCount
  sessionIds contextMemoryIds lessonId firstSeenAt lastSeenAt fixedAt agentId visibility
"""
COMPONENTS = "components { name value weight contribution }"
HITS = "retrievers { retriever rank score }"
JOB = "id projectId state submittedAt finishedAt error"


def _memory_call(document: str, field: str, variables: Mapping[str, Any]) -> Call[Memory]:
    """A mutation answering with one memory (``field`` in its data)."""
    return Call(document + MEMORY, variables, lambda data: read(Memory, data[field]))


def _memory_mutation(name: str, memory_id: str, project_id: str | None) -> Call[Memory]:
    return _memory_call(
        f"mutation($id: ID!, $p: ID) {{ {name}(id: $id, projectId: $p) {{ ...M }} }}",
        name,
        {"id": memory_id, "p": project_id},
    )


# -- memories ------------------------------------------------------------------


def remember_detailed(
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

    variables = {"input": _memory_input(parse(MemoryInput, item)), "p": project_id}
    return Call(document + MEMORY, variables, result)


def _outcome(data: Mapping[str, Any]) -> WriteOutcome:
    return WriteOutcome(
        data["id"],
        data["created"],
        data["match"].lower() if data["match"] else None,
        result=WriteResult(data["outcome"].lower()),
        related_id=data["relatedId"],
        reason=data["reason"],
    )


def remember_many_detailed(
    items: Sequence[MemoryInput | Mapping[str, Any]], project_id: str | None, dedup: bool
) -> Call[list[WriteOutcome]]:
    document = """mutation($input: [MemoryInput!]!, $dedup: Boolean!, $p: ID) {
      rememberMany(input: $input, dedup: $dedup, projectId: $p) {
        id created match outcome relatedId reason
      }
    }"""

    def result(data: dict[str, Any]) -> list[WriteOutcome]:
        return [_outcome(o) for o in data["rememberMany"]]

    batch = [_memory_input(item) for item in validate_batch(items)]
    variables = {"input": batch, "dedup": dedup, "p": project_id}
    return Call(document, variables, result)


def get(memory_id: str, project_id: str | None, as_of: Any = None) -> Call[Memory]:
    def result(data: dict[str, Any]) -> Memory:
        if data["memory"] is None:
            raise NotFoundError(
                f"id: no memory {memory_id!r} in {_project_name(project_id)}", field="id"
            )
        return read(Memory, data["memory"])

    document = """query($id: ID!, $p: ID, $asOf: DateTime) {
      memory(id: $id, projectId: $p, asOf: $asOf) { ...M }
    }"""
    variables = {"id": memory_id, "p": project_id, "asOf": _as_of(as_of)}
    return Call(document + MEMORY, variables, result)


ALIASES_PER_REQUEST = 25
"""Ids asked for in one document: the server allows 50 aliases (GRAPHMEM_MAX_ALIASES)."""


def chunked(ids: Sequence[str]) -> list[Sequence[str]]:
    """``ids`` in pieces small enough for one document each (none for no ids)."""
    return [ids[n : n + ALIASES_PER_REQUEST] for n in range(0, len(ids), ALIASES_PER_REQUEST)]


def _aliased(
    field: str,
    ids: Sequence[str],
    selection: str,
    fragment: str,
    project_id: str | None,
    as_of: str | None = None,
) -> tuple[str, dict[str, Any]]:
    """One document asking ``field(id: ...)`` once per id, as aliases ``a0``, ``a1``, ...
    (each ``asOf`` a time, when one is given)."""
    params = "".join(f"$id{n}: ID!, " for n in range(len(ids)))
    at = ", asOf: $asOf" if as_of is not None else ""
    fields = " ".join(
        f"a{n}: {field}(id: $id{n}, projectId: $p{at}) {selection}" for n in range(len(ids))
    )
    variables: dict[str, Any] = {f"id{n}": id_ for n, id_ in enumerate(ids)}
    if as_of is not None:
        params += "$asOf: DateTime, "
        variables["asOf"] = as_of
    document = f"query({params}$p: ID) {{ {fields or '__typename'} }}"
    return document + (fragment if ids else ""), {**variables, "p": project_id}


def get_many(
    memory_ids: Sequence[str], project_id: str | None, as_of: Any = None
) -> Call[list[Memory | None]]:
    """At most ``ALIASES_PER_REQUEST`` ids (see ``chunked``)."""
    document, variables = _aliased(
        "memory", memory_ids, "{ ...M }", MEMORY, project_id, _as_of(as_of)
    )

    def result(data: dict[str, Any]) -> list[Memory | None]:
        return [decode(Memory | None, data[f"a{n}"]) for n in range(len(memory_ids))]

    return Call(document, variables, result)


def list_memories(
    filter: MemoryFilter | Mapping[str, Any] | None,
    first: int,
    after: str | None,
    project_id: str | None,
    as_of: Any = None,
) -> Call[Page]:
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
        "asOf": _as_of(as_of),
    }
    return Call(document + MEMORY, variables, result)


def update(
    memory_id: str, changes: MemoryUpdate | Mapping[str, Any], project_id: str | None
) -> Call[Memory]:
    document = """mutation($id: ID!, $input: MemoryUpdateInput!, $p: ID) {
      updateMemory(id: $id, input: $input, projectId: $p) { ...M }
    }"""
    parsed = parse(MemoryUpdate, changes)
    encoded: dict[str, Any] = encode(parsed)
    encoded["validFrom"] = _datetime(parsed.valid_from)
    encoded["validTo"] = _datetime(parsed.valid_to)
    variables = {"id": memory_id, "input": encoded, "p": project_id}
    return _memory_call(document, "updateMemory", variables)


def record_access(memory_id: str, project_id: str | None) -> Call[Memory]:
    return _memory_mutation("recordAccess", memory_id, project_id)


def feedback(memory_id: str, value: int, project_id: str | None) -> Call[Memory]:
    document = """mutation($id: ID!, $value: Int!, $p: ID) {
      giveFeedback(id: $id, value: $value, projectId: $p) { ...M }
    }"""
    return _memory_call(
        document, "giveFeedback", {"id": memory_id, "value": value, "p": project_id}
    )


def pin(memory_id: str, project_id: str | None) -> Call[Memory]:
    return _memory_mutation("pin", memory_id, project_id)


def unpin(memory_id: str, project_id: str | None) -> Call[Memory]:
    return _memory_mutation("unpin", memory_id, project_id)


def importance_breakdown(memory: Memory) -> Call[ImportanceBreakdown]:
    document = f"""query($id: ID!, $p: ID) {{
      memory(id: $id, projectId: $p) {{ importanceBreakdown {{ preset total {COMPONENTS} }} }}
    }}"""

    def result(data: dict[str, Any]) -> ImportanceBreakdown:
        if data["memory"] is None:
            raise NotFoundError(
                f"memory: no memory {memory.id!r} in {_project_name(memory.project_id)}",
                field="memory",
            )
        return read(ImportanceBreakdown, data["memory"]["importanceBreakdown"])

    return Call(document, {"id": memory.id, "p": memory.project_id}, result)


def forget(memory_id: str, project_id: str | None) -> Call[None]:
    document = "mutation($id: ID!, $p: ID) { forget(id: $id, projectId: $p) }"
    return Call(document, {"id": memory_id, "p": project_id}, lambda _: None)


# -- relations -----------------------------------------------------------------


def relate(
    from_id: str,
    to_id: str,
    type: RelationType | str,
    rationale: str | None,
    weight: float,
    project_id: str | None,
) -> Call[Relation]:
    document = """mutation($from: ID!, $to: ID!, $type: RelationType!, $rationale: String,
                           $weight: Float!, $p: ID) {
      relate(fromId: $from, toId: $to, type: $type, rationale: $rationale, weight: $weight,
             projectId: $p) { ...R }
    }"""
    variables = {
        "from": from_id,
        "to": to_id,
        "type": _relation_type(type).name,
        "rationale": rationale,
        "weight": weight,
        "p": project_id,
    }
    return Call(document + RELATION, variables, lambda data: read(Relation, data["relate"]))


def supersede(
    old_id: str, new_id: str, rationale: str | None, project_id: str | None
) -> Call[Relation]:
    document = """mutation($old: ID!, $new: ID!, $rationale: String, $p: ID) {
      supersede(oldId: $old, newId: $new, rationale: $rationale, projectId: $p) { ...R }
    }"""
    variables = {"old": old_id, "new": new_id, "rationale": rationale, "p": project_id}
    return Call(document + RELATION, variables, lambda data: read(Relation, data["supersede"]))


def unrelate(
    from_id: str,
    to_id: str,
    type: RelationType | str,
    reason: str,
    removed_by: str,
    project_id: str | None,
) -> Call[Relation]:
    document = """mutation($from: ID!, $to: ID!, $type: RelationType!, $reason: String!,
                           $by: String, $p: ID) {
      unrelate(fromId: $from, toId: $to, type: $type, reason: $reason, by: $by,
               projectId: $p) { ...R }
    }"""
    variables = {
        "from": from_id,
        "to": to_id,
        "type": _relation_type(type).name,
        "reason": reason,
        "by": removed_by,
        "p": project_id,
    }
    return Call(document + RELATION, variables, lambda data: read(Relation, data["unrelate"]))


def relation_events(
    memory_id: str, limit: int, project_id: str | None
) -> Call[list[RelationEvent]]:
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


def relations(memory_ids: Sequence[str], project_id: str | None) -> Call[list[list[Relation]]]:
    """At most ``ALIASES_PER_REQUEST`` ids (see ``chunked``)."""
    document, variables = _aliased(
        "memory", memory_ids, "{ relations { ...R } }", RELATION, project_id
    )

    def result(data: dict[str, Any]) -> list[list[Relation]]:
        found = [data[f"a{n}"] for n in range(len(memory_ids))]
        return [[read(Relation, r) for r in m["relations"]] if m else [] for m in found]

    return Call(document, variables, result)


def _relation_type(value: RelationType | str) -> RelationType:
    try:
        return RelationType(str(value).upper())
    except ValueError:
        names = ", ".join(t.value for t in RelationType)
        raise InvalidInputError(f"type: must be one of {names}", field="type") from None


# -- sessions ------------------------------------------------------------------


def _session_call(document: str, field: str, variables: Mapping[str, Any]) -> Call[Session]:
    return Call(document + SESSION, variables, lambda data: read(Session, data[field]))


def open_session(
    session_id: str | None, name: str | None, max_items: int | None, project_id: str | None
) -> Call[Session]:
    document = """mutation($id: ID, $name: String, $max: Int, $p: ID) {
      openSession(id: $id, name: $name, maxItems: $max, projectId: $p) { ...S }
    }"""
    if session_id is not None:
        check_identifier("session_id", session_id)
    variables = {"id": session_id, "name": name, "max": max_items, "p": project_id}
    return _session_call(document, "openSession", variables)


def session_change(name: str, session_id: str, project_id: str | None) -> Call[Session]:
    """``pauseSession`` or ``closeSession``."""
    document = f"mutation($id: ID!, $p: ID) {{ {name}(id: $id, projectId: $p) {{ ...S }} }}"
    return _session_call(document, name, {"id": session_id, "p": project_id})


def get_sessions(session_ids: Sequence[str], project_id: str | None) -> Call[list[Session | None]]:
    """At most ``ALIASES_PER_REQUEST`` ids (see ``chunked``)."""
    document, variables = _aliased("session", session_ids, "{ ...S }", SESSION, project_id)

    def result(data: dict[str, Any]) -> list[Session | None]:
        return [decode(Session | None, data[f"a{n}"]) for n in range(len(session_ids))]

    return Call(document, variables, result)


def get_session(session_id: str, project_id: str | None) -> Call[Session]:
    def result(data: dict[str, Any]) -> Session:
        if data["session"] is None:
            raise NotFoundError(
                f"session_id: no session {session_id!r} in {_project_name(project_id)}",
                field="session_id",
            )
        return read(Session, data["session"])

    document = "query($id: ID!, $p: ID) { session(id: $id, projectId: $p) { ...S } }"
    return Call(document + SESSION, {"id": session_id, "p": project_id}, result)


# -- project settings -------------------------------------------------------------


def projects() -> Call[list[str]]:
    return Call("query { projects }", {}, lambda data: list(data["projects"]))


def project_settings(project_id: str | None) -> Call[ProjectSettings]:
    document = "query($p: ID) { projectSettings(projectId: $p) { ...G } }"
    return Call(
        document + PROJECT,
        {"p": project_id},
        lambda data: read(ProjectSettings, data["projectSettings"]),
    )


def set_project_settings(
    update: ProjectSettingsUpdate | Mapping[str, Any], project_id: str | None
) -> Call[ProjectSettings]:
    document = """mutation($input: ProjectSettingsInput!, $p: ID) {
      setProjectSettings(input: $input, projectId: $p) { ...G }
    }"""
    variables = {"input": encode(parse(ProjectSettingsUpdate, update)), "p": project_id}
    return Call(
        document + PROJECT,
        variables,
        lambda data: read(ProjectSettings, data["setProjectSettings"]),
    )


# -- promotion and archival -------------------------------------------------------


def run_promotion(session_id: str, dry_run: bool, project_id: str | None) -> Call[RunResult]:
    document = f"""mutation($s: ID!, $dry: Boolean!, $p: ID) {{
      runPromotion(sessionId: $s, dryRun: $dry, projectId: $p) {{
        runId sessionId projectId trigger dryRun threshold promoted rotated remaining
        durationMs failures {{ memoryId reason }}
        candidates {{ memory {{ ...M }} score toTier
                      importanceBreakdown {{ preset total {COMPONENTS} }} }}
      }}
    }}"""

    def result(data: dict[str, Any]) -> RunResult:
        run = data["runPromotion"]
        candidates = [{**c, "breakdown": c["importanceBreakdown"]} for c in run["candidates"]]
        return read(RunResult, {**run, "candidates": candidates})

    variables = {"s": session_id, "dry": dry_run, "p": project_id}
    return Call(document + MEMORY, variables, result)


def _stats(data: Mapping[str, Any]) -> PromotionStats:
    trigger = data["lastTrigger"]
    return read(PromotionStats, {**data, "lastTrigger": trigger.lower() if trigger else None})


def promotion_stats(session_id: str, project_id: str | None) -> Call[PromotionStats]:
    document = "query($s: ID!, $p: ID) { promotionStats(sessionId: $s, projectId: $p) { ...P } }"
    variables = {"s": session_id, "p": project_id}
    return Call(document + STATS, variables, lambda data: _stats(data["promotionStats"]))


def set_promotion(
    session_id: str, enabled: bool, interval_seconds: float | None, project_id: str | None
) -> Call[PromotionStats]:
    if enabled:
        document = """mutation($s: ID!, $interval: Float, $p: ID) {
          enablePromotion(sessionId: $s, intervalSeconds: $interval, projectId: $p) { ...P }
        }"""
        field = "enablePromotion"
        variables = {"s": session_id, "interval": interval_seconds, "p": project_id}
    else:
        document = """mutation($s: ID!, $p: ID) {
          disablePromotion(sessionId: $s, projectId: $p) { ...P }
        }"""
        field = "disablePromotion"
        variables = {"s": session_id, "p": project_id}
    return Call(document + STATS, variables, lambda data: _stats(data[field]))


def promotion_events(
    memory_id: str | None, session_id: str | None, limit: int, project_id: str | None
) -> Call[list[PromotionEvent]]:
    document = """query($m: ID, $s: ID, $limit: Int!, $p: ID) {
      promotionEvents(memoryId: $m, sessionId: $s, limit: $limit, projectId: $p) {
        id runId memoryId sessionId trigger fromTier toTier score at reason
        components { name value contribution }
      }
    }"""

    def event(data: dict[str, Any]) -> PromotionEvent:
        components = data["components"]
        return read(
            PromotionEvent,
            {
                **data,
                "trigger": data["trigger"].lower(),
                "componentNames": [c["name"] for c in components],
                "componentValues": [c["value"] for c in components],
                "componentContributions": [c["contribution"] for c in components],
            },
        )

    variables = {"m": memory_id, "s": session_id, "limit": limit, "p": project_id}
    return Call(document, variables, lambda data: [event(e) for e in data["promotionEvents"]])


def archive_stale(dry_run: bool, project_id: str | None) -> Call[ArchiveResult]:
    document = """mutation($dry: Boolean!, $p: ID) {
      archiveStale(dryRun: $dry, projectId: $p) {
        projectId dryRun archived items { memoryId tier score reason }
      }
    }"""
    variables = {"dry": dry_run, "p": project_id}
    return Call(document, variables, lambda data: read(ArchiveResult, data["archiveStale"]))


def restore(memory_id: str, project_id: str | None) -> Call[Memory]:
    return _memory_mutation("restore", memory_id, project_id)


# -- failure capsules --------------------------------------------------------------


def record_failure(
    report: FailureReport | Mapping[str, Any], project_id: str | None
) -> Call[FailureOutcome]:
    document = f"""mutation($input: FailureReportInput!, $p: ID) {{
      recordFailure(input: $input, projectId: $p) {{
        created lessonStatus capsule {{ {CAPSULE} }}
      }}
    }}"""

    def result(data: dict[str, Any]) -> FailureOutcome:
        payload = data["recordFailure"]
        capsule = read(FailureCapsule, payload["capsule"])
        return FailureOutcome(
            capsule=capsule,
            created=payload["created"],
            lesson_id=capsule.lesson_id,
            lesson_status=payload["lessonStatus"],
        )

    variables = {"input": encode(parse(FailureReport, report)), "p": project_id}
    return Call(document, variables, result)


def failure_capsules(
    session_id: str | None, limit: int, project_id: str | None
) -> Call[list[FailureCapsule]]:
    document = f"""query($s: ID, $limit: Int!, $p: ID) {{
      failureCapsules(sessionId: $s, limit: $limit, projectId: $p) {{ {CAPSULE} }}
    }}"""
    variables = {"s": session_id, "limit": limit, "p": project_id}
    return Call(
        document,
        variables,
        lambda data: [read(FailureCapsule, c) for c in data["failureCapsules"]],
    )


def failure_capsule(capsule_id: str, project_id: str | None) -> Call[FailureCapsule]:
    document = f"""query($id: ID!, $p: ID) {{
      failureCapsule(id: $id, projectId: $p) {{ {CAPSULE} }}
    }}"""
    variables = {"id": capsule_id, "p": project_id}
    return Call(document, variables, lambda data: read(FailureCapsule, data["failureCapsule"]))


# -- consolidation -----------------------------------------------------------------


def consolidate(
    dry_run: bool, fingerprints: Sequence[str] | None, project_id: str | None
) -> Call[ConsolidationResult]:
    document = """mutation($dry: Boolean!, $f: [String!], $p: ID) {
      consolidate(dryRun: $dry, fingerprints: $f, projectId: $p) {
        projectId dryRun scanned eligible notes
        groups { fingerprint content seen reason members { ...M } }
        consolidated { memoryId sourceIds fingerprint }
      }
    }"""
    variables = {
        "dry": dry_run,
        "f": None if fingerprints is None else list(fingerprints),
        "p": project_id,
    }
    return Call(
        document + MEMORY,
        variables,
        lambda data: read(ConsolidationResult, data["consolidate"]),
    )


# -- staging and review ------------------------------------------------------------


def review_queue(
    filter: ReviewFilter | Mapping[str, Any] | None,
    order: str,
    first: int,
    after: str | None,
    project_id: str | None,
) -> Call[ReviewPage]:
    if order not in ("oldest", "evidence"):
        raise InvalidInputError("order: must be 'oldest' or 'evidence'", field="order")
    document = """query($filter: ReviewFilter, $order: ReviewOrder!, $first: Int!,
                        $after: String, $p: ID) {
      reviewQueue(filter: $filter, order: $order, first: $first, after: $after,
                  projectId: $p) {
        edges { node { memory { ...M } occurrences feedback ageSeconds
                       nearDuplicates { id } } }
        pageInfo { hasNextPage endCursor }
      }
    }"""

    def item(node: dict[str, Any]) -> ReviewItem:
        near = [m["id"] for m in node["nearDuplicates"]]
        return read(ReviewItem, {**node, "nearDuplicates": near})

    def result(data: dict[str, Any]) -> ReviewPage:
        connection = data["reviewQueue"]
        return ReviewPage(
            items=[item(edge["node"]) for edge in connection["edges"]],
            has_next=connection["pageInfo"]["hasNextPage"],
            end_cursor=connection["pageInfo"]["endCursor"],
        )

    variables = {
        "filter": encode(parse(ReviewFilter, filter)) if filter is not None else None,
        "order": order.upper(),
        "first": first,
        "after": after,
        "p": project_id,
    }
    return Call(document + MEMORY, variables, result)


def approve(memory_id: str, project_id: str | None) -> Call[Memory]:
    return _memory_mutation("approveCandidate", memory_id, project_id)


def reject(memory_id: str, reason: str, project_id: str | None) -> Call[Memory]:
    document = """mutation($id: ID!, $reason: String!, $p: ID) {
      rejectCandidate(id: $id, reason: $reason, projectId: $p) { ...M }
    }"""
    variables = {"id": memory_id, "reason": reason, "p": project_id}
    return _memory_call(document, "rejectCandidate", variables)


def merge_memories(into_id: str, from_id: str, project_id: str | None) -> Call[Memory]:
    document = """mutation($into: ID!, $from: ID!, $p: ID) {
      mergeMemories(intoId: $into, fromId: $from, projectId: $p) { ...M }
    }"""
    variables = {"into": into_id, "from": from_id, "p": project_id}
    return _memory_call(document, "mergeMemories", variables)


def bulk_review(
    filter: ReviewFilter | Mapping[str, Any] | None,
    action: str,
    reason: str | None,
    dry_run: bool,
    project_id: str | None,
) -> Call[BulkReviewResult]:
    if action not in ("approve", "reject"):
        raise InvalidInputError("action: must be 'approve' or 'reject'", field="action")
    document = """mutation($action: ReviewAction!, $filter: ReviewFilter, $reason: String,
                           $dry: Boolean!, $p: ID) {
      bulkReview(action: $action, filter: $filter, reason: $reason, dryRun: $dry,
                 projectId: $p) { action dryRun matched applied }
    }"""

    def result(data: dict[str, Any]) -> BulkReviewResult:
        found = data["bulkReview"]
        return read(BulkReviewResult, {**found, "action": found["action"].lower()})

    variables = {
        "action": action.upper(),
        "filter": encode(parse(ReviewFilter, filter)) if filter is not None else None,
        "reason": reason,
        "dry": dry_run,
        "p": project_id,
    }
    return Call(document, variables, result)


def staging_events(memory_id: str, limit: int, project_id: str | None) -> Call[list[StagingEvent]]:
    document = """query($m: ID!, $limit: Int!, $p: ID) {
      stagingEvents(memoryId: $m, limit: $limit, projectId: $p) {
        id memoryId kind signal before after similarity mergedFrom at
      }
    }"""
    variables = {"m": memory_id, "limit": limit, "p": project_id}
    return Call(
        document, variables, lambda data: [read(StagingEvent, e) for e in data["stagingEvents"]]
    )


# -- agents and sharing ----------------------------------------------------------------


def share(memory_id: str, project_id: str | None) -> Call[Memory]:
    return _memory_mutation("share", memory_id, project_id)


def unshare(memory_id: str, project_id: str | None) -> Call[Memory]:
    return _memory_mutation("unshare", memory_id, project_id)


def copy_memory(memory_id: str, to_project_id: str, project_id: str | None) -> Call[Memory]:
    return _memory_call(
        """mutation($id: ID!, $to: ID!, $p: ID) {
          copyMemory(id: $id, toProjectId: $to, projectId: $p) { ...M }
        }""",
        "copyMemory",
        {"id": memory_id, "to": check_identifier("toProjectId", to_project_id), "p": project_id},
    )


def sharing_events(
    memory_id: str | None, limit: int, project_id: str | None
) -> Call[list[SharingEvent]]:
    document = """query($m: ID, $limit: Int!, $p: ID) {
      sharingEvents(memoryId: $m, limit: $limit, projectId: $p) {
        id memoryId kind by fromVisibility toVisibility toProjectId copyId at
      }
    }"""
    variables = {"m": memory_id, "limit": limit, "p": project_id}
    return Call(
        document, variables, lambda data: [read(SharingEvent, e) for e in data["sharingEvents"]]
    )


# -- consistency evaluation ------------------------------------------------------------


def submit_consistency_check(fix: bool, evidence: bool, project_id: str | None) -> Call[Job]:
    document = f"""mutation($fix: Boolean!, $evidence: Boolean!, $p: ID) {{
      runConsistencyCheck(fix: $fix, evidence: $evidence, projectId: $p) {{ {JOB} }}
    }}"""
    variables = {"fix": fix, "evidence": evidence, "p": project_id}
    return Call(document, variables, lambda data: read(Job, data["runConsistencyCheck"]))


def consistency_job(job_id: str, project_id: str | None) -> Call[Job | None]:
    document = f"query($id: ID!, $p: ID) {{ consistencyJob(id: $id, projectId: $p) {{ {JOB} }} }}"
    variables = {"id": job_id, "p": project_id}
    return Call(document, variables, lambda data: decode(Job | None, data["consistencyJob"]))


def consistency_reports(
    limit: int, before: float | None, report_id: str | None, project_id: str | None
) -> Call[list[ConsistencyReport]]:
    """Whole reports, as their versioned JSON (the server has no summaries-only form)."""
    if report_id is not None:
        document = "query($id: ID!, $p: ID) { consistencyReport(id: $id, projectId: $p) { json } }"
        variables: dict[str, Any] = {"id": report_id, "p": project_id}
    else:
        document = """query($first: Int!, $before: DateTime, $p: ID) {
          consistencyReports(first: $first, before: $before, projectId: $p) { json }
        }"""
        variables = {"first": limit, "before": _datetime(before), "p": project_id}

    def result(data: dict[str, Any]) -> list[ConsistencyReport]:
        # The report's findings are the evaluator's own classes, which bring
        # networkx: loaded by the call that returns them, not by every client.
        from graphmem.evaluator import ConsistencyReport

        found = data.get("consistencyReports") or [data.get("consistencyReport")]
        return [ConsistencyReport.from_dict(_json(r["json"])) for r in found if r]

    return Call(document, variables, result)


# -- retrieval ------------------------------------------------------------------------


def knowledge_context(
    request: ContextRequest | Mapping[str, Any],
    record_access: bool | None,
    project_id: str | None,
    agent_id: str | None = None,
) -> Call[ContextResult]:
    parsed = parse(ContextRequest, request)
    document = f"""query($hint: String!, $types: [MemoryType!], $minConfidence: Float!,
                        $max: Int!, $recency: Float!, $superseded: Boolean!,
                        $archived: Boolean!, $session: ID, $access: Boolean, $p: ID,
                        $minRelevance: Float!, $after: DateTime, $before: DateTime,
                        $asOf: DateTime, $agent: ID) {{
      knowledgeContext(contextHint: $hint, includeTypes: $types, minConfidence: $minConfidence,
                       maxResults: $max, recencyWeight: $recency,
                       includeSuperseded: $superseded, includeArchived: $archived,
                       sessionId: $session, recordAccess: $access, projectId: $p,
                       minRelevance: $minRelevance, occurredAfter: $after,
                       occurredBefore: $before, asOf: $asOf, agentId: $agent) {{
        items {{ memory {{ ...M }} score {COMPONENTS} {HITS} failure {{ {CAPSULE} }}
                 path {{ seedId factor steps {{ type fromId toId }} }} }}
        weights {{ name weight }} maxAccessCount candidates notes tookMs
      }}
    }}"""

    def result(data: dict[str, Any]) -> ContextResult:
        found = data["knowledgeContext"]
        weights = {w["name"]: w["weight"] for w in found["weights"]}
        return read(ContextResult, {**found, "weights": weights})

    variables = {
        "hint": parsed.context_hint,
        "types": encode(parsed.include_types),
        "minConfidence": parsed.min_confidence,
        "max": parsed.max_results,
        "recency": parsed.recency_weight,
        "superseded": parsed.include_superseded,
        "archived": parsed.include_archived,
        "session": parsed.session_id,
        "access": record_access,
        "p": project_id,
        "minRelevance": parsed.min_relevance,
        "after": parsed.occurred_after.isoformat() if parsed.occurred_after else None,
        "before": parsed.occurred_before.isoformat() if parsed.occurred_before else None,
        "asOf": parsed.as_of.isoformat() if parsed.as_of else None,
        "agent": _agent(agent_id),
    }
    return Call(document + MEMORY, variables, result)


def search(
    request: SearchRequest | Mapping[str, Any], project_id: str | None, agent_id: str | None = None
) -> Call[SearchResult]:
    parsed = parse(SearchRequest, request)
    document = f"""query($query: String!, $mode: SearchMode!, $limit: Int!,
                        $filters: SearchFilters, $depth: Int!, $types: [RelationType!], $p: ID,
                        $minRelevance: Float!, $asOf: DateTime, $agent: ID) {{
      search(query: $query, mode: $mode, limit: $limit, filters: $filters, depth: $depth,
             relationTypes: $types, projectId: $p, minRelevance: $minRelevance,
             asOf: $asOf, agentId: $agent) {{
        hits {{ memory {{ ...M }} score explanation {{
          {COMPONENTS} {HITS} replaces notes
          path {{ seedId factor steps {{ type fromId toId }} }}
        }} }}
        mode retrievers notes tookMs
      }}
    }}"""
    filters = encode(parsed.filters)
    for bound in ("createdAfter", "createdBefore", "occurredAfter", "occurredBefore"):
        filters[bound] = _datetime(filters[bound])
    variables = {
        "query": parsed.query,
        "mode": parsed.mode.name,
        "limit": parsed.limit,
        "filters": filters,
        "depth": parsed.depth,
        "types": encode(parsed.relation_types),
        "p": project_id,
        "minRelevance": parsed.min_relevance,
        "asOf": _datetime(parsed.as_of),
        "agent": _agent(agent_id),
    }
    return Call(document + MEMORY, variables, lambda data: read(SearchResult, data["search"]))


def neighborhood(
    memory_id: str,
    depth: int,
    relation_types: Sequence[RelationType | str] | None,
    project_id: str | None,
    as_of: Any = None,
) -> Call[Neighborhood]:
    document = """query($id: ID!, $depth: Int!, $types: [RelationType!], $p: ID,
                       $asOf: DateTime) {
      neighborhood(id: $id, depth: $depth, relationTypes: $types, projectId: $p,
                   asOf: $asOf) {
        centerId depth truncated nodes { ...M } edges { ...R }
      }
    }"""
    types = None if relation_types is None else [_relation_type(t).name for t in relation_types]
    variables = {
        "id": memory_id,
        "depth": depth,
        "types": types,
        "p": project_id,
        "asOf": _as_of(as_of),
    }
    return Call(
        document + MEMORY + RELATION,
        variables,
        lambda data: read(Neighborhood, data["neighborhood"]),
    )


def _agent(agent_id: str | None) -> str | None:
    return None if agent_id is None else check_identifier("agentId", agent_id)


def _project_name(project_id: str | None) -> str:
    """The project a message names: as in process, or the server's own default."""
    return "the server's default project" if project_id is None else f"project {project_id!r}"


def _memory_input(item: MemoryInput) -> dict[str, Any]:
    """A memory input as GraphQL variables: ``occurredAt`` as an ISO date-time."""
    encoded: dict[str, Any] = encode(item)
    encoded["occurredAt"] = _datetime(item.occurred_at)
    encoded["validFrom"] = _datetime(item.valid_from)
    encoded["validTo"] = _datetime(item.valid_to)
    return encoded


def _as_of(value: Any) -> str | None:
    """An ``as_of`` time (a datetime, ISO 8601 text or epoch seconds) as the server
    reads it; how far in the future it may be is the server's to judge."""
    if value is None:
        return None
    try:
        return _datetime(epoch_seconds(value))
    except ValueError as exc:
        raise InvalidInputError(f"as_of: {exc}", field="as_of") from None


def _datetime(epoch_seconds: float | None) -> str | None:
    if epoch_seconds is None:
        return None
    return datetime.fromtimestamp(epoch_seconds, tz=UTC).isoformat()


def _json(text: str) -> dict[str, Any]:
    report: dict[str, Any] = json.loads(text)
    return report
