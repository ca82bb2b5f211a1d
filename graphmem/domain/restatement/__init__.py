"""Is a near duplicate the same statement, a new value for it, or its opposite?

An embedding's cosine says two texts are about the same thing, not that they
say the same thing: "Always retry failed charges" and "Never retry failed
charges" score 0.97 with all-MiniLM-L6-v2, "sort ascending" and "sort
descending" 0.95, "moved from staging to prod" and "from prod to staging" 0.99.
This package reads the two texts side by side and decides:

- ``MERGE``: the same statement;
- ``SUPERSEDE``: the same subject with a new value (a number, version, date or
  identifier changed) restated by the same source;
- ``CONFLICT``: a positive sign of a contradiction: a flipped negation or
  antonym, a changed value, name or unit from another source, swapped roles,
  a closed-class word that differs where the rest agrees ("must"/"may",
  "all"/"some", "up"/"down", "her"/"his", "was"/"is", "only");
- ``DISTINCT``: anything else: kept as its own memory.

The costs are unequal. A merge drops what the new text said and a supersede
hides the old one, while a restatement left unmerged costs one duplicate that
consolidation can fold later. So a merge needs proof, not a high cosine: every
content word of each text is in the other or explained (the same stem, a
WordNet synonym, a derived form, an antonym cancelled by a negation, a word
that changes nothing such as "always"), numbers, names, units, the speaker
and the closed-class words are equal (each value read as a value by
``graphmem.domain.values``: 1,000 and 1k, 2 pm and 14:00 are one), and each
role word (from, to, than, on...) binds the same thing.
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

import math
import re
import unicodedata
from typing import Literal

from graphmem.domain.restatement.analysis import Analysis, analyse, glance
from graphmem.domain.restatement.comparison import MIN_REPEAT_WORDS, Comparison
from graphmem.domain.restatement.converse import converse
from graphmem.domain.restatement.corrections import (
    correction,
    cued,
    current,
    happened,
    reversal,
    set_aside,
    temporal_negation,
)
from graphmem.domain.restatement.verdicts import (
    DEFAULT_THRESHOLDS,
    Difference,
    Judgement,
    RestatementThresholds,
    Verdict,
    show,
)


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
    judged = _judged(new, existing, similarity, measure, same_source, thresholds)
    if judged.verdict in (Verdict.SUPERSEDE, Verdict.CONFLICT) and _asks(new, existing):
        return Judgement(
            Verdict.DISTINCT, judged.difference, f"a question asserts nothing ({judged.reason})"
        )
    return judged


def _asks(new: str, existing: str) -> bool:
    """Whether either text is a question: it neither updates nor contradicts
    what the other says ("Any news, Yuki?" beside "Any news, Omar?")."""
    return analyse(new).question or analyse(existing).question


def _judged(
    new: str,
    existing: str,
    similarity: float,
    measure: Literal["cosine", "jaccard"],
    same_source: bool,
    thresholds: RestatementThresholds | None,
) -> Judgement:
    """The verdict before a question is read as asking: see ``judge``."""
    limits = thresholds or DEFAULT_THRESHOLDS
    floor = -math.inf if measure == "jaccard" else limits.candidate_similarity
    below = Judgement(
        Verdict.DISTINCT, Difference.SIMILARITY, f"similarity {similarity:.3f} < {floor}"
    )
    if similarity < floor and (
        similarity < limits.correction_similarity or similarity < fetch_floor(new, limits)
    ):
        return below
    a, b = analyse(existing), analyse(new)
    if apart := _uncomparable(a, b):
        return apart
    if similarity < floor:
        return (
            _far(new, existing, a, b, same_source, similarity)
            or _same_values(a, b, same_source, similarity)
            or below
        )
    judged = _corrected(
        new, existing, a, b, _compared(new, a, b, same_source, similarity), same_source
    )
    judged = _vouched(judged, a, b, similarity if measure == "cosine" else math.inf)
    if judged.verdict is Verdict.DISTINCT and (
        changed := _clause_changes(new, existing, a, same_source, similarity)
    ):
        return changed
    if judged.verdict is Verdict.MERGE or (now := current(existing)) == existing:
        return judged
    return _after_correction(now, existing, b, judged, similarity, same_source)


ONE_WORD_SIMILARITY = 0.85
"""The cosine a merge needs when a text says a single content word or value."""


def _vouched(judged: Judgement, a: Analysis, b: Analysis, cosine: float) -> Judgement:
    """``judged``, or ``DISTINCT`` for a merge of a text saying one content word
    or value that the embedding does not vouch for: "Good for you!" and "Yeah,
    all good here." match their one word and mean two things, told apart by
    the small words the comparison drops (0.81); "Can't complain!" and "Can't
    complain! You?" score 0.94. Without embeddings there is no cosine to ask
    (the pair was chosen by Jaccard) and the merge stands: ``cosine`` is then
    infinite."""
    said = min(len(a.stems) + len(a.values), len(b.stems) + len(b.values))
    if judged.verdict is not Verdict.MERGE or said > 1 or cosine >= ONE_WORD_SIMILARITY:
        return judged
    return Judgement(
        Verdict.DISTINCT,
        Difference.TERM,
        f"one word said: every word matched, but similarity {cosine:.3f} < {ONE_WORD_SIMILARITY}",
    )


def _compared(
    new: str, a: Analysis, b: Analysis, same_source: bool, similarity: float
) -> Judgement:
    """The two compared word by word, or, where "before" against "after" alone
    tells them apart, with the new text said from the other end ("the ingest job finishes
    before the load starts" beside "the load starts after the ingest job
    finishes"): the same order of two events is a merge, and any other
    verdict there is the one that stands (a role swapped, words left over, a
    restriction on one side only), not the opposite that "after" read against
    "before" showed."""
    compared = Comparison(a, b, same_source)
    judged = compared.verdict(similarity)
    if not compared.ordered() or (turned := converse(new)) is None:
        return judged
    again = Comparison(a, analyse(turned), same_source).verdict(similarity)
    return Judgement(
        again.verdict, again.difference, f"said from the other end: {turned} ({again.reason})"
    )


_CLAUSES = re.compile(r"\s*;\s*|(?<=[a-z0-9)])[.!?]\s+(?=[A-Z])")


def _clause_changes(
    new: str, existing: str, a: Analysis, same_source: bool, similarity: float
) -> Judgement | None:
    """A new text of several clauses that says more than the memory, one of
    whose clauses changes it ("Maya's manager is now Daniel Okafor; Priya Shah
    moved to another team" against "Maya's manager is Priya Shah"): that
    clause's update or conflict. A clause that merely agrees decides nothing:
    the whole text still says more; one that tells what happened, or a memory
    that does, changes nothing (both hold, each at its time), and nor does a
    question or a fragment ("You?", "Good!")."""
    clauses = [c for c in _CLAUSES.split(new) if c]
    if len(clauses) < 2 or happened(existing):
        return None
    for clause in clauses:
        b = analyse(clause)
        if not _claim(clause, b) or _uncomparable(a, b) or happened(clause):
            continue
        judged = _corrected(
            clause, existing, a, b, Comparison(a, b, same_source).verdict(similarity), same_source
        )
        if judged.verdict in (Verdict.SUPERSEDE, Verdict.CONFLICT):
            return Judgement(judged.verdict, judged.difference, f"{judged.reason} (in: {clause})")
    return None


def _claim(clause: str, read: Analysis) -> bool:
    """Whether a clause says a claim of its own: no question ("How was it?"),
    and as many content words and values as a repeat needs ("Good!" is none)."""
    return not clause.rstrip().endswith("?") and (
        len(read.stems) + len(read.values) >= MIN_REPEAT_WORDS
    )


def _uncomparable(a: Analysis, b: Analysis) -> Judgement | None:
    """Distinct whatever the texts say: one has no words to compare, or two
    speakers said them (each may hold their own view)."""
    if not (a.readable and b.readable):
        side = "new" if not b.readable else "existing"
        return Judgement(
            Verdict.DISTINCT, Difference.UNREADABLE, f"the {side} text has no words to compare"
        )
    if a.speaker and b.speaker and a.speaker != b.speaker:
        return Judgement(
            Verdict.DISTINCT, Difference.SPEAKER, f"said by {a.speaker}, then by {b.speaker}"
        )
    return None


def _after_correction(
    now: str, existing: str, b: Analysis, judged: Judgement, similarity: float, same_source: bool
) -> Judgement:
    """A new text beside a correction, read against what the correction made
    current (``now``: the existing text without its aside naming the old
    value). Saying the current value again is a restatement of it (``MERGE``);
    where the whole text showed no difference but the current one does, the
    difference decides, and saying an old value of the aside again goes back
    to it; the current statement with the old value put back is flagged.
    Anything else stays as the whole text decided."""
    a_now = analyse(now)
    restated = Comparison(a_now, b, same_source).verdict(similarity)
    if restated.verdict is Verdict.MERGE:
        return Judgement(
            Verdict.MERGE, Difference.NONE, f"restates what the correction made current: {now}"
        )
    if judged.verdict is not Verdict.DISTINCT:
        return judged
    back = [old for old in set_aside(existing) if analyse(old).stems <= b.stems]
    if restated.verdict is not Verdict.DISTINCT:
        if back and restated.difference in (Difference.ENTITY, *VALUES):
            return _replaces(f"goes back to {', '.join(back)} ({restated.reason})", same_source)
        return restated
    if _set_aside_again(back, a_now, b):
        return Judgement(
            Verdict.CONFLICT,
            Difference.CORRECTION,
            f"says again what the correction set aside: {', '.join(back)} (current: {now})",
        )
    return judged


def _set_aside_again(back: list[str], now: Analysis, b: Analysis) -> bool:
    """Whether the new text is what the correction made current with the old
    value it set aside put back ("Use spaces." beside "Use tabs, not spaces."):
    every word of it is in the current statement or in that old value, and it
    sets nothing aside itself ("... rather than loading them" sets the old value
    aside as the correction does). Such a text may reverse the correction or
    contradict it: it is flagged."""
    old = frozenset().union(*(analyse(value).stems for value in back))
    contrasts = any(kind == "contrast" for kind, _, _ in b.qualifiers)
    return bool(old) and not contrasts and b.stems <= now.stems | old and bool(b.stems & now.stems)


VALUES = (Difference.NUMBER, Difference.VERSION, Difference.DATE, Difference.IDENTIFIER)
"""The kinds of a changed value."""
NOW_CHANGES = (Difference.QUALIFIER, Difference.POLARITY)
"""Differences that "now" in the new text turns into an update: the same
statement with a closed-class word or an opposite changed, said to hold now."""
_NOW = re.compile(r"\bnow\b", re.IGNORECASE)


def _far(
    new: str, existing: str, a: Analysis, b: Analysis, same_source: bool, similarity: float
) -> Judgement | None:
    """A pair under the candidate cosine: a correction naming what the existing
    text holds, or the same words with another value or name in one slot (a
    changed value) where neither tells what happened; ``None`` for anything
    else, a merge above all."""
    if found := correction(new, b, a) or reversal(new, existing, b, a):
        return _replaces(found.reason(), same_source)
    if happened(new) or happened(existing):
        return None  # two things that happened: both hold, each at its time
    compared = Comparison(a, b, same_source)
    if (slot := compared.same_frame()) is None:
        return None
    judged = compared.verdict(similarity)
    if judged.verdict not in (Verdict.SUPERSEDE, Verdict.CONFLICT) or judged.difference not in (
        Difference.ENTITY,
        *VALUES,
    ):
        return None
    old, added = slot
    reason = f"{judged.difference.value} differs: {show(old)} -> {show(added)}"
    return Judgement(judged.verdict, judged.difference, f"{reason}, similarity {similarity:.3f}")


SAME_VALUES = 2
"""The fewest values two texts under the candidate cosine must hold, the same
on both sides, for one of them to merge as a repeat of part of the other; with
one value, only every word of each matched merges."""


def _same_values(
    a: Analysis, b: Analysis, same_source: bool, similarity: float
) -> Judgement | None:
    """A pair under the candidate cosine holding the same values whose words all
    match ("The dentist appointment is Friday March 13, 14:00" beside "Maya's
    dentist appointment moved to Friday, March 13 at 2 pm", 0.68; "The Thursday
    planning meeting has been cancelled" beside "... is called off", 0.77):
    dates, times and phrases said in other words pull an embedding apart, and
    the same values with every word matched are the same statement. With fewer
    than ``SAME_VALUES`` values, a text repeating part of the other ("The vet
    visit is on Monday" beside "Rex's vet visit is on Monday") is not read as
    one: one value shared says too little of the rest. ``None`` for any other
    pair."""
    values = set(a.values)
    if not values or values != set(b.values):
        return None
    compared = Comparison(a, b, same_source)
    judged = compared.verdict(similarity)
    if judged.verdict is not Verdict.MERGE or (
        len(values) < SAME_VALUES and not compared.every_word()
    ):
        return None
    return Judgement(
        Verdict.MERGE,
        Difference.NONE,
        f"{judged.reason}; the same values ({show(sorted(values))}), similarity "
        f"{similarity:.3f} under the candidate floor",
    )


def fetch_floor(new: str, thresholds: RestatementThresholds | None = None) -> float:
    """The cosine from which a write of ``new`` has its near matches judged:
    ``candidate_similarity``, or ``correction_similarity`` for a text that names
    a value it replaces (``corrections.cued``) or holds a value or a name that
    another one could stand in place of: what it corrects is worded unlike
    it. Below the candidate floor only ``_far`` reads a pair, never a merge."""
    limits = thresholds or DEFAULT_THRESHOLDS
    if cued(new) or glance(new).named:
        return min(limits.candidate_similarity, limits.correction_similarity)
    return limits.candidate_similarity


def _replaces(reason: str, same_source: bool) -> Judgement:
    """A correction: an update from the same source, a possible contradiction
    (for review) from another."""
    changed = Verdict.SUPERSEDE if same_source else Verdict.CONFLICT
    return Judgement(changed, Difference.CORRECTION, reason)


def _corrected(
    text: str, existing: str, a: Analysis, b: Analysis, judged: Judgement, same_source: bool
) -> Judgement:
    """``judged``, unless the new text says it corrects the existing one: it
    names the old value ("switched from Y to X"), says the old statement
    stopped holding ("no longer Y"), or says "now" where the rest agrees but
    for a closed-class word or an opposite ("The cleaner now comes every
    Friday", "... every other Friday"). From the same source that is an update."""
    if judged.verdict is not Verdict.MERGE and (
        found := correction(text, b, a) or reversal(text, existing, b, a)
    ):
        return _replaces(found.reason(), same_source)
    if judged.difference in NOW_CHANGES and _NOW.search(text) and not _NOW.search(existing):
        return _replaces(f"now holds instead ({judged.reason})", same_source)
    if (
        same_source
        and judged.verdict is Verdict.CONFLICT
        and judged.difference is Difference.NEGATION
        and temporal_negation(text)
    ):
        return _replaces(f"no longer holds ({judged.reason})", same_source)
    return judged


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
    if not (readable(new) and readable(existing)):
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


def readable(text: str) -> bool:
    """Whether a text has a word to compare (not only numbers or punctuation):
    one that has none is never merged, exactly or nearly."""
    return glance(text).readable


def _plain(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(re.findall(r"\w+", folded))
