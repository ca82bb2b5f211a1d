"""Text as dedup and retrieval compare it: normalised words, their hash and overlap.

Pure functions with no I/O, shared by staging (exact and near dedup),
retrieval (word overlap, full-text terms) and migrations (content keys of
memories written before keys existed), so every part folds text the same way.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable

_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    """The case- and accent-form-folded words of ``text``, punctuation out."""
    # ASCII is its own NFKC form and casefolds to lower case: skip the slow path.
    folded = text.lower() if text.isascii() else unicodedata.normalize("NFKC", text).casefold()
    return _WORD.findall(folded)


_OPENING = " \t\"'([\u201c\u2018\u00ab"
_SENTENCE_END = ".!?:;\n<>"


def names(text: str) -> set[str]:
    """The folded words ``text`` writes as names: capitalised where a sentence
    does not start (after ``.!?:;``, a line break or an angle bracket, quotes
    and brackets aside), so "Which podcast did Leo recommend?" names "leo"
    and not "which"."""
    found = set()
    for match in _WORD.finditer(text):
        word = match.group()
        if word[0].isupper() and not _starts_sentence(text, match.start()):
            found.update(words(word))
    return found


def _starts_sentence(text: str, start: int) -> bool:
    at = start - 1
    while at >= 0 and text[at] in _OPENING:
        at -= 1
    return at < 0 or text[at] in _SENTENCE_END


def normalise(text: str) -> str:
    """Case-, accent-form- and punctuation-insensitive text, for exact dedup."""
    return " ".join(words(text))


def content_key(text: str) -> str:
    """The hash exact dedup matches on: equal for texts that normalise alike."""
    return hashlib.blake2b(normalise(text).encode(), digest_size=16).hexdigest()


def tokens(text: str) -> frozenset[str]:
    return frozenset(normalise(text).split())


def jaccard(a: Iterable[str], b: Iterable[str]) -> float:
    left, right = set(a), set(b)
    if not left and not right:
        return 1.0
    return len(left & right) / len(left | right)
