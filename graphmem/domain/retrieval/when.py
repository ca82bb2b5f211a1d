"""Time named in a question, and how near a memory's time is to it.

"What did we decide in May about the job queue?", "As of June 3, 2025, what
was the CI provider?", "What did Ana do last weekend?": the words name a
period, and the memory that answers is the one whose time falls in it (an
event that happened then, a decision that held then), which words and
meaning alone cannot tell from its predecessors and successors.

``named_period`` finds the period a text names, relative to a moment (the
clock for a query, a memory's own event time for the words it holds: a turn
written on 8 May that says "yesterday" is about 7 May). English words and
numeric ISO dates, read in UTC. A month or a day named without a year could
be any year's: every year back to ``YEARS_BACK`` is a ``Period`` of the
``TimeReference``, latest first, and the caller takes the latest one that
some candidate is near (``TimeReference.resolve``).

``nearness`` scores a memory against the period in [0, 1]: 1 for an event in
it, for a state (a decision, a rule, a fact ...) the share of it during which
the state held, times ``HELD``; away from it, halving with every ``half_life``
of distance. Nothing here reads the store or the clock.
"""

from __future__ import annotations

import calendar
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from graphmem.domain import lexicon
from graphmem.domain.clock import as_datetime
from graphmem.domain.kinds import MemoryType
from graphmem.domain.models import Memory
from graphmem.domain.text import words as text_words

DAY = 86_400.0
YEARS_BACK = 10
"""A month or day named without a year may be in any of this many past years."""
HELD = 0.9
"""A state that held for the whole period scores this; an event in it, 1."""
MIN_HALF_LIFE = 2 * DAY
"""Nearness halves with every half of the period's length away from it, at least this."""

MONTHS = {
    name: index
    for index, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "couple of": 2,
    "a couple of": 2,
    "three": 3,
    "a few": 3,
    "few": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
}

_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)(?![\d.,]\d)"
_PREPOSITION = (
    r"(?:in|during|since|until|till|by|before|after|of|from|early|late|mid|around|back in)[\s-]+"
)
_COUNT = (
    r"(?P<count>\d+|"
    + "|".join(n.replace(" ", r"\s+") for n in sorted(NUMBERS, key=len, reverse=True))
    + r")"
)
_UNIT = r"(?P<unit>day|week|month|year)s?"
_NOT_DIGIT = r"(?<![\d.])"

# Most specific first: the first pattern that matches names the period.
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern, re.IGNORECASE))
    for kind, pattern in (
        ("iso", _NOT_DIGIT + r"(?P<year>(?:19|20)\d\d)-(?P<month>[01]?\d)-(?P<day>[0-3]?\d)\b"),
        ("month day year", r"\b" + _MONTH + r"\s+" + _DAY + r",?\s+" + _YEAR),
        ("day month year", r"\b" + _DAY + r"\s+(?:of\s+)?" + _MONTH + r",?\s+" + _YEAR),
        ("month year", r"\b" + _MONTH + r",?\s+(?:of\s+)?" + _YEAR),
        ("month day", r"\b" + _MONTH + r"\s+" + _DAY + r"\b"),
        ("day month", r"\b" + _DAY + r"\s+(?:of\s+)?" + _MONTH + r"\b"),
        ("ago", r"\b" + _COUNT + r"\s+" + _UNIT + r"\s+ago\b"),
        (
            "relative",
            r"\b(?P<the>the\s+)?(?P<which>last|this|past|next|previous)\s+"
            r"(?P<unit>weekend|week|month|year)\b",
        ),
        (
            "weekday",
            r"\b(?P<which>last|on|this|next|past)\s+(?P<weekday>" + "|".join(WEEKDAYS) + r")\b",
        ),
        (
            "word",
            r"\b(?P<word>the day before yesterday|yesterday|today|tonight|this morning"
            r"|last night|tomorrow|the other day)\b",
        ),
        ("month", r"\b" + _PREPOSITION + _MONTH + r"\b"),
        ("year", r"\b" + _PREPOSITION + _YEAR + r"\b"),
    )
)


@dataclass(frozen=True, slots=True)
class Period:
    """A span of time: epoch seconds, ``start`` inclusive, ``end`` exclusive."""

    start: float
    end: float

    @property
    def half_life(self) -> float:
        return max((self.end - self.start) / 2.0, MIN_HALF_LIFE)

    def near(self, start: float, end: float) -> float:
        """1 for a span ``[start, end]`` that meets the period (an instant when the
        two are equal), halving with every ``half_life`` of the gap between them."""
        gap = max(0.0, self.start - end, start - (self.end - 1.0))
        return math.pow(0.5, gap / self.half_life)

    def overlap(self, start: float, end: float | None) -> float:
        """The share of the period within ``[start, end)`` (``None``: no end)."""
        stop = self.end if end is None else min(end, self.end)
        return max(0.0, stop - max(start, self.start)) / (self.end - self.start)

    def label(self) -> str:
        """The period as dates, for a note: ``2025-05-01 to 2025-05-31``."""
        first = _day(self.start)
        last = _day(self.end - 1.0)
        return first if first == last else f"{first} to {last}"


@dataclass(frozen=True, slots=True)
class TimeReference:
    """What a text said (``words``) and the periods it may mean, latest first
    (one, unless a year was left out)."""

    words: str
    periods: tuple[Period, ...]

    def resolve(self, times: Iterable[float]) -> Period:
        """The latest period that one of ``times`` falls in, else the latest."""
        moments = list(times)
        for period in self.periods:
            if any(period.start <= t < period.end for t in moments):
                return period
        return self.periods[0]


def named_period(text: str, now: float) -> TimeReference | None:
    """The time ``text`` names, relative to ``now`` for words like "last week";
    ``None`` when it names none."""
    today = _date(now)
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            periods = _periods(kind, match, today)
            if periods:
                return TimeReference(words=match.group(0), periods=tuple(periods))
    return None


CALENDAR = frozenset({"iso", "month day year", "day month year", "month year", "year"})
"""The patterns that name a date by the calendar with its year: their numbers
match a memory's words by chance. A month named alone ("in June", "June 10")
is a word memories say of the same time ("out on June 10th") and stays."""
_LEADING = re.compile(
    r"(?:\b(?:this was on|on|at|around|about|circa)\s+|" + _PREPOSITION + r")$", re.I
)


def without_calendar(text: str, now: float) -> str:
    """``text`` with every date it names by the calendar with a year left out,
    with the preposition before it ("Around May 14, 2024: what did Sam say
    ..." reads "what did Sam say ..."): words that say when, which the time
    channel reads, and not what, which full text matches. Their words in a
    memory ("may" the verb, "you around?", a count of 14, 2024) matched them
    by chance. A month without a year and relative times ("last weekend",
    "yesterday") keep their words, which memories say of the same time."""
    today = _date(now)
    spans = sorted(
        match.span()
        for kind, pattern in _PATTERNS
        if kind in CALENDAR
        for match in pattern.finditer(text)
        if _periods(kind, match, today)
    )
    merged: list[list[int]] = []
    for start, stop in spans:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], stop)
        else:
            merged.append([start, stop])
    kept, end = [], 0
    for start, stop in merged:
        before = text[end:start]
        lead = _LEADING.search(before)
        kept.append(before[: lead.start()] if lead else before)
        end = stop
    kept.append(text[end:])
    return " ".join("".join(kept).split())


def nearness(memory: Memory, period: Period, *, mentioned: Period | None = None) -> float:
    """How near ``memory`` is to ``period``, in [0, 1]: its event time, the
    time its own words name (``mentioned``) and, for a state, the time it held."""
    best = period.near(memory.occurred, memory.occurred)
    if mentioned is not None:
        best = max(best, period.near(mentioned.start, mentioned.end))
    if memory.memory_type is not MemoryType.EVENT:
        best = max(best, HELD * period.overlap(memory.valid_since, memory.valid_to))
    return best


def _periods(kind: str, match: re.Match[str], today: date) -> list[Period]:
    """The periods one match may mean, latest first (empty: not a real date, or
    "may" the verb)."""
    parts = match.groupdict()
    month = parts.get("month")
    if month is not None and month.lower() == "may" and not month[0].isupper():
        return []
    try:
        match kind:
            case "iso" | "month day year" | "day month year":
                return [_days(date(int(parts["year"]), _month(month), int(parts["day"])))]
            case "month year":
                return [_month_period(int(parts["year"]), _month(month))]
            case "month day" | "day month":
                day = int(parts["day"])
                return _past_years(today, lambda y: _days(date(y, _month(month), day)))
            case "month":
                return _past_years(today, lambda y: _month_period(y, _month(month)))
            case "year":
                year = int(parts["year"])
                return [_span(date(year, 1, 1), date(year + 1, 1, 1))]
            case "ago":
                return [_ago(today, _count(parts["count"]), parts["unit"].lower())]
            case "relative":
                # "The last year" is a span up to today, like "the past year".
                which = parts["which"].lower()
                if parts["the"] and which == "last":
                    which = "past"
                return [_relative(today, which, parts["unit"].lower())]
            case "weekday":
                return [_weekday(today, parts["which"].lower(), parts["weekday"].lower())]
            case _:
                return [_word(today, parts["word"].lower())]
    except (ValueError, OverflowError):  # 31 February, month 13, 5000 years ago: no date
        return []


def _month(name: str | None) -> int:
    assert name is not None  # every pattern that reaches here has a month
    name = name.lower().rstrip(".")
    return int(name) if name.isdigit() else MONTHS[name]


def _count(word: str) -> int:
    return int(word) if word.isdigit() else NUMBERS[" ".join(word.lower().split())]


def _past_years(today: date, period_of: Callable[[int], Period]) -> list[Period]:
    """The period in this year and each of ``YEARS_BACK`` before it that has
    begun by ``today``, latest first."""
    periods = []
    for year in range(today.year, today.year - YEARS_BACK - 1, -1):
        try:
            period = period_of(year)
        except ValueError:  # 29 February of a common year
            continue
        if period.start < _epoch(today) + DAY:
            periods.append(period)
    return periods


UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}


def _ago(today: date, count: int, unit: str) -> Period:
    """ "Two weeks ago": the day that long ago, or a unit's span around it."""
    days = UNIT_DAYS[unit]
    centre = today - timedelta(days=days * count)
    if unit == "day":
        return _days(centre)
    half = timedelta(days=days / 2)
    return _span(centre - half, centre + half)


def _relative(today: date, which: str, unit: str) -> Period:
    """ "Last week" (the calendar week before this one, from Monday), "this
    month", "next year", "last weekend"; "the past week" and "the last year":
    the span up to today."""
    if which == "past":
        return _span(
            today - timedelta(days=UNIT_DAYS[unit.removesuffix("end")]), today + timedelta(days=1)
        )
    step = {"last": -1, "previous": -1, "this": 0, "next": 1}[which]
    if unit in ("week", "weekend"):
        monday = today - timedelta(days=today.weekday()) + timedelta(weeks=step)
        first = monday + timedelta(days=5) if unit == "weekend" else monday
        return _span(first, monday + timedelta(days=7))
    if unit == "month":
        index = today.year * 12 + today.month - 1 + step
        return _month_period(index // 12, index % 12 + 1)
    return _span(date(today.year + step, 1, 1), date(today.year + step + 1, 1, 1))


def _weekday(today: date, which: str, name: str) -> Period:
    """ "Last Tuesday" and "on Tuesday": the latest Tuesday before today (today's
    for "on"); "next Tuesday": the first after today."""
    target = WEEKDAYS.index(name)
    if which == "next":
        return _days(today + timedelta(days=(target - today.weekday() - 1) % 7 + 1))
    back = (today.weekday() - target) % 7
    if back == 0 and which in ("last", "past"):
        back = 7
    return _days(today - timedelta(days=back))


def _word(today: date, word: str) -> Period:
    match word:
        case "today" | "tonight" | "this morning":
            return _days(today)
        case "yesterday" | "last night":
            return _days(today - timedelta(days=1))
        case "the day before yesterday":
            return _days(today - timedelta(days=2))
        case "tomorrow":
            return _days(today + timedelta(days=1))
        case _:  # "the other day": some day of the last week
            return _span(today - timedelta(days=7), today)


def _month_period(year: int, month: int) -> Period:
    days = calendar.monthrange(year, month)[1]
    first = date(year, month, 1)
    return _span(first, first + timedelta(days=days))


def _days(day: date) -> Period:
    return _span(day, day + timedelta(days=1))


def _span(first: date, after: date) -> Period:
    return Period(start=_epoch(first), end=_epoch(after))


def _epoch(day: date) -> float:
    return datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp()


def _date(at: float) -> date:
    """The UTC day of ``at``; a stored time no write would take is read at the
    nearest time graphmem shows, so one such memory cannot fail a search."""
    return as_datetime(at).date()


def _day(at: float) -> str:
    return _date(at).isoformat()


def periods_of(memories: Iterable[Memory]) -> dict[str, Period]:
    """The time each memory's own words name, read from when it happened
    (a turn of 8 May that says "yesterday" names 7 May); memories whose words
    name none are left out."""
    named = {}
    for memory in memories:
        found = named_period(memory.content, memory.occurred)
        if found is not None:
            named[memory.id] = found.resolve([memory.occurred])
    return named


ABOUT_TIME = (
    lexicon.words(
        """happen happens happened happening do does did done doing go goes went going on
        anything everything something stuff note notes noted write wrote written record
        recorded work worked working discuss discussed talk talked say said decide decided
        change changed changes occur occurred learn learned learnt"""
    )
    | frozenset(WEEKDAYS)
    | frozenset(MONTHS)
)
"""Words that ask only what there was at a time ("What happened ...",
"Anything from Friday, ...", "What did we do ..."), beside the time's own."""


def asks_time_alone(words: Iterable[str], reference: TimeReference) -> bool:
    """Whether a question whose content words are ``words`` asks for nothing
    but what there was at the time it names (``reference``): "What happened on
    March 4, 2025?", "Anything from last week?", but not "What did we decide
    about the queue in March?". Such a question has no words a memory could
    match; the memories of that time answer it."""
    said = set(text_words(reference.words))
    return all(word in said or word in ABOUT_TIME for word in words)


def alone_note(reference: TimeReference, period: Period, found: int) -> str:
    """What a question asking for a time alone was answered from."""
    asked = f"the question asks only for a time ({reference.words!r}: {period.label()}); "
    if not found:
        return asked + "no memory the filters allow happened then"
    return asked + "the memories of that time answer it, nearest its words in meaning first"


@dataclass(frozen=True, slots=True)
class Timed:
    """A question's time, resolved against the candidates, and each one's nearness."""

    words: str
    period: Period
    near: dict[str, float]

    def past(self, now: float) -> bool:
        """The period had ended by ``now``: the question is about the past."""
        return self.period.end <= now

    def note(self, weight: float) -> str:
        """What the time did: ``weight`` 0 where it only chose what the project
        held then (a mode that ranks by one retriever keeps that retriever's relevance)."""
        named = f"the question names a time ({self.words!r}: {self.period.label()}); "
        if weight <= 0.0:
            return named + "relevance is the retriever's own, not weighed by time"
        share = f"{weight:.0%} of each memory's relevance"
        return named + f"{share} rests on how near its time is to it"


@dataclass(frozen=True)
class TimeChannel:
    """Time as a retrieval channel: how much a question's named time weighs."""

    weight: float = 0.5
    """The share of a candidate's relevance that rests on its time: relevance x
    (1 - weight + weight x nearness). 0 turns the channel off."""
    min_near: float = 0.5
    """The nearest candidate must be this near, or time does not weigh: a date
    no memory is near says nothing about which one answers."""

    def reference(self, text: str, now: float) -> TimeReference | None:
        """The time a question names, read once for every use of it
        (``named_period``); ``None`` when it names none or the channel is off."""
        return None if self.off else named_period(text, now)

    def timed(
        self, reference: TimeReference | None, memories: Mapping[str, Memory]
    ) -> Timed | str | None:
        """The question's time (``reference``) and each candidate's nearness to
        it; a note instead when no candidate is near it; ``None`` when it names
        no time or nothing was found (there is nothing to weigh)."""
        if reference is None or not memories:
            return None
        mentioned = periods_of(memories.values())
        period = reference.resolve(
            [m.occurred for m in memories.values()] + [p.start for p in mentioned.values()]
        )
        near = {
            memory_id: nearness(memory, period, mentioned=mentioned.get(memory_id))
            for memory_id, memory in memories.items()
        }
        if max(near.values(), default=0.0) < self.min_near:
            return (
                f"the question names a time ({reference.words!r}: {period.label()}) "
                "that no memory found is near; time did not weigh"
            )
        return Timed(words=reference.words, period=period, near=near)

    @property
    def off(self) -> bool:
        """A weight of 0 turns the whole channel off: no time is read at all."""
        return self.weight <= 0.0

    def lexical(self, text: str, now: float) -> str | None:
        """The query as full text reads it while the channel is on: without the
        dates it names with their year (``without_calendar``); ``None`` when off."""
        return None if self.off else without_calendar(text, now)

    def weigh(self, relevance: Mapping[str, float], timed: Timed) -> dict[str, float]:
        return {
            memory_id: value * (1.0 - self.weight + self.weight * timed.near.get(memory_id, 0.0))
            for memory_id, value in relevance.items()
        }
