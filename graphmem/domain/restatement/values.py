"""What counts as a value (a number, version, date or identifier), and which
kind changed when two texts hold different ones. The text was read through
``graphmem.domain.values.canonical`` first, so each value has one form."""

from __future__ import annotations

import re

from graphmem.domain import lexicon
from graphmem.domain.restatement.verdicts import Difference
from graphmem.domain.restatement.words import STOP_WORDS

MONTHS = lexicon.words(
    "january february march april june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
)
DAYS = lexicon.words(
    "monday tuesday wednesday thursday friday saturday sunday "
    "mondays tuesdays wednesdays thursdays fridays saturdays sundays"
)
DATE_WORDS = frozenset(MONTHS) | frozenset(DAYS)


VALUE = re.compile(r"\d+(?:[.:]\d+)*%?")
VERSION = re.compile(r"v\d+(?:\.\d+)*")
ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def is_identifier(token: str) -> bool:
    """A file, path, variable, flag, channel, address or version string: a
    token of any of the shapes in ``_IDENTIFIER_SHAPES``, a date excepted."""
    if not _SHAPE_MARKS.search(token) or ISO_DATE.fullmatch(token):
        return False  # a plain word: every shape needs one of the marks
    return any(shape(token) for shape in _IDENTIFIER_SHAPES)


_SHAPE_MARKS = re.compile(r"[_/@#.:-]")
"""The characters one of which every identifier shape holds."""


def _marked(token: str) -> bool:
    """A character words do not hold: snake_case, a/path, @user, #channel."""
    return any(ch in token for ch in "_/@#")


def _chained(token: str) -> bool:
    """Three parts joined by hyphens, none a stop word: billing-api-v2, not
    brother-in-law."""
    return token.count("-") >= 2 and not any(part in STOP_WORDS for part in token.split("-"))


def _hyphenated_number(token: str) -> bool:
    """A hyphen and a digit: node-18, gpt-4."""
    return "-" in token and any(ch.isdigit() for ch in token)


def _variant(token: str) -> bool:
    """prod-a, plan-b: a letter names a variant."""
    return re.fullmatch(r"[a-z]+-[a-z]", token) is not None


def _colon(token: str) -> bool:
    """host:port, a key:value or an address; not a time or a ratio ("10:30")."""
    return ":" in token and not VALUE.fullmatch(token)


def _dotted(token: str) -> bool:
    """config.yaml, api.example.com: a dot inside, not a number or a version
    of digits only."""
    core = token.strip(".")
    return "." in core and not VALUE.fullmatch(core) and not core.replace(".", "").isdigit()


_IDENTIFIER_SHAPES = (_marked, _chained, _hyphenated_number, _variant, _colon, _dotted)
"""The shapes a token takes that only an identifier takes."""


def value_kind(changed: set[str]) -> Difference:
    if any(is_identifier(v) and not re.fullmatch(r"[\d.]+", v) for v in changed):
        return Difference.IDENTIFIER
    if any(v in DATE_WORDS or v[:3] in MONTHS or v.rstrip("s") in DAYS for v in changed):
        return Difference.DATE
    if any(ISO_DATE.fullmatch(v) or re.fullmatch(r"\d{1,2}:\d{2}", v) for v in changed):
        return Difference.DATE
    if any(re.fullmatch(r"\d+\.\d+(\.\d+)*", v) for v in changed):
        return Difference.VERSION
    return Difference.NUMBER
