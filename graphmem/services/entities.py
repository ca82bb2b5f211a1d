"""Named entities, as the ingest-time ``same_entity`` links read them.

A simple, predictable rule rather than a model, so a person can tell why two
memories were linked. A named entity is one word (a ``\\w+`` run) of a
memory's content that is not a stop word and is

- capitalised and not the first word of a sentence: "met Alice", "moved to
  Berlin", "the LGBTQ group" (a sentence starts the text, and follows ``.``,
  ``!``, ``?``, ``:`` or a line break, so a ``speaker:`` prefix is not one);
- or an identifier: it holds an underscore (``pg_dump``), a capital after a
  lower-case letter (``GraphMem``), or letters and digits together (``S3``,
  ``v2``, and numbers written with their unit, ``30s``, ``5GB``).

Entities are compared case-folded. Numbers alone (``2023``) are not entities:
too many unrelated memories share them.
"""

from __future__ import annotations

import re
from itertools import pairwise

from graphmem.domain.analysis import STOPWORDS

MAX_ENTITIES = 8
"""Entities taken per memory, in the order they appear."""
_TOKEN = re.compile(r"\w+|[.!?:\n]")
_SENTENCE_END = frozenset(".!?:\n")


def entities(text: str) -> dict[str, str]:
    """The named entities of ``text``, first ones first: each case-folded, with
    the spelling of its first mention."""
    found: dict[str, str] = {}
    starts_sentence = True
    for token in _TOKEN.findall(text):
        if token in _SENTENCE_END:
            starts_sentence = True
            continue
        if _is_entity(token, starts_sentence):
            found.setdefault(token.casefold(), token)
            if len(found) == MAX_ENTITIES:
                break
        starts_sentence = False
    return found


def _is_entity(word: str, starts_sentence: bool) -> bool:
    folded = word.casefold()
    if folded in STOPWORDS or word.isdigit() or len(word) < 2:
        return False
    if "_" in word.strip("_"):
        return True
    has_digit = any(c.isdigit() for c in word)
    if has_digit and any(c.isalpha() for c in word):
        return True
    if any(a.islower() and b.isupper() for a, b in pairwise(word)):
        return True
    return word[0].isupper() and not starts_sentence
