"""Property: a write either stores a value every read can serve, or is refused
with INVALID_INPUT naming the field and stores nothing; after each write, the
project reads back in every mode without an error.

Values are drawn at the edges of what the types hold: the first and last times
graphmem shows, each with zone offsets to ±14 h, epoch seconds and milliseconds
around those bounds, NaN, ±infinity, ±2^63 and the 64-bit extremes, and numbers
just outside each numeric limit. Each example is sent through the Python API
and through GraphQL over HTTP (MCP and the CLI parse with the same models:
tests/integration/test_time_bounds.py sends them the bounds), and the whole
project is then read back: listing, every search mode and knowledgeContext.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.domain.errors import InvalidInputError
from graphmem.graphql.app import create_app
from tests.fuzz.conftest import FUZZ, Fingerprint
from tests.integration.conftest import GraphQLClient, serve

FIRST = datetime(1, 1, 2, tzinfo=UTC)
LAST = datetime(9999, 12, 30, 23, 59, 59, tzinfo=UTC)
OFFSETS = [
    timezone(timedelta(hours=h, minutes=m))
    for h, m in ((-14, 0), (-1, 0), (0, 0), (5, 45), (14, 0))
]
INT64 = 2**63
SKEW = 300.0
"""How far past the clock an ``occurredAt`` or ``validFrom`` may be."""

EDGE_NUMBERS = [
    math.nan, math.inf, -math.inf, float(INT64), -float(INT64), INT64 - 1, -INT64, INT64,
    0, -0.0, 1e11 - 1, 1e11, -1e11, FIRST.timestamp(), FIRST.timestamp() - 0.001,
    LAST.timestamp(), LAST.timestamp() * 1000, LAST.timestamp() * 1000 + 1000,
    FIRST.timestamp() * 1000, FIRST.timestamp() * 1000 - 1000, 1.7e9, 1.7e12,
]  # fmt: skip


def _near_bounds() -> st.SearchStrategy[str]:
    """ISO text a few hours either side of the first and the last time, in any zone."""
    moments = st.sampled_from([FIRST, LAST]).flatmap(
        lambda bound: st.integers(-30, 30).map(lambda hours: (bound, hours))
    )

    def text(drawn: tuple[datetime, int], zone: timezone) -> str:
        bound, hours = drawn
        naive = bound.replace(tzinfo=None)
        try:
            local = naive + timedelta(hours=hours)
        except OverflowError:
            local = naive
        return local.replace(tzinfo=zone).isoformat()

    return st.builds(text, moments, st.sampled_from(OFFSETS))


TIMES: st.SearchStrategy[Any] = st.one_of(
    _near_bounds(),
    st.sampled_from(EDGE_NUMBERS),
    st.datetimes(
        min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59),
        timezones=st.sampled_from(OFFSETS),
    ).map(datetime.isoformat),
    st.floats(allow_nan=True, allow_infinity=True),
)  # fmt: skip
UNITS: st.SearchStrategy[Any] = st.one_of(
    st.sampled_from([math.nan, math.inf, -math.inf, -0.0, 1.0, 1.0000001, -1e-9, float(INT64)]),
    st.floats(min_value=-2, max_value=3),
)


def utc_seconds(value: Any) -> float | None:
    """The UTC epoch seconds a value names, worked out without graphmem's code;
    ``None`` for a value that names no time."""
    if isinstance(value, str):
        moment = datetime.fromisoformat(value)
        offset = moment.utcoffset() or timedelta(0)
        naive = moment.replace(tzinfo=None)
        # Seconds from the first day of year 1, then shifted: never overflows.
        since_year_one = (naive - datetime(1, 1, 1)).total_seconds() - offset.total_seconds()
        return since_year_one + datetime(1, 1, 1, tzinfo=UTC).timestamp()
    number = float(value)
    if not math.isfinite(number):
        return None
    return number / 1000 if abs(number) >= 1e11 else number


def taken(value: Any, *, not_after: float | None) -> bool:
    """Whether graphmem must take the time: inside the bounds, and for a start,
    no later than the clock's skew."""
    seconds = utc_seconds(value)
    if seconds is None or not FIRST.timestamp() <= round(seconds, 3) <= LAST.timestamp():
        return False
    return not_after is None or seconds <= not_after


def unit_taken(value: Any) -> bool:
    return math.isfinite(value) and 0.0 <= value <= 1.0


REMEMBER = """mutation ($input: MemoryInput!) { remember(input: $input) { memory { id } } }"""
READS = [
    "{ memories(first: 200) { edges { node { id occurredAt validFrom validTo createdAt } } } }",
    '{ search(query: "ledger postgres", mode: FULLTEXT) { hits { score memory { validTo } } } }',
    '{ search(query: "ledger postgres", mode: VECTOR) { hits { score } } }',
    '{ search(query: "ledger postgres", mode: HYBRID) { hits { score memory { occurredAt } } } }',
    '{ search(query: "ledger postgres", mode: GRAPH) { hits { score } } }',
    """{ knowledgeContext(contextHint: "which database holds the ledger", minRelevance: 0)
         { items { memory { id occurredAt validFrom } } } }""",
]


@pytest.fixture
def egql(egm: GraphMem) -> Any:
    with serve(create_app(egm)) as http:
        yield GraphQLClient(http)


def read_everything(gql: GraphQLClient) -> None:
    for read in READS:
        body = gql.execute(read)
        assert "errors" not in body, (read, body)


@pytest.mark.backends("falkordb")
@FUZZ
@given(occurred=TIMES, valid_from=TIMES, valid_to=TIMES, confidence=UNITS, which=st.integers(0, 4))
def test_graphql_writes_take_only_what_reads_can_serve(
    egm: GraphMem,
    egql: GraphQLClient,
    clock: ManualClock,
    graph_fingerprint: Callable[[], Fingerprint],
    occurred: Any,
    valid_from: Any,
    valid_to: Any,
    confidence: Any,
    which: int,
):
    given_fields = {"occurredAt": occurred, "validFrom": valid_from, "validTo": valid_to}
    # One, two or all the fields at once, so each refusal is seen alone too.
    names = [["occurredAt"], ["validFrom"], ["validTo"], ["confidence"], list(given_fields)][which]
    values = {**given_fields, "confidence": confidence}
    sent = {name: values[name] for name in names}
    if any(isinstance(v, float) and not math.isfinite(v) for v in sent.values()):
        return  # JSON has no NaN or infinity: no client can send one (the Python API can)
    now = clock.now()
    start = {"occurredAt": now + SKEW, "validFrom": now + SKEW, "validTo": None}
    good = {
        name: unit_taken(v) if name == "confidence" else taken(v, not_after=start[name])
        for name, v in sent.items()
    }
    before = graph_fingerprint()
    body = egql.execute(REMEMBER, {"input": {"content": "the ledger lives in Postgres", **sent}})
    errors = body.get("errors", [])
    if all(good.values()) and not errors:
        pass
    elif errors:
        assert {error["extensions"]["code"] for error in errors} == {"INVALID_INPUT"}, body
        named = {
            field
            for error in errors
            for field in error["extensions"].get("fields") or [error["extensions"]["field"]]
        }
        bad = {f"input.{name}" for name, ok in good.items() if not ok}
        assert named & bad or named == {"input.validTo"}, (body, good)  # validTo < validFrom
        assert graph_fingerprint() == before, "a refused write stored something"
    else:
        pytest.fail(f"stored a value that must be refused: {sent} ({good})")
    read_everything(egql)


@pytest.mark.backends("falkordb")
@FUZZ
@given(occurred=TIMES, valid_to=TIMES, confidence=UNITS, after=TIMES)
def test_python_writes_take_only_what_reads_can_serve(
    egm: GraphMem,
    egql: GraphQLClient,
    clock: ManualClock,
    graph_fingerprint: Callable[[], Fingerprint],
    occurred: Any,
    valid_to: Any,
    confidence: Any,
    after: Any,
):
    now = clock.now()
    before = graph_fingerprint()
    fields = {"occurred_at": occurred, "valid_to": valid_to, "confidence": confidence}
    for name, value in fields.items():
        if name == "confidence":
            ok = unit_taken(value)
        elif name == "occurred_at":
            ok = taken(value, not_after=now + SKEW)
        else:  # not before the validity's start, the write's own time here
            ok = taken(value, not_after=None) and (utc_seconds(value) or 0.0) >= now
        try:
            egm.remember({"content": "the ledger lives in Postgres", name: value})
        except InvalidInputError as exc:
            assert not ok, (name, value, exc.message)
            assert exc.field == name, exc
            assert graph_fingerprint() == before
        else:
            assert ok, f"stored {name}={value!r}, which must be refused"
            before = graph_fingerprint()
    try:
        egm.search("ledger", filters={"occurred_after": after})
    except InvalidInputError as exc:
        assert not taken(after, not_after=None), exc.message
        assert exc.field == "filters.occurred_after", exc
    else:
        assert taken(after, not_after=None), f"searched after {after!r}"
    read_everything(egql)
