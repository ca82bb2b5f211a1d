"""One written form for each value: numbers, dates, times, units, versions and
abbreviations read the same whichever way they were written."""

from __future__ import annotations

import pytest

from graphmem.domain.values import canonical, in_part_of_day, number


@pytest.mark.parametrize(
    ("forms", "one"),
    [
        (["1,000", "1000", "1k", "1K", "one thousand", "a thousand"], "1000"),
        (["2,500", "2500", "2.5k", "two thousand five hundred"], "2500"),
        (["2M", "2 million", "2,000,000"], "2000000"),
        (["1,234.5"], "1234.5"),
        (["206", "two hundred and six", "two hundred six"], "206"),
        (["25", "twenty-five", "twenty five"], "25"),
        (["12", "a dozen", "twelve"], "12"),
        (["3", "third", "3rd"], "3"),
        (["30", "thirtieth", "30th"], "30"),
        (["5%", "5 percent", "5 per cent", "5 pct"], "5%"),
    ],
)
def test_a_number_in_any_of_its_forms_is_one_number(forms: list[str], one: str):
    assert {canonical(f"We kept {form} rows.") for form in forms} == {f"We kept {one} rows."}


@pytest.mark.parametrize(
    "written",
    [
        "2025-03-14",
        "2025/03/14",
        "2025-3-14",
        "March 14, 2025",
        "March 14 2025",
        "Mar. 14, 2025",
        "March 14th, 2025",
        "14 March 2025",
        "14th of March, 2025",
        "3/14/2025",
        "14/3/2025",
        "14.03.2025",
    ],
)
def test_a_date_in_its_common_written_forms_is_one_date(written: str):
    assert canonical(f"The freeze starts {written}.") == "The freeze starts 2025-03-14."


def test_may_is_a_month_only_capitalised():
    assert canonical("Due May 4, 2025.") == "Due 2025-05-04."
    assert canonical("You may 4 times.") == "You may 4 times."


@pytest.mark.parametrize(
    ("forms", "one"),
    [
        (["14:00", "2 pm", "2pm", "2:00 PM", "2 p.m."], "14:00"),
        (["9:30", "09:30", "9:30 am", "9:30am", "9:30 a.m."], "9:30"),
        (["0:00", "12 am", "midnight"], "0:00"),
        (["12:00", "12 pm", "noon"], "12:00"),
        (["23:00", "11 pm", "11PM"], "23:00"),
    ],
)
def test_a_time_of_day_on_either_clock_is_one_time(forms: list[str], one: str):
    assert {canonical(f"The job runs at {form} daily.") for form in forms} == {
        f"The job runs at {one} daily."
    }


@pytest.mark.parametrize(
    ("forms", "one"),
    [
        (["30 seconds", "30s", "30 s", "30 sec", "30 secs", "30-second"], "30 second"),
        (["5 minutes", "5 min", "5 mins", "5 minute"], "5 minute"),
        (["500 ms", "500 msec", "500 milliseconds"], "500 millisecond"),
        (["2 hours", "2h", "2 hrs", "2 hr"], "2 hour"),
        (["4 GB", "4GB", "4 gb", "4 gigabytes"], "4 gigabyte"),
        (["512 MB", "512 megabytes"], "512 megabyte"),
        (["3 days", "3d"], "3 day"),
    ],
)
def test_a_unit_and_its_abbreviations_are_one_unit(forms: list[str], one: str):
    assert {canonical(f"Keep it {form} long.") for form in forms} == {f"Keep it {one} long."}


def test_a_version_and_its_short_form_are_one_version():
    assert {canonical(f"We ship {form} today.") for form in ("v2", "version 2", "Version 2")} == {
        "We ship v2 today."
    }
    assert canonical("We ship version 2.1 today.") == "We ship v2.1 today."


@pytest.mark.parametrize(
    ("short", "word"),
    [
        ("k8s", "kubernetes"),
        ("db", "database"),
        ("DB", "database"),
        ("prod", "production"),
        ("repo", "repository"),
        ("repos", "repositories"),
        ("i18n", "internationalization"),
        ("config", "configuration"),
        ("env", "environment"),
        ("auth", "authentication"),
    ],
)
def test_a_well_known_abbreviation_reads_as_its_word(short: str, word: str):
    assert canonical(f"the {short} team") == f"the {word} team"


@pytest.mark.parametrize(
    "kept",
    [
        "4/5/2025",  # day or month first cannot be told
        "config/a.yaml",
        "the .env file",
        "db/migrations",
        "bucket prod-a",
        "config.yaml",
        "a 3D model",
        "run 5 m",  # minutes, metres or millions?
        "the 1990s",
        "1000s of users",
        "14:00:00",
        "Python 3.11",
        "port 8080",
        "32/13/2025",
        "first of all, run the tests",
        "the first of the candidates",
        "a second of delay",
    ],
)
def test_what_cannot_be_read_for_certain_is_left_as_written(kept: str):
    assert canonical(kept) == kept


@pytest.mark.parametrize(
    ("words", "value"),
    [
        ("one thousand", 1000),
        ("one thousand two hundred", 1200),
        ("two hundred thousand", 200_000),
        ("one million two thousand", 1_002_000),
        ("a hundred", 100),
        ("twenty third", 23),
        ("one two", None),
        ("thousand million", None),
        ("twelve thirteen", None),
    ],
)
def test_number_words_make_one_number_or_none(words: str, value: int | None):
    assert number(words) == value


def test_number_words_that_make_no_one_number_are_read_one_by_one():
    assert canonical("one two three") == "1 2 3"


def test_bad_input_is_returned_whole_never_an_error():
    for text in ("", "1," * 5000, "x" * 10_000, "١٢٣ 東京 Москва 🚀", "https://x.io/a?b=1,000"):
        assert isinstance(canonical(text), str)


@pytest.mark.parametrize(
    ("written", "day"),
    [
        ("rent is due on the first of every month", "rent is due on the 1 of every month"),
        ("rent is due on the 1st of each month", "rent is due on the 1 of each month"),
        ("the second of May", "the 2 of May"),
    ],
)
def test_first_and_second_of_a_month_are_days(written: str, day: str):
    assert canonical(written) == day


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("yoga on Wednesday evenings at 7.", "yoga on Wednesday evenings at 19:00."),
        ("swimming on Saturday mornings at 10", "swimming on Saturday mornings at 10:00"),
        ("we meet at 9:30 in the morning", "we meet at 9:30 in the morning"),
        ("the call is at 3 in the afternoon", "the call is at 15:00 in the afternoon"),
        ("evenings at 7 pm", "evenings at 19:00"),
    ],
)
def test_a_bare_hour_its_part_of_the_day_places_is_a_time(written: str, read: str):
    assert canonical(written) == read


@pytest.mark.parametrize("kept", ["mornings at 12", "evenings at 3", "the morning at 10.5 km"])
def test_a_bare_hour_outside_its_part_of_the_day_is_left_as_written(kept: str):
    assert canonical(kept) == kept


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("at 6:30 am, not 7.", "at 6:30, not 7:00."),
        ("at 7:30 pm instead of 7", "at 19:30 instead of 19:00"),
        ("now at 9:30 (was 9)", "now at 9:30 (was 9:00)"),
    ],
)
def test_a_bare_hour_set_against_a_time_is_a_time(written: str, read: str):
    assert canonical(written) == read


@pytest.mark.parametrize("kept", ["at 6:30, not 7 people", "8:30, not 70", "at 9:30, not 7%"])
def test_a_number_set_against_a_time_that_is_no_hour_is_left_as_written(kept: str):
    assert canonical(kept) == kept


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("The audit is due October 3.", "The audit is due 3 October."),
        ("Renewal on Feb 28th", "Renewal on 28 Feb"),
        ("Ships Jul 4, then docs.", "Ships 4 Jul, then docs."),
    ],
)
def test_a_day_of_a_month_without_its_year_is_written_day_first(written: str, read: str):
    assert canonical(written) == read


@pytest.mark.parametrize("kept", ["Pay in May 2026.", "October 40 is no day", "June 5-7"])
def test_a_month_before_a_year_or_no_day_is_left_as_written(kept: str):
    assert canonical(kept) == kept


def test_a_time_of_day_lies_in_its_part_of_the_day():
    assert in_part_of_day("morning", "9:15")
    assert in_part_of_day("evening", "19:00") and not in_part_of_day("evening", "9:00")
    assert in_part_of_day("night", "23:30") and in_part_of_day("night", "2:00")
    assert not in_part_of_day("morning", "v2") and not in_part_of_day("lunch", "12:00")


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("Choir meets the first Sunday of the month.", "Choir meets the 1 Sunday of the month."),
        ("Payroll runs on the second Friday.", "Payroll runs on the 2 Friday."),
    ],
)
def test_first_or_second_before_a_weekday_names_a_day_of_the_month(written: str, read: str):
    assert canonical(written) == read


@pytest.mark.parametrize("kept", ["Bins go out every second Thursday.", "The second release"])
def test_every_second_weekday_and_other_seconds_are_left_as_written(kept: str):
    assert canonical(kept) == kept


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("The fee is $1,200 a year.", "The fee is 1200 dollars a year."),
        ("Tickets cost €45.", "Tickets cost 45 euros."),
        ("Rent rose to £2.5k.", "Rent rose to 2500 pounds."),
        ("She has worked here for a decade.", "She has worked here for 10 year."),
        ("Reviews come round once a fortnight.", "Reviews come round once 2 week."),
    ],
)
def test_a_currency_sign_and_a_span_named_in_one_word_are_read_as_values(written: str, read: str):
    assert canonical(written) == read


@pytest.mark.parametrize("kept", ["Set $HOME first.", "echo a$5", "Decades of work"])
def test_a_sign_inside_a_word_or_a_plural_span_is_left_as_written(kept: str):
    assert canonical(kept) == kept
