"""The promotion engine: short-term memories that proved their worth move to
long-term tiers, highest importance first, every move logged in the graph.

Scoring happens inside the database (see ``evaluate_session.cypher``) so a
session of 100,000 working items returns only the few that will move.

A run made by a call acting as an agent sees what that agent may read, like
every other read: it scores, moves, counts and rotates the session's shared
memories and the agent's own private ones, never another agent's. A session
that holds only what the agent may not read does not exist for it (see
``hidden_sessions``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graphmem.domain.dependencies import Change, Changed
from graphmem.domain.errors import NotFoundError
from graphmem.domain.ids import new_id
from graphmem.domain.kinds import Tier
from graphmem.domain.lifecycle import SHORT_TERM, long_term_target, promotion_target
from graphmem.domain.models import Memory
from graphmem.domain.results import Candidate, PromotionFailure, RunResult, Trigger
from graphmem.domain.retention import DAY, RetentionRules
from graphmem.domain.scoring import RuleNote
from graphmem.domain.viewer import acting_agent
from graphmem.services.base import Basics, Service
from graphmem.services.cascade import Cascade
from graphmem.store.queries import lifecycle
from graphmem.store.queries import sessions as session_queries
from graphmem.store.queries.lifecycle import Promotable

log = logging.getLogger(__name__)


CLOSE_LIMIT = 100_000
"""The final run at close is not capped per run: every pending item gets its chance."""


@dataclass(frozen=True)
class PromoteResult:
    promoted: list[str]
    failures: list[PromotionFailure]


@dataclass(frozen=True)
class Threshold:
    """The importance one memory needs to move, and the rules that set it."""

    needed: float
    decayed: float
    """The run's threshold after time decay (the run's own when decay does not apply)."""
    tag: str | None = None
    """The tag whose own threshold applies, when it is lower than ``decayed``."""


def threshold_for(memory: Memory, rules: RetentionRules, base: float, now: float) -> Threshold:
    """What ``evaluate_session`` computes in the database (a test keeps them equal):
    ``base`` lowered with age by ``time_decay``, or the lowest tag threshold if lower."""
    decay = rules.time_decay
    decayed = base
    late = (now - memory.created_at) / DAY - decay.start_days
    if decay.enabled and late > 0:
        decayed = max(base - decay.per_day * late, min(decay.floor, base))
    tagged = [(rules.tag_thresholds[t], t) for t in memory.tags if t in rules.tag_thresholds]
    if tagged and min(tagged)[0] < decayed:
        value, tag = min(tagged)
        return Threshold(needed=value, decayed=decayed, tag=tag)
    return Threshold(needed=decayed, decayed=decayed)


def evidence_for(memory: Memory, rules: RetentionRules, now: float, *, sessions: int) -> list[str]:
    """Why an episodic memory may become long-term (``semantic_evidence``), in words."""
    need = rules.semantic_evidence
    found = []
    if sessions >= need.min_sessions:
        found.append(f"used in {sessions} sessions")
    if memory.feedback >= need.min_feedback:
        found.append(f"feedback {memory.feedback:+g}")
    if memory.occurrence_count >= need.min_occurrences:
        found.append(f"written {memory.occurrence_count} times")
    entered = memory.promoted_at if memory.promoted_at is not None else memory.created_at
    if now - entered >= need.min_dwell_days * DAY:
        found.append(f"dwell {(now - entered) / DAY:.1f} days in episodic")
    if memory.pinned:
        found.append("pinned")
    found += [f"tag {t}" for t in memory.tags if t in rules.tag_thresholds]
    return found


def rule_notes(
    memory: Memory, rules: RetentionRules, base: float, now: float, *, sessions: int
) -> list[RuleNote]:
    """The rules that bore on a candidate, for its breakdown and its event's reason."""
    threshold = threshold_for(memory, rules, base, now)
    notes = [RuleNote(rule="threshold", detail=f"{threshold.needed:.3f} (run: {base:.3f})")]
    if threshold.decayed < base:
        age = (now - memory.created_at) / DAY
        detail = f"{age:.1f} days old: {base:.3f} -> {threshold.decayed:.3f}"
        notes.append(RuleNote(rule="time_decay", detail=detail))
    if threshold.tag is not None:
        detail = f"{threshold.tag}: threshold {threshold.needed:.3f}"
        notes.append(RuleNote(rule="tag", detail=detail))
    if memory.tier is Tier.EPISODIC:
        evidence = evidence_for(memory, rules, now, sessions=sessions)
        notes.append(RuleNote(rule="evidence", detail=", ".join(evidence)))
    return notes


def missing_session(session_id: str, project_id: str) -> NotFoundError:
    """What an unknown session id gets, and a session the caller may not see."""
    return NotFoundError(
        f"session_id: no session {session_id!r} in project {project_id!r}", field="session_id"
    )


def _stale(c: Candidate) -> PromotionFailure:
    """A candidate the statement did not move: it left its tier (moved by a
    concurrent run, or deleted) after it was evaluated."""
    return PromotionFailure(
        c.memory.id, f"no longer in tier {c.memory.tier.value} (moved or deleted)"
    )


class PromotionEngine(Service):
    def __init__(self, basics: Basics) -> None:
        super().__init__(basics)
        self.cascade = Cascade(basics)

    def hidden_sessions(self, session_ids: Sequence[str], *, project_id: str) -> set[str]:
        """The sessions of ``session_ids`` that exist but that the acting agent may
        not see: each holds memories or failure capsules, none of which it may
        read. For that agent they behave as sessions that do not exist. A call
        acting as no agent sees every session (and reads nothing here)."""
        if acting_agent() is None or not session_ids:
            return set()
        return session_queries.hidden(self.store, session_ids, project_id)

    def evaluate(
        self,
        session_id: str,
        *,
        project_id: str,
        threshold: float | None = None,
        limit: int | None = None,
    ) -> list[Candidate]:
        """The session's promotable items at or above the threshold, best first, capped."""
        now = self._now()
        base = self.rules.promote_threshold if threshold is None else threshold
        found = lifecycle.session_candidates(
            self.store,
            session_id,
            project_id,
            tiers=SHORT_TERM,
            threshold=base,
            limit=limit or self.rules.max_promotions_per_run,
            now=now,
            rules={**self.rule_params(base, now), **self.scorer.query_params()},
        )
        return self._candidates(found, base, now)

    def consolidate(self, *, project_id: str, dry_run: bool = False) -> list[Candidate]:
        """Move the project's episodic memories that have earned a long-term tier.

        A session's own runs stop when it closes; this pass (the scheduler's,
        once per archival period) lets evidence that arrives later, such as use
        in another session or feedback, still count. Returns what moved (or,
        in a dry run, would move).
        """
        now = self._now()
        base = self.rules.promote_threshold
        found = lifecycle.episodic_candidates(
            self.store,
            project_id,
            threshold=base,
            limit=self.rules.max_promotions_per_run,
            now=now,
            rules={**self.rule_params(base, now), **self.scorer.query_params()},
        )
        candidates = self._candidates(found, base, now)
        if dry_run or not candidates:
            return candidates
        moved = set(
            self.promote(candidates, project_id=project_id, trigger=Trigger.PERIODIC).promoted
        )
        return [c for c in candidates if c.memory.id in moved]

    def _candidates(self, found: Sequence[Promotable], base: float, now: float) -> list[Candidate]:
        candidates = []
        for p in found:
            memory = p.memory
            target = promotion_target(
                memory.tier, memory.memory_type, pinned=memory.pinned, constrains=p.constrains
            )
            if target is None:
                continue
            breakdown = self.scorer.score_with_breakdown(memory, now)
            notes = rule_notes(memory, self.rules, base, now, sessions=p.sessions)
            candidates.append(
                Candidate(
                    memory=memory,
                    score=p.score,
                    breakdown=breakdown.model_copy(update={"rules": notes}),
                    to_tier=target,
                    threshold=p.threshold,
                )
            )
        return candidates

    def rule_params(self, threshold: float, now: float) -> dict[str, Any]:
        """The retention rules as parameters of ``evaluate_session``."""
        decay = self.rules.time_decay
        evidence = self.rules.semantic_evidence
        return {
            "moved_before": now - self.rules.promotion_interval_seconds,
            "tags": dict(self.rules.tag_thresholds),
            # The threshold falls by decay_rate a second of age past decay_origin...
            "decay_origin": now - decay.start_days * DAY,
            "decay_rate": decay.per_day / DAY if decay.enabled else 0.0,
            # ...never below the floor, which lowers the bar and never raises it.
            "floor": min(decay.floor, threshold),
            # used_in_sessions lists the other sessions only.
            "sessions": evidence.min_sessions - 1,
            "feedback": evidence.min_feedback,
            "occurrences": evidence.min_occurrences,
            "dwelt_before": now - evidence.min_dwell_days * DAY,
        }

    def promote(
        self,
        candidates: Sequence[Candidate],
        *,
        project_id: str,
        trigger: Trigger = Trigger.MANUAL,
        run_id: str | None = None,
        run: Mapping[str, Any] | None = None,
    ) -> PromoteResult:
        """Move each candidate one step; report the ones that could not move.

        A candidate fails alone (deleted, or moved by a concurrent run since it
        was evaluated); the others still move. With ``run`` (its session,
        start and threshold) the run is recorded in the same write, even when
        nothing moves.
        """
        if not candidates and run is None:
            return PromoteResult(promoted=[], failures=[])
        now = self._now()
        # The moves and the run's record go in one statement: a run is never
        # logged without its moves.
        moved = lifecycle.promote(
            self.store,
            candidates,
            project_id,
            run_id=run_id or new_id(),
            run=run,
            trigger=trigger.value,
            now=now,
        )
        promoted = [c for c in candidates if c.memory.id in moved]
        for c in promoted:
            self._emit_promoted(c, now, project_id=project_id, trigger=trigger)
        failures = [_stale(c) for c in candidates if c.memory.id not in moved]
        for failure in failures:
            log.info("promotion of %s skipped: %s", failure.memory_id, failure.reason)
        return PromoteResult(promoted=[c.memory.id for c in promoted], failures=failures)

    def _emit_promoted(
        self, c: Candidate, now: float, *, project_id: str, trigger: Trigger
    ) -> None:
        """One ``memory.promoted`` event for each move the statement made: the metrics
        count moves, never candidates."""
        self.telemetry.emit(
            "memory.promoted",
            now,
            memory_id=c.memory.id,
            project_id=project_id,
            session_id=c.memory.session_id,
            from_tier=c.memory.tier.value,
            to_tier=c.to_tier.value,
            trigger=trigger.value,
        )

    def run(
        self,
        session_id: str,
        *,
        project_id: str,
        trigger: Trigger = Trigger.MANUAL,
        dry_run: bool = False,
        limit: int | None = None,
        rotate_limit: int | None = None,
    ) -> RunResult:
        """Evaluate, promote, record the run on the session, and report it.

        With ``rotate_limit`` (the memory-limit trigger), the oldest working
        items are then archived until the session is back under the limit.
        """
        started = time.perf_counter()
        started_at = self._now()
        threshold = self.rules.promote_threshold
        result = RunResult(
            run_id=new_id(),
            session_id=session_id,
            project_id=project_id,
            trigger=trigger,
            dry_run=dry_run,
            threshold=threshold,
        )
        if not self._session_seen(session_id, project_id):
            if trigger is Trigger.MEMORY_LIMIT:
                # A write counted into another memory, in a session that holds
                # nothing its agent may read: nothing of it is this run's to move.
                return result
            raise missing_session(session_id, project_id)
        if not dry_run:
            # A dry run is a question, not a run: it triggers nothing and no
            # metric or session statistic counts it.
            self.telemetry.emit(
                "promotion.triggered",
                started_at,
                trigger=trigger.value,
                session_id=session_id,
                project_id=project_id,
                dry_run=dry_run,
            )
        result.candidates = self.evaluate(session_id, project_id=project_id, limit=limit)
        rotated: list[str] = []
        if not dry_run:
            outcome = self.promote(
                result.candidates,
                project_id=project_id,
                trigger=trigger,
                run_id=result.run_id,
                run={"session_id": session_id, "started_at": started_at, "threshold": threshold},
            )
            result.promoted, result.failures = outcome.promoted, outcome.failures
            if rotate_limit is not None:
                rotated = self._rotate(session_id, project_id=project_id, limit=rotate_limit)
                result.rotated = len(rotated)
        result.remaining = self.working_count(session_id, project_id=project_id)
        if not dry_run:
            # The session's record counts every working memory left, whoever ran it;
            # each caller reads it back counted over what it may read.
            lifecycle.finish_run(
                self.store,
                session_id,
                project_id,
                run_id=result.run_id,
                rotated=rotated,
                now=self._now(),
            )
        result.duration_ms = (time.perf_counter() - started) * 1000
        self.telemetry.emit(
            "promotion.completed",
            self._now(),
            trigger=trigger.value,
            session_id=session_id,
            project_id=project_id,
            run_id=result.run_id,
            dry_run=dry_run,
            candidates=len(result.candidates),
            promoted=len(result.promoted),
            failed=len(result.failures),
            rotated=result.rotated,
            remaining=result.remaining,
            duration_ms=result.duration_ms,
        )
        return result

    def promote_now(self, memories: Sequence[Memory], *, project_id: str) -> PromoteResult:
        """An agent's "remember this": straight to long-term, no threshold."""
        now = self._now()
        note = RuleNote(rule="agent_decision", detail="remember this: no threshold")
        candidates = [
            Candidate(
                memory=m,
                score=1.0,
                breakdown=self.scorer.score_with_breakdown(m, now).model_copy(
                    update={"rules": [note]}
                ),
                to_tier=long_term_target(m.memory_type, pinned=m.pinned),
                threshold=0.0,
            )
            for m in memories
        ]
        for m in memories:
            self.telemetry.emit(
                "promotion.triggered",
                now,
                trigger=Trigger.AGENT_DECISION.value,
                session_id=m.session_id,
                project_id=project_id,
                dry_run=False,
            )
        started = time.perf_counter()
        result = self.promote(candidates, project_id=project_id, trigger=Trigger.AGENT_DECISION)
        self.telemetry.emit(
            "promotion.completed",
            self._now(),
            trigger=Trigger.AGENT_DECISION.value,
            project_id=project_id,
            promoted=len(result.promoted),
            failed=len(result.failures),
            duration_ms=(time.perf_counter() - started) * 1000,
        )
        return result

    def record_session_use(
        self, memory_ids: Sequence[str], *, session_id: str, project_id: str
    ) -> list[str]:
        """Note that ``session_id`` used these memories (wrote one again, or was
        served it): use in a second session is evidence for a long-term tier.
        Returns the ids newly noted (their own session and repeats are not)."""
        if not memory_ids:
            return []
        return lifecycle.record_session_use(self.store, memory_ids, session_id, project_id)

    def working_count(self, session_id: str, *, project_id: str) -> int:
        return lifecycle.working_count(self.store, session_id, project_id)

    def rotate(self, session_id: str, *, project_id: str, limit: int | None = None) -> int:
        """Archive the oldest working items of a full session down to the headroom."""
        return len(self._rotate(session_id, project_id=project_id, limit=limit))

    def _rotate(self, session_id: str, *, project_id: str, limit: int | None) -> list[str]:
        """``rotate``, returning the ids it archived."""
        maximum = limit or self.rules.short_term_max
        working = self.working_count(session_id, project_id=project_id)
        if working < maximum:
            return []
        excess = working - self.rules.rotate_to(maximum)
        rotated = lifecycle.rotate(
            self.store,
            session_id,
            project_id,
            count=excess,
            reason=f"rotation: the session's working tier reached {maximum}",
            now=self._now(),
        )
        self.cascade.changed(
            [Changed(memory_id, Change.ARCHIVED) for memory_id in rotated], project_id=project_id
        )
        return rotated

    def _session_seen(self, session_id: str, project_id: str) -> bool:
        """The session exists and the acting agent may see it."""
        if session_queries.record(self.store, session_id, project_id) is None:
            return False
        return not self.hidden_sessions([session_id], project_id=project_id)
