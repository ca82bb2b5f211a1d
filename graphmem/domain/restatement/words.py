"""The words a text is read with: negation cues, stop words, role words, and
one form for the spellings and endings of a word."""

from __future__ import annotations

import re
from functools import lru_cache

from graphmem.domain import lexicon

NEGATIONS = frozenset(
    {"not", "no", "never", "without", "none", "nobody", "nothing", "neither", "nor", "avoid"}
)


STOP_WORDS = lexicon.words(
    """a an the and or but if then than so as of at by for from in into on onto to with within
    over under about around up down out per via between through during
    i me my mine we us our ours you your yours he him his she her hers it its they them their
    this that these those there here who whom whose which what when where why how
    is are was were be been being am do does did doing done have has had having
    will would shall should can could may might must ought
    get gets got getting let lets make makes made
    all any each every some such only just also too very really quite rather instead
    except unless
    own other same again still now new ever while whilst whether
    anything something everything anyone someone
    called name named"""
)


QUALIFIERS: dict[str, tuple[str, str]] = {
    word: (kind, meaning)
    for kind, groups in (
        (
            "quantifier",
            "all=all,every,each some=some few=few many=many most=most several=several other=other",
        ),
        (
            "modal",
            "must=must may=may might=might should=should,ought can=can could=could "
            "shall=shall will=will would=would",
        ),
        ("direction", "up=up down=down in=in out=out over=over under=under on=on off=off"),
        (
            "person",
            "i=i,me,my,mine,myself we=we,us,our,ours,ourselves you=you,your,yours,yourself "
            "he=he,him,his,himself she=she,her,hers,herself they=they,them,their,theirs,themselves",
        ),
        ("tense", "present=is,are,am past=was,were"),
        ("tense of have", "present=has,have past=had"),
        ("tense of do", "present=do,does past=did"),
        ("restriction", "only=only except=except unless=unless"),
        ("contrast", "instead=instead,rather"),
    )
    for group in groups.split()
    for meaning, members in [group.split("=")]
    for word in members.split(",")
}
"""Closed-class words, each with its class and what it means: most are stop
words (no content of their own), yet "must" is not "may", "all" not "some",
"up" not "down", "her" not "his", "was" not "is". Words of one meaning agree
("each" and "every"; "has to" and "ought to" are read as "must" and "should"
before this). "Few", "many", "most" and "several" are content words too, so
that their antonyms (few/many, most/least) still flip."""


ROLE_WORDS = lexicon.words(
    "from to into onto over than instead versus vs before after until till toward towards "
    "via by on against"
)
"""Words that give the next item a role: swapping what they bind swaps who
does what to whom ("from A to B"). Places and parts ("in", "of", "with") are
left out: "dark mode in the editor" and "the editor in dark mode" agree."""


_BRITISH = (
    (re.compile(r"(?<=[vlbmnr])our(?=[a-z]*$)"), "or"),
    (re.compile(r"(?<=[a-z]{3})is(e|es|ed|ing|ation|ations)$"), r"iz\1"),
    (re.compile(r"(?<=[a-z]{2})ys(e|es|ed|ing)$"), r"yz\1"),
)


@lru_cache(maxsize=16384)
def spelling(word: str) -> str:
    """One spelling for British and American forms (favourite, organise, analyse);
    cached, as ``stemmed`` is: every word of every text judged passes here."""
    if len(word) < 6:
        return word
    for pattern, replacement in _BRITISH:
        word = pattern.sub(replacement, word)
    return word


_SUFFIXES = ("ments", "ment", "ings", "ing", "edly", "ied", "ed", "ies", "s", "ly")
_ES_STEMS = ("sses", "xes", "ches", "shes", "zes", "oes")


@lru_cache(maxsize=16384)
def stemmed(word: str) -> str:
    """A light suffix stripper: enough that "deploys", "deployed" and "deployment" meet."""
    if word.endswith(("eed", "ees")) and len(word) > 4:
        word = word[:-1]  # agreed, agrees: agree
    word = _unsuffixed(word)
    if word.endswith("ment") and len(word) - 4 >= 3:
        word = word[:-4]  # "documented", "implementing": as "document", "implement" stem
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def _unsuffixed(word: str) -> str:
    """Without the first suffix of ``_SUFFIXES`` that leaves three letters at
    least; a final "s" after "s" is no plural ("class")."""
    for suffix in _SUFFIXES:
        if (
            word.endswith(suffix)
            and len(word) - len(suffix) >= 3
            and not (suffix == "s" and word.endswith("ss"))
        ):
            return _without(word, suffix)
    return word


def _without(word: str, suffix: str) -> str:
    """``word`` cut before ``suffix``: "-es" after a sibilant or "o" goes
    whole ("pushes": "push"), "-ies"/"-ied" leave a "y", and a doubled
    consonant before "-ing"/"-ed" is one ("stopped": "stop")."""
    if suffix == "s" and word.endswith(_ES_STEMS):
        suffix = "es"
    word = word[: -len(suffix)] + ("y" if suffix in ("ies", "ied") else "")
    if suffix in ("ing", "ings", "ed") and len(word) > 3 and word[-1] == word[-2]:
        word = word[:-1]
    return word
