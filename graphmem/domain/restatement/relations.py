"""How a word of one text stands to the words of the other: said there too in
other words, its opposite, or negated by a prefix."""

from __future__ import annotations

import re
from functools import cache, lru_cache

from graphmem.domain import lexicon
from graphmem.domain.restatement.analysis import Analysis
from graphmem.domain.restatement.values import is_identifier
from graphmem.domain.restatement.words import stemmed
from graphmem.domain.values import ABBREVIATIONS, PARTS_OF_DAY, in_part_of_day


def explained(word: str, mine: Analysis, other: Analysis) -> bool:
    """A word of one text the other says too: by a synonym, a derived form
    ("allergic", "allergy"), a compound written apart ("lockfiles", "lock
    files"), or a word that changes nothing. Units are never explained: a
    second is not a minute, whatever a thesaurus says. A name has no synonym
    and is none: "Director of Product" names another title than "Product
    Manager", though a thesaurus has director for manager."""
    if word in _LIGHT_STEMS():
        return True
    if word in UNIT_STEMS():
        return False
    if _said_by_what_both_hold(word, mine, other):
        return True
    if any(joined == word for joined, _ in other.compounds) or any(
        part == word and joined in other.stems for joined, part in mine.compounds
    ):
        return True
    synonyms = frozenset() if word in mine.entities else _synonyms().get(word, frozenset())
    return any(
        (theirs in synonyms and theirs not in other.entities) or _derived(word, theirs)
        for theirs in other.stems
    )


def _said_by_what_both_hold(word: str, mine: Analysis, other: Analysis) -> bool:
    """A word that something both texts hold says already: a time of day (a
    part of the day), an identifier (a word of its parts), a version ("version")
    or a closed compound (the word opening it)."""
    return (
        _said_by_the_time(word, mine, other)
        or _in_a_shared_identifier(word, mine, other)
        or _said_by_a_version(word, mine, other)
        or _opens_a_shared_compound(word, mine, other)
    )


MIN_COMPOUND_REST = 3
"""The fewest letters a closed compound holds after the word that opens it
("docstr" after "doc"): fewer is an ending, not a second word."""


def _opens_a_shared_compound(word: str, mine: Analysis, other: Analysis) -> bool:
    """A word whose short form opens a closed compound both texts hold
    ("documented with a docstring" beside "have docstrings": doc is short for
    document): the compound names the thing by that word already. The word
    itself opening one is no proof: "The API key is in the keychain" is not
    "The API is in the keychain"."""
    forms = {s for s in _synonyms().get(word, ()) if len(s) >= 3 and word.startswith(s)}
    return any(
        len(shared) - len(form) >= MIN_COMPOUND_REST and shared.startswith(form)
        for shared in mine.stems & other.stems
        for form in forms
    )


def _said_by_the_time(word: str, mine: Analysis, other: Analysis) -> bool:
    """A part of the day that a time of day both texts hold lies in ("Saturday
    mornings at 10" beside "Saturdays at 10 am"): the time says it already."""
    part = _PARTS_OF_DAY().get(word)
    return part is not None and any(
        in_part_of_day(part, value) for value in set(mine.values) & set(other.values)
    )


_VERSION = re.compile(r"\d+(?:\.\d+)+")


def _said_by_a_version(word: str, mine: Analysis, other: Analysis) -> bool:
    """ "Version" beside a version both texts hold ("Python 3.11 is the version
    the service targets" beside "The service targets Python 3.11"): the value
    says what it is. A version is dotted digits, or a number right after a name
    in both texts ("Node 18"); "the version returns 3 results" holds none."""
    if word != "version":
        return False
    names = mine.entities | other.entities
    return any(
        _VERSION.fullmatch(value) or (_after(value, names, mine) and _after(value, names, other))
        for value in set(mine.values) & set(other.values)
    )


def _after(value: str, names: frozenset[str], read: Analysis) -> bool:
    """Whether ``value`` stands right after one of ``names`` in the text ("Node
    18"): a name either text writes as one ("Node" opening a sentence is not)."""
    items = read.sequence
    return any(
        items[i + 1] == value and items[i] in names and read.touching[i]
        for i in range(len(items) - 1)
    )


def _in_a_shared_identifier(word: str, mine: Analysis, other: Analysis) -> bool:
    """A word that a part of an identifier both texts hold says, as written or
    in full ("Database migrations live in db/migrations" beside "Migrations live
    in db/migrations"): the identifier says it already."""
    shared = [v for v in set(mine.values) & set(other.values) if is_identifier(v)]
    return any(word in _identifier_words(value) for value in shared)


@cache
def _identifier_words(value: str) -> frozenset[str]:
    """The words the parts of an identifier say, stemmed: "db/migrations" says
    database and migration."""
    parts = [p for p in re.split(r"[/._:@#+-]+", value) if p.isalpha()]
    return frozenset(stemmed(ABBREVIATIONS.get(p, p)) for p in parts)


@cache
def _DERIVED_STEMS() -> frozenset[frozenset[str]]:
    return frozenset(frozenset(stemmed(w) for w in pair) for pair in lexicon.DERIVED)


@cache
def _PARTS_OF_DAY() -> dict[str, str]:
    return {stemmed(part): part for part in PARTS_OF_DAY}


def _derived(x: str, y: str) -> bool:
    """One word derived from the other ("allergic", "allergy"; "fly", "flight")
    or cut short from it ("repo", "repository"; "docs", "documentation")."""
    if frozenset((x, y)) in _DERIVED_STEMS():
        return True
    shorter, longer = sorted((x, y), key=len)
    if len(shorter) >= 3 and longer.startswith(shorter) and len(longer) > 2 * len(shorter):
        return True
    if len(shorter) < 4 or not longer.startswith(shorter[:4]):
        return False
    common = len(_common_prefix(x, y))
    return common >= 5 and common >= 0.7 * len(shorter) and not opposite(x, y)


def _common_prefix(x: str, y: str) -> str:
    n = 0
    for p, q in zip(x, y, strict=False):
        if p != q:
            break
        n += 1
    return x[:n]


@lru_cache(maxsize=65536)
def opposite(x: str, y: str) -> bool:
    """Whether two stems are antonyms, either read as the positive of a
    comparative or superlative; cached, since every pair of words only one
    side holds is asked."""
    table = _antonyms()
    return any(frozenset((p, q)) in table for p in _base_forms(x) for q in _base_forms(y) if p != q)


_IRREGULAR = {"better": "good", "best": "good", "worse": "bad", "worst": "bad"}


def _base_forms(stem: str) -> set[str]:
    """A stem and, for a comparative or superlative, its positive ("faster",
    "fastest": "fast"; "larger": "larg"; "easier": "easy"; "bigger": "big")."""
    forms = {stem}
    if stem in _IRREGULAR:
        forms.add(_IRREGULAR[stem])
    for suffix in ("est", "er", "en"):
        if stem.endswith(suffix) and len(stem) - len(suffix) >= 3:
            base = stem[: -len(suffix)]
            if base.endswith("i"):
                base = base[:-1] + "y"
            elif len(base) > 3 and base[-1] == base[-2]:
                base = base[:-1]
            forms.update({base, stemmed(base)})
    return forms


@cache
def _antonyms() -> frozenset[frozenset[str]]:
    return frozenset(
        frozenset((stemmed(a), stemmed(b)))
        for a, b in lexicon.antonyms()
        if stemmed(a) != stemmed(b)
    )


@cache
def _synonyms() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for a, b in (*lexicon.synonyms(), *lexicon.EXTRA_SYNONYMS):
        x, y = stemmed(a), stemmed(b)
        if x != y:
            table.setdefault(x, set()).add(y)
            table.setdefault(y, set()).add(x)
    return {word: frozenset(others) for word, others in table.items()}


@cache
def _LIGHT_STEMS() -> frozenset[str]:
    return frozenset(stemmed(w) for w in lexicon.LIGHT_WORDS)


@cache
def UNIT_STEMS() -> frozenset[str]:
    return frozenset(stemmed(w) for w in lexicon.UNITS) | lexicon.UNITS


PREFIXES = ("un", "in", "im", "dis", "non")


def negated_words(a: Analysis, b: Analysis) -> list[str]:
    """Words of ``a`` that negate a word of ``b`` by a prefix ("inactivity" and
    "activity", "unable" and "able"): each counts as one negation."""
    return [
        word
        for word in a.stems - b.stems
        for prefix in PREFIXES
        if word.startswith(prefix) and word[len(prefix) :] in b.stems
    ]
