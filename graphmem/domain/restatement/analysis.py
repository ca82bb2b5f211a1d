"""The signals of one text the judge compares: its content words, values,
names, negations, and which word binds which."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from enum import Enum
from functools import cache, lru_cache

from graphmem.domain import lexicon
from graphmem.domain.restatement.phrases import rewritten, substituted
from graphmem.domain.restatement.tokens import SENTENCE_END, Token, tokenise, unframed
from graphmem.domain.restatement.values import (
    DATE_WORDS,
    DAYS,
    ISO_DATE,
    VALUE,
    VERSION,
    is_identifier,
)
from graphmem.domain.restatement.words import (
    NEGATIONS,
    QUALIFIERS,
    ROLE_WORDS,
    STOP_WORDS,
    spelling,
    stemmed,
)
from graphmem.domain.values import NUMBER_WORDS, canonical


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
    imperative: bool = False
    """Opens with a command ("Never commit secrets", "Use the pool"): a rule
    without "must", saying what "X must ..." says."""
    qualifiers: tuple[tuple[str, str, str], ...] = ()
    """(class, meaning, word) of each closed-class word (``words.QUALIFIERS``):
    ("modal", "must", "must"), ("quantifier", "all", "each")."""
    copula: int | None = None
    """Where an identity's one "is" splits ``sequence`` ("Maya's partner | is
    Tom"): the number of items before it; ``None`` for any other text."""
    question: bool = False
    """Every sentence of it ends with "?": it asks, and asserts nothing."""
    obliged: frozenset[str] = frozenset()
    """Verbs a rule puts in the passive after "must be" or "should be" ("Secrets
    must be rotated": rotate), stemmed."""
    opening: str = ""
    """The first word, stemmed, when it is a content word: the verb of a command
    ("Rotate secrets")."""
    addressed: frozenset[str] = frozenset()
    """Names called out after a comma at the end of an exclamation ("I'm so
    happy for you, Ben!"): who is spoken to, not what is said."""
    place: int = 0
    """How many items at the end of ``sequence`` follow the text's last "in",
    "at" or "on" ("main() is the entry point | in cli.py": 1): where the
    statement holds, which an identity read either way leaves where it is."""


_CONTRACTIONS = (
    (re.compile(r"\b(?:can'?t|cannot|can not)\s+stand\b", re.I), "dislike", ("stand",)),
    (re.compile(r"\b(?:can'?t|cannot|can not)\s+wait\b", re.I), "eager", ("wait",)),
    (
        re.compile(r"\b(?:not\s+only|never\s+mind|no\s+worries|no\s+problem)\b", re.I),
        " ",
        ("only", "mind", "worries", "problem"),
    ),
    (re.compile(r"\bno\s+(?:more|later|higher|longer)\s+than\b", re.I), "at most", ("than",)),
    (
        re.compile(r"\bno\s+(?:fewer|less|earlier|lower|shorter)\s+than\b", re.I),
        "at least",
        ("than",),
    ),
    (re.compile(r"\bcan'?t\b", re.I), "can not", ("can",)),
    (re.compile(r"\bwon'?t\b", re.I), "will not", ("won",)),
    (re.compile(r"\bshan'?t\b", re.I), "shall not", ("shan",)),
    (re.compile(r"\bcannot\b", re.I), "can not", ("cannot",)),
    (re.compile(r"n't\b", re.I), " not", ("n't",)),
    (re.compile(r"'m\b", re.I), " am", ("'m",)),
    (re.compile(r"'re\b", re.I), " are", ("'re",)),
    (re.compile(r"'ve\b", re.I), " have", ("'ve",)),
    (re.compile(r"'ll\b", re.I), " will", ("'ll",)),
    (re.compile(r"'(d|s)\b", re.I), " ", ("'d", "'s")),
    (re.compile(r"\b(?:has|have|having) to\b", re.I), "must", ("has to", "have to", "having to")),
    (re.compile(r"\b(?:(?:is|are|am|be)\s+)?able\s+to\b", re.I), "can", ("able",)),
    (re.compile(r"\b(?:was|were)\s+able\s+to\b", re.I), "could", ("able",)),
    (re.compile(r"\bought\s+to\b", re.I), "should", ("ought",)),
    (re.compile(r"\brather\s+than\b", re.I), "instead of", ("rather",)),
    (re.compile(r"\bat\s+all\b", re.I), "", ("all",)),
)
"""Contractions written out, set phrases whose "not", "no" or "never" negates
nothing ("can't wait", "not only", "no worries"), and the phrases that say what one closed-class
word says ("has to": "must"; "is able to": "can"; "rather than": "instead
of"). A "'s" or "'d" is dropped: "is" or "has", "would" or "had" cannot be
told apart. Each is tried only in a text holding one of the words it needs,
in lower case (``phrases.substituted``): most texts hold none, and a write
reads every text it compares."""


_CONTRAST = re.compile(r"(?P<head>[^,;.!?]*\w)\s*,\s+not\s+(?=\w)", re.IGNORECASE)


def _contrasted(found: re.Match[str]) -> str:
    """ "X, not Y" after a clause of two words or more says what "X instead of
    Y" says ("Use httpx, not requests"): Y is set against X, the statement is
    not negated. After an interjection ("Honestly, not bad") it negates."""
    words = found["head"].split()
    if len(words) < 2 or words[-1].lower() in lexicon.INTERJECTIONS:
        return found.group(0)
    return f"{found['head']} instead of "


_REPEATED = re.compile(r"\b(\w+(?:\s+\w+){0,3})(?:\s*,\s*\1\b)+", re.IGNORECASE)
"""A phrase said again right after a comma, for emphasis ("Not bad, not bad",
"no, no"): said once. Read twice, its "not" would count twice and undo itself."""


_BE = lexicon.words("is are was were be been being get gets got")
_COORDINATORS = frozenset({"and", "or", "but", "&", ","})
"""What joins items whose order says nothing: "React and Vite", "busy but good"."""


_SPEAKER = re.compile(r"^\s*([A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,2})\s*:\s+(?=\S)")


_GLOSS = re.compile(r"\s*\((?P<short>[A-Z][A-Za-z]{1,5})\)")


def _unglossed(text: str) -> str:
    """``text`` without each acronym in brackets that spells the initials of
    the words right before it ("personally identifiable information (PII)",
    "time to live (TTL)"): the acronym names them again, and says nothing they
    do not. Any other bracket ("(TLS)" after "time to live") stays."""
    kept, last = [], 0
    for found in _GLOSS.finditer(text):
        if _spells(found["short"], text[last : found.start()]):
            kept.append(text[last : found.start()])
            last = found.end()
    return "".join(kept) + text[last:] if kept else text


def _spells(short: str, before: str) -> bool:
    """Whether ``short`` (a plural's "s" aside: "CDNs") is the initials of the
    last words of ``before``, one word a letter."""
    if short.endswith("s") and short[:-1].isupper():
        short = short[:-1]
    words = re.split(r"[\s-]+", before[-24 * len(short) :].strip())
    initials = "".join(word[:1] for word in words[-len(short) :]).lower()
    return len(short) >= 2 and len(words) >= len(short) and initials == short.lower()


_FRONTED = re.compile(
    r"^(?P<phrase>(?:in|at|on|inside|within)\s+(?:[^,;.!?]|\.(?=\w)){1,40}?),\s+"
    r"(?P<rest>(?:[^,;.!?]|\.(?=\w))+?)(?P<end>[.!]?)\s*$",
    re.IGNORECASE,
)


def _fronted(text: str) -> str:
    """A one-clause text opening with where it holds ("In cli.py, main() is the
    entry point") with that phrase put at its end ("main() is the entry point
    in cli.py"), where it stands in the same statement said plainly: a phrase
    moved whole is no role swapped."""
    found = _FRONTED.match(text)
    if found is None:
        return text
    phrase = found["phrase"]
    return f"{found['rest']} {phrase[:1].lower()}{phrase[1:]}{found['end']}"


@lru_cache(maxsize=8192)
def analyse(text: str) -> Analysis:
    """The signals of one text; cached, since the existing side repeats across writes."""
    tokens, speaker = _tokens(text)
    return _read(list(tokens), speaker)


@dataclass(frozen=True, slots=True)
class Glance:
    """What a write asks of every new text before it has a near match to judge:
    a text with no word to compare is stored as it is, and one holding a value
    or a name has its near matches read from a lower cosine."""

    readable: bool
    """As ``Analysis.readable``."""
    named: bool
    """Holds a value or a name: ``Analysis.values`` or ``Analysis.entities``."""


@lru_cache(maxsize=8192)
def glance(text: str) -> Glance:
    """``Glance`` of a text, from its tokens alone: most writes have no near
    match, and reading every word's role, order and binding (``analyse``) is
    left to the texts judged. The tokens are cached for ``analyse``."""
    tokens, _ = _tokens(text)
    words = [token for token in tokens if not token.mark]
    return Glance(
        readable=any(ch.isalpha() for token in words for ch in token.text),
        named=any(_telling(token) for token in words),
    )


def _telling(token: Token) -> bool:
    """Whether ``_Reader.read`` would read a value or a name in the token."""
    lowered = token.text.lower()
    if lowered.isalpha():
        return _telling_word(token, spelling(lowered))
    if VERSION.fullmatch(lowered) or is_identifier(lowered) or ISO_DATE.fullmatch(lowered):
        return True
    if any(ch.isdigit() for ch in lowered):
        return bool(VALUE.findall(lowered))
    parts = [lowered] if lowered in _HYPHENATED() else lowered.replace("-", " ").split()
    return any(_telling_word(token, spelling(word)) for word in parts)


def _telling_word(token: Token, word: str) -> bool:
    """Whether ``_Reader._word`` would read the word as a value or a name."""
    if token.text == "None" and not token.start:
        return False  # the code literal: a content word, no name
    _, kind, _, name = _reading(token.text, token.start, word)
    return kind is _Kind.VALUE or (kind is _Kind.CONTENT and name)


def forget_texts() -> None:
    """Forget every text read (``analyse``, ``glance`` and the tokens behind
    both), keeping what is known of single words: a benchmark reads texts as a
    server reads new writes this way."""
    analyse.cache_clear()
    glance.cache_clear()
    _tokens.cache_clear()


@lru_cache(maxsize=8192)
def _tokens(text: str) -> tuple[tuple[Token, ...], str]:
    """The tokens of a text with its framing left out, and its speaker ("Ana:
    ..."), after the phrases, contractions and values have each been written
    one way; cached for ``analyse`` and ``glance`` both."""
    folded = unicodedata.normalize("NFKC", text).replace("\u2019", "'")
    speaker = ""
    if opening := _SPEAKER.match(folded):
        speaker, folded = opening.group(1).lower(), folded[opening.end() :]
    if "," in folded:
        folded = _REPEATED.sub(r"\1", folded)
    if ", not" in folded.lower():
        folded = _CONTRAST.sub(_contrasted, folded)
    if "(" in folded:
        folded = _unglossed(folded)
    folded = substituted(rewritten(_fronted(folded)), _CONTRACTIONS)
    return tuple(unframed(tokenise(canonical(folded)))), speaker


def _read(tokens: list[Token], speaker: str) -> Analysis:
    """One pass over the tokens, in text order: how two items join depends on
    what stood between them, so each token is read after the one before."""
    reader = _Reader()
    for token in tokens:
        reader.read(token)
    return reader.analysis(tokens, speaker)


@dataclass(slots=True)
class _Reader:
    """What has been read of a text so far, and the words since its last item,
    which say how the next item joins it (touching, listed, bound by a role
    word)."""

    negations: int = 0
    cues: list[str] = field(default_factory=list)
    values: list[str] = field(default_factory=list)
    names: set[str] = field(default_factory=set)
    stems: set[str] = field(default_factory=set)
    sequence: list[str] = field(default_factory=list)
    listed: list[bool] = field(default_factory=list)
    touching: list[bool] = field(default_factory=list)
    between: list[str] = field(default_factory=list)
    """The stop words and marks since the last item of ``sequence``."""
    compounds: set[tuple[str, str]] = field(default_factory=set)
    roles: set[tuple[str, str]] = field(default_factory=set)
    pending: list[str] = field(default_factory=list)
    """Role words waiting for the next item to bind."""
    order: list[str] = field(default_factory=list)
    """The names in the order they were read, repeats kept."""
    qualifiers: list[tuple[str, str, str]] = field(default_factory=list)
    copulas: list[int] = field(default_factory=list)
    """For each "is" or "are" read, the number of items before it."""
    placed: int | None = None
    """The number of items before the last "in", "at" or "on" read."""

    def read(self, token: Token) -> None:
        """A mark only separates items (a sentence's end drops the role words
        waiting); a token is a version, an identifier or date, a run holding
        digits, or words (a hyphenated word split unless known whole)."""
        if token.mark:
            self.between.append(token.text)
            if token.text in SENTENCE_END:
                self.pending.clear()
            return
        lowered = token.text.lower()
        if lowered in ROLE_WORDS:
            self.pending.append(lowered)
        if lowered.isalpha():
            self._word(token, spelling(lowered))  # most tokens: a plain word
        elif VERSION.fullmatch(lowered):
            self._value(lowered[1:])
        elif is_identifier(lowered) or ISO_DATE.fullmatch(lowered):
            self._value(lowered)
        elif not lowered.isalpha() and any(ch.isdigit() for ch in lowered):
            self._with_digits(lowered)
        else:
            whole = lowered in _HYPHENATED()
            for word in [lowered] if whole else lowered.replace("-", " ").split():
                self._word(token, spelling(word))

    def _with_digits(self, lowered: str) -> None:
        """ "8GB", "10am", "3x": the numbers in it are values, the letters
        around them content words."""
        for number in VALUE.findall(lowered):
            self._value(number)
        for rest in re.sub(r"[\d.:%]+", " ", lowered).split():
            if rest.isalpha() and rest not in STOP_WORDS:
                self._content(stemmed(rest), rest)

    def _word(self, token: Token, word: str) -> None:
        """One word of a token, spelled one way, as ``_reading`` reads it: a
        closed-class word is noted beside whatever else it is; a content word
        (a name also among the names, in order), a value, a negation cue, or a
        stop word between items."""
        if token.text == "None" and not token.start:
            self._content("null", "null")  # the code literal: "get_user returns None"
            return
        qualifier, kind, entry, name = _reading(token.text, token.start, word)
        if qualifier:
            self.qualifiers.append(qualifier)
        if kind is _Kind.CONTENT:
            self._content(entry, word)
            if name:
                self.names.add(entry)
                self.order.append(entry)
        elif kind is _Kind.VALUE:
            self._value(entry)
        elif kind is _Kind.NEGATION:
            self.negations += 1
            self.cues.append(word)
            self.between.append(word)
        else:
            if word in _COPULAS:
                self.copulas.append(len(self.sequence))
            if word in _PLACES:
                self.placed = len(self.sequence)
            self.between.append(word)

    def _value(self, value: str) -> None:
        """A value is an item too, with no word to join into a compound."""
        self.values.append(value)
        self._item(value, "")

    def _content(self, stem: str, word: str) -> None:
        """A content word counts among the stems and is an item."""
        self.stems.add(stem)
        self._item(stem, word)

    def _item(self, entry: str, word: str) -> None:
        """The next item of ``sequence``: it binds the role words waiting, and
        what stood since the last item says whether the two touch, are listed,
        or (touching, both words) may be one compound written apart."""
        self.roles.update((role, entry) for role in self.pending)
        self.pending.clear()
        if self.sequence:
            between = self.between
            self.listed.append(bool(between) and all(w in _COORDINATORS for w in between))
            self.touching.append(not between)
            if not between:
                self._compound(entry, word)
        self.sequence.append(entry)
        self.between.clear()

    def _compound(self, entry: str, word: str) -> None:
        """Two touching items whose words written together stem to one word
        ("lock files": "lockfil"); a value (no word) joins nothing."""
        joined = stemmed(self.sequence[-1] + word) if word else ""
        if joined:
            self.compounds.update({(joined, self.sequence[-1]), (joined, entry)})

    def analysis(self, tokens: list[Token], speaker: str) -> Analysis:
        """The signals read, frozen; whether the text is readable, passive or a
        command is read from its words as a whole."""
        words = [t.text.lower() for t in tokens if not t.mark]
        named = {i for i, t in enumerate(t for t in tokens if not t.mark) if t.text[:1].isupper()}
        passive = _passive(words, named)
        return Analysis(
            readable=any(ch.isalpha() for token in tokens for ch in token.text),
            speaker=speaker,
            negations=self.negations,
            cues=tuple(self.cues),
            values=tuple(self.values),
            entities=frozenset(self.names),
            stems=frozenset(self.stems),
            sequence=tuple(self.sequence),
            touching=tuple(self.touching),
            listed=tuple(self.listed),
            roles=frozenset(self.roles),
            names=tuple(dict.fromkeys(self.order)),
            compounds=frozenset(self.compounds),
            passive=passive,
            imperative=_imperative(words),
            qualifiers=tuple(self.qualifiers),
            copula=None if passive else _identity(tokens, words, self.copulas, len(self.sequence)),
            question=_question(tokens),
            addressed=_addressed(tokens, self.names),
            obliged=_obliged(words),
            opening=_opening(words),
            place=0 if self.placed is None else len(self.sequence) - self.placed,
        )


class _Kind(Enum):
    CONTENT = "content"
    VALUE = "value"
    NEGATION = "negation"
    STOP = "stop"


@lru_cache(maxsize=32768)
def _reading(
    text: str, start: bool, word: str
) -> tuple[tuple[str, str, str] | None, _Kind, str, bool]:
    """What one word of a token is, read once for every text that holds it:
    (its closed-class word, its kind, its stem or value, whether it is a name).
    The first that fits of a negation cue, a number word, a date word, a
    content word; anything else is a stop word. An acronym is kept as written,
    another content word stemmed from its base form."""
    token = Token(text, False, start)
    acronym = _acronym(text)
    qualifier = None
    if word in QUALIFIERS and not acronym and not _month(token, word):
        qualifier = (*QUALIFIERS[word], word)
    if word in NEGATIONS:
        return qualifier, _Kind.NEGATION, word, False
    if _number_word(token, word):
        return qualifier, _Kind.VALUE, NUMBER_WORDS[word], False
    if word in DATE_WORDS or _month(token, word):
        return qualifier, _Kind.VALUE, word.rstrip("s") if word in DAYS else word[:3], False
    if word not in STOP_WORDS or acronym:
        stem = word if acronym else stemmed(lexicon.IRREGULAR_VERBS.get(word, word))
        return qualifier, _Kind.CONTENT, stem, _is_name(token, word)
    return qualifier, _Kind.STOP, word, False


_OBLIGING = lexicon.words("must should shall")
_BETWEEN_BE = lexicon.words("not never always")


def _obliged(words: list[str]) -> frozenset[str]:
    """The words after "must be" or "should be" (perhaps with "not", "never" or
    "always" between), each as the stem of its verb."""
    found = set()
    for i, word in enumerate(words[:-2]):
        if word in _OBLIGING:
            rest = words[i + 2 :] if words[i + 1] in _BETWEEN_BE else words[i + 1 :]
            if len(rest) > 1 and rest[0] == "be":
                found.add(stemmed(lexicon.IRREGULAR_VERBS.get(rest[1], rest[1])))
    return frozenset(found)


def _opening(words: list[str]) -> str:
    """The first word's stem when it is no stop word and no past or "-ing"
    form ("Pinned dependencies ..." opens with no command); "" otherwise."""
    if not words or words[0] in STOP_WORDS:
        return ""
    if len(words[0]) > 5 and words[0].endswith(("ed", "ing")):
        return ""
    return stemmed(spelling(words[0]))


def _addressed(tokens: list[Token], names: set[str]) -> frozenset[str]:
    """The names that stand between a comma and a closing "!" ("..., Ben!")."""
    return frozenset(
        stem
        for before, token, after in zip(tokens, tokens[1:], tokens[2:], strict=False)
        if before.text == ","
        and after.text == "!"
        and not token.mark
        and (stem := stemmed(spelling(token.text.lower()))) in names
    )


_ENDS = frozenset(".!?")


def _question(tokens: list[Token]) -> bool:
    """Whether every sentence of the text ends with "?" ("How are the lessons
    going, Leo?"); one that also says something ("Can't complain! You?") is
    no question."""
    ends = [t.text for t in tokens if t.mark and t.text in _ENDS]
    return bool(ends) and all(end == "?" for end in ends)


_COPULAS = lexicon.words("is are")
_PLACES = lexicon.words("in at on")
_INDEFINITE = lexicon.words("a an some any all every each no only")


def _identity(tokens: list[Token], words: list[str], copulas: list[int], items: int) -> int | None:
    """Where a text of one clause, "X is Y", splits its items, when it says the
    two are the same thing and so reads both ways ("Maya's partner is Tom",
    "Tom is Maya's partner"). Not when a side is indefinite or quantified ("a
    cat is an animal" is not "an animal is a cat"), the "is" carries a verb
    ("is kept", "is training"), or a mark cuts the clause. Read only for a text
    that is not passive."""
    if len(copulas) != 1 or not 0 < copulas[0] < items:
        return None
    if any(t.mark and t is not tokens[-1] for t in tokens) or _INDEFINITE & set(words):
        return None
    after = words[next(i for i, w in enumerate(words) if w in _COPULAS) + 1 :]
    return None if not after or after[0].endswith("ing") else copulas[0]


_COMMAND_OPENERS = lexicon.words("never always do please")
_DETERMINERS = lexicon.words("the a an all every each any your our my this these that those no")


def _imperative(words: list[str]) -> bool:
    """A text that opens with "never", "always", "do" or "please", or with a
    word that is no stop word followed by a determiner ("Use the pool", "Run
    all tests"): a command. "Dependencies are pinned" is not one."""
    if not words:
        return False
    if words[0] in _COMMAND_OPENERS:
        return True
    return (
        len(words) > 1
        and words[0] not in STOP_WORDS
        and (words[1] in _DETERMINERS or words[1][:1].isdigit())
    )


def _number_word(token: Token, word: str) -> bool:
    """A number word ``values.canonical`` left as a word: one inside a hyphenated
    compound ("one-off"). A lone "one" it left is the pronoun ("a good one")."""
    return word in NUMBER_WORDS and (word != "one" or "-" in token.text)


def _month(token: Token, word: str) -> bool:
    """ "May" capitalised inside a sentence is the month; anywhere else, the modal."""
    return word == "may" and token.text == "May" and not token.start


def _passive(words: list[str], named: set[int]) -> bool:
    """A form of "be" before a participle ("was called", "is kept"): the roles
    of the names around the verb are the other way round. A capitalised word
    (``named``, by place) is no participle ("Ana is Ben's manager")."""
    for here, word in enumerate(words):
        if word in _BE:
            for n, later in enumerate(words[here + 1 : here + 3], start=here + 1):
                if later == "used" and words[n + 1 : n + 2] == ["to"]:
                    break  # "is used to build": active in its verb
                if n in named:
                    continue
                if later.endswith(("ed", "en")) or later in _IRREGULAR_PARTICIPLES:
                    return True
    return False


_IRREGULAR_PARTICIPLES = lexicon.words(
    "kept held run sent made built written read set put known shown given taken done "
    "seen told found left paid sold bought brought thought caught taught chosen"
)


def _is_name(token: Token, word: str) -> bool:
    """A name: an acronym anywhere; a capitalised word inside a sentence; at a
    sentence's start, a capitalised word that is not an ordinary word."""
    text = token.text
    if _acronym(text):
        return True
    if not text[:1].isupper() or word in lexicon.INTERJECTIONS or word == "i":
        return False
    if not token.start:
        return True
    return word not in lexicon.vocabulary() and stemmed(word) not in lexicon.vocabulary()


def _acronym(text: str) -> bool:
    """EU, US, UTC: a name even where the lower-case word is a stop word."""
    return len(text) >= 2 and text.isupper() and text.isalpha()


@cache
def _HYPHENATED() -> frozenset[str]:
    """Hyphenated words the lexicons know whole (opt-in, read-only)."""
    return frozenset(w for pair in lexicon.antonyms() for w in pair if "-" in w)
