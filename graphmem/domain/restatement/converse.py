"""The same order of two events said from the other end: "the load starts
after the ingest finishes" is "the ingest finishes before the load starts".
Read word by word, "after" against "before" is an opposite and the two would
be flagged; read as the converse, they are one statement."""

from __future__ import annotations

import re

from graphmem.domain.restatement.phrases import rewritten
from graphmem.domain.restatement.words import STOP_WORDS

_CONVERSE = {"before": "after", "after": "before"}
_SPLIT = re.compile(r"^(?P<p>[^,;:.!?]*\w)\s+(?P<c>before|after)\s+(?P<q>\w[^,;:.!?]*?)\s*[.!]?$")


def converse(text: str) -> str | None:
    """``text`` said from the other end ("P before Q": "Q after P"), when it is
    one clause with one "before" or "after" between two parts of two words or
    more (a clause each: "P" and "Q" happen in that order); ``None`` otherwise,
    "before pushing" and "after lunch" included: a connective there binds no
    clause, and its converse would be no sentence."""
    text = rewritten(text).strip()  # "once the tests pass": "after the tests pass"
    found = _SPLIT.match(text)
    if found is None or len(re.findall(r"\b(?:before|after)\b", text, re.IGNORECASE)) != 1:
        return None
    p, q = found["p"], found["q"]
    if len(p.split()) < 2 or len(q.split()) < 2:
        return None
    return f"{_opening(q)} {_CONVERSE[found['c'].lower()]} {_inside(p)}."


def _opening(part: str) -> str:
    """``part`` as a sentence's start: its first letter capitalised."""
    return part[:1].upper() + part[1:]


def _inside(part: str) -> str:
    """``part`` inside a sentence: a first stop word in lower case ("The ingest
    job": "the ingest job"); any other first word as written, a name ("Bob
    leaves", though "bob" is a word too) or not ("Nightly ..." then reads as a
    name, and the two are kept apart rather than a name lost)."""
    first = part.split()[0]
    if first.lower() in STOP_WORDS:
        return first.lower() + part[len(first) :]
    return part
