"""Is a near duplicate the same statement, a new value for it, or its opposite?

An embedding's cosine says two texts are about the same thing, not that they
say the same thing: "Always retry failed charges" and "Never retry failed
charges" score 0.97 with all-MiniLM-L6-v2, "port 8000" and "port 9000" 0.99.
Merging on the cosine alone drops what the agent said last and counts it as
agreement. This module reads the two texts side by side and decides:

- ``MERGE``: the same statement (a restatement or paraphrase);
- ``SUPERSEDE``: the same subject with a new value (a number, version, date
  or identifier changed) restated by the same source;
- ``CONFLICT``: a flipped negation or polarity, a different named entity or
  term, or a changed value from another source: a possible contradiction;
- ``DISTINCT``: not similar enough to be either.

The signals, in order: negation cues (``not``, ``never``, ``no``, ``n't``,
``without``, ``avoid``...) and antonym pairs (allowed/forbidden,
enable/disable, accept/reject...) whose combined parity must agree (so "not
allowed" and "forbidden" still agree); numbers, versions, dates, quantities
and identifiers, extracted and compared as values; capitalised names; then a
token diff over normalised, stemmed content words. Pure (no I/O) and cheap: it
runs on every write, and the analysis of a text is cached.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class Verdict(StrEnum):
    MERGE = "merge"
    SUPERSEDE = "supersede"
    CONFLICT = "conflict"
    DISTINCT = "distinct"


class Difference(StrEnum):
    """What kind of difference decided a verdict other than ``MERGE``."""

    NONE = "none"
    SIMILARITY = "similarity"
    NEGATION = "negation"
    POLARITY = "polarity"
    NUMBER = "number"
    VERSION = "version"
    DATE = "date"
    IDENTIFIER = "identifier"
    ENTITY = "entity"
    TERM = "term"
    ORDER = "order"


VALUE_DIFFERENCES = frozenset(
    {Difference.NUMBER, Difference.VERSION, Difference.DATE, Difference.IDENTIFIER}
)
"""Differences that make a restatement by the same source an update (``SUPERSEDE``)."""


class RestatementThresholds(BaseModel):
    """The rule's numbers; ``retention_rules.yaml`` holds them under ``restatement``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    candidate_similarity: float = Field(default=0.78, ge=0.0, le=1.0)
    """Cosine at or above which a near match is judged at all; below it: ``DISTINCT``."""
    merge_overlap: float = Field(default=0.5, ge=0.0, le=1.0)
    """Share of content words (Jaccard of stems) at or above which two texts free of
    conflicting cues merge."""
    paraphrase_similarity: float = Field(default=0.885, ge=0.0, le=1.0)
    """Cosine at or above which two texts free of conflicting cues merge even with
    little word overlap (paraphrases reword freely)."""
    max_term_swap: int = Field(default=2, ge=0)
    """A diff of at most this many content words on each side, below the paraphrase
    similarity, is a swapped term (``CONFLICT``), not a rewording."""


@dataclass(frozen=True, slots=True)
class Judgement:
    verdict: Verdict
    difference: Difference
    reason: str
    """One line a person reads in the review queue or the write report."""


def judge(
    new: str,
    existing: str,
    similarity: float,
    *,
    measure: Literal["cosine", "jaccard"] = "cosine",
    same_source: bool = True,
    thresholds: RestatementThresholds | None = None,
) -> Judgement:
    """Decide what a new text is to its nearest existing memory.

    ``similarity`` is the embedding cosine of the two, or with ``measure=
    "jaccard"`` the token Jaccard used while memories have no embeddings (the
    caller's own ``dedup_jaccard`` already chose the pair, so the candidate
    floor and the paraphrase shortcut, both set for cosines, do not apply).
    ``same_source`` says whether the same agent or person wrote both, which
    turns a changed value into an update (``SUPERSEDE``) rather than a
    possible contradiction (``CONFLICT``).
    """
    limits = thresholds or DEFAULT_THRESHOLDS
    if measure == "jaccard":
        limits = limits.model_copy(
            update={"candidate_similarity": 0.0, "paraphrase_similarity": math.inf}
        )
    cosine = similarity
    if cosine < limits.candidate_similarity:
        return Judgement(
            Verdict.DISTINCT,
            Difference.SIMILARITY,
            f"similarity {cosine:.3f} < {limits.candidate_similarity}",
        )
    a, b = analyse(existing), analyse(new)
    flipped = _flipped_polarity(a, b)
    prefixed = _negated_words(a, b) + _negated_words(b, a)
    if (a.negations + b.negations + len(flipped) + len(prefixed)) % 2:
        if prefixed and not flipped:
            return Judgement(
                Verdict.CONFLICT, Difference.NEGATION, f"negated word: {', '.join(prefixed)}"
            )
        if flipped:
            pairs = ", ".join(f"{x} vs {y}" for x, y in flipped)
            return Judgement(Verdict.CONFLICT, Difference.POLARITY, f"polarity flips: {pairs}")
        cue = _cue_words(b) or _cue_words(a)
        side = "new" if b.negations % 2 else "existing"
        return Judgement(
            Verdict.CONFLICT, Difference.NEGATION, f"negation in the {side} text only: {cue}"
        )
    if a.values != b.values:
        kind = _value_kind(a.values ^ b.values)
        old, added = sorted(a.values - b.values), sorted(b.values - a.values)
        verdict = Verdict.SUPERSEDE if same_source else Verdict.CONFLICT
        return Judgement(verdict, kind, f"{kind.value} differs: {_show(old)} -> {_show(added)}")
    reversed_pairs = sorted(a.orderings & {(y, x) for x, y in b.orderings})
    if reversed_pairs:
        x, y = reversed_pairs[0]
        return Judgement(
            Verdict.CONFLICT, Difference.ORDER, f"order reversed: {x} over {y} vs {y} over {x}"
        )
    old_names = a.entities - b.stems - b.entities
    new_names = b.entities - a.stems - a.entities
    if old_names and new_names:
        return Judgement(
            Verdict.CONFLICT,
            Difference.ENTITY,
            f"named entity differs: {_show(sorted(old_names))} -> {_show(sorted(new_names))}",
        )
    negated = {w for w in prefixed}
    only_old, only_new = a.stems - b.stems - negated, b.stems - a.stems - negated
    union = len(a.stems | b.stems)
    overlap = len(a.stems & b.stems) / union if union else 1.0
    if cosine >= limits.paraphrase_similarity or (
        overlap >= limits.merge_overlap
        and not (only_old and only_new and _swapped(only_old, only_new, limits))
    ):
        return Judgement(
            Verdict.MERGE,
            Difference.NONE,
            f"same statement: similarity {cosine:.3f}, word overlap {overlap:.2f}",
        )
    if only_old and only_new and _swapped(only_old, only_new, limits):
        return Judgement(
            Verdict.CONFLICT,
            Difference.TERM,
            f"term differs: {_show(sorted(only_old))} -> {_show(sorted(only_new))}",
        )
    return Judgement(
        Verdict.DISTINCT,
        Difference.TERM,
        f"different statements: word overlap {overlap:.2f} < {limits.merge_overlap}",
    )


DEFAULT_THRESHOLDS = RestatementThresholds()


def _swapped(only_old: set[str], only_new: set[str], limits: RestatementThresholds) -> bool:
    return len(only_old) <= limits.max_term_swap and len(only_new) <= limits.max_term_swap


# -- analysis of one text ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Analysis:
    negations: int
    """Negation cues (``not``, ``never``, ``without``...) in the text."""
    cues: tuple[str, ...]
    poles: dict[str, tuple[str, int]]
    """Antonym class -> (the word, its pole +1/-1), for polar words present."""
    values: frozenset[str]
    """Numbers, versions, dates and identifiers, normalised."""
    entities: frozenset[str]
    """Capitalised names, as stems (lower case)."""
    stems: frozenset[str]
    """Content words, stemmed, without stop words, values or negation cues."""
    orderings: frozenset[tuple[str, str]]
    """(preferred, other) around "over", "than", "instead of", "versus": "tabs over
    spaces" and "spaces over tabs" hold the same words."""


_CONTRACTIONS = (
    (re.compile(r"\bcan'?t\s+stand\b"), "dislike"),
    (re.compile(r"\bcan'?t\b"), "can not"),
    (re.compile(r"\bwon'?t\b"), "will not"),
    (re.compile(r"\bshan'?t\b"), "shall not"),
    (re.compile(r"\bcannot\b"), "can not"),
    (re.compile(r"n't\b"), " not"),
    (re.compile(r"'(m|re|ve|ll|d|s)\b"), " "),
)

NEGATIONS = frozenset(
    {"not", "no", "never", "without", "none", "nobody", "nothing", "neither", "nor", "avoid"}
)


def _words(text: str) -> list[str]:
    return text.split()


_POLAR: dict[str, tuple[str, int]] = {}


def _polar(name: str, positive: str, negative: str) -> None:
    for word in _words(positive):
        _POLAR[word] = (name, 1)
    for word in _words(negative):
        _POLAR[word] = (name, -1)


_polar(
    "allow",
    "allow allows allowed permit permits permitted accept accepts accepted acceptable",
    "forbid forbids forbidden forbade disallow disallows disallowed prohibit prohibits "
    "prohibited block blocks blocked reject rejects rejected deny denies denied banned",
)
_polar("enable", "enable enables enabled", "disable disables disabled")
_polar("include", "include includes included", "exclude excludes excluded")
_polar("require", "required mandatory", "optional")
_polar("sync", "sync synchronous synchronously", "async asynchronous asynchronously")
_polar("on", "on", "off")
_polar(
    "like",
    "like likes liked love loves loved enjoy enjoys enjoyed",
    "hate hates hated dislike dislikes disliked",
)
_polar("remember", "remember remembers", "forget forgets forgot")
_polar("true", "true", "false")
_polar("before", "before", "after")
_polar("increase", "increase increases increased", "decrease decreases decreased")
_polar("add", "add adds added", "remove removes removed")
_polar("public", "public", "private")
_polar("success", "succeed succeeds succeeded success", "fail fails failed failure")
_polar("comfortable", "comfortable", "uncomfortable")
_polar("above", "above", "below")
_polar("more", "more", "less fewer")
_polar("open", "open opened", "closed")
_polar("safe", "safe", "unsafe")

_NUMBER_WORDS = {
    word: str(n)
    for n, word in enumerate(
        _words(
            "zero one two three four five six seven eight nine ten eleven twelve thirteen "
            "fourteen fifteen sixteen seventeen eighteen nineteen twenty"
        )
    )
} | {"once": "1", "twice": "2", "thirty": "30", "forty": "40", "fifty": "50", "hundred": "100"}

_MONTHS = _words(
    "january february march april june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
)
_DAYS = _words(
    "monday tuesday wednesday thursday friday saturday sunday "
    "mondays tuesdays wednesdays thursdays fridays saturdays sundays"
)
_DATE_WORDS = frozenset(_MONTHS) | frozenset(_DAYS)

STOP_WORDS = frozenset(
    _words("""a an the and or but if then than so as of at by for from in into onto to with within
    over under about around up down out per via between through during
    i me my mine we us our ours you your yours he him his she her hers it its they them their
    this that these those there here who whom whose which what when where why how
    is are was were be been being am do does did doing done have has had having
    will would shall should can could may might must need needs needed ought
    get gets got getting let lets make makes made
    all any each every some such only just also too very really quite rather
    own other same again still now new
    called name named""")
)

_COMPARATIVES = frozenset({"over", "than", "instead", "versus", "vs"})

_TOKEN = re.compile(r"[\w][\w.\-/:@#%+]*[\w%]|[\w]|[#/.][\w][\w.\-/:@]*")
_VALUE = re.compile(r"\d+(?:[.:]\d+)*")
_VERSION = re.compile(r"v\d+(?:\.\d+)*")
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_SENTENCE_END = re.compile(r"[.!?;:]\s+")


@lru_cache(maxsize=8192)
def analyse(text: str) -> Analysis:
    """The signals of one text; cached, since the existing side repeats across writes."""
    folded = unicodedata.normalize("NFKC", text).replace("\u2019", "'")
    lowered = folded.lower()
    for pattern, replacement in _CONTRACTIONS:
        lowered = pattern.sub(replacement, lowered)
    negations = 0
    cues: list[str] = []
    poles: dict[str, tuple[str, int]] = {}
    values: set[str] = set()
    stems: set[str] = set()
    sequence: list[str] = []
    for raw in _TOKEN.findall(lowered):
        token = raw.rstrip(".:")
        if not token:
            continue
        if _VERSION.fullmatch(token):
            values.add(token[1:])
            continue
        if _is_identifier(token) or _ISO_DATE.fullmatch(token):
            values.add(token)
            continue
        if any(ch.isdigit() for ch in token):
            values.update(_VALUE.findall(token))
            rest = re.sub(r"[\d.:%]+", " ", token).split()
            stems.update(_stem(w) for w in rest if w not in STOP_WORDS and w.isalpha())
            continue
        for word in token.replace("-", " ").split():
            if word in _COMPARATIVES:
                sequence.append("")
            elif word in NEGATIONS:
                negations += 1
                cues.append(word)
            elif word in _POLAR:
                name, pole = _POLAR[word]
                poles.setdefault(name, (word, pole))
            elif word in _NUMBER_WORDS:
                values.add(_NUMBER_WORDS[word])
            elif word in _DATE_WORDS or (word == "may" and _capitalised_may(folded)):
                values.add(word.rstrip("s") if word in _DAYS else word[:3])
            elif word not in STOP_WORDS:
                stem = _stem(word)
                stem = _SYNONYMS.get(stem, stem)
                stems.add(stem)
                sequence.append(stem)
    return Analysis(
        negations=negations,
        cues=tuple(cues),
        poles=poles,
        values=frozenset(values),
        entities=_entities(folded),
        stems=frozenset(stems),
        orderings=frozenset(
            (before, after)
            for before, marker, after in zip(sequence, sequence[1:], sequence[2:], strict=False)
            if not marker and before and after
        ),
    )


def _is_identifier(token: str) -> bool:
    """A file, path, variable, flag, channel, address or version string."""
    if any(ch in token for ch in "_/@#") or (
        token.count("-") >= 2 and not _ISO_DATE.fullmatch(token)
    ):
        return True
    if ":" in token and not _VALUE.fullmatch(token):
        return True
    core = token.strip(".")
    return "." in core and not _VALUE.fullmatch(core) and not core.replace(".", "").isdigit()


def _capitalised_may(text: str) -> bool:
    return re.search(r"(?<![.!?]\s)(?<!^)\bMay\b", text) is not None


def _entities(text: str) -> frozenset[str]:
    """Capitalised words: anywhere but a sentence's start, or there too unless a stop word."""
    names: set[str] = set()
    for sentence in _SENTENCE_END.split(text):
        for position, raw in enumerate(re.findall(r"[A-Za-z][\w\-]*", sentence)):
            if not raw[0].isupper():
                continue
            word = raw.lower()
            if word in STOP_WORDS or word in NEGATIONS or word in _POLAR:
                continue
            if word in _DATE_WORDS or word == "may" or word in _NUMBER_WORDS:
                continue
            if position == 0 and raw.isalpha() and raw[1:].islower() and word in _IMPERATIVES:
                continue
            names.add(_stem(word))
    return frozenset(names)


_IMPERATIVES = frozenset(
    _words("""use run keep set call pin send book remind share retry include exclude enable disable
    avoid add remove put write read check ask tell show give take go stop start please""")
)

_SYNONYMS = {
    word: group[0]
    for group in (
        ("stor", "keep", "hold", "sav"),
        ("short", "brief", "concis"),
        ("return", "respond", "respons", "reply"),
        ("start", "begin"),
        ("fix", "repair"),
        ("need", "requir"),
        ("choos", "chos", "chosen"),
    )
    for word in group
}
"""Stems that say the same in the statements an agent stores (``_stem`` forms):
a swap among them is a rewording, not a new term."""

_SUFFIXES = ("ments", "ment", "ings", "ing", "edly", "ed", "ies", "s", "ly")
_ES_STEMS = ("sses", "xes", "ches", "shes", "zes", "oes")


@lru_cache(maxsize=16384)
def _stem(word: str) -> str:
    """A light suffix stripper: enough that "deploys", "deployed" and "deployment" meet."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "s" and word.endswith("ss"):
                continue
            if suffix == "s" and word.endswith(_ES_STEMS):
                suffix = "es"
            word = word[: -len(suffix)] + ("y" if suffix == "ies" else "")
            if suffix in ("ing", "ings", "ed") and len(word) > 3 and word[-1] == word[-2]:
                word = word[:-1]
            break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def _flipped_polarity(a: Analysis, b: Analysis) -> list[tuple[str, str]]:
    return [
        (a.poles[name][0], b.poles[name][0])
        for name in a.poles.keys() & b.poles.keys()
        if a.poles[name][1] != b.poles[name][1]
    ]


_NEGATING_PREFIXES = ("un", "in", "im", "dis", "non")


def _negated_words(a: Analysis, b: Analysis) -> list[str]:
    """Words of ``a`` that negate a word of ``b`` by a prefix ("inactivity" and
    "activity", "unable" and "able"): each counts as one negation."""
    return [
        word
        for word in a.stems - b.stems
        for prefix in _NEGATING_PREFIXES
        if word.startswith(prefix) and word[len(prefix) :] in b.stems
    ]


def _cue_words(analysis: Analysis) -> str:
    return ", ".join(analysis.cues)


def _value_kind(changed: frozenset[str] | set[str]) -> Difference:
    if any(_is_identifier(v) and not re.fullmatch(r"[\d.]+", v) for v in changed):
        return Difference.IDENTIFIER
    if any(v in _DATE_WORDS or v[:3] in _MONTHS or v.rstrip("s") in _DAYS for v in changed):
        return Difference.DATE
    if any(_ISO_DATE.fullmatch(v) or re.fullmatch(r"\d{1,2}:\d{2}", v) for v in changed):
        return Difference.DATE
    if any(re.fullmatch(r"\d+\.\d+(\.\d+)*", v) for v in changed):
        return Difference.VERSION
    return Difference.NUMBER


def _show(items: list[str]) -> str:
    return ", ".join(items) if items else "(none)"
