"""A correction says what it replaces: "switched from Y to X", "X instead of Y",
"now X (was Y)", "replaced Y with X", "X, not Y", "no longer Y".

Such a text is worded unlike what it corrects (it says more: the change), so
the word-by-word comparison reads it as a different statement and leaves both
live. Here the old value it names is found in the existing memory: when the
existing text holds the old value and not the new one, and the rest of the
correction is about what the existing text is about, it is a correction of it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphmem.domain.restatement.analysis import Analysis, analyse

_PHRASE = r"(?P<{name}>[\w.@/+#-]+(?:\s+[\w.@/+#-]+){{0,3}}?)"
OLD, NEW = _PHRASE.format(name="old"), _PHRASE.format(name="new")
LAST = r"(?P<new>[\w.@/+#-]+)"
"""The new value where it comes first: the one word before the cue (the match
starts at the leftmost place it can, so a longer phrase would take the subject)."""
CHANGE_VERBS = r"(?:switched|switch|moved|move|migrated|migrate|changed|change|went|go|upgraded)"
PATTERNS: tuple[re.Pattern[str], ...] = tuple(
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
CUE_STEMS = frozenset(
    analyse(
        "switched moved migrated changed went upgraded replaced instead now was previously "
        "formerly before"
    ).stems
)
"""Words of the correction itself, not of what it is about."""
ABOUT = 0.5
"""The share of the correction's other content words the existing text must hold."""


@dataclass(frozen=True, slots=True)
class Correction:
    old: str
    new: str


def correction(new_text: str, new: Analysis, existing: Analysis) -> Correction | None:
    """The old and new value ``new_text`` names, if it corrects ``existing``."""
    for pattern in PATTERNS:
        for found in pattern.finditer(new_text):
            old_words, new_words = analyse(found["old"]), analyse(found["new"])
            old_stems, new_stems = _content(old_words), _content(new_words)
            if not old_stems or not new_stems or old_stems & new_stems:
                continue
            if not old_stems <= _content(existing) or new_stems <= _content(existing):
                continue
            rest = _content(new) - old_stems - new_stems - CUE_STEMS
            shared = rest & _content(existing)
            if shared and len(shared) >= ABOUT * len(rest):
                return Correction(_shown(found["old"]), _shown(found["new"]))
    return None


def _shown(phrase: str) -> str:
    return phrase.strip().rstrip(".,;:!?")


def temporal_negation(text: str) -> bool:
    """Says that something stopped holding ("no longer", "not ... anymore",
    "stopped"): from the same source, a change rather than a contradiction."""
    return bool(STOPPED.search(text))


STOPPED = re.compile(r"\b(?:no\s+longer|any\s?more|stopped|not\s+\w+\s+any\s?more)\b", re.I)


def _content(analysis: Analysis) -> frozenset[str]:
    """Content words and values: what a correction and its target share."""
    return analysis.stems | frozenset(analysis.values)
