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
