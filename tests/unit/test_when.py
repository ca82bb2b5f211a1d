"""The time a question names, and how near a memory is to it (domain/retrieval/when.py)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from graphmem.domain.kinds import MemoryType
from graphmem.domain.models import Memory
from graphmem.domain.retrieval.when import (
    HELD,
    Period,
    TimeChannel,
    Timed,
    asks_time_alone,
    named_period,
    nearness,
    periods_of,
    without_calendar,
)

NOW = datetime(2025, 9, 10, 12, tzinfo=UTC).timestamp()  # a Wednesday


def epoch(y: int, m: int, d: int) -> float:
    return datetime(y, m, d, tzinfo=UTC).timestamp()


def days(text: str, now: float = NOW) -> list[tuple[date, date]]:
    """The periods ``text`` names, as (first day, last day)."""
    found = named_period(text, now)
    assert found is not None, text
    return [
        (
            datetime.fromtimestamp(p.start, UTC).date(),
            datetime.fromtimestamp(p.end - 1, UTC).date(),
        )
        for p in found.periods
    ]


@pytest.mark.parametrize(
    ("text", "first", "last"),
    [
        ("What happened on 2025-03-04?", date(2025, 3, 4), date(2025, 3, 4)),
        ("As of June 3, 2025, what was the CI provider?", date(2025, 6, 3), date(2025, 6, 3)),
        ("On 7 May 2023 what did she run?", date(2023, 5, 7), date(2023, 5, 7)),
        ("the 3rd of June, 2024", date(2024, 6, 3), date(2024, 6, 3)),
        ("In May 2025, which rule had we chosen?", date(2025, 5, 1), date(2025, 5, 31)),
        ("in February of 2024", date(2024, 2, 1), date(2024, 2, 29)),
        ("What did we do back in 2024?", date(2024, 1, 1), date(2024, 12, 31)),
        ("What did Ana do yesterday?", date(2025, 9, 9), date(2025, 9, 9)),
        ("the day before yesterday", date(2025, 9, 8), date(2025, 9, 8)),
        ("last week", date(2025, 9, 1), date(2025, 9, 7)),
        ("this week", date(2025, 9, 8), date(2025, 9, 14)),
        ("last weekend", date(2025, 9, 6), date(2025, 9, 7)),
        ("last month", date(2025, 8, 1), date(2025, 8, 31)),
        ("next month", date(2025, 10, 1), date(2025, 10, 31)),
        ("last year", date(2024, 1, 1), date(2024, 12, 31)),
        ("over the past week", date(2025, 9, 3), date(2025, 9, 10)),
        ("three days ago", date(2025, 9, 7), date(2025, 9, 7)),
        ("last Tuesday", date(2025, 9, 9), date(2025, 9, 9)),
        ("last Wednesday", date(2025, 9, 3), date(2025, 9, 3)),
        ("on Wednesday", date(2025, 9, 10), date(2025, 9, 10)),
        ("next Monday", date(2025, 9, 15), date(2025, 9, 15)),
    ],
)
def test_a_named_time_is_the_period_it_says(text: str, first: date, last: date) -> None:
    assert days(text)[0] == (first, last)


def test_a_month_without_a_year_is_every_past_years_month_latest_first() -> None:
    found = days("What did we decide in May about the job queue?")
    assert found[0] == (date(2025, 5, 1), date(2025, 5, 31))
    assert found[1] == (date(2024, 5, 1), date(2024, 5, 31))
    # December has not begun in 2025 by 10 September: the latest is 2024's.
    assert days("in December")[0] == (date(2024, 12, 1), date(2024, 12, 31))


def test_the_period_a_candidate_is_in_is_chosen_over_the_latest() -> None:
    found = named_period("in May", NOW)
    assert found is not None
    may_2023 = found.resolve([epoch(2023, 5, 20), epoch(2025, 1, 1)])
    assert may_2023.start == epoch(2023, 5, 1)
    assert found.resolve([epoch(2025, 1, 1)]) == found.periods[0]


@pytest.mark.parametrize(
    "text",
    [
        "May I ask what the tool is?",
        "Release 3.11 may break the build",
        "top 3 may be wrong",
        "What do we use for the job queue now?",
        "arq 0.25 cost $4302/month",
        "Alembic 1.13 broke on two minor upgrades",
        "on February 30, 2025",
        "what happened 5000 years ago?",
        "what happened 9999999999 days ago?",
    ],
)
def test_words_that_name_no_time_name_none(text: str) -> None:
    assert named_period(text, NOW) is None


def memory(kind: MemoryType, occurred: float, **fields: object) -> Memory:
    return Memory.model_validate(
        {
            "id": "m",
            "project_id": "p",
            "content": "c",
            "memory_type": kind,
            "session_id": "default",
            "created_at": NOW,
            "updated_at": NOW,
            "occurred_at": occurred,
            **fields,
        }
    )


MAY = Period(start=epoch(2025, 5, 1), end=epoch(2025, 6, 1))


def test_an_event_in_the_period_is_nearest_and_one_away_fades_by_half_lives() -> None:
    assert nearness(memory(MemoryType.EVENT, epoch(2025, 5, 20)), MAY) == 1.0
    # Half of May's length (15.5 days) past its end: half as near.
    later = memory(MemoryType.EVENT, MAY.end - 1.0 + MAY.half_life)
    assert nearness(later, MAY) == pytest.approx(0.5)
    assert nearness(memory(MemoryType.EVENT, epoch(2025, 9, 1)), MAY) < 0.02


def test_a_state_is_as_near_as_the_share_of_the_period_it_held() -> None:
    held_all = memory(MemoryType.DECISION, epoch(2025, 1, 10))
    assert nearness(held_all, MAY) == pytest.approx(HELD)
    replaced_mid_may = memory(
        MemoryType.DECISION, epoch(2025, 1, 10), valid_to=MAY.start + (MAY.end - MAY.start) / 2
    )
    assert nearness(replaced_mid_may, MAY) == pytest.approx(HELD / 2)
    # An event that happened before May did not hold "in May".
    assert nearness(memory(MemoryType.EVENT, epoch(2025, 1, 10)), MAY) < 0.01


def test_a_turn_is_as_near_as_the_time_its_words_name() -> None:
    turn = memory(MemoryType.EVENT, epoch(2025, 6, 2)).model_copy(
        update={"content": "I ran my first 10k yesterday!"}
    )
    mentioned = periods_of([turn])["m"]
    assert mentioned == Period(start=epoch(2025, 6, 1), end=epoch(2025, 6, 2))
    june_first = Period(start=epoch(2025, 6, 1), end=epoch(2025, 6, 2))
    assert nearness(turn, june_first) < 1.0
    assert nearness(turn, june_first, mentioned=mentioned) == 1.0


def test_time_weighs_only_when_a_candidate_is_near_it() -> None:
    channel = TimeChannel(weight=0.5, min_near=0.5)
    may = memory(MemoryType.EVENT, epoch(2025, 5, 20)).model_copy(update={"id": "may"})
    sept = memory(MemoryType.EVENT, epoch(2025, 9, 1)).model_copy(update={"id": "sept"})
    asked = channel.reference("what happened in May?", NOW)
    timed = channel.timed(asked, {"may": may, "sept": sept})
    assert isinstance(timed, Timed)
    assert timed.past(NOW)
    weighed = channel.weigh({"may": 0.6, "sept": 0.8}, timed)
    assert weighed["may"] == pytest.approx(0.6)
    assert weighed["sept"] < weighed["may"]
    far = channel.timed(channel.reference("what happened in May 2019?", NOW), {"sept": sept})
    assert isinstance(far, str) and "no memory found is near" in far
    assert channel.timed(channel.reference("what happened?", NOW), {"sept": sept}) is None
    off = TimeChannel(weight=0.0)
    assert off.timed(off.reference("in May", NOW), {"may": may}) is None
    # Nothing found: nothing to weigh, and nothing to say about the time.
    assert channel.timed(asked, {}) is None


def test_the_last_year_is_the_year_up_to_today_not_the_calendar_year_before() -> None:
    assert days("Where did Kofi spend the last year?")[0] == (date(2024, 9, 10), date(2025, 9, 10))
    assert days("last year")[0] == (date(2024, 1, 1), date(2024, 12, 31))


def test_a_memory_stored_at_a_time_no_write_takes_is_read_at_the_nearest_bound() -> None:
    # Raw Cypher or an older version can leave such a time; it must not fail a search.
    for occurred in (1e13, -7e10):
        turn = memory(MemoryType.EVENT, occurred).model_copy(update={"content": "yesterday"})
        assert "m" in periods_of([turn])


@pytest.mark.parametrize(
    ("text", "lexical"),
    [
        ("Around May 28, 2024: what hue are Priya's walls?", ": what hue are Priya's walls?"),
        ("In May 2023, what did Sam say?", ", what did Sam say?"),
        ("Who wrote it? This was on 27 November 2024.", "Who wrote it? ."),
        ("What did we decide in March 2025 about it?", "What did we decide about it?"),
        # A month without a year is a word memories say too ("out on June 10th").
        ("What did I book in June?", "What did I book in June?"),
        ("Since 2025-03-04 and back in 2024 we ship daily", "and we ship daily"),
        # Relative times keep their words; "may" the verb is no month.
        ("What did Ana do last weekend?", "What did Ana do last weekend?"),
        ("I may go tomorrow", "I may go tomorrow"),
        ("May 2023", ""),
    ],
)
def test_full_text_reads_a_query_without_the_dates_it_names(text: str, lexical: str) -> None:
    assert without_calendar(text, NOW) == lexical


@pytest.mark.parametrize(
    ("text", "words", "alone"),
    [
        # The content words full text reads of each (the dates with a year left out).
        ("What happened on March 4, 2025?", ["happened"], True),
        ("Anything from Friday, August 22, 2025?", ["anything", "friday"], True),
        ("What did we do last week?", ["last", "week"], True),
        ("What changed in March?", ["changed", "march"], True),
        ("What did we decide about the job queue in March?", ["decide", "job", "queue"], False),
        ("What happened to Ana's car on May 12, 2025?", ["happened", "ana", "car"], False),
    ],
)
def test_a_question_of_a_time_and_words_that_ask_what_there_was_asks_for_it_alone(
    text: str, words: list[str], alone: bool
) -> None:
    reference = named_period(text, NOW)
    assert reference is not None
    assert asks_time_alone(words, reference) is alone
