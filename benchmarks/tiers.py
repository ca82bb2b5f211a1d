"""``python -m benchmarks.tiers``: where memories end up after a week of agent work.

One seeded workload is replayed on two stores of one embedded server, time
driven by a ManualClock: five working days of a coding agent, three sessions
a day, each writing memories (typed as agents type them, a few tagged
``critical`` or ``user_goal``, some repeating an earlier one word for word),
reading memories of its own and earlier sessions (each read an access, and a
use by that session), giving feedback on some; the scheduler's cadence is
simulated: a periodic promotion run every five minutes of a session, a final
one at close, and the hourly project pass (consolidation, then archival).
Then two quiet weekend days.

- old rules: what graphmem did before: one more high-scoring run moves a
  memory from episodic to semantic (no evidence asked, no wait between two
  moves), no tag or time-decay thresholds;
- new rules: ``retention_rules.yaml`` as shipped.

Printed: the tier distribution of both at the end of the week (distinct
memories), how many climbed two tiers within one scheduler period, and how
many were long-term (semantic) within an hour of being written.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.harness import BenchEnv
from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.domain.kinds import Tier
from graphmem.domain.retention import RetentionRules, SemanticEvidence, TimeDecay
from graphmem.services.promotion import Trigger
from graphmem.settings.retention import load_rules
from graphmem.store.falkordb import FalkorStore

RULES = Path(__file__).resolve().parents[1] / "retention_rules.yaml"
START = 1_800_000_000.0
DAY = 86_400.0
RUN_EVERY = 300.0
"""Seconds between simulated periodic runs (and the scheduler period of the new rules)."""

TYPES = (
    ["fact"] * 6
    + ["discovery"] * 3
    + ["decision"] * 2
    + ["convention"]
    + ["error_pattern"] * 2
    + ["hypothesis"] * 2
    + ["assumption"] * 2
    + ["preference"]
    + [None] * 3
)
TOPICS = ("billing", "auth", "search", "deploy", "cache", "importer", "webhooks", "ci", "docs")


@dataclass
class Step:
    """One simulated event, replayed identically on both stores."""

    at: float
    kind: str
    """``open``, ``write``, ``read``, ``feedback``, ``run``, ``close``, ``project``."""
    session: str = ""
    item: dict | None = None
    index: int = -1
    """The write this step refers to (its position among all writes)."""
    value: int = 0


@dataclass
class Outcome:
    tiers: Counter = field(default_factory=Counter)
    two_tiers_in_one_period: int = 0
    semantic_within_an_hour: int = 0
    """Memories long-term less than an hour after they were written."""


def workload(seed: int = 14) -> list[Step]:
    rng = random.Random(seed)
    steps: list[Step] = []
    written: list[dict] = []
    for day in range(5):
        for slot, hour in enumerate((9.0, 13.5, 16.0)):
            session = f"day{day}-s{slot}"
            t = START + day * DAY + hour * 3600
            steps.append(Step(t, "open", session))
            length = rng.uniform(45, 100) * 60
            end = t + length
            next_run = t + RUN_EVERY
            while t < end:
                t += rng.expovariate(1 / 90)
                while next_run <= min(t, end):
                    steps.append(Step(next_run, "run", session))
                    next_run += RUN_EVERY
                if t >= end:
                    break
                roll = rng.random()
                if roll < 0.35 or not written:
                    if written and rng.random() < 0.06:
                        item = dict(rng.choice(written))
                    else:
                        topic = rng.choice(TOPICS)
                        tags = rng.choices(
                            [[], ["critical"], ["user_goal"], [topic]], [80, 2, 2, 16]
                        )[0]
                        item = {
                            "content": f"{topic}: observation {len(written)} of the {topic} area",
                            "memory_type": rng.choice(TYPES),
                            "confidence": round(rng.uniform(0.4, 0.95), 2),
                            "tags": tags,
                        }
                    written.append(item)
                    steps.append(Step(t, "write", session, item={**item, "session_id": session}))
                else:
                    # Reads favour a few memories (Zipf-like), old and new alike.
                    index = min(int(rng.paretovariate(1.2)) - 1, len(written) - 1)
                    index = len(written) - 1 - index if rng.random() < 0.6 else index
                    steps.append(Step(t, "read", session, index=index))
                    if rng.random() < 0.12:
                        steps.append(Step(t, "feedback", index=index, value=1))
                    elif rng.random() < 0.03:
                        steps.append(Step(t, "feedback", index=index, value=-1))
            steps.append(Step(end, "close", session))
    for hour in range(7 * 24):
        steps.append(Step(START + hour * 3600 + 1800, "project"))
    steps.sort(key=lambda s: s.at)
    return steps


def replay(gm: GraphMem, clock: ManualClock, steps: list[Step]) -> Outcome:
    ids: list[str] = []
    sessions: set[str] = set()
    for step in steps:
        clock.set(step.at)
        match step.kind:
            case "open":
                gm.open_session(step.session)
                sessions.add(step.session)
            case "write":
                ids.append(gm.remember(step.item).id)
            case "read":
                memory_id = ids[step.index]
                gm.record_access(memory_id)
                gm.promotion.record_session_use(
                    [memory_id], session_id=step.session, project_id=gm.default_project
                )
            case "feedback":
                gm.feedback(ids[step.index], step.value)
            case "run":
                gm.promotion.run(
                    step.session, project_id=gm.default_project, trigger=Trigger.PERIODIC
                )
            case "close":
                gm.close_session(step.session)
            case "project":
                gm.promotion.consolidate(project_id=gm.default_project)
                gm.archiver.archive_stale(project_id=gm.default_project)
    clock.set(START + 7 * DAY)
    outcome = Outcome()
    for memory_id in set(ids):
        memory = gm.get(memory_id)
        outcome.tiers[memory.tier] += 1
        events = sorted(gm.promotion_events(memory_id=memory_id), key=lambda e: e.at)
        if any(b.at - a.at < RUN_EVERY for a, b in itertools.pairwise(events)):
            outcome.two_tiers_in_one_period += 1
        reached = [e.at for e in events if e.to_tier is Tier.SEMANTIC]
        if reached and reached[0] - memory.created_at < 3600:
            outcome.semantic_within_an_hour += 1
    return outcome


def old_rules(new: RetentionRules) -> RetentionRules:
    """The rules before this change, expressed in today's settings."""
    return new.model_copy(
        update={
            # Evidence always present: one more high-scoring run moves a memory on.
            "semantic_evidence": SemanticEvidence(min_dwell_days=0.0),
            "time_decay": TimeDecay(enabled=False),
            "tag_thresholds": {},
            # No wait between two moves of one memory.
            "promotion_interval_seconds": 1e-6,
        }
    )


def main() -> None:
    new = load_rules(RULES).model_copy(update={"promotion_interval_seconds": RUN_EVERY})
    steps = workload()
    counts = Counter(s.kind for s in steps)
    results: dict[str, Outcome] = {}
    with BenchEnv() as env:
        for name, rules in (("old", old_rules(new)), ("new", new)):
            clock = ManualClock(start=START)
            gm, _ = env.scratch_graphs(f"tiers_{name}")
            assert isinstance(gm.store, FalkorStore)
            gm = GraphMem(gm.store, clock=clock, rules=rules, project_id=gm.default_project)
            results[name] = replay(gm, clock, steps)
    print(
        f"simulated week: 15 sessions, {counts['write']} writes, {counts['read']} reads, "
        f"{counts['feedback']} feedback, {counts['run']} periodic runs, "
        f"{counts['project']} hourly project passes"
    )
    tiers = [Tier.WORKING, Tier.EPISODIC, Tier.SEMANTIC, Tier.PROCEDURAL, Tier.ARCHIVED]
    header = "".join(f"{t.value:>11}" for t in tiers)
    print(f"{'rules':<6}{header}{'2 tiers/period':>16}{'semantic <1h':>14}")
    for name, outcome in results.items():
        row = "".join(f"{outcome.tiers[t]:>11}" for t in tiers)
        print(
            f"{name:<6}{row}{outcome.two_tiers_in_one_period:>16}"
            f"{outcome.semantic_within_an_hour:>14}"
        )


if __name__ == "__main__":
    main()
