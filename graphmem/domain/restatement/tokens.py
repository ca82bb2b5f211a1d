"""A text cut into words and marks, without the framing that opens a turn."""

from __future__ import annotations

import re
from typing import NamedTuple

from graphmem.domain import lexicon
from graphmem.domain.values import PARTS_OF_DAY

_TOKEN = re.compile(
    r"(?P<word>[\w][\w.\-/:@#%+]*[\w%]|[\w]|[#/.][\w][\w.\-/:@]*)|(?P<mark>[.!?;:,&])"
)


SENTENCE_END = frozenset(".!?;:")
TITLES = lexicon.words("dr mr mrs ms mx prof st")
"""Titles written with a full stop ("Dr. Berg"): the stop ends no sentence."""


class Token(NamedTuple):
    """A word or a mark of a text (a named tuple: a text is cut into many, on
    every write, and a tuple is made faster than a frozen dataclass)."""

    text: str
    mark: bool
    """Punctuation: a sentence's end or a comma."""
    start: bool = False
    """The first word of a sentence, where a capital says nothing."""


def tokenise(text: str) -> list[Token]:
    found: list[Token] = []
    start = True
    for match in _TOKEN.finditer(text):
        if match.group("mark") == "." and found and found[-1].text.lower() in TITLES:
            continue
        if match.group("mark"):
            found.append(Token(match.group("mark"), True))
            start = start or match.group("mark") in SENTENCE_END
            continue
        raw = match.group("word")
        word = raw.rstrip(".:")
        if word:
            found.append(Token(word, False, start))
            start = False
        if word != raw:
            found.append(Token(raw[-1], True))
            start = True
    return found


def unframed(tokens: list[Token]) -> list[Token]:
    """Without the interjections that open a sentence and the name they address
    ("Thanks, Ben!", "Hey Ana!", "Oh wow,"): a turn's framing, not its content.
    A word that is also a content word ("no", "right", "great") frames only when
    punctuation follows it ("No, ..." but not "No deploys on Friday")."""
    kept: list[Token] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.mark or not token.start:
            kept.append(token)
            i += 1
            continue
        framed = i
        i = _frame_end(tokens, framed)
        if i > framed and i < len(tokens) and not tokens[i].mark:
            tokens[i] = Token(tokens[i].text, False, True)
        if i == framed:
            kept.append(token)
            i += 1
    return kept


def _frame_end(tokens: list[Token], framed: int) -> int:
    """Where the framing that opens at ``framed`` ends: past the interjections
    and the commas or "!" after them, and past the name they address; at
    ``framed`` itself when nothing there frames."""
    i = framed
    while i < len(tokens):
        word = tokens[i]
        after = tokens[i + 1] if i + 1 < len(tokens) else None
        if _frames(word, after, i > framed) or _greets(word, tokens[i + 1 : i + 3]):
            i += 1
        elif _addressee(word, after, i > framed):
            return i + 1  # the addressee: "Thanks, Ben!"
        else:
            return i
    return i


def _frames(word: Token, after: Token | None, inside: bool) -> bool:
    """An interjection, or a comma or "!" once the framing has begun."""
    if word.mark:
        return inside and word.text in {",", "!"}
    return _framing(word.text.lower(), after)


def _addressee(word: Token, after: Token | None, inside: bool) -> bool:
    """A capitalised word after the interjections, closing its clause: the
    name a greeting or thanks addresses."""
    return not word.mark and inside and word.text[:1].isupper() and (after is None or after.mark)


_TIMES_OF_DAY = frozenset(PARTS_OF_DAY)


def _greets(word: Token, after: list[Token]) -> bool:
    """A time of day opening a turn before the name it greets, which closes its
    clause ("Morning Priya!", "Evening Jules."): a greeting. Before any other
    word it is content ("Morning standups are at 9")."""
    if word.mark or word.text.lower() not in _TIMES_OF_DAY or not after:
        return False
    name, closing = after[0], after[1:]
    return _addressee(name, closing[0] if closing else None, inside=True)


_AMBIGUOUS_FRAMING = lexicon.words(
    "no yes right well so true great nice cool perfect fair sure all everyone please "
    "fantastic wonderful excellent amazing lovely brilliant awesome indeed totally "
    "absolutely exactly morning evening afternoon night later dear man"
)


def _framing(word: str, after: Token | None) -> bool:
    if word not in lexicon.INTERJECTIONS:
        return False
    return word not in _AMBIGUOUS_FRAMING or after is None or after.mark
