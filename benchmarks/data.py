"""Synthetic memories that look like what a coding agent stores about a project.

Timings depend on what is written: content length, how many tags, how many
sessions a batch touches, how many optional fields are set. So the generator
produces the mix an agent really produces (every memory type, several
sessions worked through one after another, tags drawn from the component a
memory is about, relations between memories of a session) rather than
``"memory 17"`` strings. It is seeded: two runs write the same data.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from graphmem.domain.kinds import MemoryType, RelationType, SelfAssessment, Source

WRITTEN_SOURCES = [s for s in Source if s is not Source.CONSOLIDATED]
"""The sources a caller may write (consolidation writes the other itself)."""

COMPONENTS = {
    "the billing service": ["billing", "payments"],
    "the auth gateway": ["auth", "security"],
    "the ingestion worker": ["ingestion", "queue"],
    "the GraphQL layer": ["api", "graphql"],
    "the search indexer": ["search", "perf"],
    "the CLI": ["cli", "ux"],
    "the migration runner": ["db", "migrations"],
    "the notification queue": ["notifications", "queue"],
    "the session store": ["sessions", "db"],
    "the web dashboard": ["frontend", "ux"],
    "the export job": ["export", "batch"],
    "the rate limiter": ["api", "perf"],
}
TECH = [
    "PostgreSQL 16", "Redis streams", "FalkorDB", "Kafka", "pydantic v2", "httpx",
    "SQLAlchemy 2.0", "uvicorn", "Celery", "OpenTelemetry", "S3", "gRPC", "asyncpg",
    "strawberry", "orjson", "tenacity",
]  # fmt: skip
FILES = [
    "src/billing/invoice.py", "src/auth/tokens.py", "src/ingest/consumer.py",
    "src/api/resolvers.py", "src/search/indexer.py", "cli/main.py", "migrations/env.py",
    "src/notify/queue.py", "src/sessions/store.py", "web/src/Dashboard.tsx",
    "jobs/export.py", "src/api/limits.py", "tests/conftest.py", "pyproject.toml",
]  # fmt: skip
ERRORS = [
    "ConnectionResetError", "asyncpg.exceptions.TooManyConnectionsError",
    "redis.exceptions.TimeoutError", "KeyError: 'tenant_id'", "RecursionError",
    "pydantic.ValidationError", "httpx.ReadTimeout", "sqlalchemy.exc.IntegrityError",
]  # fmt: skip
REASONS = [
    "it keeps the hot path free of blocking I/O",
    "the team already runs it in production",
    "it halves the p95 latency in the load test",
    "it lets tests run without a network",
    "the vendor SDK is unmaintained",
    "it removes a whole class of race conditions",
    "operators asked for one thing less to deploy",
    "the old approach leaked connections under load",
]
TOOLS = ["pytest", "ruff", "mypy", "alembic", "docker compose", "pip-compile", "pre-commit"]
AGENTS = ["coder", "reviewer", "planner", "tester"]
# Agents cite where they learned something; it also keeps most contents distinct,
# as they are in real use, so a write is a write and not a duplicate merge.
CITATIONS = [
    " (ticket GM-{ticket})", " Seen in PR #{pr}.", " Came up while fixing GM-{ticket}.",
    " See the review of PR #{pr}.", " From the incident review of week {week}.", "",
]  # fmt: skip
CROSS_TAGS = ["todo", "tech-debt", "incident", "ci", "release", "onboarding", "docs"]

TEMPLATES: dict[MemoryType | None, list[str]] = {
    MemoryType.DECISION: [
        "Decided to use {tech} in {component} because {reason}.",
        "We will keep {component} synchronous for now; {tech} is on hold until a load test "
        "shows the need.",
    ],
    MemoryType.ARCHITECTURAL_DECISION: [
        "{Component} talks to {component2} only through {tech}; direct database access "
        "across service boundaries is not allowed.",
        "{Component} owns its schema: other services read its data through the API, never "
        "through {tech} replicas.",
    ],
    MemoryType.CONVENTION: [
        "Modules under {dir} are named after the resource they serve, in snake_case, e.g. {file}.",
        "Every migration in {component} is reversible and ships with a downgrade test.",
    ],
    MemoryType.CODING_STANDARD: [
        "Public functions in {file} need type hints and a docstring that says why they exist.",
        "No bare except in {component}: catch the narrowest error and re-raise with context.",
    ],
    MemoryType.LESSON_LEARNED: [
        "Running {tool} without --strict on CI hid {error} in {file} for two weeks; keep "
        "--strict on.",
        "A retry loop without jitter in {component} turned a {n}-second {tech} blip into a "
        "ten-minute outage.",
    ],
    MemoryType.RISK: [
        "{Component} has no timeout on {tech} calls; a stalled connection blocks every "
        "worker after {n} requests.",
        "Secrets for {component} are read from the environment at import time, so rotating "
        "them needs a restart.",
    ],
    MemoryType.DISCOVERY: [
        "{file} retries {n} times with exponential backoff, which explains the latency "
        "spikes in {component}.",
        "{Component} already caches {tech} lookups for {n} seconds; the second cache in "
        "{file} is redundant.",
    ],
    MemoryType.FACT: [
        "{Component} listens on port {port} and reads its settings from {env}.",
        "The staging database for {component} is reset every night at 03:00 UTC.",
    ],
    MemoryType.HYPOTHESIS: [
        "The flaky test in {file} may come from {tech} reusing a connection across event loops.",
        "Memory growth in {component} might be the {tech} client buffering responses of {n} MB.",
    ],
    MemoryType.ASSUMPTION: [
        "Assuming {component} sees fewer than {n} requests per second at peak, one worker "
        "is enough.",
        "Assuming every tenant id in {component} is a UUID; nothing validates that yet.",
    ],
    MemoryType.PREFERENCE: [
        "The user prefers small pull requests with one concern each, reviewed within a day.",
        "The user wants {tool} fixes applied automatically rather than reported.",
    ],
    MemoryType.GOAL: [
        "Bring p95 latency of {component} under {n} ms before the next release.",
        "Replace the hand-written SQL in {file} with {tech} by the end of the sprint.",
    ],
    MemoryType.ERROR_PATTERN: [
        "`{error}` in {file} means the pool is exhausted; raise the pool size or release "
        "connections earlier.",
        "`{error}` from {component} after deploys comes from stale {tech} schema caches; "
        "restart the workers.",
    ],
    MemoryType.RULE: [
        "Never run migrations for {component} without a fresh backup.",
        "Always pin {tech} to a minor version in {file}.",
    ],
    MemoryType.EVENT: [
        "{agent} rolled {component} back after `{error}` showed up in {file}.",
        "The user said {component} must stay on {tech} until the audit is over.",
    ],
    None: [
        "Standup: {agent} is looking at {component} today; {file} is the starting point.",
        "Pairing notes: walked through {file} and the {tech} setup of {component}.",
    ],
}

# What one kind of memory typically does to another in the same session.
RELATION_RULES: list[tuple[MemoryType | None, MemoryType | None, RelationType]] = [
    (MemoryType.ARCHITECTURAL_DECISION, MemoryType.DECISION, RelationType.CONSTRAINS),
    (MemoryType.RULE, MemoryType.CONVENTION, RelationType.CONSTRAINS),
    (MemoryType.DISCOVERY, MemoryType.DECISION, RelationType.ENABLES),
    (MemoryType.FACT, MemoryType.HYPOTHESIS, RelationType.ENABLES),
    (MemoryType.LESSON_LEARNED, MemoryType.ERROR_PATTERN, RelationType.RELATED_TO),
    (MemoryType.RISK, MemoryType.GOAL, RelationType.RELATED_TO),
]
SESSION_LENGTH = 250
"""Memories per session: an agent's working day on one task."""


@dataclass(frozen=True, slots=True)
class PlannedRelation:
    """An edge to create once the memories exist, by position in the dataset."""

    from_index: int
    to_index: int
    type: RelationType
    rationale: str


@dataclass(frozen=True, slots=True)
class Dataset:
    memories: list[dict[str, Any]]
    """``remember`` inputs, in the order an agent would write them."""
    relations: list[PlannedRelation]
    sessions: list[str]


def generate(n: int, *, seed: int = 7, session_prefix: str = "sess") -> Dataset:
    """``n`` memories in sessions of ~250, with about one relation per 20 memories."""
    rng = random.Random(seed)
    types = list(TEMPLATES)
    session_count = max(1, -(-n // SESSION_LENGTH))
    sessions = [f"{session_prefix}-{i:04d}" for i in range(session_count)]
    memories = [
        _memory(rng, types[i % len(types)], sessions[i * session_count // n]) for i in range(n)
    ]
    return Dataset(memories=memories, relations=_relations(rng, memories), sessions=sessions)


def _memory(rng: random.Random, memory_type: MemoryType | None, session: str) -> dict[str, Any]:
    component, component_tags = rng.choice(list(COMPONENTS.items()))
    file = rng.choice(FILES)
    slots = {
        "component": component,
        "Component": component[0].upper() + component[1:],
        "component2": rng.choice([c for c in COMPONENTS if c != component]),
        "tech": rng.choice(TECH),
        "reason": rng.choice(REASONS),
        "file": file,
        "dir": file.rsplit("/", 1)[0] + "/",
        "error": rng.choice(ERRORS),
        "tool": rng.choice(TOOLS),
        "agent": rng.choice(AGENTS),
        "n": rng.choice([3, 5, 10, 30, 50, 200, 500]),
        "port": rng.choice([8000, 8080, 9090, 5432, 6379]),
        "env": rng.choice(["GRAPHMEM_*", "settings.toml", ".env", "a Kubernetes secret"]),
        "ticket": rng.randint(100, 9999),
        "pr": rng.randint(10, 4999),
        "week": rng.randint(1, 52),
    }
    tags = list(component_tags)
    if rng.random() < 0.4:
        tags.append(rng.choice(CROSS_TAGS))
    item: dict[str, Any] = {
        "content": (rng.choice(TEMPLATES[memory_type]) + rng.choice(CITATIONS)).format(**slots),
        "confidence": round(rng.uniform(0.4, 0.98), 2),
        "source": rng.choices(WRITTEN_SOURCES, weights=[2, 6, 3, 1])[0].value,
        "tags": tags,
        "session_id": session,
        "agent_id": f"{rng.choice(AGENTS)}-agent",
    }
    if memory_type is not None:
        item["memory_type"] = memory_type.value
    if rng.random() < 0.3:
        item["rationale"] = f"Seen while working on {file}; {rng.choice(REASONS)}."
    if rng.random() < 0.2:
        item["evidence"] = [f"{file}:{rng.randint(1, 400)}", f"CI run #{rng.randint(1000, 9999)}"]
    if rng.random() < 0.3:
        item["self_assessment"] = rng.choice(list(SelfAssessment)).value
    return item


def _relations(rng: random.Random, memories: list[dict[str, Any]]) -> list[PlannedRelation]:
    """Edges inside a session, plus later decisions superseding earlier ones.

    A newer memory supersedes an older one and never the reverse, so the
    SUPERSEDES edges cannot form a cycle.
    """
    by_session: dict[str, dict[str | None, list[int]]] = {}
    for index, item in enumerate(memories):
        kinds = by_session.setdefault(item["session_id"], {})
        kinds.setdefault(item.get("memory_type"), []).append(index)
    planned: dict[tuple[int, int], PlannedRelation] = {}
    per_session = max(1, SESSION_LENGTH // 20)
    for kinds in by_session.values():
        for _ in range(per_session):
            source, target, kind = rng.choice(RELATION_RULES)
            sources = kinds.get(source.value if source else None, [])
            targets = kinds.get(target.value if target else None, [])
            if sources and targets:
                pair = (rng.choice(sources), rng.choice(targets))
                planned.setdefault(
                    pair, PlannedRelation(*pair, kind, "noticed in the same session")
                )
        decisions = kinds.get(MemoryType.DECISION.value, [])
        if len(decisions) >= 2:
            older, newer = sorted(rng.sample(decisions, 2))
            planned.setdefault(
                (newer, older),
                PlannedRelation(newer, older, RelationType.SUPERSEDES, "revisited the decision"),
            )
    return list(planned.values())
