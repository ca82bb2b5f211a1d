"""Phrases that say what one word says, read as that word before a text is
cut into words: a verb with its particle ("backed up": backup; "pushed back":
postponed), "would rather" (prefer), "would like" (want), "in charge of"
(leading), "once" opening a clause (after) and the passive of "use" before
what it is used for. Without them each phrase is words the other text lacks,
and two texts saying the same thing stay apart."""

from __future__ import annotations

import re
from functools import cache

from graphmem.domain import lexicon

_SIBILANT = ("s", "sh", "ch", "x", "z", "o")


def inflected(verb: str) -> dict[str, str]:
    """The forms of a regular English verb by their name (``base``, ``s``,
    ``past``, ``ing``): "postpone", "postpones", "postponed", "postponing".
    Past forms of ``lexicon.IRREGULAR_VERBS`` and ``lexicon.PAST_SAME`` are
    left to ``_pasts``; this says how a target word is written in each form."""
    stem_y = verb.endswith("y") and verb[-2:-1] not in "aeiou"
    third = verb[:-1] + "ies" if stem_y else verb + ("es" if verb.endswith(_SIBILANT) else "s")
    if verb.endswith("e"):
        past, ing = verb + "d", verb[:-1] + "ing"
    else:
        past, ing = (verb[:-1] + "ied" if stem_y else verb + "ed"), verb + "ing"
    return {"base": verb, "s": third, "past": past, "ing": ing}


def _pasts(verb: str) -> list[str]:
    """How the past of ``verb`` is written: its irregular forms ("found"),
    the base itself ("put", "set"), or the regular form."""
    irregular = [form for form, base in lexicon.IRREGULAR_VERBS.items() if base == verb]
    if irregular:
        return irregular
    return [verb] if verb in lexicon.PAST_SAME else [inflected(verb)["past"]]


def _forms(verb: str) -> dict[str, str]:
    """Every written form of ``verb`` to the name of its form; a verb whose past
    is its base doubles its consonant before "-ing" ("putting")."""
    regular = inflected(verb)
    forms = {regular["base"]: "base", regular["s"]: "s"}
    forms.update(dict.fromkeys(_pasts(verb), "past"))
    forms[verb + verb[-1] + "ing" if verb in lexicon.PAST_SAME else regular["ing"]] = "ing"
    return forms


@cache
def _PHRASAL() -> dict[str, str]:
    """ "pushed back": "postponed", for every form of every phrasal verb."""
    table = {}
    for verb, particle, word in lexicon.PHRASAL_VERBS:
        target = inflected(word)
        for form, name in _forms(verb).items():
            table[f"{form} {particle}"] = target[name]
    return table


@cache
def _PHRASAL_PATTERN() -> re.Pattern[str]:
    phrases = sorted(_PHRASAL(), key=len, reverse=True)
    return re.compile(
        r"\b(?:" + "|".join(p.replace(" ", r"\s+") for p in phrases) + r")\b", re.IGNORECASE
    )


_REWRITES = (
    (re.compile(r"(?:\s+would\s+|'d\s+)rather\b", re.IGNORECASE), " prefer", ("rather",)),
    (re.compile(r"(?:\s+would\s+|'d\s+)like\b", re.IGNORECASE), " want", ("like",)),
    (re.compile(r"\bin\s+charge\s+of\b", re.IGNORECASE), "leading", ("charge",)),
    (
        re.compile(
            r"\bonce(?=\s+(?:the|it|we|you|they|he|she|i|this|that|its|our|their|your|my"
            r"|\w{3,}ed)\b)",
            re.IGNORECASE,
        ),
        "after",
        ("once",),
    ),
    (
        re.compile(
            r"\b((?:is|are|be|been|being|was|were)\s+)used\s+(?=to\s+(?!\w+ing\b)\w|for\b|as\b)",
            re.IGNORECASE,
        ),
        r"\1",
        ("used",),
    ),
)
"""Each with the word it says: "would rather" (or "'d rather") prefers, "would
like" wants, "in charge of" is leading, "once" before a clause ("once the tests
pass", "once merged") is "after" (not "once a day"), and "is used to build" or
"is used for" is what "builds"/"is for" say (the passive of "use"; "used to"
after anything else, a past habit, stays)."""

_PARTICLES = frozenset(particle for _, particle, _ in lexicon.PHRASAL_VERBS)


def rewritten(text: str) -> str:
    """``text`` with each phrase of this module written as its one word."""
    lowered = text.lower()
    if any(particle in lowered for particle in _PARTICLES):
        text = _PHRASAL_PATTERN().sub(
            lambda m: _PHRASAL()[" ".join(m.group(0).lower().split())], text
        )
    return substituted(text, _REWRITES, lowered)


Rule = tuple[re.Pattern[str], str, tuple[str, ...]]
"""A pattern, what it is written as, and words in lower case one of which any
text it matches holds: without them the pattern is not tried."""


def substituted(text: str, rules: tuple[Rule, ...], lowered: str | None = None) -> str:
    """``text`` with each rule applied in turn, where a word it needs is there:
    a text read on every write holds few of them, and looking for a word costs
    far less than trying a pattern. ``lowered`` is ``text`` in lower case, when
    known."""
    lowered = text.lower() if lowered is None else lowered
    for pattern, replacement, needs in rules:
        for word in needs:
            if word in lowered:
                changed = pattern.sub(replacement, text)
                if changed != text:
                    text, lowered = changed, changed.lower()
                break
    return text
