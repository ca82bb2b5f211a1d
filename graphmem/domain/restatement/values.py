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
    """A file, path, variable, flag, channel, address or version string."""
    if ISO_DATE.fullmatch(token):
        return False
    if any(ch in token for ch in "_/@#") or (
        token.count("-") >= 2
        and not ISO_DATE.fullmatch(token)
        and not any(part in STOP_WORDS for part in token.split("-"))
    ):
        return True  # billing-api-v2, not brother-in-law
    if "-" in token and any(ch.isdigit() for ch in token):
        return True
    if re.fullmatch(r"[a-z]+-[a-z]", token):
        return True  # prod-a, plan-b: a letter names a variant
    if ":" in token and not VALUE.fullmatch(token):
        return True
    core = token.strip(".")
    return "." in core and not VALUE.fullmatch(core) and not core.replace(".", "").isdigit()


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
