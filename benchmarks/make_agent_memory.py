"""``python -m benchmarks.make_agent_memory``: write ``benchmarks/eval/agent_memory.json``,
a coding agent's project memory for measuring retrieval where graphmem is meant to be used.

Why: the conversational dev sets are turns of talk; an agent working on code
writes something else: short, specific decisions, conventions, rules, risks and
lessons, with file paths, library names, versions and ticket ids, written over
months, some decisions replaced once or twice (each successor saying what it
replaces and why), rules and risks that constrain a decision (CONSTRAINS), a
decision that made another possible (ENABLES), and among them many everyday
notes (test runs, deploys, reviews, bumps) that share the words "test",
"deploy", "code" and "API" with the questions. This set measures retrieval
there, including questions about a past state, the current state, and
questions nothing in the project answers.

How: standard library only, seeded with ``SEED``, byte-identical on every run.
Each project of ``PROJECTS`` gets supersede chains (``CHAINS`` and its own
``stack_chains``: a topic such as the job queue, its options drawn from an
invented pool, versions 45 to 110 days apart), related pairs (``CONSTRAINS``,
``ENABLES``), facts (``FACTS``, each with a direct and a paraphrased
question) and everyday notes (``NOTES``) up to its size, all filled from
invented value pools and dated over 6 to 9 months, then keyed in time order.
Questions are made from the same records, so their answers are exact keys:
``direct`` (shares key words with its answer), ``paraphrase`` (at most one
content word in common with it), ``past`` (names a month or a date; the
answer is the decision in force then, later superseded), ``current`` (the
last successor of a chain), ``relation`` (asks about the obvious hit; the
answer is the memory linked to it by CONSTRAINS or ENABLES) and ``none``
(nothing in the project answers: no memory shares more than one content word
with it). Every property is checked while the set is built.

One project, ``quaykit``, is marked ``"held_out": true``: it is reported apart
(``agent-heldout`` in ``benchmarks.retrieval_eval``) and must never be used to
choose a setting, a weight or a threshold. No public benchmark or data set was
read or imitated.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from pathlib import Path
from typing import Any

from benchmarks.make_chats import content_words, overlap

SEED = 4099
OUT = Path(__file__).resolve().parent / "eval" / "agent_memory.json"
KINDS = ("direct", "paraphrase", "past", "current", "relation", "none", "when")
DIRECT = 14
PARAPHRASE = 12
CONSTRAINED = 9
ENABLED = 5
NONE = 10
WHEN = 6
"""Questions per project and kind (past and current: one per superseded
version and one per chain)."""

Pool = Sequence[str] | Callable[[random.Random], str]

# ---------------------------------------------------------------- projects


@dataclass(frozen=True)
class Chain:
    """A topic decided, then replaced: ``options`` in the order drawn."""

    topic: str
    where: str
    options: tuple[str, ...]
    memory_type: str = "decision"


@dataclass(frozen=True)
class Project:
    id: str
    what: str
    start: datetime
    days: int
    size: int
    held_out: bool
    values: dict[str, tuple[str, ...]]
    stack_chains: tuple[Chain, ...]


PROJECTS = (
    Project(
        id="ledgerline",
        what="a payments API (Python, FastAPI, PostgreSQL)",
        start=datetime(2025, 1, 6, tzinfo=UTC),
        days=242,
        size=300,
        held_out=False,
        values={
            "src": ("ledgerline",),
            "prefix": ("PAY",),
            "person": ("Marta", "Yusuf", "Dev"),
            "vendor": ("Stripe", "Adyen"),
            "svc": ("ledger", "payouts", "refunds", "webhooks"),
            "entity": ("invoice", "payout", "refund", "merchant", "charge"),
            "endpoint": ("/v2/charges", "/v2/refunds", "/v2/payouts", "/v2/merchants"),
            "module": ("posting", "batch", "service", "verify", "routes", "money", "session"),
            "fn": ("post_entry", "split_batch", "issue_refund", "verify_signature", "to_minor"),
            "typechecker": ("mypy",),
            "formatter": ("ruff format",),
            "lockfile": ("uv.lock",),
            "lib": ("pytest", "httpx", "pydantic", "structlog", "orjson", "tenacity"),
        },
        stack_chains=(
            Chain(
                "job queue",
                " for background jobs in ledgerline/worker/",
                ("Celery 5.3", "Dramatiq 1.16", "arq 0.25", "RQ 1.16"),
                "architectural_decision",
            ),
            Chain(
                "schema migration tool",
                " (migrations in ledgerline/db/migrations/)",
                ("Alembic 1.13", "Atlas 0.18", "yoyo-migrations 8.2"),
            ),
        ),
    ),
    Project(
        id="pocketfern",
        what="a plant-care mobile app (React Native, TypeScript)",
        start=datetime(2025, 2, 17, tzinfo=UTC),
        days=210,
        size=260,
        held_out=False,
        values={
            "src": ("app/src",),
            "prefix": ("MOB",),
            "person": ("Ines", "Tobi", "Kai"),
            "vendor": ("Expo push service", "Firebase"),
            "svc": ("sync", "reminders", "photos", "onboarding"),
            "entity": ("plant", "reminder", "photo", "profile", "watering log"),
            "endpoint": ("/api/plants", "/api/reminders", "/api/photos", "/api/profile"),
            "module": ("PlantList", "ReminderSheet", "usePhotos", "syncQueue", "theme", "api"),
            "fn": ("schedulePush", "mergeSync", "resizePhoto", "formatDue", "useDebounce"),
            "typechecker": ("tsc --strict",),
            "formatter": ("Prettier 3",),
            "lockfile": ("pnpm-lock.yaml",),
            "lib": ("jest", "zod", "axios", "eslint", "react-native-reanimated", "date-fns"),
        },
        stack_chains=(
            Chain(
                "state management library",
                " for app state in app/src/state/",
                ("Redux Toolkit 2.0", "Zustand 4.5", "MobX 6.12", "Jotai 2.6"),
                "architectural_decision",
            ),
            Chain(
                "crash reporting tool",
                " (initialised in app/src/boot.ts)",
                ("Crashlytics", "Sentry React Native 5", "Bugsnag 7"),
            ),
            Chain(
                "over-the-air update channel",
                " for JS bundle updates",
                ("CodePush", "EAS Update", "self-hosted bundles on S3"),
            ),
        ),
    ),
    Project(
        id="millrace",
        what="a data pipeline (Python, Spark, a warehouse)",
        start=datetime(2024, 10, 14, tzinfo=UTC),
        days=258,
        size=330,
        held_out=False,
        values={
            "src": ("pipelines",),
            "prefix": ("DATA",),
            "person": ("Sofia", "Arjun", "Lena"),
            "vendor": ("Snowflake", "the partner SFTP"),
            "svc": ("ingest", "dedupe", "enrich", "publish"),
            "entity": ("orders", "sessions", "clickstream", "inventory", "returns"),
            "endpoint": ("/ingest/events", "/ingest/orders", "/export/daily", "/health"),
            "module": ("orders_daily", "sessionise", "currency", "loaders", "schemas", "io"),
            "fn": ("load_partition", "sessionise", "to_eur", "dedupe_keys", "write_parquet"),
            "typechecker": ("mypy",),
            "formatter": ("black 24",),
            "lockfile": ("poetry.lock",),
            "lib": ("pyarrow", "pandas", "pytest", "great-expectations", "boto3", "pyspark"),
        },
        stack_chains=(
            Chain(
                "orchestrator",
                " for the DAGs in pipelines/dags/",
                ("Airflow 2.7", "Dagster 1.5", "Prefect 2.14"),
                "architectural_decision",
            ),
            Chain(
                "table format",
                " for the curated layer on S3",
                ("plain Parquet files", "Delta Lake 3.0", "Apache Iceberg 1.4"),
                "architectural_decision",
            ),
        ),
    ),
    Project(
        id="quaykit",
        what="an internal release CLI (Go)",
        start=datetime(2025, 3, 3, tzinfo=UTC),
        days=196,
        size=230,
        held_out=True,
        values={
            "src": ("internal",),
            "prefix": ("QK",),
            "person": ("Noor", "Bram", "Ola"),
            "vendor": ("the GitHub API", "Artifactory"),
            "svc": ("release", "promote", "rollback", "doctor"),
            "entity": ("release", "cluster", "template", "changelog", "manifest"),
            "endpoint": ("/repos/releases", "/api/storage", "/v1/clusters", "/v1/templates"),
            "module": ("release", "promote", "gitutil", "render", "config", "ui"),
            "fn": ("CutRelease", "Promote", "RenderTemplate", "ParseTag", "LoadConfig"),
            "typechecker": ("staticcheck",),
            "formatter": ("gofumpt",),
            "lockfile": ("go.sum",),
            "lib": ("testify", "zap", "viper", "go-git", "bubbletea", "semver"),
        },
        stack_chains=(
            Chain(
                "CLI framework",
                " for the commands in cmd/quay/",
                ("cobra 1.8", "urfave/cli v2", "kong 0.9"),
                "architectural_decision",
            ),
            Chain(
                "config file format",
                " for the user config",
                ("YAML in ~/.quay.yaml", "TOML in ~/.config/quay/config.toml", "HCL"),
            ),
        ),
    ),
)

CHAINS = (
    Chain("CI provider", " for builds and tests", ("GitHub Actions", "CircleCI", "Buildkite")),
    Chain("error tracking service", "", ("Sentry", "Rollbar", "Honeybadger")),
    Chain("feature flag service", "", ("LaunchDarkly", "Unleash", "Flagsmith", "GrowthBook")),
    Chain(
        "secrets manager",
        " for credentials",
        ("HashiCorp Vault", "AWS Secrets Manager", "Doppler", "1Password Connect"),
        "architectural_decision",
    ),
    Chain("log shipping", " from every environment", ("Loki", "Datadog Logs", "CloudWatch Logs")),
    Chain(
        "dependency update bot",
        "",
        ("Dependabot", "Renovate", "a monthly manual upgrade day"),
    ),
    Chain(
        "release cadence",
        "",
        ("a weekly release on Tuesdays", "a release every second Thursday", "continuous release"),
    ),
    Chain(
        "code review rule",
        " on main",
        ("one approval", "two approvals", "one approval from CODEOWNERS"),
    ),
    Chain("metrics backend", "", ("Prometheus", "Datadog metrics", "VictoriaMetrics")),
)
CHAINS_PER_PROJECT = 9

WHY = (
    "the team already knows it",
    "it was the cheapest option at our volume",
    "it needs no extra infrastructure",
    "the platform team runs it already",
    "it had the best docs of the three we tried",
)
AGAINST = (
    "lost work twice when it restarted ({incident})",
    "cost ${n:900-4800}/month at our volume",
    "had no EU data residency, which the DPA now requires",
    "broke on two minor upgrades in a row",
    "could not scope settings per environment",
    "added about {n:25-90} s to every CI job",
    "announced end of life for the plan we are on",
    "had no SSO, so offboarding was manual",
)
PAST = (
    "What did we decide in {month} about the {topic}?",
    "In {month} {year}, which {topic} had we chosen?",
    "What was our {topic} decision back in {month}?",
    "Which {topic} did we pick in {month} {year}?",
    "As of {date}, what was the {topic}?",
)
CURRENT = (
    "What do we use for the {topic} now?",
    "What is the current {topic}?",
    "Which {topic} are we on today?",
    "What is the latest decision on the {topic}?",
)

# ---------------------------------------------------------------- related pairs


@dataclass(frozen=True)
class Pair:
    """Two memories linked by ``type``: ``source`` -> ``target``; ``question``
    reads like the ``asked`` end and is answered by the other."""

    type: str
    source: tuple[str, str]
    target: tuple[str, str]
    question: str
    rationale: str


CONSTRAINS = (
    Pair(
        "CONSTRAINS",
        ("rule", "Rule: nothing that takes table locks may run between 08:00 and 20:00 UTC; "
         "{incident} froze writes for 11 minutes."),
        ("convention", "Schema migrations run from the release job (deploy/release.sh) before "
         "the new version starts."),
        "What rule limits when we can run schema migrations?",
        "migrations take locks",
    ),
    Pair(
        "CONSTRAINS",
        ("rule", "Code freeze from {date} for two weeks around the quarter close: only hotfixes "
         "approved by {person}."),
        ("decision", "Release branches are cut from main and tagged vX.Y.Z by `make release`."),
        "What can stop us from cutting a release branch?",
        "no releases during the freeze",
    ),
    Pair(
        "CONSTRAINS",
        ("risk", "Risk: our quota with {vendor} is {n:500-3000} calls per day, shared with the "
         "partner team; going over blocks both teams until midnight Pacific."),
        ("decision", "Integration tests call the real {vendor} sandbox with keys from CI secrets."),
        "What limits how often the integration tests may hit the sandbox?",
        "sandbox calls count against the shared quota",
    ),
    Pair(
        "CONSTRAINS",
        ("rule", "Compliance rule: personal data may not sit in any cache longer than 5 minutes, "
         "nor outside the EU region."),
        ("decision", "Cache {entity} responses for {n:10-60} minutes under the key prefix "
         "{entity}:v2."),
        "What restricts how long we cache {entity} responses?",
        "cached responses hold personal data",
    ),
    Pair(
        "CONSTRAINS",
        ("rule", "Rule from security review {ticket}: card numbers, tokens and emails are masked "
         "before anything reaches a log line."),
        ("decision", "Request bodies are logged at DEBUG in {src}/middleware to debug webhook "
         "payloads."),
        "What constrains the debug logging of request bodies?",
        "bodies can carry secrets",
    ),
    Pair(
        "CONSTRAINS",
        ("rule", "Rule: only packages mirrored in the internal Artifactory may be used; a new one "
         "needs a request in #platform-deps."),
        ("convention", "CI installs dependencies fresh on every run from {lockfile}."),
        "Which rule governs where CI may install dependencies from?",
        "installs must come from the mirror",
    ),
    Pair(
        "CONSTRAINS",
        ("risk", "Risk: the warehouse bills per scanned terabyte; one full-history scan cost "
         "${n:2000-6000} in a single night."),
        ("decision", "A nightly backfill reprocesses the last 7 days of {entity}."),
        "What limits how far back the nightly backfill may reprocess?",
        "scans are billed",
    ),
    Pair(
        "CONSTRAINS",
        ("rule", "Rule from the pen test ({ticket}): clients see a stable error code and a "
         "generic message; stack traces stay on the server."),
        ("decision", "API error responses include the exception text to speed up debugging."),
        "What limits what API error responses may show?",
        "internals must not leak",
    ),
    Pair(
        "CONSTRAINS",
        ("rule", "The DBA team caps database connections at 40 per service; each pod opens 10."),
        ("decision", "The {svc} deploy is a rolling update with maxSurge 2."),
        "What caps how many extra pods a rolling deploy of {svc} can add?",
        "surge pods need connections",
    ),
    Pair(
        "CONSTRAINS",
        ("rule", "Rule: CI artifacts are deleted after 14 days and may never contain customer "
         "data."),
        ("convention", "Screenshots of failing UI tests are uploaded as CI artifacts."),
        "What rule applies to the screenshots of failing UI tests?",
        "artifacts are retained and visible",
    ),
    Pair(
        "CONSTRAINS",
        ("risk", "Risk: the cloud account has a hard limit of 20 load balancers and each preview "
         "takes one."),
        ("decision", "Every pull request gets its own preview environment."),
        "What limits how many preview environments we can run for pull requests?",
        "previews need load balancers",
    ),
    Pair(
        "CONSTRAINS",
        ("rule", "Legal: only MIT, BSD or Apache-2.0 code may ship; anything AGPL needs sign-off "
         "from {person}."),
        ("decision", "PDF export uses a third-party rendering library."),
        "What restricts which library we can pick for PDF export?",
        "licence of shipped code",
    ),
)  # fmt: skip

ENABLES = (
    Pair(
        "ENABLES",
        ("decision", "Split CI into two jobs in .ci/pipeline.yml: fast (no network, no database) "
         "and slow."),
        ("fact", "Unit tests now run on every push and finish in under 3 minutes."),
        "What made it possible to run unit tests on every push?",
        "the fast job has no services to start",
    ),
    Pair(
        "ENABLES",
        ("architectural_decision", "Introduced a Clock protocol in {src}/clock injected wherever "
         "the time is read."),
        ("fact", "Month-end, leap-day and DST edge cases are now tested deterministically."),
        "What made deterministic tests of month-end edge cases possible?",
        "time can be set per test",
    ),
    Pair(
        "ENABLES",
        ("decision", "Moved every credential out of the repository into per-environment paths "
         "({ticket})."),
        ("decision", "Contractors can now be given read access to the repository."),
        "What allowed us to give contractors access to the repository?",
        "nothing secret left in git",
    ),
    Pair(
        "ENABLES",
        ("decision", "The OpenAPI document is generated from the route definitions by "
         "`make openapi`."),
        ("fact", "Client SDKs for TypeScript and Kotlin are built automatically in CI."),
        "What allowed the client SDKs to be built automatically?",
        "a machine-readable contract",
    ),
    Pair(
        "ENABLES",
        ("decision", "Every unfinished feature ships dark behind a flag."),
        ("convention", "Trunk-based development: branches live under two days and merge daily."),
        "What makes trunk-based development with short-lived branches workable for us?",
        "incomplete work can merge safely",
    ),
    Pair(
        "ENABLES",
        ("decision", "The dev environment is a docker compose file with a seeded database."),
        ("goal", "New hires ship their first PR on day one."),
        "What lets new hires ship a PR on their first day?",
        "setup is one command",
    ),
    Pair(
        "ENABLES",
        ("architectural_decision", "Every mutating endpoint takes an Idempotency-Key header, "
         "stored 24 hours."),
        ("fact", "Clients may safely retry any POST after a timeout."),
        "What makes it safe for clients to retry a POST after a timeout?",
        "duplicates are recognised",
    ),
    Pair(
        "ENABLES",
        ("convention", "A request_id is generated at the edge and propagated through every hop "
         "and log line."),
        ("fact", "One user request can be followed across all services in Grafana."),
        "What lets us follow a single user request across all services?",
        "one id everywhere",
    ),
)  # fmt: skip

# ---------------------------------------------------------------- facts


@dataclass(frozen=True)
class Fact:
    memory_type: str
    content: str
    direct: str
    paraphrase: str


FACTS = (
    Fact("coding_standard",
         "Public functions in {src}/ need type hints; CI runs {typechecker} in strict mode and "
         "fails on any new error.",
         "Do public functions need type hints, and which checker runs in CI?",
         "Is annotating signatures mandatory, and what enforces that?"),
    Fact("convention",
         "Branch names follow feat/<ticket>-<slug>, e.g. feat/{ticket}-fix-timeout; the merge "
         "bot rejects other branch names.",
         "What format must branch names follow?",
         "How should a new git line of work be titled so the bot accepts it?"),
    Fact("fact",
         "Staging is rebuilt from the main branch every night at 02:00 UTC, data reset included.",
         "When is staging rebuilt from the main branch?",
         "How often does the pre-production environment get refreshed?"),
    Fact("lesson_learned",
         "Lesson: freezegun hid a timezone bug in {src}/reports; tests now inject a fixed clock "
         "instead of patching time globally.",
         "Why did we stop using freezegun in tests?",
         "What went wrong when we faked the hour for the whole process?"),
    Fact("risk",
         "Risk: the {vendor} sandbox rate-limits us at {n:60-300} requests per minute; the "
         "nightly integration run can exhaust it.",
         "What is the {vendor} sandbox rate limit?",
         "Could the overnight end-to-end job hit a third-party cap?"),
    Fact("preference",
         "{person} prefers small pull requests under 400 changed lines, one concern each; bigger "
         "ones get split before review.",
         "How many changed lines should a pull request have at most?",
         "What size of change does the maintainer like to look at?"),
    Fact("discovery",
         "Found that the CI cache is keyed on the {lockfile} hash only, so editing the build "
         "script alone does not invalidate the cache.",
         "Why doesn't editing the build script invalidate the CI cache?",
         "What decides when stored pipeline downloads get thrown away?"),
    Fact("fact",
         "On-call uses the PagerDuty schedule '{svc}-primary'; handover is Monday 10:00 CET.",
         "When is the PagerDuty on-call handover?",
         "At what hour does the pager pass to the next engineer each week?"),
    Fact("goal",
         "Goal for the quarter: p95 latency of {endpoint} under {n:120-250} ms (it is "
         "{m:300-700} ms today).",
         "What is the p95 latency goal for {endpoint}?",
         "How fast should that route answer by the end of this quarter?"),
    Fact("convention",
         "Logs are structured JSON; every line carries request_id and tenant_id; no f-strings "
         "inside log calls.",
         "What must every structured JSON log line carry?",
         "Which identifiers are attached to each record we emit for observability?"),
    Fact("coding_standard",
         "Errors that cross module boundaries are wrapped in AppError ({src}/errors) with a "
         "stable code like E{n:1000-4999}; never raise a bare Exception.",
         "How are errors wrapped when they cross module boundaries?",
         "What should a failure look like once it leaves its own package?"),
    Fact("fact",
         "Settings are read once at startup from environment variables; {src}/settings "
         "validates them and exits on a missing one.",
         "Where are settings read from at startup?",
         "How does the program get its configuration, and what if a value is absent?"),
    Fact("lesson_learned",
         "Lesson from {incident}: retries without jitter caused a thundering herd against "
         "{vendor}; retries now use exponential backoff with full jitter, at most "
         "{n:3-6} attempts.",
         "Why do retries use exponential backoff with jitter?",
         "What happened when every client tried again at the same instant?"),
    Fact("convention",
         "Commit messages are imperative and end with the ticket, e.g. '(#{ticket})'; merges "
         "are squash-only.",
         "How should commit messages be written?",
         "Which style do we follow when describing a change in git history?"),
    Fact("fact",
         "Test fixtures live in tests/fixtures/*.json; regenerate them with `make fixtures` after "
         "changing the {entity} model.",
         "Where do test fixtures live and how are they regenerated?",
         "After editing a data model, how do I refresh the canned sample data?"),
    Fact("discovery",
         "The database pool defaulted to {n:5-10} connections; the load test at {m:200-600} rps "
         "exhausted it, so it is now 30.",
         "How big is the database connection pool now?",
         "Why did we raise the number of simultaneous Postgres sessions?"),
    Fact("risk",
         "Risk: the XML signing library we use is unmaintained (last release 2019) and pinned "
         "to an old lxml.",
         "Which risk comes from the unmaintained XML signing library?",
         "Is any abandoned package still part of our stack?"),
    Fact("preference",
         "{person} wants dependency upgrades batched into one pull request per week, not one per "
         "package.",
         "How should dependency upgrades be batched?",
         "Do we bump third-party packages together or one at a time?"),
    Fact("convention",
         "Timestamps are stored in UTC as ISO 8601 with a Z suffix; conversion to local time "
         "happens only in the presentation layer.",
         "In which timezone and format are timestamps stored?",
         "Where do we turn dates into the reader's clock?"),
    Fact("fact",
         "The {svc} service owns the {entity} table; other services call its API instead of "
         "reading the table directly.",
         "Which service owns the {entity} table?",
         "May another component query that storage itself?"),
    Fact("goal",
         "Goal: line coverage of {src}/{module} from {n:40-60}% to 85% before the next audit.",
         "What coverage goal do we have for {src}/{module}?",
         "How much of that package should be exercised by checks before auditors come?"),
    Fact("lesson_learned",
         "Lesson: a Friday 17:00 release broke sign-in for two hours; releases now stop at 15:00 "
         "on Fridays.",
         "Why don't we release after 15:00 on Fridays?",
         "What went wrong when we shipped late at the end of a week?"),
    Fact("discovery",
         "The slowest test slept {n:5-20} s waiting for a socket; replacing the sleep with an "
         "event cut the suite from {m:14-25} to 6 minutes.",
         "What made the slowest test so slow?",
         "How did we shorten the whole verification run by minutes?"),
    Fact("fact",
         "Docs are built with MkDocs Material from docs/ and published to the internal portal on "
         "every tag.",
         "How are the docs built and published?",
         "Where does our written handbook end up after a version is cut?"),
    Fact("convention",
         "Feature code lives in {src}/features/<name>/ with its own tests; shared helpers move to "
         "{src}/common/ once two features use them.",
         "Where does feature code live and when do helpers move to common?",
         "How is the source tree laid out per product capability?"),
    Fact("coding_standard",
         "Maximum line length is 100; formatting is {formatter}, enforced by pre-commit.",
         "What is the maximum line length and which formatter enforces it?",
         "How wide may a source row be?"),
    Fact("fact",
         "The project is licensed Apache-2.0; third-party GPL code may not be vendored into it.",
         "Which licence does the project use, and may GPL code be vendored?",
         "Under what terms is our repository published?"),
    Fact("risk",
         "Risk: the code-signing certificate expires on {date}; renewal through IT takes about "
         "{n:5-15} days.",
         "When does the code-signing certificate expire?",
         "Is any credential for notarising builds running out soon?"),
    Fact("preference",
         "{person} prefers table-driven tests over many near-identical test functions.",
         "Does the team prefer table-driven tests?",
         "How should I organise many similar cases when checking behaviour?"),
    Fact("discovery",
         "{formatter} changed a default in its latest version; pinned it in the pre-commit "
         "config until we reformat in one go.",
         "Why is {formatter} pinned in the pre-commit config?",
         "What held back the upgrade of our code styling tool?"),
)  # fmt: skip

# ---------------------------------------------------------------- everyday notes

NOTES = (
    ("event", "Ran the full test suite on main: {n:800-2400} passed, {m:3-40} skipped in "
     "{s:60-900} s."),
    ("event", "Deployed {svc} {version} to {env}; smoke tests passed and no error spike in the "
     "first {n:5-30} minutes."),
    ("discovery", "The flaky test {test} relied on dict ordering; fixed in PR #{pr}."),
    ("fact", "API call to {endpoint} returned {status} during the {weekday} deploy; a retry "
     "succeeded."),
    ("event", "Code review on PR #{pr}: renamed {fn} and moved it to {src}/{module}."),
    ("event", "Bumped {lib} from {version} to {version2}; no code changes needed."),
    ("lesson_learned", "Small lesson: `make {target}` must run from the repo root or it picks "
     "up the wrong config."),
    ("discovery", "{test} takes {s:20-120} s because it builds the whole {entity} fixture; "
     "marked it slow."),
    ("fact", "The {endpoint} API handler is in {src}/{module}; input is validated by a schema "
     "next to it."),
    ("event", "Paired with {person} on {ticket}: the bug was an off-by-one in the page size of "
     "{endpoint}."),
    ("event", "{ticket} closed: the {entity} export now includes the created_at column."),
    ("event", "Deploy of {svc} to {env} rolled back after {n:3-25} minutes (a missing env var); "
     "redeployed at {hour}."),
    ("fact", "Test coverage of {src}/{module}: {n:55-95}% of lines, {m:40-90}% of branches."),
    ("discovery", "grep finds {n:4-60} call sites of {fn}; most are in {src}/{module}."),
    ("preference", "{person} asked that PR descriptions keep a 'How to test' section."),
    ("fact", "`make up` starts {svc} and its dependencies locally; the first start takes about "
     "{n:2-9} minutes."),
    ("event", "Wrote tests for {fn} covering empty input, unicode and {n:100-5000}-item "
     "batches."),
    ("fact", "The API returns {entity} lists sorted by id; clients page with ?after=<id> "
     "({ticket})."),
    ("discovery", "Profiling {endpoint}: {n:20-70}% of the time goes to serialising {entity} "
     "objects."),
    ("event", "Removed {n:3-30} unused imports and {m:2-9} dead functions from {src}/{module}."),
    ("event", "Demoed the {entity} view to {person}; the feedback was positive, two small "
     "follow-ups in {ticket}."),
    ("event", "Refactored {fn} into three smaller functions; behaviour unchanged, tests green."),
    ("fact", "The deploy pipeline's image build step took {s:90-600} s on average this week."),
    ("discovery", "The code in {src}/{module} still has a TODO from {person} about batching "
     "{entity} writes."),
    ("event", "Fixed a typo in the {entity} API docs (docs/api/{entity}.md)."),
    ("lesson_learned", "Reading the stack trace first would have saved an hour on {ticket}: the "
     "error was in {fn}, not in the API layer."),
    ("fact", "{person} is away from {date} for a week; {person2} covers code reviews."),
    ("event", "Triaged {n:5-25} new issues; {m:2-6} were duplicates of {ticket}."),
    ("discovery", "{test} is order-dependent: it passes alone and fails after {test2}."),
    ("event", "Deployed a hotfix for {ticket} to {env} at {hour}; verified by hand on "
     "{endpoint}."),
    ("fact", "The {svc} container uses {n:180-900} MB of memory at peak in {env}."),
    ("event", "Added a regression test for {ticket} in {test}."),
    ("discovery", "{lib} logs a deprecation warning on import since {version}; harmless for "
     "now."),
    ("event", "Updated the README section on running {svc} locally."),
    ("fact", "The {entity} API accepts at most {n:50-500} items per request."),
    ("event", "Spent the afternoon on {ticket}: reproduced it with a failing test, fix still "
     "open."),
    ("fact", "Code owners for {src}/{module}: {person} and {person2}."),
    ("discovery", "The {env} deploy logs show {n:2-40} warnings about slow queries on the "
     "{entity} table."),
)  # fmt: skip
NEAR = (
    ("event", "Renamed branch feat/{ticket}-wip before opening the PR; the merge bot had "
     "flagged it."),
    ("event", "Staging was slow on {weekday} morning; the nightly data reset had not finished."),
    ("event", "freezegun is still listed in the dev dependencies; removal tracked in {ticket}."),
    ("event", "The {vendor} sandbox was down for an hour on {date}; the integration run failed."),
    ("event", "Reviewed a pull request of {n:600-1500} changed lines from {person}; asked to "
     "split it."),
    ("fact", "CI cache hit rate was {n:40-90}% this week."),
    ("event", "PagerDuty paged {person} at 03:{n:10-59} for a disk alert on {svc}."),
    ("event", "Latency of {endpoint} spiked to {n:900-2000} ms during the {weekday} deploy."),
    ("event", "Added tenant_id to the indexes of the {entity} table."),
    ("event", "AppError messages in the {entity} flow were unclear; reworded three of them."),
    ("event", "The {svc} settings gained a variable for the {entity} batch size."),
    ("event", "Backoff settings for the {entity} sync were tuned in {ticket}."),
    ("event", "The {entity} fixture was missing a field; added it by hand."),
    ("fact", "Postgres CPU reached {n:70-95}% during the load test at {m:300-900} rps."),
    ("event", "lxml was bumped in {lockfile}; the build still passes."),
    ("event", "The upgrade of {lib} waited a week for the batch."),
    ("event", "A user saw timestamps in the wrong timezone in the {entity} email; fixed in "
     "{ticket}."),
    ("fact", "Coverage dropped {n:1-4}% after merging {ticket}; a follow-up adds tests."),
    ("event", "Released {version} on a Friday morning without issues."),
    ("event", "The docs build failed on a broken link in docs/{entity}.md."),
    ("event", "Moved a helper from {src}/features/{entity}/ to {src}/common/ after review."),
    ("event", "Line length warnings in {src}/{module} fixed by running {formatter}."),
    ("event", "Licence headers added to {n:10-60} files."),
    ("event", "IT sent the yearly reminder about certificate renewals."),
    ("event", "Converted {n:5-20} similar tests in {test} into one parametrised test."),
    ("event", "{formatter} reformatted {n:20-200} files after the config change."),
    ("event", "The on-call handover notes for {svc} moved to the wiki."),
    ("event", "Commit messages of {ticket} were reworded before the squash-merge."),
)  # fmt: skip
"""Notes near a fact's words that do not answer its questions, each once per project."""
NEAR_TOPIC = (
    ("event", "The {topic} had a {n:10-90}-minute incident on {date}; nothing was lost."),
    ("event", "Asked {person} for access to the {topic} dashboard ({ticket})."),
    ("event", "Wrote a runbook page for the {topic} in docs/runbooks/."),
)
"""Notes naming a chain's topic but none of its options, two per chain."""
ENVS = ("staging", "production", "the sandbox", "dev")
STATUSES = ("502", "503", "504", "429", "500")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
TARGETS = ("lint", "test", "migrate", "build", "docs", "fixtures", "bench")
INCIDENTS = ("INC-{n:100-999}", "the {month} outage", "postmortem PM-{n:10-99}")

# ---------------------------------------------------------------- questions with no answer

NONE_QUESTIONS = (
    "Which font does the marketing website use for headings?",
    "Who approves travel expenses for conferences?",
    "What GPU type does the machine-learning cluster run?",
    "How many parking spaces does the Berlin office have?",
    "Which code of conduct did the open-source community adopt?",
    "What is the dress code for customer visits?",
    "When is the next team offsite?",
    "Which weather API does the lobby dashboard use?",
    "Where do we deploy the holiday party photo gallery?",
    "What is the budget for the summer hackathon prizes?",
    "Which translation agency handles the Japanese manual?",
    "What colour scheme did design choose for the annual report?",
    "Who is the payroll contact in finance?",
    "How long is parental leave in the Lisbon office?",
    "Which podcast did the CTO recommend?",
    "Which satellite imagery vendor did we evaluate?",
    "How do we deploy the conference booth kiosk?",
    "What code name was given to the 2019 rebrand?",
    "Which typing test do we give support applicants?",
    "What is the lunch allowance on business trips?",
    "Which charity does the company match donations for?",
    "Who designed the new logo?",
    "How much does the espresso machine service contract cost?",
    "Which API did the intern use for the office plant quiz?",
)


# ---------------------------------------------------------------- filling slots

SLOT = re.compile(r"\{(\w+)(?::(\d+)-(\d+))?\}")
MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip


def day(when: datetime) -> str:
    return f"{MONTHS[when.month - 1]} {when.day}, {when.year}"


@dataclass
class Ctx:
    """One project's random source, value pools and the texts already used."""

    rng: random.Random
    project: Project
    used: set[str] = field(default_factory=set)

    def pools(self) -> dict[str, Pool]:
        v = self.project.values
        prefix = v["prefix"][0]
        return {
            **v,
            "ticket": lambda r: f"{prefix}-{r.randint(100, 1999)}",
            "pr": lambda r: str(r.randint(120, 2400)),
            "version": lambda r: f"{r.randint(0, 5)}.{r.randint(0, 30)}.{r.randint(0, 9)}",
            "version2": lambda r: f"{r.randint(6, 9)}.{r.randint(0, 30)}.{r.randint(0, 9)}",
            "test": lambda r: self.test_name(r),
            "test2": lambda r: self.test_name(r),
            "person2": v["person"],
            "env": ENVS,
            "status": STATUSES,
            "weekday": WEEKDAYS,
            "target": TARGETS,
            "hour": lambda r: f"{r.randint(8, 19):02d}:{r.choice(('00', '15', '30', '45'))}",
            "date": lambda r: day(self.project.start + timedelta(days=r.randint(20, 300))),
            "month": MONTHS,
            "incident": lambda r: self.fill(r.choice(INCIDENTS))[0],
        }

    def test_name(self, r: random.Random) -> str:
        v = self.project.values
        return f"tests/test_{r.choice(v['module']).lower()}.py::test_{r.choice(v['fn']).lower()}"

    def fill(self, *texts: str) -> list[str]:
        """``texts`` with their slots filled, one value per slot name across them all:
        ``{name}`` from the pool of that name, ``{name:lo-hi}`` a number in the range."""
        values: dict[str, str] = {}
        pools = self.pools()
        for text in texts:
            for name, low, high in SLOT.findall(text):
                if name in values:
                    continue
                if low:
                    values[name] = str(self.rng.randint(int(low), int(high)))
                    continue
                pool = pools[name]
                values[name] = pool(self.rng) if callable(pool) else self.rng.choice(pool)
        return [SLOT.sub(lambda m: values[m.group(1)], text) for text in texts]


# ---------------------------------------------------------------- building a project


@dataclass(eq=False)
class Memory:
    content: str
    memory_type: str
    at: datetime
    key: str = ""


@dataclass
class Built:
    memories: list[Memory] = field(default_factory=list)
    relations: list[tuple[Memory, Memory, str, str]] = field(default_factory=list)
    supersedes: list[tuple[Memory, Memory, str]] = field(default_factory=list)
    questions: list[tuple[str, str, list[Memory]]] = field(default_factory=list)

    def add(self, content: str, memory_type: str, at: datetime) -> Memory:
        memory = Memory(content, memory_type, at)
        self.memories.append(memory)
        return memory

    def ask(self, kind: str, text: str, *answers: Memory) -> None:
        self.questions.append((kind, text, list(answers)))


def moment(c: Ctx, low: int = 0, high: int | None = None) -> datetime:
    """A working-hours time between ``low`` and ``high`` days into the project."""
    span = c.project.days if high is None else high
    when = c.project.start + timedelta(days=c.rng.randint(low, max(low, span)))
    return when.replace(hour=c.rng.randint(8, 19), minute=c.rng.randint(0, 59))


def chains(c: Ctx, built: Built) -> None:
    """Each chain's versions 45 to 110 days apart, the successors naming what
    they replace and why; a ``past`` question per superseded version (naming its
    month, or a date it was in force) and a ``current`` one for the last.
    Returns the topics."""
    picked = list(c.project.stack_chains)
    picked += c.rng.sample(CHAINS, CHAINS_PER_PROJECT - len(picked))
    for chain in picked:
        count = 3 if c.rng.random() < 0.5 and len(chain.options) >= 3 else 2
        options = c.rng.sample(chain.options, count)
        longest = min(110, (c.project.days - 10) // (count - 1))
        gaps = [c.rng.randint(45, longest) for _ in range(count - 1)]
        first = c.rng.randint(0, c.project.days - sum(gaps) - 5)
        versions: list[Memory] = []
        offset = first
        for index, option in enumerate(options):
            when = moment(c, offset, offset)
            if not versions:
                text = c.rng.choice(
                    (
                        "Decision: use {a} as the {topic}{where}. Reason: {why}.",
                        "We picked {a} for the {topic}{where}; {why}.",
                    )
                ).format(a=option, topic=chain.topic, where=chain.where, why=c.rng.choice(WHY))
            else:
                old = versions[-1]
                against = c.fill(c.rng.choice(AGAINST))[0]
                text = c.rng.choice(
                    (
                        "Decision: switch the {topic} from {a} to {b} ({ticket}); this replaces "
                        "the {month} decision. Reason: {a} {against}.",
                        "Replaced {a} with {b} as the {topic}, superseding the choice made in "
                        "{month}: {a} {against}. Migration tracked in {ticket}.",
                    )
                ).format(
                    a=options[index - 1],
                    b=option,
                    topic=chain.topic,
                    month=MONTHS[old.at.month - 1],
                    against=against,
                    ticket=c.fill("{ticket}")[0],
                )
                why = f"{options[index - 1]} {against}"
            memory = built.add(text, chain.memory_type, when)
            if versions:
                built.supersedes.append((versions[-1], memory, why))
            versions.append(memory)
            if index < len(gaps):
                offset += gaps[index]
        for old, new in pairwise(versions):
            built.ask("past", past_question(c, chain.topic, old.at, new.at), old)
        built.ask("current", c.rng.choice(CURRENT).format(topic=chain.topic), versions[-1])
    return [chain.topic for chain in picked]


def past_question(c: Ctx, topic: str, start: datetime, end: datetime) -> str:
    """A question naming the month ``start`` falls in (``end``, the successor, is
    in a later month), or a date between the two."""
    if end.year * 12 + end.month <= start.year * 12 + start.month:
        raise ValueError(f"successor of a {topic} decision in the same month")
    template = c.rng.choice(PAST)
    asked = start + timedelta(days=c.rng.randint(3, (end - start).days - 3))
    return template.format(
        month=MONTHS[start.month - 1], year=start.year, topic=topic, date=day(asked)
    )


def pairs(c: Ctx, built: Built, chosen: Sequence[Pair]) -> None:
    """Each pair's two memories, linked; a ``relation`` question answered by the
    source (the rule, risk or enabling decision)."""
    for pair in chosen:
        source_type, source_text = pair.source
        target_type, target_text = pair.target
        source_text, target_text, question = c.fill(source_text, target_text, pair.question)
        if pair.type == "ENABLES":
            first = c.rng.randint(0, c.project.days - 30)
            source = built.add(source_text, source_type, moment(c, first, first + 10))
            target = built.add(target_text, target_type, moment(c, first + 14, first + 60))
        else:
            source = built.add(source_text, source_type, moment(c))
            target = built.add(target_text, target_type, moment(c))
        built.relations.append((source, target, pair.type, pair.rationale))
        built.ask("relation", question, source)


def facts(c: Ctx, built: Built) -> None:
    """Every fact as a memory; ``DIRECT`` of them asked directly (at least two
    content words shared), ``PARAPHRASE`` others in other words (at most one)."""
    order = c.rng.sample(FACTS, len(FACTS))
    for index, fact in enumerate(order):
        content, direct, paraphrase = c.fill(fact.content, fact.direct, fact.paraphrase)
        memory = built.add(content, fact.memory_type, moment(c))
        if index < DIRECT:
            if overlap(direct, content) < 2:
                raise ValueError(f"direct question shares too little: {direct!r}")
            built.ask("direct", direct, memory)
        elif index < DIRECT + PARAPHRASE:
            if overlap(paraphrase, content) > 1:
                raise ValueError(f"paraphrase shares too much: {paraphrase!r} / {content!r}")
            built.ask("paraphrase", paraphrase, memory)


def notes(c: Ctx, built: Built, topics: Sequence[str]) -> None:
    """Notes near the facts' and the chains' words (``NEAR``, ``NEAR_TOPIC`` for each
    of ``topics``), then everyday notes, each text new to the project, until it
    has its size."""
    seen = {m.content for m in built.memories}
    near = list(NEAR)
    for topic in topics:
        near += [(kind, t.replace("{topic}", topic)) for kind, t in c.rng.sample(NEAR_TOPIC, 2)]
    for memory_type, template in near:
        text = c.fill(template)[0]
        seen.add(text)
        built.add(text, memory_type, moment(c))
    while len(built.memories) < c.project.size:
        memory_type, template = c.rng.choice(NOTES)
        text = c.fill(template)[0]
        if text not in seen:
            seen.add(text)
            built.add(text, memory_type, moment(c))


def unanswered(c: Ctx, built: Built) -> None:
    """``NONE`` questions no memory of the project shares two content words with."""
    words = [content_words(m.content) for m in built.memories]
    kept = [
        q
        for q in c.rng.sample(NONE_QUESTIONS, len(NONE_QUESTIONS))
        if all(len(content_words(q) & w) <= 1 for w in words)
    ]
    if len(kept) < NONE:
        raise ValueError(f"{c.project.id}: only {len(kept)} unanswerable questions")
    for question in kept[:NONE]:
        built.ask("none", question)


WHEN_QUESTIONS = (
    "What happened on {long}?",
    "What did we do on {day} {month} {year}?",
    "What was noted on {iso}?",
    "Anything from {weekday}, {long}?",
    "What went on {long}?",
)
WHEN_MOST = 3
"""A ``when`` question's day holds one to this many memories: all of them answer it."""


def dated(rng: random.Random, built: Built) -> None:
    """``WHEN`` questions that name a day and nothing else ("What happened on
    March 4, 2025?"): every memory of that day answers. Drawn with a random
    source of their own after every other question, so adding them changed
    no other question of the set."""
    days: dict[str, list[Memory]] = {}
    for memory in built.memories:
        days.setdefault(memory.at.date().isoformat(), []).append(memory)
    held = sorted(d for d, on in days.items() if len(on) <= WHEN_MOST)
    for iso in rng.sample(held, WHEN):
        at = days[iso][0].at
        question = rng.choice(WHEN_QUESTIONS).format(
            long=day(at),
            day=at.day,
            month=MONTHS[at.month - 1],
            year=at.year,
            iso=iso,
            weekday=at.strftime("%A"),
        )
        built.ask("when", question, *days[iso])


def build(index: int, project: Project) -> dict[str, Any]:
    """One project: its memories keyed in time order, its links and questions."""
    c = Ctx(random.Random(f"{SEED}/{index}"), project)
    built = Built()
    topics = chains(c, built)
    pairs(c, built, c.rng.sample(CONSTRAINS, CONSTRAINED) + c.rng.sample(ENABLES, ENABLED))
    facts(c, built)
    notes(c, built, topics)
    unanswered(c, built)
    built.memories.sort(key=lambda m: m.at)
    for number, memory in enumerate(built.memories, start=1):
        memory.key = f"{project.id}-{number:03d}"
    c.rng.shuffle(built.questions)
    built.questions.sort(key=lambda q: KINDS.index(q[0]))
    dated(random.Random(f"{SEED}/{index}/when"), built)
    return {
        "id": project.id,
        "about": project.what,
        "held_out": project.held_out,
        "memories": [
            {
                "key": m.key,
                "content": m.content,
                "memory_type": m.memory_type,
                "occurred_at": m.at.strftime("%Y-%m-%dT%H:%M:%SZ"),
            }
            for m in built.memories
        ],
        "relations": [
            {"from": a.key, "to": b.key, "type": kind, "rationale": why}
            for a, b, kind, why in built.relations
        ],
        "supersedes": [
            {"old": old.key, "new": new.key, "rationale": why} for old, new, why in built.supersedes
        ],
        "questions": [
            {"query": text, "kind": kind, "relevant": [m.key for m in answers]}
            for kind, text, answers in built.questions
        ],
    }


def describe(projects: list[dict[str, Any]]) -> str:
    """What the set is and how it was made, with its counts."""
    sizes = [len(p["memories"]) for p in projects]
    asked = [len(p["questions"]) for p in projects]
    kinds = Counter(q["kind"] for p in projects for q in p["questions"])
    relations = Counter(r["type"] for p in projects for r in p["relations"])
    held = [p["id"] for p in projects if p["held_out"]]
    return (
        "A coding agent's project memory: "
        f"{len(projects)} projects ({', '.join(p['id'] + ': ' + p['about'] for p in projects)}) "
        f"of {min(sizes)} to {max(sizes)} memories ({sum(sizes)} in all), written over 6 to 9 "
        "months: decisions, conventions, coding standards, rules, risks, lessons, discoveries, "
        "preferences, goals and everyday notes, each dated (occurred_at); "
        f"{sum(len(p['supersedes']) for p in projects)} supersessions in chains of two or three "
        f"decisions, {relations['CONSTRAINS']} CONSTRAINS and {relations['ENABLES']} ENABLES "
        f"relations. {sum(asked)} questions ({min(asked)} to {max(asked)} per project: "
        + ", ".join(f"{kinds[k]} {k}" for k in KINDS)
        + "), each labelled with the keys of the memories that answer it; 'none' questions have "
        "none. Paraphrase questions share at most one content word with their answer; past "
        "questions name a month or a date and are answered by the decision in force then, "
        "later superseded; current ones by the last successor; relation ones by the memory "
        "linked to the obvious hit; when questions name a day and nothing else, and every "
        "memory of that day answers. Held out, reported apart and never tuned on: "
        f"{', '.join(held)}. "
        f"Generated by benchmarks/make_agent_memory.py with seed {SEED} from templates and "
        "invented value pools; no public benchmark or data set was used or imitated."
    )


def dataset() -> dict[str, Any]:
    """The whole set, as ``agent_memory.json`` holds it."""
    projects = [build(index, project) for index, project in enumerate(PROJECTS)]
    return {"description": describe(projects), "projects": projects}


def text(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def main() -> None:
    data = dataset()
    OUT.write_text(text(data))
    print(data["description"])


if __name__ == "__main__":
    main()
