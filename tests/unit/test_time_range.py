"""The range of times graphmem takes and shows, decided without a store."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from graphmem.domain.checks import epoch_seconds
from graphmem.domain.clock import EARLIEST, LATEST, as_datetime, nearest_showable, showable
from graphmem.domain.models import TIME_FIELDS, Memory

STATEMENT = Path(__file__).parents[2] / "cypher" / "unshowable_times.cypher"


def test_the_bounds_are_the_dates_the_docs_name():
    assert as_datetime(EARLIEST) == datetime(1, 1, 2, tzinfo=UTC)
    assert as_datetime(LATEST) == datetime(9999, 12, 30, 23, 59, 59, tzinfo=UTC)


@pytest.mark.parametrize("hours", [-14, -1, 0, 1, 14])
def test_every_showable_time_has_a_date_in_every_zone(hours: int):
    zone = timezone(timedelta(hours=hours))
    for bound in (EARLIEST, LATEST):
        assert 1 <= as_datetime(bound).astimezone(zone).year <= 9999


@pytest.mark.parametrize(
    ("value", "taken"),
    [
        ("0001-01-02T00:00:00Z", True),
        ("0001-01-02T00:00:00+14:00", False),  # 0001-01-01T10:00Z
        ("0001-01-01T00:00:00+14:00", False),
        ("9999-12-30T23:59:59Z", True),
        ("9999-12-30T23:59:59-14:00", False),
        ("9999-12-31T00:00:00Z", False),
        (EARLIEST, True),
        (EARLIEST - 0.001, False),
        (LATEST, True),
        (LATEST * 1000, True),  # milliseconds
        (LATEST * 1000 + 1000, False),
        (2**63, False),
        (-(2**63), False),
        (0, True),
    ],
)
def test_a_write_takes_a_time_only_inside_the_range(value, taken: bool):
    if taken:
        assert showable(epoch_seconds(value))
    else:
        with pytest.raises(ValueError, match="0001-01-02T00:00:00Z to 9999-12-30T23:59:59Z"):
            epoch_seconds(value)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_a_number_that_is_no_time_is_refused(value: float):
    with pytest.raises(ValueError, match="finite"):
        epoch_seconds(value)


@pytest.mark.parametrize(
    ("stored", "shown"),
    [
        (EARLIEST - 1, EARLIEST),
        (LATEST + 1, LATEST),
        (math.nan, EARLIEST),
        (-1e300, EARLIEST),
        (1e300, LATEST),
        (0.0, 0.0),
    ],
)
def test_a_stored_time_is_shown_as_the_nearest_showable_one(stored: float, shown: float):
    assert nearest_showable(stored) == shown
    as_datetime(stored)  # never raises


def test_a_memory_names_its_unshowable_times():
    memory = Memory(
        id="m", project_id="p", session_id="s", content="x",
        created_at=0.0, updated_at=0.0, occurred_at=EARLIEST - 1, valid_to=math.nan,
    )  # fmt: skip
    assert memory.unshowable_times() == ["occurred_at", "valid_to"]


def test_the_repair_statement_reads_every_time_of_a_memory():
    read = set(re.findall(r"(\w+): m\.(\w+)", STATEMENT.read_text()))
    assert read == {(name, name) for name in TIME_FIELDS}
