"""Hypothesis strategies for graphmem's inputs, each value paired with whether
the documented limits (docs/graphql.md, "Limits") allow it.

The verdict comes from the limits as written, not from graphmem's validators,
so a validator that lets a bad value through (or refuses a good one) shows up.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from graphmem.domain.kinds import MemoryType, SelfAssessment, Source, SuggestedBy, Tier

MISSING = object()
"""A key left out of the input."""

HOSTILE = [
    'quote " inside',
    "single ' quote",
    "back\\slash and trailing \\",
    "`}) MATCH (n) DETACH DELETE n //",
    "'}) MATCH (n) DETACH DELETE n //",
    '"}) MATCH (n) DETACH DELETE n RETURN 1 //',
    "CYPHER x=1 RETURN 1",
    "$param $rows {x} {",
    "}",
    "new\nline\ttab\rreturn",
    "RTL \u202eevil\u202c and \u05e2\u05d1\u05e8\u05d9\u05ea "
    "\u0627\u0644\u0639\u0631\u0628\u064a\u0629",
    "emoji 😀👩‍👩‍👧 and flags 🇫🇷",
    "combining e\u0301\u0301\u0301 a\u0308\u20dd",
    "zero\u200bwidth\ufeffjoiner",
    "漢字 and ünïcödé",
    '\\"',
    "/* comment */ // comment",
    "\\u0000 spelled out",
    "x" * 1_000,
]

_core_chars = st.characters(exclude_categories=["Cs"], exclude_characters=["\x00"])
_content_chars = st.characters(exclude_categories=["Cs", "Cc"], include_characters="\t\n\r")
"""What a memory's content, rationale, tags and evidence may hold: no control
character but tab, newline and carriage return."""
CONTROLS = ["ansi \x1b[2J\x1b[31mred", "title \x1b]0;pwned\x07", "bell\x07", "c1 \x9b x", "del\x7f"]


def core_text(max_size: int, chars: st.SearchStrategy[str] = _core_chars) -> st.SearchStrategy[str]:
    """Text that survives whitespace stripping unchanged and is not empty."""
    return st.one_of(
        st.text(chars, min_size=1, max_size=max_size),
        st.sampled_from([h[:max_size] for h in HOSTILE]),
    ).filter(lambda s: s and s == s.strip())


def padded(
    max_size: int, chars: st.SearchStrategy[str] = _core_chars
) -> st.SearchStrategy[tuple[str, str]]:
    """(sent, stored): good text, maybe wrapped in whitespace that is stripped."""
    return st.tuples(core_text(max_size, chars), st.sampled_from(["", " ", "\n\t ", "  "])).map(
        lambda pair: (pair[1] + pair[0] + pair[1], pair[0])
    )


def _bad_text(limit: int) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.just("x" * (limit + 1)),
        core_text(20).map(lambda s: s + "\x00" + s),
        core_text(20).map(lambda s: s + "\ud800"),
        st.just("\udfff"),
        st.integers(),
        st.lists(st.text(max_size=3), max_size=2),
        st.just({"nested": "dict"}),
    )


@dataclass
class Field:
    """One input field: the value sent, the value expected back, and whether it is allowed."""

    sent: Any
    stored: Any
    ok: bool

    def __repr__(self) -> str:
        # Oversize values would bury a failure report.
        shown = repr(self.sent)
        shown = shown if len(shown) <= 80 else f"{shown[:60]}... ({len(shown)} chars)"
        return f"Field({shown}, ok={self.ok})"


@dataclass
class Drawn:
    fields: dict[str, Field] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return all(f.ok for f in self.fields.values())

    @property
    def bad(self) -> set[str]:
        return {name for name, f in self.fields.items() if not f.ok}

    def sent(self) -> dict[str, Any]:
        return {n: f.sent for n, f in self.fields.items() if f.sent is not MISSING}


def _good(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Field]:
    return strategy.map(lambda v: Field(v, v, True))


def _bad(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Field]:
    return strategy.map(lambda v: Field(v, None, False))


def _enum(values: list[str], *, optional: bool) -> st.SearchStrategy[Field]:
    good = st.sampled_from(values)
    if optional:
        good = st.one_of(st.none(), good)
    return _good(good)


def _enum_bad() -> st.SearchStrategy[Field]:
    return _bad(st.one_of(st.sampled_from(["", "nope", "DECISION ", "Working"]), st.integers()))


IDENTIFIER = st.from_regex(r"\A[A-Za-z0-9][A-Za-z0-9._:@-]{0,40}\Z")
BAD_IDENTIFIER = st.one_of(
    st.sampled_from(
        ["", " ", "has space", "-lead", ".dot", "é", "a/b", "a\x00b", "a\ud800", "x" * 129]
    ),
    st.just("`}) MATCH (n) DETACH DELETE n //"),
    st.integers(),
)


def text_list(max_items: int, item_chars: int) -> st.SearchStrategy[Field]:
    """A good list of texts; stored stripped, in order."""
    return st.lists(padded(item_chars, _content_chars), max_size=min(max_items, 5)).map(
        lambda pairs: Field([s for s, _ in pairs], [t for _, t in pairs], True)
    )


def tags_good() -> st.SearchStrategy[Field]:
    # Tags are unique: a repeated tag is kept once, where it first appeared.
    return text_list(32, 64).map(lambda f: Field(f.sent, list(dict.fromkeys(f.stored)), True))


def list_bad(max_items: int, item_chars: int) -> st.SearchStrategy[Field]:
    return _bad(
        st.one_of(
            st.just([f"t{i}" for i in range(max_items + 1)]),
            st.just(["x" * (item_chars + 1)]),
            st.just(["ok", "a\x00b"]),
            st.sampled_from(CONTROLS).map(lambda text: ["ok", text]),
            st.just(["\ud800"]),
            st.just("not a list"),
            st.just([1, 2]),
            st.just([None]),
        )
    )


def tags_bad() -> st.SearchStrategy[Field]:
    return st.one_of(list_bad(32, 64), _bad(st.sampled_from([[""], ["   "], ["\n"]])))


def confidence_good() -> st.SearchStrategy[Field]:
    return _good(st.one_of(st.floats(0.0, 1.0), st.sampled_from([0, 1])))


def confidence_bad() -> st.SearchStrategy[Field]:
    return _bad(
        st.one_of(
            st.sampled_from([float("nan"), float("inf"), float("-inf"), -0.01, 1.0001, 1e308]),
            st.sampled_from([10**400, -(10**400), 2, -1]),
            st.floats(min_value=1.0, exclude_min=True, allow_infinity=True),
            st.just("high"),
            st.none(),
        )
    )


MEMORY_FIELDS: dict[str, tuple[st.SearchStrategy[Field], st.SearchStrategy[Field], bool]] = {
    # name: (good, bad, may be absent)
    "content": (
        padded(300, _content_chars).map(lambda p: Field(p[0], p[1], True)),
        st.one_of(
            _bad(st.sampled_from(["", "   ", "\n\t", *CONTROLS])),
            _bad(_bad_text(10_000)),
            st.just(Field(MISSING, None, False)),
        ),
        False,
    ),
    "memory_type": (_enum([t.value for t in MemoryType], optional=True), _enum_bad(), True),
    "confidence": (confidence_good(), confidence_bad(), True),
    "source": (
        _enum([s.value for s in Source if s is not Source.CONSOLIDATED], optional=False),
        _enum_bad(),
        True,
    ),
    "suggested_by": (_enum([s.value for s in SuggestedBy], optional=False), _enum_bad(), True),
    "self_assessment": (
        _enum([s.value for s in SelfAssessment], optional=True),
        _enum_bad(),
        True,
    ),
    "tier": (
        _enum([t.value for t in Tier if t is not Tier.ARCHIVED], optional=False),
        st.one_of(_enum_bad(), _bad(st.just("archived"))),
        True,
    ),
    "pinned": (_good(st.booleans()), _bad(st.sampled_from(["maybe", 2, [], None])), True),
    "tags": (tags_good(), tags_bad(), True),
    "rationale": (
        st.one_of(
            _good(st.none()), padded(400, _content_chars).map(lambda p: Field(p[0], p[1], True))
        ),
        _bad(st.one_of(_bad_text(4_000), st.sampled_from(CONTROLS))),
        True,
    ),
    "evidence": (text_list(32, 2_000), list_bad(32, 2_000), True),
    "session_id": (_good(st.one_of(st.none(), IDENTIFIER)), _bad(BAD_IDENTIFIER), True),
    "agent_id": (_good(st.one_of(st.none(), IDENTIFIER)), _bad(BAD_IDENTIFIER), True),
}

UPDATE_FIELDS = {
    name: MEMORY_FIELDS[name]
    for name in (
        "content",
        "memory_type",
        "confidence",
        "self_assessment",
        "tags",
        "rationale",
        "evidence",
    )
}


@st.composite
def inputs(
    draw: st.DrawFn,
    spec: dict[str, tuple[st.SearchStrategy[Field], st.SearchStrategy[Field], bool]],
    *,
    all_optional: bool = False,
) -> Drawn:
    """An input dict: all good half of the time, otherwise each field may be bad."""
    allow_bad = draw(st.booleans())
    drawn = Drawn()
    for name, (good, bad, absent) in spec.items():
        options = [good]
        if absent or all_optional:
            options.insert(0, st.just(Field(MISSING, MISSING, True)))
        if allow_bad and draw(st.integers(0, 5)) == 0:
            options = [bad]
        value = draw(st.one_of(*options))
        if all_optional and not value.ok and value.sent is MISSING:
            value = Field(MISSING, MISSING, True)
        drawn.fields[name] = value
    if allow_bad and draw(st.integers(0, 9)) == 0:
        drawn.fields["bogus_field"] = Field(draw(st.sampled_from([1, "x", None])), None, False)
    return drawn
