"""Checks of the scheduled work not done: memories promotion or archival
should have moved by now."""

from __future__ import annotations

from collections.abc import Iterator

from graphmem.domain.consistency import Finding
from graphmem.domain.kinds import Tier
from graphmem.domain.lifecycle import SHORT_TERM
from graphmem.services.evaluator.context import LIVE_TIERS, CheckContext, bad_unit, finding
from graphmem.services.evaluator.scores import scoring_window
from graphmem.services.evaluator.snapshot import Snapshot

_SHORT_TERM = frozenset(t.value for t in SHORT_TERM)


def check_overdue(snap: Snapshot, ctx: CheckContext) -> Iterator[Finding]:
    """Items a promotion or archival run would move, eligible for longer than a grace.

    Scores only decay between writes, so an item scoring at or above the
    promotion threshold now has scored so since its last write; an item that
    is stale and below the archival bar one grace period ago still is.
    """
    rules, scores, now = ctx.rules, ctx.scores, ctx.now
    archive_grace = max(ctx.overdue_after_seconds, 2 * rules.archive_interval_seconds)
    for node, attrs in snap.graph.nodes(data=True):
        tier = attrs.get("tier") or Tier.WORKING.value
        if tier not in LIVE_TIERS or attrs.get("created_at") is None:
            continue
        if bad_unit(attrs.get("confidence")):
            continue
        if tier in _SHORT_TERM and attrs.get("memory_type") and attrs.get("superseded_by") is None:
            session = snap.sessions.get(attrs.get("in_session") or "")
            if session is not None and session.state == "active" and session.promotion_enabled:
                interval = session.promotion_interval_seconds or rules.promotion_interval_seconds
                grace = max(ctx.overdue_after_seconds, 2 * interval)
                score = scores.at(node, attrs, now)
                if score >= rules.promote_threshold and scoring_window(attrs)[1] <= now - grace:
                    yield finding(
                        "PROMOTION_OVERDUE",
                        [node],
                        f"memory {node} has scored {score:.3f} >= {rules.promote_threshold} "
                        f"in {tier} for over {grace / 3600:g} h without being promoted",
                        "check that the scheduler runs (graphmem serve) or run "
                        f"graphmem promote {session.id}",
                        details={"score": score, "session_id": session.id},
                    )
        stale = rules.stale_seconds(Tier(tier))
        if stale is None or attrs.get("pinned"):
            continue
        then = now - archive_grace
        last_used = attrs.get("last_accessed_at") or attrs.get("occurred_at") or attrs["created_at"]
        if last_used < then - stale:
            score = scores.at(node, attrs, then)
            if score < rules.archive_importance_below:
                yield finding(
                    "ARCHIVAL_OVERDUE",
                    [node],
                    f"memory {node} has been stale in {tier} and below importance "
                    f"{rules.archive_importance_below} for over {archive_grace / 3600:g} h "
                    "without being archived",
                    "check that the scheduler runs (graphmem serve) or run graphmem archive",
                    details={"score": score},
                )
