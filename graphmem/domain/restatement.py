"""Is a near duplicate the same statement, a new value for it, or its opposite?

An embedding's cosine says two texts are about the same thing, not that they
say the same thing: "Always retry failed charges" and "Never retry failed
charges" score 0.97 with all-MiniLM-L6-v2, "sort ascending" and "sort
descending" 0.95, "moved from staging to prod" and "from prod to staging" 0.99.
This module reads the two texts side by side and decides:

- ``MERGE``: the same statement;
- ``SUPERSEDE``: the same subject with a new value (a number, version, date or
  identifier changed) restated by the same source;
- ``CONFLICT``: a positive sign of a contradiction: a flipped negation or
  antonym, a changed value, name or unit from another source, swapped roles;
- ``DISTINCT``: anything else: kept as its own memory.

The costs are unequal. A merge drops what the new text said and a supersede
hides the old one, while a restatement left unmerged costs one duplicate that
consolidation can fold later. So a merge needs proof, not a high cosine: every
content word of each text is in the other or explained (the same stem, a
WordNet synonym, a derived form, an antonym cancelled by a negation, a word
that changes nothing such as "always"), numbers, names, units and the speaker
are equal, and each role word (from, to, than, on...) binds the same thing.
A difference that is not explained and is no sign of a contradiction (a
different verb on the same object, option A and option B) makes the two
``DISTINCT``: both are kept, neither hidden.

Events (what happened or was said, at a time) are not claims: two of them
never supersede or contradict each other; they merge only when their text is
the same and they happened together (``judge_events``).

Pure (no I/O) and cheap: it runs on every write, and the analysis of a text is
cached.
"""

from __future__ import annotations

import itertools
import math
import re
import unicodedata
import warnings
from dataclasses import dataclass
from enum import StrEnum
from functools import cache, lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from graphmem.domain import lexicon


class Verdict(StrEnum):
    MERGE = "merge"
    SUPERSEDE = "supersede"
    CONFLICT = "conflict"
    DISTINCT = "distinct"


class Difference(StrEnum):
    """What kind of difference decided a verdict other than ``MERGE``."""

    NONE = "none"
    SIMILARITY = "similarity"
    UNREADABLE = "unreadable"
    SPEAKER = "speaker"
    EVENT = "event"
    NEGATION = "negation"
    POLARITY = "polarity"
    NUMBER = "number"
    VERSION = "version"
    DATE = "date"
    IDENTIFIER = "identifier"
    UNIT = "unit"
    ENTITY = "entity"
    TERM = "term"
    ADDED = "added"
    """One text says all the other says, and more: kept apart on write (the
    addition is what was said), grouped by consolidation."""
    ORDER = "order"


RETIRED = frozenset({"merge_overlap", "paraphrase_similarity", "max_term_swap"})


class RestatementThresholds(BaseModel):
    """The rule's numbers; ``retention_rules.yaml`` holds them under ``restatement``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _retired(cls, data: Any) -> Any:
        """Rules files written for the word-overlap judge still load: its numbers
        (``merge_overlap``, ``paraphrase_similarity``, ``max_term_swap``) decide
        nothing now, and are dropped with a warning rather than refused."""
        if isinstance(data, dict) and (found := RETIRED.intersection(data)):
            warnings.warn(
                f"restatement: {', '.join(sorted(found))} no longer decide anything and "
                "are ignored (a merge now needs every word matched)",
                DeprecationWarning,
                stacklevel=2,
            )
            data = {k: v for k, v in data.items() if k not in RETIRED}
        return data

    candidate_similarity: float = Field(default=0.78, ge=0.0, le=1.0)
    """Cosine at or above which a near match is judged at all; below it: ``DISTINCT``."""
    event_window_seconds: float = Field(default=60.0, ge=0.0)
    """Two events with the same text merge only when they happened at most this
    far apart (the same turn written twice); further apart, both happened."""


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
    """Decide what a new claim is to its nearest existing memory.

    ``similarity`` is the embedding cosine of the two, or with ``measure=
    "jaccard"`` the token Jaccard used while memories have no embeddings (the
    caller's own ``dedup_jaccard`` already chose the pair, so the cosine floor
    does not apply). ``same_source`` says whether the same agent or person
    wrote both, which turns a changed value into an update (``SUPERSEDE``)
    rather than a possible contradiction (``CONFLICT``).
    """
    limits = thresholds or DEFAULT_THRESHOLDS
    floor = -math.inf if measure == "jaccard" else limits.candidate_similarity
    if similarity < floor:
        return Judgement(
            Verdict.DISTINCT, Difference.SIMILARITY, f"similarity {similarity:.3f} < {floor}"
        )
    a, b = analyse(existing), analyse(new)
    if not (a.readable and b.readable):
        side = "new" if not b.readable else "existing"
        return Judgement(
            Verdict.DISTINCT, Difference.UNREADABLE, f"the {side} text has no words to compare"
        )
    if a.speaker and b.speaker and a.speaker != b.speaker:
        return Judgement(
            Verdict.DISTINCT, Difference.SPEAKER, f"said by {a.speaker}, then by {b.speaker}"
        )
    return _Comparison(a, b, same_source).verdict(similarity)


def judge_events(
    new: str,
    existing: str,
    seconds_apart: float,
    *,
    thresholds: RestatementThresholds | None = None,
) -> Judgement:
    """Two events merge only as the same turn written twice: the same words, at
    the same time. Otherwise both happened: neither replaces or contradicts the
    other ("Haha" said on Monday and on Friday is two turns)."""
    limits = thresholds or DEFAULT_THRESHOLDS
    if not (analyse(new).readable and analyse(existing).readable):
        return Judgement(Verdict.DISTINCT, Difference.UNREADABLE, "an event with no words")
    if _plain(new) != _plain(existing):
        return Judgement(Verdict.DISTINCT, Difference.EVENT, "events with different words")
    if abs(seconds_apart) > limits.event_window_seconds:
        return Judgement(
            Verdict.DISTINCT,
            Difference.EVENT,
            f"the same words {abs(seconds_apart):.0f} s apart (> "
            f"{limits.event_window_seconds:.0f} s): both happened",
        )
    return Judgement(
        Verdict.MERGE, Difference.NONE, f"the same event written twice, {seconds_apart:.0f} s apart"
    )


DEFAULT_THRESHOLDS = RestatementThresholds()
SAME_SUBJECT = 0.5
"""A flipped word, a changed value or a swap signals a contradiction or an
update only between texts sharing at least this share of their content words;
texts further apart are different statements."""


def readable(text: str) -> bool:
    """Whether a text has a word to compare (not only numbers or punctuation):
    one that has none is never merged, exactly or nearly."""
    return analyse(text).readable


def _plain(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(re.findall(r"\w+", folded))


# -- the comparison of two claims ----------------------------------------------


class _Comparison:
    """Two analyses aligned word by word: what is shared, what is explained,
    what is left over on each side."""

    def __init__(self, a: Analysis, b: Analysis, same_source: bool) -> None:
        self.a, self.b, self.same_source = a, b, same_source
        only_a, only_b = set(a.stems - b.stems), set(b.stems - a.stems)
        self.flips = sorted((x, y) for x in only_a for y in only_b if _opposite(x, y))
        flipped = {x for x, _ in self.flips} | {y for _, y in self.flips}
        self.prefixed = [w for w in _negated_words(a, b) + _negated_words(b, a) if w not in flipped]
        negated = set(self.prefixed) | {w[len(p) :] for w in self.prefixed for p in _PREFIXES}
        only_a -= flipped | negated
        only_b -= flipped | negated
        self.left = {x for x in only_a if not _explained(x, a, b)}
        self.right = {y for y in only_b if not _explained(y, b, a)}

    def verdict(self, similarity: float) -> Judgement:
        judged = self._read(similarity)
        if judged.verdict in (Verdict.CONFLICT, Verdict.SUPERSEDE) and (
            self.overlap() < SAME_SUBJECT
        ):
            return Judgement(
                Verdict.DISTINCT,
                Difference.TERM,
                f"different statements: {self.overlap():.2f} of the words shared ({judged.reason})",
            )
        return judged

    def _read(self, similarity: float) -> Judgement:
        a, b = self.a, self.b
        parity = a.negations + b.negations + len(self.flips) + len(self.prefixed)
        if parity % 2:
            return self._polarity()
        if set(a.values) != set(b.values):
            changed = set(a.values) ^ set(b.values)
            kind = _value_kind(changed)
            old = sorted(set(a.values) - set(b.values))
            added = sorted(set(b.values) - set(a.values))
            verdict = Verdict.SUPERSEDE if self.same_source else Verdict.CONFLICT
            return Judgement(verdict, kind, f"{kind.value} differs: {_show(old)} -> {_show(added)}")
        swapped = _transposed(a, b)
        if swapped:
            return Judgement(Verdict.CONFLICT, Difference.ORDER, f"roles swapped: {swapped}")
        old_names = {n for n in a.entities - b.stems - b.entities if not _explained(n, a, b)}
        new_names = {n for n in b.entities - a.stems - a.entities if not _explained(n, b, a)}
        units = (self.left | old_names) and (self.right | new_names)
        if units and (self.left | old_names | self.right | new_names) <= _UNIT_STEMS():
            return Judgement(
                Verdict.CONFLICT,
                Difference.UNIT,
                f"unit differs: {_show(sorted(self.left | old_names))} -> "
                f"{_show(sorted(self.right | new_names))}",
            )
        if old_names and new_names:
            return Judgement(
                Verdict.CONFLICT,
                Difference.ENTITY,
                f"named entity differs: {_show(sorted(old_names))} -> {_show(sorted(new_names))}",
            )
        only_old, only_new = self.left | old_names, self.right | new_names
        if bool(only_old) != bool(only_new):
            side, words = ("new", only_new) if only_new else ("existing", only_old)
            return Judgement(
                Verdict.DISTINCT,
                Difference.ADDED,
                f"the {side} text says more: {_show(sorted(words))}",
            )
        if self.left or self.right or old_names or new_names:
            return Judgement(
                Verdict.DISTINCT,
                Difference.TERM,
                f"different statements: {_show(sorted(self.left | old_names))} vs "
                f"{_show(sorted(self.right | new_names))}",
            )
        return Judgement(
            Verdict.MERGE,
            Difference.NONE,
            f"same statement: every word matched, similarity {similarity:.3f}",
        )

    def overlap(self) -> float:
        """The share of content words and values the two texts hold in common,
        an antonym pair or a changed value counting as one shared word: below
        ``SAME_SUBJECT`` they are not about the same thing, whatever word tells
        them apart."""
        a = self.a.stems | set(self.a.values)
        b = self.b.stems | set(self.b.values)
        changed = min(len(set(self.a.values) - b), len(set(self.b.values) - a))
        paired = len(self.flips) + changed
        union = len(a | b) - paired
        return (len(a & b) + paired) / union if union else 1.0

    def _polarity(self) -> Judgement:
        if self.flips:
            pairs = ", ".join(f"{x} vs {y}" for x, y in self.flips)
            return Judgement(Verdict.CONFLICT, Difference.POLARITY, f"polarity flips: {pairs}")
        if self.prefixed:
            return Judgement(
                Verdict.CONFLICT,
                Difference.NEGATION,
                f"negated word: {', '.join(self.prefixed)}",
            )
        side, cues = ("new", self.b.cues) if self.b.negations % 2 else ("existing", self.a.cues)
        return Judgement(
            Verdict.CONFLICT,
            Difference.NEGATION,
            f"negation in the {side} text only: {', '.join(cues)}",
        )


def _explained(word: str, mine: Analysis, other: Analysis) -> bool:
    """A word of one text the other says too: by a synonym, a derived form
    ("allergic", "allergy"), a compound written apart ("lockfiles", "lock
    files"), or a word that changes nothing. Units are never explained: a
    second is not a minute, whatever a thesaurus says."""
    if word in _LIGHT_STEMS():
        return True
    if word in _UNIT_STEMS():
        return False
    if any(joined == word for joined, _ in other.compounds) or any(
        part == word and joined in other.stems for joined, part in mine.compounds
    ):
        return True
    synonyms = _synonyms().get(word, frozenset())
    return any(theirs in synonyms or _derived(word, theirs) for theirs in other.stems)


def _derived(x: str, y: str) -> bool:
    """One word derived from the other ("allergic", "allergy") or cut short
    from it ("repo", "repository"; "docs", "documentation")."""
    shorter, longer = sorted((x, y), key=len)
    if len(shorter) >= 3 and longer.startswith(shorter) and len(longer) > 2 * len(shorter):
        return True
    if len(shorter) < 4 or not longer.startswith(shorter[:4]):
        return False
    common = len(_common_prefix(x, y))
    return common >= 5 and common >= 0.7 * len(shorter) and not _opposite(x, y)


def _common_prefix(x: str, y: str) -> str:
    n = 0
    for p, q in zip(x, y, strict=False):
        if p != q:
            break
        n += 1
    return x[:n]


def _opposite(x: str, y: str) -> bool:
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
            forms.update({base, _stem(base)})
    return forms


def _transposed(a: Analysis, b: Analysis) -> str:
    """Two things that traded places while the words around them stayed: "from
    HTTP to HTTPS" and "from HTTPS to HTTP", "port 8080 for staging and 9090
    for prod" and the reverse, "Ana reports to Ben" and "Ben reports to Ana".

    A role word (from, to, over, than...) binding another shared word on each
    side, or names in another order, is a swap. Beyond those, the words both
    texts hold are lined up (their longest common subsequence); what is left
    over on each side is the same words in another order only if something
    was swapped. A phrase moved whole ("Before pushing, run the
    tests", "Run the tests before pushing") leaves one word over, not two. Two
    items of a list ("React and Vite") and a change of voice ("Ben was called
    by Ana") reorder without swapping roles."""
    if a.passive != b.passive:
        return ""
    shared = set(a.sequence) & set(b.sequence)
    for role, x in sorted(a.roles):
        for other, y in sorted(b.roles):
            if (
                role == other
                and x != y
                and {x, y} <= shared
                and (role, y) not in a.roles
                and (role, x) not in b.roles
                and not (_next_to(a, x, y) or _next_to(b, x, y))
                and not (_listed(a, x, y) or _listed(b, x, y))
            ):
                return f"{role} {x} vs {role} {y}"
    names_a = [n for n in a.names if n in b.names]
    names_b = [n for n in b.names if n in a.names]
    if len(names_a) >= 2 and names_a != names_b:
        x, y = next((x, y) for x, y in zip(names_a, names_b, strict=True) if x != y)
        if not (_listed(a, x, y) or _listed(b, x, y)):
            return f"{x} and {y} traded places"
    for window in ((1, 0), (0, 1), (2, 2)):
        slots_a, slots_b = _slots(a.sequence, *window), _slots(b.sequence, *window)
        for x, y in itertools.permutations(sorted(shared), 2):
            trade = {x: y, y: x}
            if (
                slots_a[x] == tuple(trade.get(w, w) for w in slots_b[y])
                and slots_a[y] == tuple(trade.get(w, w) for w in slots_b[x])
                and slots_a[x] != slots_a[y]
                and not (_next_to(a, x, y) or _next_to(b, x, y))
                and not (_listed(a, x, y) or _listed(b, x, y))
            ):
                return f"{x} and {y} traded places"
    if len(a.values) >= 3 and _adjacent(a.values) != _adjacent(b.values):
        return f"values paired differently: {', '.join(a.values)} vs {', '.join(b.values)}"
    if not (a.passive or b.passive):
        return _around(a, b, shared)
    return ""


def _slots(sequence: tuple[str, ...], before: int, after: int) -> dict[str, tuple[str, ...]]:
    """Each item's neighbours (first occurrence): ``before`` items before it and
    ``after`` after it, "" past an end."""
    padded = ("",) * before + sequence + ("",) * after
    places: dict[str, tuple[str, ...]] = {}
    for i, entry in enumerate(sequence):
        places.setdefault(
            entry, padded[i : i + before] + padded[i + before + 1 : i + before + 1 + after]
        )
    return places


def _adjacent(values: tuple[str, ...]) -> set[frozenset[str]]:
    """Values next to each other ("June 3", "July 1"), as unordered pairs."""
    return {frozenset(pair) for pair in itertools.pairwise(values) if pair[0] != pair[1]}


def _around(a: Analysis, b: Analysis, shared: set[str]) -> str:
    """What stood before a word now stands after it, and the other way round:
    "values in .env override the defaults in config.yaml" and "the defaults in
    config.yaml override values in .env" (a subject and an object swapped)."""
    left = [w for w in a.sequence if w in shared]
    right = [w for w in b.sequence if w in shared]
    for pivot in shared:
        if left.count(pivot) != 1 or right.count(pivot) != 1:
            continue
        i, j = left.index(pivot), right.index(pivot)
        before, after = set(left[:i]), set(left[i + 1 :])
        if before and after and before == set(right[j + 1 :]) and after == set(right[:j]):
            return f"{_show(sorted(before))} and {_show(sorted(after))} swapped around {pivot}"
    return ""


def _next_to(analysis: Analysis, x: str, y: str) -> bool:
    """Words written side by side trading places reorder a phrase ("JSON
    encoded", "encoded as JSON"; "May 4th", "the 4th of May"); a swap of roles
    moves words across others, or across a role word ("from A to B")."""
    items = analysis.sequence
    return any(
        {items[i], items[i + 1]} == {x, y} and analysis.touching[i] for i in range(len(items) - 1)
    )


def _listed(analysis: Analysis, x: str, y: str) -> bool:
    """Whether ``x`` and ``y`` stand next to each other in a list ("A and B", "A, B")."""
    items = analysis.sequence
    return any(
        {items[i], items[i + 1]} == {x, y} and analysis.listed[i] for i in range(len(items) - 1)
    )


# -- analysis of one text ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Analysis:
    readable: bool
    """Has a word to compare: not only numbers or punctuation."""
    speaker: str
    """The name before a colon that opens a turn ("Ana: ..."), lower case."""
    negations: int
    """Negation cues (``not``, ``never``, ``without``...) in the text."""
    cues: tuple[str, ...]
    values: tuple[str, ...]
    """Numbers, versions, dates and identifiers, normalised, in text order."""
    entities: frozenset[str]
    """Names (capitalised words that are not ordinary words at a sentence's
    start) and acronyms, as stems."""
    stems: frozenset[str]
    """Content words, stemmed, without stop words, values or negation cues."""
    sequence: tuple[str, ...]
    """Content words and values in the order of the text."""
    touching: tuple[bool, ...]
    """For each item of ``sequence`` but the last: written right before the
    next, with no word between."""
    listed: tuple[bool, ...]
    """For each item of ``sequence`` but the last: joined to the next only by
    "and", "or" or a comma (items of a list, whose order says nothing)."""
    roles: frozenset[tuple[str, str]]
    """(role word, the item it binds): ("from", "mysql"), ("over", "composit")."""
    names: tuple[str, ...]
    """The names in the order of the text."""
    compounds: frozenset[tuple[str, str]]
    """(joined, part) for two adjacent words written apart ("lock files",
    "wi-fi"): "lockfiles" and "wifi" say the same."""
    passive: bool


_CONTRACTIONS = (
    (re.compile(r"\b(?:can'?t|cannot|can not)\s+stand\b", re.I), "dislike"),
    (re.compile(r"\bcan'?t\b", re.I), "can not"),
    (re.compile(r"\bwon'?t\b", re.I), "will not"),
    (re.compile(r"\bshan'?t\b", re.I), "shall not"),
    (re.compile(r"\bcannot\b", re.I), "can not"),
    (re.compile(r"n't\b", re.I), " not"),
    (re.compile(r"'(m|re|ve|ll|d|s)\b", re.I), " "),
)

NEGATIONS = frozenset(
    {"not", "no", "never", "without", "none", "nobody", "nothing", "neither", "nor", "avoid"}
)

_NUMBER_WORDS = {
    word: str(n)
    for n, word in enumerate(
        str.split(
            "zero one two three four five six seven eight nine ten eleven twelve thirteen "
            "fourteen fifteen sixteen seventeen eighteen nineteen twenty"
        )
    )
} | {
    "twice": "2",
    "thirty": "30",
    "forty": "40",
    "fifty": "50",
    "sixty": "60",
    "seventy": "70",
    "eighty": "80",
    "ninety": "90",
    "hundred": "100",
    "thousand": "1000",
}

_MONTHS = lexicon.words(
    "january february march april june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
)
_DAYS = lexicon.words(
    "monday tuesday wednesday thursday friday saturday sunday "
    "mondays tuesdays wednesdays thursdays fridays saturdays sundays"
)
_DATE_WORDS = frozenset(_MONTHS) | frozenset(_DAYS)

STOP_WORDS = lexicon.words(
    """a an the and or but if then than so as of at by for from in into on onto to with within
    over under about around up down out per via between through during
    i me my mine we us our ours you your yours he him his she her hers it its they them their
    this that these those there here who whom whose which what when where why how
    is are was were be been being am do does did doing done have has had having
    will would shall should can could may might must need needs needed ought
    get gets got getting let lets make makes made
    all any each every some such only just also too very really quite rather
    own other same again still now new ever while whilst whether
    anything something everything anyone someone
    called name named"""
)

ROLE_WORDS = lexicon.words(
    "from to into onto over than instead versus vs before after until till toward towards "
    "via by on against"
)
"""Words that give the next item a role: swapping what they bind swaps who
does what to whom ("from A to B"). Places and parts ("in", "of", "with") are
left out: "dark mode in the editor" and "the editor in dark mode" agree."""

_BE = lexicon.words("is are was were be been being get gets got")
_COORDINATORS = frozenset({"and", "or", "&", ","})

_TOKEN = re.compile(
    r"(?P<word>[\w][\w.\-/:@#%+]*[\w%]|[\w]|[#/.][\w][\w.\-/:@]*)|(?P<mark>[.!?;:,&])"
)
_VALUE = re.compile(r"\d+(?:[.:]\d+)*")
_VERSION = re.compile(r"v\d+(?:\.\d+)*")
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_SPEAKER = re.compile(r"^\s*([A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,2})\s*:\s+(?=\S)")
_SENTENCE_END = frozenset(".!?;:")


@lru_cache(maxsize=8192)
def analyse(text: str) -> Analysis:
    """The signals of one text; cached, since the existing side repeats across writes."""
    folded = unicodedata.normalize("NFKC", text).replace("\u2019", "'")
    speaker = ""
    if opening := _SPEAKER.match(folded):
        speaker, folded = opening.group(1).lower(), folded[opening.end() :]
    for pattern, replacement in _CONTRACTIONS:
        folded = pattern.sub(replacement, folded)
    return _read(_unframed(_tokens(folded)), speaker)


@dataclass(frozen=True, slots=True)
class _Token:
    text: str
    mark: bool
    """Punctuation: a sentence's end or a comma."""
    start: bool = False
    """The first word of a sentence, where a capital says nothing."""


def _tokens(text: str) -> list[_Token]:
    found: list[_Token] = []
    start = True
    for match in _TOKEN.finditer(text):
        if match.group("mark"):
            found.append(_Token(match.group("mark"), True))
            start = start or match.group("mark") in _SENTENCE_END
            continue
        raw = match.group("word")
        word = raw.rstrip(".:")
        if word:
            found.append(_Token(word, False, start))
            start = False
        if word != raw:
            found.append(_Token(raw[-1], True))
            start = True
    return found


def _unframed(tokens: list[_Token]) -> list[_Token]:
    """Without the interjections that open a sentence and the name they address
    ("Thanks, Ben!", "Hey Ana!", "Oh wow,"): a turn's framing, not its content.
    A word that is also a content word ("no", "right", "great") frames only when
    punctuation follows it ("No, ..." but not "No deploys on Friday")."""
    kept: list[_Token] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.mark or not token.start:
            kept.append(token)
            i += 1
            continue
        framed = i
        while i < len(tokens):
            word = tokens[i]
            after = tokens[i + 1] if i + 1 < len(tokens) else None
            if (word.mark and word.text in {",", "!"} and i > framed) or (
                not word.mark and _framing(word.text.lower(), after)
            ):
                i += 1
            elif (
                not word.mark
                and i > framed
                and word.text[:1].isupper()
                and (after is None or after.mark)
            ):
                i += 1  # the addressee: "Thanks, Ben!"
                break
            else:
                break
        if i > framed and i < len(tokens) and not tokens[i].mark:
            tokens[i] = _Token(tokens[i].text, False, True)
        if i == framed:
            kept.append(token)
            i += 1
    return kept


_AMBIGUOUS_FRAMING = lexicon.words(
    "no yes right well so true great nice cool perfect fair sure all everyone please "
    "fantastic wonderful excellent amazing lovely brilliant awesome indeed totally "
    "absolutely exactly morning evening afternoon night later dear man"
)


def _framing(word: str, after: _Token | None) -> bool:
    if word not in lexicon.INTERJECTIONS:
        return False
    return word not in _AMBIGUOUS_FRAMING or after is None or after.mark


def _read(tokens: list[_Token], speaker: str) -> Analysis:
    negations = 0
    cues: list[str] = []
    values: list[str] = []
    names: set[str] = set()
    stems: set[str] = set()
    sequence: list[str] = []
    listed: list[bool] = []
    touching: list[bool] = []
    between: list[str] = []
    """The stop words and marks since the last item of ``sequence``."""
    compounds: set[tuple[str, str]] = set()
    roles: set[tuple[str, str]] = set()
    pending: list[str] = []
    order: list[str] = []

    def item(entry: str, word: str) -> None:
        roles.update((role, entry) for role in pending)
        pending.clear()
        if sequence:
            listed.append(bool(between) and all(w in _COORDINATORS for w in between))
            touching.append(not between)
            if not between:
                joined = _stem(sequence[-1] + word) if word else ""
                compounds.update({(joined, sequence[-1]), (joined, entry)} if joined else ())
        sequence.append(entry)
        between.clear()

    for token in tokens:
        if token.mark:
            between.append(token.text)
            if token.text in _SENTENCE_END:
                pending.clear()
            continue
        lowered = token.text.lower()
        if lowered in ROLE_WORDS:
            pending.append(lowered)
        if _VERSION.fullmatch(lowered):
            values.append(lowered[1:])
            item(lowered[1:], "")
        elif _is_identifier(lowered) or _ISO_DATE.fullmatch(lowered):
            values.append(lowered)
            item(lowered, "")
        elif any(ch.isdigit() for ch in lowered):
            for number in _VALUE.findall(lowered):
                values.append(number)
                item(number, "")
            for rest in re.sub(r"[\d.:%]+", " ", lowered).split():
                if rest.isalpha() and rest not in STOP_WORDS:
                    stems.add(_stem(rest))
                    item(_stem(rest), rest)
        else:
            whole = lowered in _HYPHENATED()
            for word in [lowered] if whole else lowered.replace("-", " ").split():
                word = _spelling(word)
                if word in NEGATIONS:
                    negations += 1
                    cues.append(word)
                    between.append(word)
                elif word in _NUMBER_WORDS:
                    values.append(_NUMBER_WORDS[word])
                    item(_NUMBER_WORDS[word], "")
                elif word in _DATE_WORDS or (word == "may" and token.text == "May"):
                    if word != "may" or not token.start:
                        day = word.rstrip("s") if word in _DAYS else word[:3]
                        values.append(day)
                        item(day, "")
                elif word not in STOP_WORDS or _acronym(token.text):
                    stem = (
                        word
                        if _acronym(token.text)
                        else _stem(lexicon.IRREGULAR_VERBS.get(word, word))
                    )
                    stems.add(stem)
                    item(stem, word)
                    if _is_name(token, word):
                        names.add(stem)
                        order.append(stem)
                else:
                    between.append(word)
    return Analysis(
        readable=any(ch.isalpha() for token in tokens for ch in token.text),
        speaker=speaker,
        negations=negations,
        cues=tuple(cues),
        values=tuple(values),
        entities=frozenset(names),
        stems=frozenset(stems),
        sequence=tuple(sequence),
        touching=tuple(touching),
        listed=tuple(listed),
        roles=frozenset(roles),
        names=tuple(dict.fromkeys(order)),
        compounds=frozenset(compounds),
        passive=_passive([t.text.lower() for t in tokens if not t.mark]),
    )


_BRITISH = (
    (re.compile(r"(?<=[vlbmnr])our(?=[a-z]*$)"), "or"),
    (re.compile(r"(?<=[a-z]{3})is(e|es|ed|ing|ation|ations)$"), r"iz\1"),
    (re.compile(r"(?<=[a-z]{2})ys(e|es|ed|ing)$"), r"yz\1"),
)


def _spelling(word: str) -> str:
    """One spelling for British and American forms (favourite, organise, analyse)."""
    if len(word) < 6:
        return word
    for pattern, replacement in _BRITISH:
        word = pattern.sub(replacement, word)
    return word


def _passive(words: list[str]) -> bool:
    """A form of "be" before a participle ("was called", "is kept"): the roles
    of the names around the verb are the other way round."""
    for here, word in enumerate(words):
        if word in _BE:
            for n, later in enumerate(words[here + 1 : here + 3], start=here + 1):
                if later == "used" and words[n + 1 : n + 2] == ["to"]:
                    break  # "is used to build": active in its verb
                if later.endswith(("ed", "en")) or later in _IRREGULAR_PARTICIPLES:
                    return True
    return False


_IRREGULAR_PARTICIPLES = lexicon.words(
    "kept held run sent made built written read set put known shown given taken done "
    "seen told found left paid sold bought brought thought caught taught chosen"
)


def _is_name(token: _Token, word: str) -> bool:
    """A name: an acronym anywhere; a capitalised word inside a sentence; at a
    sentence's start, a capitalised word that is not an ordinary word."""
    text = token.text
    if _acronym(text):
        return True
    if not text[:1].isupper() or word in lexicon.INTERJECTIONS or word == "i":
        return False
    if not token.start:
        return True
    return word not in lexicon.vocabulary() and _stem(word) not in lexicon.vocabulary()


def _acronym(text: str) -> bool:
    """EU, US, UTC: a name even where the lower-case word is a stop word."""
    return len(text) >= 2 and text.isupper() and text.isalpha()


def _is_identifier(token: str) -> bool:
    """A file, path, variable, flag, channel, address or version string."""
    if _ISO_DATE.fullmatch(token):
        return False
    if any(ch in token for ch in "_/@#") or (
        token.count("-") >= 2
        and not _ISO_DATE.fullmatch(token)
        and not any(part in STOP_WORDS for part in token.split("-"))
    ):
        return True  # billing-api-v2, not brother-in-law
    if "-" in token and any(ch.isdigit() for ch in token):
        return True
    if re.fullmatch(r"[a-z]+-[a-z]", token):
        return True  # prod-a, plan-b: a letter names a variant
    if ":" in token and not _VALUE.fullmatch(token):
        return True
    core = token.strip(".")
    return "." in core and not _VALUE.fullmatch(core) and not core.replace(".", "").isdigit()


@cache
def _HYPHENATED() -> frozenset[str]:
    """Hyphenated words the lexicons know whole (opt-in, read-only)."""
    return frozenset(w for pair in lexicon.antonyms() for w in pair if "-" in w)


@cache
def _antonyms() -> frozenset[frozenset[str]]:
    return frozenset(
        frozenset((_stem(a), _stem(b))) for a, b in lexicon.antonyms() if _stem(a) != _stem(b)
    )


@cache
def _synonyms() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for a, b in (*lexicon.synonyms(), *lexicon.EXTRA_SYNONYMS):
        x, y = _stem(a), _stem(b)
        if x != y:
            table.setdefault(x, set()).add(y)
            table.setdefault(y, set()).add(x)
    return {word: frozenset(others) for word, others in table.items()}


@cache
def _LIGHT_STEMS() -> frozenset[str]:
    return frozenset(_stem(w) for w in lexicon.LIGHT_WORDS)


@cache
def _UNIT_STEMS() -> frozenset[str]:
    return frozenset(_stem(w) for w in lexicon.UNITS) | lexicon.UNITS


_SUFFIXES = ("ments", "ment", "ings", "ing", "edly", "ied", "ed", "ies", "s", "ly")
_ES_STEMS = ("sses", "xes", "ches", "shes", "zes", "oes")


@lru_cache(maxsize=16384)
def _stem(word: str) -> str:
    """A light suffix stripper: enough that "deploys", "deployed" and "deployment" meet."""
    if word.endswith(("eed", "ees")) and len(word) > 4:
        word = word[:-1]  # agreed, agrees: agree
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "s" and word.endswith("ss"):
                continue
            if suffix == "s" and word.endswith(_ES_STEMS):
                suffix = "es"
            word = word[: -len(suffix)] + ("y" if suffix in ("ies", "ied") else "")
            if suffix in ("ing", "ings", "ed") and len(word) > 3 and word[-1] == word[-2]:
                word = word[:-1]
            break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


_PREFIXES = ("un", "in", "im", "dis", "non")


def _negated_words(a: Analysis, b: Analysis) -> list[str]:
    """Words of ``a`` that negate a word of ``b`` by a prefix ("inactivity" and
    "activity", "unable" and "able"): each counts as one negation."""
    return [
        word
        for word in a.stems - b.stems
        for prefix in _PREFIXES
        if word.startswith(prefix) and word[len(prefix) :] in b.stems
    ]


def _value_kind(changed: set[str]) -> Difference:
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
