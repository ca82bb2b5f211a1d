"""What counts as the same failure, and the lesson derived from one (pure)."""

from __future__ import annotations

import pytest

from graphmem.domain.capsules import FailureReport, error_head, lesson_content, signature


def same(a: str, b: str, tool: str = "Bash") -> bool:
    return signature(FailureReport(error=a, tool=tool)) == signature(
        FailureReport(error=b, tool=tool)
    )


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ('File "/home/a/app.py", line 12', 'File "/srv/b/app.py", line 40'),
        ("timeout after 30.5 s", "timeout after 12 s"),
        ("at 2026-01-02T10:00:00Z: refused", "at 2027-05-06 11:12:13+02:00: refused"),
        ("object at 0x7f3a2b10 is gone", "object at 0x55aa is gone"),
        ("Build FAILED", "build failed"),
        ("ran  deploy\n\n now", "ran deploy now"),
    ],
)
def test_what_changes_between_runs_does_not_make_another_failure(a: str, b: str):
    assert same(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("No module named 'requests'", "No module named 'numpy'"),
        ("KeyError: 'column_1'", "KeyError: 'column_2'"),
        ("python3.11: not found", "python3.12: not found"),
        ("permission denied", "connection refused"),
    ],
)
def test_different_names_are_different_failures(a: str, b: str):
    assert not same(a, b)


def test_the_tool_is_part_of_the_failure():
    bash = signature(FailureReport(error="exit status 1", tool="Bash"))
    make = signature(FailureReport(error="exit status 1", tool="make"))
    assert bash != make
    assert bash == signature(FailureReport(error="exit status 1", tool="bash"))


def test_the_telling_line_of_a_traceback_is_its_last_error_line():
    traceback = 'Traceback (most recent call last):\n  File "x.py", line 1\nValueError: bad'
    assert error_head(traceback) == "ValueError: bad"
    assert error_head("\n\n  first line\nsecond") == "first line"
    assert error_head("error: " + "x" * 400).endswith("…")


def test_the_lesson_says_what_was_attempted_with_what_what_failed_and_the_fix():
    lesson = lesson_content(
        FailureReport(
            error="E   AssertionError",
            attempted="run the unit tests",
            tool="Bash",
            command="pytest -x",
            fix="pin the clock",
        )
    )
    assert lesson == (
        "Failure seen: run the unit tests (Bash) failed with: E   AssertionError "
        "Command: pytest -x Fix: pin the clock"
    )
    assert lesson_content(FailureReport(error="boom", command="make dist")) == (
        "Failure seen: running make dist failed with: boom"
    )
