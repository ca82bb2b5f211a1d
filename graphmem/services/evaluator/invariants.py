"""Checks of each memory on its own: values in range, importance as the scorer
gives it, a tier and status the lifecycle can produce, and the promotion log."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from graphmem.domain.clock import SHOWN_RANGE
from graphmem.domain.consistency import Finding
from graphmem.domain.kinds import Status, Tier
from graphmem.services.evaluator.context import LIVE_TIERS, CheckContext, bad_unit, finding
from graphmem.services.evaluator.scores import Scores, scoring_window
from graphmem.services.evaluator.snapshot import Snapshot

_TIERS = frozenset(t.value for t in Tier)
_STATUSES = frozenset(s.value for s in Status)


def check_invariants(snap: Snapshot, ctx: CheckContext) -> Iterator[Finding]:
    tolerance = ctx.importance_tolerance
    for node, attrs in snap.graph.nodes(data=True):
        importance = attrs.get("importance")
        importance_ok = not bad_unit(importance)
        if not importance_ok:
            yield finding(
                "IMPORTANCE_OUT_OF_RANGE",
                [node],
                f"memory {node} has importance {importance!r}, outside [0, 1]",
                "recompute its importance (graphmem evaluate --fix)",
                fixable=attrs.get("created_at") is not None,
                details={"importance": importance},
            )
        confidence = attrs.get("confidence")
        confidence_ok = not bad_unit(confidence)
        if not confidence_ok:
            yield finding(
                "CONFIDENCE_OUT_OF_RANGE",
                [node],
                f"memory {node} has confidence {confidence!r}, outside [0, 1]",
                "set a confidence between 0 and 1 (the updateMemory mutation, or GraphMem.update)",
                details={"confidence": confidence},
            )
        if importance_ok and confidence_ok and attrs.get("created_at") is not None:
            yield from _stale_importance(node, attrs, ctx.scores, tolerance)
        yield from _lifecycle(node, attrs)


def check_times(snap: Snapshot, ctx: CheckContext) -> Iterator[Finding]:
    """A stored time no surface can show: reads show the nearest one that can be
    and warn, so nothing fails, but the value is not what the memory says."""
    for node, times in sorted(snap.unshowable_times.items()):
        stored = ", ".join(f"{name} = {value!r}" for name, value in sorted(times.items()))
        yield finding(
            "TIME_OUT_OF_RANGE",
            [node],
            f"memory {node} stores a time outside {SHOWN_RANGE}: {stored}",
            "graphmem migrate brings it to the nearest time that can be shown",
            details={"times": dict(sorted(times.items()))},
        )


def _stale_importance(
    node: str, attrs: Mapping[str, Any], scores: Scores, tolerance: float
) -> Iterator[Finding]:
    rescored, written = scoring_window(attrs)
    lowest = scores.at(node, attrs, written)
    highest = lowest if written == rescored else scores.at(node, attrs, rescored)
    stored = attrs["importance"]
    if lowest - tolerance <= stored <= highest + tolerance:
        return
    expected = lowest if stored < lowest else highest
    yield finding(
        "IMPORTANCE_STALE",
        [node],
        f"memory {node} stores importance {stored:.4f}, but its fields give "
        f"{expected:.4f} when it was last written: a change was not rescored",
        "recompute its importance (graphmem evaluate --fix)",
        fixable=True,
        details={"stored": stored, "expected_low": lowest, "expected_high": highest},
    )


def _lifecycle(node: str, attrs: Mapping[str, Any]) -> Iterator[Finding]:
    """A tier and status the lifecycle can produce, with the fields that go with
    them: each kind of slip its own finding, so a fix can name the one it mends."""
    tier = attrs.get("tier") or Tier.WORKING.value
    status = attrs.get("status") or Status.ACTIVE.value
    yield from _pinned_elsewhere(node, attrs, tier, status)
    yield from _archived_untimed(node, attrs, tier)
    problems = _unknown_values(tier, status) + _archive_fields(attrs, tier)
    if problems:
        yield finding(
            "LIFECYCLE_INVALID",
            [node],
            f"memory {node}: " + "; ".join(problems),
            "restore or archive it with graphmem's own operations, which set the lifecycle "
            "fields together",
            details={"problems": problems},
        )


def _pinned_elsewhere(
    node: str, attrs: Mapping[str, Any], tier: str, status: str
) -> Iterator[Finding]:
    """Promotion sends pinned rules to the procedural tier, active; one anywhere
    else was moved by something that skipped it."""
    if attrs.get("pinned") and (tier != Tier.PROCEDURAL.value or status != Status.ACTIVE.value):
        yield finding(
            "PINNED_NOT_PROCEDURAL",
            [node],
            f"memory {node} is pinned but is {status} in tier {tier}: pinned rules belong "
            "in the procedural tier, active",
            "run promotion for its session (pinned items go to procedural), or unpin it",
            details={"tier": tier, "status": status},
        )


def _archived_untimed(node: str, attrs: Mapping[str, Any], tier: str) -> Iterator[Finding]:
    """An archived memory without archived_at: the one lifecycle slip a fix can
    mend on its own, from the memory's last write."""
    if tier == Tier.ARCHIVED.value and attrs.get("archived_at") is None:
        yield finding(
            "ARCHIVED_WITHOUT_TIMESTAMP",
            [node],
            f"memory {node} is archived but has no archived_at",
            "fill archived_at from its last write (graphmem evaluate --fix)",
            fixable=True,
        )


def _unknown_values(tier: str, status: str) -> list[str]:
    """A tier or status no graphmem version writes."""
    problems = []
    if tier not in _TIERS:
        problems.append(f"unknown tier {tier!r}")
    if status not in _STATUSES:
        problems.append(f"unknown status {status!r}")
    return problems


def _archive_fields(attrs: Mapping[str, Any], tier: str) -> list[str]:
    """The archival and merge fields, which only an archived memory may carry
    (and archived_from only as the live tier it left)."""
    if tier == Tier.ARCHIVED.value:
        if attrs.get("archived_from") not in (None, *LIVE_TIERS):
            return [f"archived_from is {attrs.get('archived_from')!r}, not a live tier"]
        return []
    live_only = (
        ("archived_at", f"archived_at is set but the tier is {tier}"),
        ("archived_from", f"archived_from is set but the tier is {tier}"),
        ("merged_into", f"merged into {attrs.get('merged_into')} but still in tier {tier}"),
    )
    return [problem for name, problem in live_only if attrs.get(name) is not None]


def check_promotion_log(snap: Snapshot, ctx: CheckContext) -> Iterator[Finding]:
    latest: dict[str, Any] = {}
    for event in snap.promotions:
        seen = latest.get(event.memory_id)
        if seen is None or (event.at, event.id) > (seen.at, seen.id):
            latest[event.memory_id] = event
    nodes = snap.graph.nodes
    for memory_id, event in latest.items():
        if memory_id not in nodes:
            continue  # forgotten memories keep their history
        attrs = nodes[memory_id]
        tier = attrs.get("tier") or Tier.WORKING.value
        if tier == event.to_tier or (
            tier == Tier.ARCHIVED.value and attrs.get("archived_from") == event.to_tier
        ):
            continue
        yield finding(
            "PROMOTION_LOG_MISMATCH",
            [memory_id],
            f"memory {memory_id} was last promoted to {event.to_tier} (event {event.id}) "
            f"but is in tier {tier}, and nothing logged explains the move",
            "check what moved it; restore or promote it so the log and the tier agree",
            details={"event_id": event.id, "to_tier": event.to_tier, "tier": tier},
        )
