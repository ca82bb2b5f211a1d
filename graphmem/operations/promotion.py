"""Operations that move memories between tiers: promotion runs and their
triggers, archival, restoring, and what the next runs would do."""

from __future__ import annotations

import builtins
from collections.abc import Mapping
from typing import Any

from graphmem.domain.auth import Role
from graphmem.domain.models import Memory
from graphmem.domain.results import ArchiveResult, RunResult
from graphmem.domain.sessions import PromotionEvent, PromotionStats
from graphmem.operations import documents as doc
from graphmem.operations.codec import read
from graphmem.operations.entry import Entry, operation
from graphmem.operations.requests import Call

WHAT_IF = Entry("what_if", Role.ADMIN, serves="what_if", fields=("whatIf",), whole_project=True)
"""Like a dry promotion run, a what-if shows what promotion would do, and it
plans every session of a project. Not sent by the clients: its variant names
a rules file on the caller's machine."""


def _stats(data: Mapping[str, Any]) -> PromotionStats:
    trigger = data["lastTrigger"]
    return read(PromotionStats, {**data, "lastTrigger": trigger.lower() if trigger else None})


def _stats_call(document: str, field: str, variables: Mapping[str, Any]) -> Call[PromotionStats]:
    return Call(document + doc.STATS, variables, lambda data: _stats(data[field]))


class PromotionOperations:
    @operation(Role.ADMIN, whole_project=True)
    def run_promotion(
        session_id: str, *, dry_run: bool = False, project_id: str | None = None
    ) -> Call[RunResult]:
        """Promote a session's worthy short-term memories now (or show what would move)."""
        document = f"""mutation($s: ID!, $dry: Boolean!, $p: ID) {{
          runPromotion(sessionId: $s, dryRun: $dry, projectId: $p) {{
            runId sessionId projectId trigger dryRun threshold promoted rotated remaining
            durationMs failures {{ memoryId reason }}
            candidates {{ memory {{ ...M }} score toTier
                          importanceBreakdown {{ preset total {doc.COMPONENTS} }} }}
          }}
        }}"""

        def result(data: dict[str, Any]) -> RunResult:
            run = data["runPromotion"]
            candidates = [{**c, "breakdown": c["importanceBreakdown"]} for c in run["candidates"]]
            return read(RunResult, {**run, "candidates": candidates})

        variables = {"s": session_id, "dry": dry_run, "p": project_id}
        return Call(document + doc.MEMORY, variables, result)

    @operation(Role.READ)
    def promotion_stats(session_id: str, *, project_id: str | None = None) -> Call[PromotionStats]:
        document = (
            "query($s: ID!, $p: ID) { promotionStats(sessionId: $s, projectId: $p) { ...P } }"
        )
        return _stats_call(document, "promotionStats", {"s": session_id, "p": project_id})

    @operation(Role.READ)
    def promotion_events(
        *,
        memory_id: str | None = None,
        session_id: str | None = None,
        limit: int = 50,
        project_id: str | None = None,
    ) -> Call[builtins.list[PromotionEvent]]:
        """The promotion log of a memory or a session, newest first."""
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

    @operation(Role.ADMIN, whole_project=True)
    def enable_promotion(
        session_id: str,
        *,
        interval_seconds: float | None = None,
        project_id: str | None = None,
    ) -> Call[PromotionStats]:
        """Turn the periodic trigger on; the next run is one interval from now."""
        document = """mutation($s: ID!, $interval: Float, $p: ID) {
          enablePromotion(sessionId: $s, intervalSeconds: $interval, projectId: $p) { ...P }
        }"""
        variables = {"s": session_id, "interval": interval_seconds, "p": project_id}
        return _stats_call(document, "enablePromotion", variables)

    @operation(Role.ADMIN, whole_project=True)
    def disable_promotion(
        session_id: str, *, project_id: str | None = None
    ) -> Call[PromotionStats]:
        document = """mutation($s: ID!, $p: ID) {
          disablePromotion(sessionId: $s, projectId: $p) { ...P }
        }"""
        return _stats_call(document, "disablePromotion", {"s": session_id, "p": project_id})

    @operation(Role.ADMIN, whole_project=True)
    def archive_stale(
        *, dry_run: bool = False, project_id: str | None = None
    ) -> Call[ArchiveResult]:
        document = """mutation($dry: Boolean!, $p: ID) {
          archiveStale(dryRun: $dry, projectId: $p) {
            projectId dryRun archived items { memoryId tier score reason }
          }
        }"""
        variables = {"dry": dry_run, "p": project_id}
        return Call(document, variables, lambda data: read(ArchiveResult, data["archiveStale"]))

    @operation(Role.WRITE, "archiveMemory")
    def archive(memory_id: str, reason: str, *, project_id: str | None = None) -> Call[Memory]:
        """Archive one memory by hand, with the reason (``restore`` brings it back);
        what rests on it is marked for review."""
        document = """mutation($id: ID!, $reason: String!, $p: ID) {
          archiveMemory(id: $id, reason: $reason, projectId: $p) { ...M }
        }"""
        variables = {"id": memory_id, "reason": reason, "p": project_id}
        return doc.memory_call(document, "archiveMemory", variables)

    @operation(Role.WRITE)
    def restore(memory_id: str, *, project_id: str | None = None) -> Call[Memory]:
        """Back to its previous tier, counted as just used (and rescored so)."""
        return doc.memory_mutation("restore", memory_id, project_id)
