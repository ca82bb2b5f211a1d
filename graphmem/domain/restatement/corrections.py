"""A correction says what it replaces: "switched from Y to X", "X instead of Y",
"now X (was Y)", "replaced Y with X", "X, not Y", "no longer Y".

Such a text is worded unlike what it corrects (it says more: the change), so
the word-by-word comparison reads it as a different statement and leaves both
live, and its cosine to what it corrects is often under the candidate floor
("Line length is now 120 (was 100)" against "Maximum line length is 100
characters" scores 0.65). Here the old value it names is found in the
existing memory: when the existing text holds the old value and not the new
one, and the rest of the correction is about what the existing text is about,
it is a correction of it.

Only a text that carries one of these cues (``cued``) is ever read below the
candidate floor: a plain statement that happens to share a word with another
is never taken for a correction of it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from graphmem.domain import lexicon
from graphmem.domain.restatement.analysis import Analysis, analyse
from graphmem.domain.restatement.relations import explained
from graphmem.domain.values import canonical

_PHRASE = r"(?P<{name}>[\w.@/+#:-]+(?:\s+[\w.@/+#:-]+){{0,3}}?)"
_ARTICLE = r"(?:(?:the|a|an)\s+)?"
"""An article before the old value names nothing: "instead of the 10k" replaces "10k"."""
OLD, NEW = _ARTICLE + _PHRASE.format(name="old"), _PHRASE.format(name="new")
LAST = r"(?P<new>(?:[\w.@/+#:-]+\s+){0,2}[\w.@/+#:-]+)"
"""The new value where it comes first: up to three words before the cue, of
which the fewest that are not all in the existing text are taken ("ruff format"
in "Use ruff format instead of black for formatting")."""
CLAUSE = r"(?P<old>[^.;,!?()]+)"
"""What "no longer" says stopped: the rest of its clause."""
CHANGE_VERBS = (
    r"(?:switched|switch|moved|move|migrated|migrate|changed|change|went|go|upgraded"
    r"|postponed|rescheduled|delayed|pushed)"
)
NAMED: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        rf"\b{CHANGE_VERBS}\b.*?\bfrom\s+{OLD}\s+to\s+{NEW}(?=\W|$)",
        rf"\breplaced\s+{OLD}\s+(?:with|by)\s+{NEW}(?=\W|$)",
        rf"{LAST}\s+instead\s+of\s+{OLD}(?=\W|$)",
        rf"\bnow\s+{NEW}\s*\(\s*(?:was|not|previously|formerly|before)\s+{OLD}\s*\)",
        rf"{LAST}\s*,\s*not\s+{OLD}(?=\W|$)",
    )
)
"""Where a correction names the old value and the new one."""
RESCHEDULE_VERBS = (
    r"(?:rescheduled|postponed|delayed|pushed|bumped|brought|moved|changed|updated|set|raised"
    r"|lowered|increased|reduced)"
)
MOVED_TO = re.compile(
    rf"\b{RESCHEDULE_VERBS}\b(?:\s+[\w'-]+){{0,3}}?\s+(?:to|until)\s+"
    r"(?P<new>[\w.@/+#:$%-]+(?:\s+[\w.@/+#:$%-]+){0,3})",
    re.IGNORECASE,
)
"""Where a correction gives only the new value ("rescheduled to April 15",
"changed to C-04"): the old one is the value the existing text holds in its
place."""
REPLACED_WITH = re.compile(
    r"^(?P<subject>[^.;!?]+?)\s+(?:was|were|is|are|has\s+been|have\s+been|got|gets)\s+"
    r"replaced\s+(?:with|by)\s+" + _ARTICLE + r"(?P<new>[\w.@/+#:-]+(?:\s+[\w.@/+#:-]+){0,3})",
    re.IGNORECASE,
)
"""Where a correction says that what its subject names was replaced, naming only
the new one ("Maya's work laptop was replaced with a MacBook Pro"): the old
one is the name or value the existing text gives the same subject."""
STOPPED_HOLDING = re.compile(rf"\bno\s+longer\s+{CLAUSE}", re.IGNORECASE)
"""Where a correction names what stopped holding, without a new value."""
ASIDE: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        rf"\s+instead\s+of\s+{OLD}(?=\W|$)",
        rf"\s*\(\s*(?:was|not|previously|formerly|before)\s+{OLD}\s*\)",
        rf"\s*,\s*not\s+{OLD}(?=\W|$)",
    )
)
"""The part of a correction that names only the old value: without it, the
correction says what holds now ("port 8000, not 8080": "port 8000")."""
CUE_STEMS = frozenset(
    analyse(
        "switched moved migrated changed went upgraded replaced instead now was previously "
        "formerly before longer rescheduled postponed delayed pushed bumped brought updated "
        "back again reverted returned"
    ).stems
)
"""Words of the correction itself, not of what it is about."""
ABOUT = 0.5
"""The share of the correction's other content words the existing text must hold."""


@dataclass(frozen=True, slots=True)
class Correction:
    old: str
    new: str | None
    """``None`` for "no longer Y": what holds instead is not named."""

    def reason(self) -> str:
        """The review queue's line: both values, or what stopped holding."""
        if self.new is None:
            return f"no longer holds: {self.old}"
        return f"corrects {self.old} -> {self.new}"


@lru_cache(maxsize=4096)
def cued(text: str) -> bool:
    """Whether the text names a value it replaces: the sign that lets a near
    match under the candidate cosine be read as a correction. Cached, and a
    text without one of the cue words is not scanned further: it runs on
    every write."""
    if not CUE_WORDS.search(text):
        return False
    return any(p.search(text) for p in (*NAMED, STOPPED_HOLDING, MOVED_TO, REPLACED_WITH, REVERSAL))


CUE_WORDS = re.compile(
    rf"\b(?:instead|not|now|from|replaced|longer|back|again|reverted|returned|{RESCHEDULE_VERBS})\b",
    re.IGNORECASE,
)
"""A word every cue holds: the cheap test before the phrases are matched."""
ASIDE_WORDS = re.compile(r"\b(?:instead|not|was|previously|formerly|before)\b", re.IGNORECASE)
"""A word every aside holds."""


def _named(new_text: str) -> Iterator[re.Match[str]]:
    """Each place a correction names an old and a new value, in the text as
    written, then with its values in one form (``values.canonical``), where a
    bare hour set against a time is a time ("6:30 am, not 7": "6:30, not 7:00").
    The second reading is made only once the first has named nothing that
    corrects: most corrections are found as written, and a write judges many."""
    for pattern in NAMED:
        yield from pattern.finditer(new_text)
    if (written := canonical(new_text)) != new_text:
        for pattern in NAMED:
            yield from pattern.finditer(written)


def correction(new_text: str, new: Analysis, existing: Analysis) -> Correction | None:
    """The old and new value ``new_text`` names, if it corrects ``existing``."""
    if not cued(new_text):
        return None
    held = _content(existing)
    for found in _named(new_text):
        old_stems = _content(analyse(found["old"]))
        if not _holds(existing, old_stems, analyse(found["old"])):
            continue
        for phrase in _shortest_first(
            found["new"], leading=found.start("new") < found.start("old")
        ):
            new_stems = _content(analyse(phrase))
            if not new_stems or new_stems <= held:
                continue  # the existing text holds it already: not what changed
            if not old_stems & new_stems and _about(
                new, existing, old_stems | new_stems, alone=False
            ):
                return Correction(_shown(found["old"]), _shown(phrase))
            break
    for found in STOPPED_HOLDING.finditer(new_text):
        old_stems = _content(analyse(found["old"]))
        if _holds(existing, old_stems, analyse(found["old"])) and _about(new, existing, old_stems):
            return Correction(_shown(found["old"]), None)
    return _moved(new_text, new, existing) or _replaced(new_text, new, existing)


def _replaced(new_text: str, new: Analysis, existing: Analysis) -> Correction | None:
    """What the subject names was replaced ("Maya's work laptop was replaced
    with a MacBook Pro" against "Maya's work laptop is a ThinkPad X1 Carbon"):
    the two texts share the subject's words and nothing else, and what the
    existing text holds beside them has a name or value (the old filling);
    the new filling is what follows the cue, none of it in the existing text."""
    found = REPLACED_WITH.search(new_text)
    if found is None:
        return None
    subject = _content(analyse(found["subject"]))
    held = _content(existing)
    gone = held - _content(new)
    if not subject or held - gone != subject or not gone & _fillings(existing):
        return None
    for phrase in _shortest_first(found["new"], leading=False):
        came = _content(analyse(phrase))
        if came and not came & held:
            old = dict.fromkeys(item for item in existing.sequence if item in gone)
            return Correction(", ".join(old), _shown(phrase))
    return None


def _fillings(existing: Analysis) -> frozenset[str]:
    """The names and values of a text: what fills a slot."""
    return existing.entities | frozenset(existing.values)


def _moved(new_text: str, new: Analysis, existing: Analysis) -> Correction | None:
    """A value moved ("The car service was rescheduled to April 15" against
    "The car is due for its service on April 8"): the words after the cue hold
    a value the existing text lacks, the existing text holds one the new text
    lacks, and the rest is about the same thing. A name moved the same way
    ("moved to Leipzig") is not read here: nothing says which name it replaced."""
    gone = [v for v in existing.values if v not in new.values]
    if not gone:
        return None
    for found in MOVED_TO.finditer(new_text):
        for phrase in _shortest_first(found["new"], leading=False):
            read = analyse(phrase)
            came = frozenset(v for v in read.values if v not in existing.values)
            if came and _about(new, existing, came | read.stems, alone=False):
                return Correction(", ".join(gone), _shown(phrase))
    return None


REVERSAL = re.compile(
    r"\b(?:back\s+to|back\s+(?:on|in)|again|reverted\s+to|returned\s+to)\b", re.IGNORECASE
)
"""Words that say a value held before holds again ("back to Crete", "in Redis
again", "reverted to Celery")."""


def reversal(
    new_text: str, existing_text: str, new: Analysis, existing: Analysis
) -> Correction | None:
    """A new text going back to the value a correction replaced ("The summer
    trip is back to Crete in July" against "The summer trip moved from Crete to
    Sardinia"): it says a reversal cue, names the old value of the existing
    correction and none of its new value, and the rest is about the same thing."""
    if not REVERSAL.search(new_text) or not cued(existing_text):
        return None
    said = _content(new)
    for found in _named(existing_text):
        old, came = _content(analyse(found["old"])), _content(analyse(found["new"]))
        if old and old <= said and not (came - old) & said and _about(new, existing, old):
            return Correction(_shown(found["new"]), _shown(found["old"]))
    return None


@lru_cache(maxsize=4096)
def current(text: str) -> str:
    """The text without the clause naming the old value: what a later
    restatement of the correction says ("Sessions are stored in Postgres
    instead of Redis": "Sessions are stored in Postgres")."""
    if not ASIDE_WORDS.search(text):
        return text
    for pattern in ASIDE:
        text = pattern.sub("", text)
    return text


def set_aside(text: str) -> list[str]:
    """The old values a correction names in its aside ("Redis" in "... in
    Postgres instead of Redis"): a later text that says one of them again goes
    back to it."""
    return [_shown(found["old"]) for pattern in ASIDE for found in pattern.finditer(text)]


def happened(text: str) -> bool:
    """Tells what happened, in the simple past ("the office moved to Leipzig",
    "we chose Vite"): two such texts with another value in one slot are two
    things that happened, each true at its time, not a value and its update."""
    words = re.findall(r"[a-z]+", text.casefold())
    return any(
        (_PAST.fullmatch(word) or word in lexicon.IRREGULAR_VERBS)
        and word not in _AUXILIARIES
        and (i == 0 or words[i - 1] not in _AUXILIARIES)
        for i, word in enumerate(words)
    )


_PAST = re.compile(r"[a-z]{3,}ed")
_AUXILIARIES = frozenset(
    [
        "is",
        "are",
        "am",
        "was",
        "were",
        "be",
        "been",
        "being",
        "has",
        "have",
        "had",
        "get",
        "gets",
        "got",
        "do",
        "does",
        "did",
    ]
)
"""Words before a participle that make it a state ("are pinned"), not an event."""


def temporal_negation(text: str) -> bool:
    """Says that something stopped holding ("not ... anymore", "stopped"): from
    the same source, a change rather than a contradiction."""
    return bool(STOPPED.search(text))


STOPPED = re.compile(r"\b(?:no\s+longer|any\s?more|stopped|not\s+\w+\s+any\s?more)\b", re.I)


def _holds(existing: Analysis, stems: frozenset[str], phrase: Analysis) -> bool:
    """Whether the existing text holds every word of the old value, as written
    or in a derived form ("automatic" in "run automatically")."""
    held = _content(existing)
    return bool(stems) and all(s in held or explained(s, phrase, existing) for s in stems)


def _about(new: Analysis, existing: Analysis, named: frozenset[str], *, alone: bool = True) -> bool:
    """Whether the rest of the correction is about what ``existing`` is about:
    at least ``ABOUT`` of its other content words are there, and some are, unless
    (``alone``) the named words already are two or more."""
    rest = _content(new) - named - CUE_STEMS
    shared = rest & _content(existing)
    if not rest:
        return alone and len(named) >= 2
    return bool(shared) and len(shared) >= ABOUT * len(rest)


def _shortest_first(phrase: str, *, leading: bool) -> list[str]:
    """The readings of a new value, fewest words first: the words nearest the
    cue (the last ones when the value comes before it)."""
    words = phrase.split()
    if leading:
        return [" ".join(words[-n:]) for n in range(1, len(words) + 1)]
    return [" ".join(words[:n]) for n in range(1, len(words) + 1)]


def _shown(phrase: str) -> str:
    return phrase.strip().rstrip(".,;:!?")


def _content(analysis: Analysis) -> frozenset[str]:
    """Content words and values: what a correction and its target share."""
    return analysis.stems | frozenset(analysis.values)
