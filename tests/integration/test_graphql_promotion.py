"""Promotion and archival over GraphQL against a real server and a real graph:
runs (dry and real), the log, stats, the periodic trigger's switch, archival
and restore, and the scheduler of the settings-based server."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.domain.kinds import Tier
from graphmem.graphql.app import create_app_from_settings
from graphmem.settings import Settings
from tests.integration.conftest import GraphQLClient, Rejected, serve

# A surface suite: what it checks is the surface, the same on every backend; the
# store suites beneath it run on Neo4j as well (tests/conftest.py).
pytestmark = pytest.mark.backends("falkordb")

S = "thread-1"

RUN = """mutation($session: ID!, $dryRun: Boolean! = false) {
  runPromotion(sessionId: $session, dryRun: $dryRun) {
    runId sessionId projectId trigger dryRun threshold promoted promotedCount
    failures { memoryId reason } rotated remaining durationMs
    candidates {
      score fromTier toTier memory { id tier }
      importanceBreakdown { total components { name value weight contribution } }
    }
  }
}"""

STATS_FIELDS = """sessionId projectId enabled intervalSeconds nextRunAt runs totalPromoted
    lastRunAt lastRunId lastTrigger lastPromoted lastFailed lastRotated lastRemaining
    lastThreshold"""
STATS = f"""query($session: ID!) {{ promotionStats(sessionId: $session) {{ {STATS_FIELDS} }} }}"""

EVENT_FIELDS = """id runId memoryId sessionId trigger fromTier toTier score at reason
    components { name value contribution } memory { id tier }"""
EVENTS = f"""query($memory: ID, $session: ID, $limit: Int! = 50) {{
  promotionEvents(memoryId: $memory, sessionId: $session, limit: $limit) {{ {EVENT_FIELDS} }}
}}"""

ARCHIVE = """mutation($dryRun: Boolean!, $projectId: ID) {
  archiveStale(dryRun: $dryRun, projectId: $projectId) {
    projectId dryRun archived
    items { memoryId tier score reason memory { id tier archivedFrom archiveReason } }
  }
}"""

RESTORE = """mutation($id: ID!) { restore(id: $id) { id tier archivedAt archivedFrom } }"""

REMEMBER = """mutation($input: MemoryInput!) { remember(input: $input) { memory { id tier } } }"""


def iso(epoch_seconds: float) -> str:
    return datetime.fromtimestamp(epoch_seconds, tz=UTC).isoformat()


def strong(content: str = "token expiry breaks the nightly job", **extra: Any) -> dict:
    """Scores 0.2 + 0.25*0.9 + 0.25*1.0 = 0.675 when fresh: above the 0.6 threshold."""
    return {"content": content, "memory_type": "risk", "confidence": 0.9, "session_id": S, **extra}


def weak(content: str = "maybe the cache is cold", **extra: Any) -> dict:
    """Scores 0.2 + 0.25*0.2 + 0.25*0.4 = 0.35 when fresh: below the threshold."""
    return {
        "content": content,
        "memory_type": "assumption",
        "confidence": 0.2,
        "session_id": S,
        **extra,
    }


def as_input(item: dict[str, Any]) -> dict[str, Any]:
    """One of the inputs above as a GraphQL MemoryInput."""
    return {
        "content": item["content"],
        "memoryType": item["memory_type"].upper(),
        "confidence": item["confidence"],
        "sessionId": item["session_id"],
    }


def scheduler_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "graphmem-scheduler"]


def test_a_dry_run_shows_what_would_move_with_breakdowns_and_writes_nothing(
    gql: GraphQLClient, gm: GraphMem, graph_snapshot: Callable[[], Any]
) -> None:
    above = gm.remember(strong()).id
    gm.remember(weak())
    before = graph_snapshot()

    run = gql.data(RUN, {"session": S, "dryRun": True})["runPromotion"]

    assert run["dryRun"] is True and run["trigger"] == "MANUAL"
    assert (run["sessionId"], run["projectId"], run["threshold"]) == (S, "default", 0.6)
    assert (run["promoted"], run["promotedCount"], run["failures"]) == ([], 0, [])
    assert run["remaining"] == 2
    (candidate,) = run["candidates"]
    assert candidate["memory"] == {"id": above, "tier": "WORKING"}
    assert (candidate["fromTier"], candidate["toTier"]) == ("WORKING", "EPISODIC")
    breakdown = candidate["importanceBreakdown"]
    contributions = [c["contribution"] for c in breakdown["components"]]
    assert {c["name"] for c in breakdown["components"]} == {
        "recency",
        "frequency",
        "confidence",
        "salience",
    }
    assert math.isclose(sum(contributions), candidate["score"])
    assert math.isclose(breakdown["total"], candidate["score"])
    assert candidate["score"] == pytest.approx(0.675)
    assert graph_snapshot() == before


def test_a_run_promotes_and_the_log_shows_each_move(
    gql: GraphQLClient, gm: GraphMem, clock: ManualClock
) -> None:
    moved = gm.remember(strong()).id
    stays = gm.remember(weak()).id

    run = gql.data(RUN, {"session": S})["runPromotion"]

    assert run["dryRun"] is False
    assert (run["promoted"], run["promotedCount"], run["remaining"]) == ([moved], 1, 1)
    assert [c["memory"]["id"] for c in run["candidates"]] == [moved]
    assert gm.get(moved).tier is Tier.EPISODIC and gm.get(stays).tier is Tier.WORKING
    by_memory = gql.data(EVENTS, {"memory": moved})["promotionEvents"]
    by_session = gql.data(EVENTS, {"session": S})["promotionEvents"]
    assert by_memory == by_session
    (event,) = by_memory
    assert event["runId"] == run["runId"] and event["trigger"] == "MANUAL"
    assert (event["memoryId"], event["sessionId"]) == (moved, S)
    assert (event["fromTier"], event["toTier"]) == ("WORKING", "EPISODIC")
    assert event["at"] == iso(clock.now())
    assert math.isclose(sum(c["contribution"] for c in event["components"]), event["score"])
    assert event["memory"] == {"id": moved, "tier": "EPISODIC"}
    # The memory's own field reads the same log.
    field = gql.data(
        f"query($id: ID!) {{ memory(id: $id) {{ promotionEvents {{ {EVENT_FIELDS} }} }} }}",
        {"id": moved},
    )["memory"]["promotionEvents"]
    assert field == by_memory


def test_the_log_is_newest_first_and_limited(
    gql: GraphQLClient, gm: GraphMem, clock: ManualClock
) -> None:
    memory_id = gm.remember(strong()).id
    gm.run_promotion(S)  # working -> episodic
    clock.advance(60)
    gm.feedback(memory_id, 1)  # evidence for a long-term tier
    gm.run_promotion(S)  # episodic -> semantic

    events = gql.data(EVENTS, {"memory": memory_id})["promotionEvents"]
    latest = gql.data(EVENTS, {"memory": memory_id, "limit": 1})["promotionEvents"]

    assert [(e["fromTier"], e["toTier"]) for e in events] == [
        ("EPISODIC", "SEMANTIC"),
        ("WORKING", "EPISODIC"),
    ]
    assert "evidence: feedback +1" in events[0]["reason"]
    assert events[1]["reason"].startswith("score 0.675 >= 0.600")
    assert latest == events[:1]


def test_stats_accumulate_over_runs_and_session_triggers(
    gql: GraphQLClient, gm: GraphMem, clock: ManualClock
) -> None:
    gql.data(f'mutation {{ openSession(id: "{S}") {{ id }} }}')
    fresh = gql.data(STATS, {"session": S})["promotionStats"]
    assert fresh["runs"] == 0 and fresh["totalPromoted"] == 0
    assert fresh["lastRunAt"] is None and fresh["lastTrigger"] is None
    assert fresh["enabled"] is True and fresh["intervalSeconds"] == 30

    gm.remember(strong("first risk"))
    gql.data(RUN, {"session": S})
    clock.advance(10)
    gm.remember_many([strong("second risk"), strong("third risk"), weak()])
    second = gql.data(RUN, {"session": S})["runPromotion"]
    stats = gql.data(STATS, {"session": S})["promotionStats"]

    assert (stats["runs"], stats["totalPromoted"]) == (2, 1 + second["promotedCount"])
    assert stats["lastRunId"] == second["runId"]
    assert stats["lastRunAt"] == iso(clock.now())
    assert stats["lastTrigger"] == "MANUAL"
    assert stats["lastPromoted"] == second["promotedCount"]
    assert stats["lastRemaining"] == second["remaining"]
    assert (stats["lastThreshold"], stats["lastFailed"], stats["lastRotated"]) == (0.6, 0, 0)

    gql.data(f'mutation {{ pauseSession(id: "{S}") {{ state }} }}')
    paused = gql.data(STATS, {"session": S})["promotionStats"]
    gql.data(f'mutation {{ closeSession(id: "{S}") {{ state }} }}')
    closed = gql.data(STATS, {"session": S})["promotionStats"]
    assert (paused["runs"], paused["lastTrigger"]) == (3, "PAUSE")
    assert (closed["runs"], closed["lastTrigger"]) == (4, "CLOSE")


def test_enable_and_disable_switch_the_periodic_trigger(
    gql: GraphQLClient, gm: GraphMem, clock: ManualClock
) -> None:
    gm.open_session(S)

    disabled = gql.data(f'mutation {{ disablePromotion(sessionId: "{S}") {{ {STATS_FIELDS} }} }}')[
        "disablePromotion"
    ]
    assert disabled["enabled"] is False and disabled["nextRunAt"] is None
    assert gql.data(STATS, {"session": S})["promotionStats"] == disabled
    assert gql.data(f'{{ session(id: "{S}") {{ promotionEnabled }} }}')["session"] == {
        "promotionEnabled": False
    }

    enabled = gql.data(
        f'mutation {{ enablePromotion(sessionId: "{S}", intervalSeconds: 5) {{ {STATS_FIELDS} }} }}'
    )["enablePromotion"]
    assert enabled["enabled"] is True and enabled["intervalSeconds"] == 5
    assert enabled["nextRunAt"] == iso(clock.now() + 5)
    assert gql.data(STATS, {"session": S})["promotionStats"] == enabled


def test_open_session_takes_a_memory_limit_that_triggers_promotion(gql: GraphQLClient) -> None:
    opened = gql.data('mutation { openSession(id: "small", maxItems: 2) { id maxItems } }')
    assert opened["openSession"] == {"id": "small", "maxItems": 2}

    for content in ("first note", "second note"):
        gql.data(REMEMBER, {"input": as_input(weak(content, session_id="small"))})
    stats = gql.data(STATS, {"session": "small"})["promotionStats"]

    assert stats["lastTrigger"] == "MEMORY_LIMIT"
    assert stats["lastRotated"] == 1, "the oldest working memory is archived down to the headroom"


def test_archive_stale_dry_run_then_real_then_restore(
    gql: GraphQLClient, gm: GraphMem, clock: ManualClock, graph_snapshot: Callable[[], Any]
) -> None:
    stale = gm.remember(weak()).id
    kept = gm.remember(strong()).id
    elsewhere = gm.remember(weak(), project_id="other").id
    clock.advance(2 * 86_400)
    before = graph_snapshot()

    dry = gql.data(ARCHIVE, {"dryRun": True})["archiveStale"]

    assert graph_snapshot() == before
    assert (dry["projectId"], dry["dryRun"], dry["archived"]) == ("default", True, [])
    (item,) = dry["items"]
    assert (item["memoryId"], item["tier"]) == (stale, "WORKING")
    assert item["score"] < gm.rules.archive_importance_below
    assert item["reason"].startswith("stale: unused for over 1 days in working")
    assert item["memory"]["tier"] == "WORKING"

    done = gql.data(ARCHIVE, {"dryRun": False})["archiveStale"]

    assert done["archived"] == [stale] and done["dryRun"] is False
    assert done["items"][0]["memory"] == {
        "id": stale,
        "tier": "ARCHIVED",
        "archivedFrom": "WORKING",
        "archiveReason": item["reason"],
    }
    assert gm.get(kept).tier is Tier.WORKING
    assert gm.get(elsewhere, project_id="other").tier is Tier.WORKING, "one project at a time"
    other = gql.data(ARCHIVE, {"dryRun": False, "projectId": "other"})["archiveStale"]
    assert (other["projectId"], other["archived"]) == ("other", [elsewhere])

    restored = gql.data(RESTORE, {"id": stale})["restore"]

    assert (restored["id"], restored["tier"]) == (stale, "WORKING")
    assert (restored["archivedAt"], restored["archivedFrom"]) == (None, None)
    listed = gql.data("{ memories { edges { node { id } } } }")["memories"]["edges"]
    assert {edge["node"]["id"] for edge in listed} == {stale, kept}


@pytest.fixture
def session(gm: GraphMem) -> str:
    """A session with one promotable memory, and one in another project."""
    gm.remember(strong())
    gm.open_session("theirs", project_id="other")
    return S


RUN_LITERAL = 'mutation { runPromotion(sessionId: "%s") { runId } }'
BAD_INPUT: dict[str, tuple[str, dict[str, Any], str, str | None]] = {
    "run an unknown session": (RUN, {"session": "missing"}, "NOT_FOUND", "sessionId"),
    "dry run an unknown session": (
        RUN,
        {"session": "missing", "dryRun": True},
        "NOT_FOUND",
        "sessionId",
    ),
    "run another project's session": (
        RUN_LITERAL % "theirs",
        {},
        "NOT_FOUND",
        "sessionId",
    ),
    "stats of an unknown session": (STATS, {"session": "missing"}, "NOT_FOUND", "sessionId"),
    "events of neither a memory nor a session": (EVENTS, {}, "INVALID_INPUT", "memoryId"),
    "events of both a memory and a session": (
        EVENTS,
        {"memory": "m", "session": S},
        "INVALID_INPUT",
        "memoryId",
    ),
    "events limit zero": (EVENTS, {"session": S, "limit": 0}, "INVALID_INPUT", "limit"),
    "enable an unknown session": (
        'mutation { enablePromotion(sessionId: "missing") { enabled } }',
        {},
        "NOT_FOUND",
        "sessionId",
    ),
    "enable with a zero interval": (
        f'mutation {{ enablePromotion(sessionId: "{S}", intervalSeconds: 0) {{ enabled }} }}',
        {},
        "INVALID_INPUT",
        "intervalSeconds",
    ),
    "disable an unknown session": (
        'mutation { disablePromotion(sessionId: "missing") { enabled } }',
        {},
        "NOT_FOUND",
        "sessionId",
    ),
    "restore an unknown memory": (RESTORE, {"id": "missing"}, "NOT_FOUND", "id"),
    "archive in a malformed project": (
        ARCHIVE,
        {"dryRun": False, "projectId": "no spaces"},
        "INVALID_INPUT",
        "projectId",
    ),
    "a memory limit of zero": (
        'mutation { openSession(id: "s", maxItems: 0) { id } }',
        {},
        "INVALID_INPUT",
        "maxItems",
    ),
    "run without a session": (
        "mutation { runPromotion { runId } }",
        {},
        "GRAPHQL_VALIDATION_FAILED",
        None,
    ),
}


@pytest.mark.parametrize("case", BAD_INPUT.values(), ids=BAD_INPUT.keys())
def test_bad_input_is_named_and_nothing_is_written(
    case: tuple[str, dict[str, Any], str, str | None], session: str, rejected: Rejected
) -> None:
    rejected(*case)


def test_restoring_a_live_memory_is_not_found(gm: GraphMem, rejected: Rejected) -> None:
    live = gm.remember(weak()).id

    rejected(RESTORE, {"id": live}, "NOT_FOUND", "id")


def test_an_app_around_a_given_instance_runs_no_scheduler(gql: GraphQLClient) -> None:
    assert gql.data('{ session(id: "any") { id } }') == {"session": None}
    assert scheduler_threads() == [], "tests own the time of an instance they pass in"


def test_the_served_app_runs_periodic_promotion_until_shutdown(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GRAPHMEM_PROMOTION_INTERVAL_SECONDS", "1")
    settings = Settings(data_dir=data_dir / "db", graph="scheduled")

    with serve(create_app_from_settings(settings)) as http:
        gql = GraphQLClient(http)
        memory_id = gql.data(REMEMBER, {"input": as_input(strong())})["remember"]["memory"]["id"]
        deadline = time.monotonic() + 20
        while not (events := gql.data(EVENTS, {"memory": memory_id})["promotionEvents"]):
            assert time.monotonic() < deadline, "no periodic run promoted the memory"
            time.sleep(0.05)
        assert len(scheduler_threads()) == 1

    assert events[-1]["trigger"] == "PERIODIC"
    assert events[-1]["fromTier"] == "WORKING"
    assert scheduler_threads() == [], "the scheduler stops with the server"


def test_the_scheduler_can_be_turned_off(data_dir: Path) -> None:
    settings = Settings(data_dir=data_dir / "db", graph="unscheduled", scheduler=False)

    with serve(create_app_from_settings(settings)) as http:
        assert GraphQLClient(http).data(REMEMBER, {"input": as_input(strong())})
        assert scheduler_threads() == []
