"""The named steps of the restatement judge, each on its own: the identifier
shapes, the suffix stripper, the framing of a turn, the kinds of swap and the
reader of a text's items."""

from __future__ import annotations

import pytest

from graphmem.domain.restatement.analysis import Analysis, analyse, glance
from graphmem.domain.restatement.comparison import _added, _entity, _term, _unit
from graphmem.domain.restatement.swaps import (
    _CHECKS,
    _name_swap,
    _repaired,
    _role_swap,
    _slot_swap,
    transposed,
)
from graphmem.domain.restatement.tokens import _frame_end, tokenise, unframed
from graphmem.domain.restatement.values import _IDENTIFIER_SHAPES, is_identifier
from graphmem.domain.restatement.verdicts import Difference, Verdict
from graphmem.domain.restatement.words import _unsuffixed, _without, stemmed


@pytest.mark.parametrize(
    ("token", "shape"),
    [
        ("user_id", "_marked"),
        ("billing-api-v2", "_chained"),
        ("node-18", "_hyphenated_number"),
        ("prod-a", "_variant"),
        ("redis:6379", "_colon"),
        ("config.yaml", "_dotted"),
    ],
)
def test_each_identifier_shape_names_its_own_tokens(token: str, shape: str) -> None:
    shapes = {test.__name__ for test in _IDENTIFIER_SHAPES if test(token)}
    assert shape in shapes
    assert is_identifier(token)


@pytest.mark.parametrize("token", ["brother-in-law", "10:30", "3.14", "2026-07-01", "deploys"])
def test_words_numbers_times_and_dates_are_no_identifiers(token: str) -> None:
    assert not is_identifier(token)


def test_a_date_is_no_identifier_whatever_shape_it_has() -> None:
    """An ISO date has hyphens and digits (``_hyphenated_number``) but is a date."""
    assert any(test("2026-07-01") for test in _IDENTIFIER_SHAPES)
    assert not is_identifier("2026-07-01")


@pytest.mark.parametrize(
    ("word", "stem"),
    [
        ("deploys", "deploy"),
        ("deployed", "deploy"),
        ("deployment", "deploy"),
        ("agreed", "agre"),
        ("class", "class"),
        ("pushes", "push"),
        ("stopped", "stop"),
        ("copied", "copy"),
        ("cat", "cat"),
    ],
)
def test_stemmed(word: str, stem: str) -> None:
    assert stemmed(word) == stem


def test_a_double_s_is_no_plural_and_a_short_stem_keeps_its_suffix() -> None:
    assert _unsuffixed("class") == "class"
    assert _unsuffixed("bus") == "bus"  # "bu" would be under three letters
    assert _without("pushes", "s") == "push"
    assert _without("running", "ing") == "run"
    assert _without("parties", "ies") == "party"


def test_the_framing_ends_after_the_name_it_addresses() -> None:
    tokens = tokenise("Thanks, Ben! The deploy is done.")
    assert [t.text for t in tokens[: _frame_end(tokens, 0)]] == ["Thanks", ",", "Ben"]
    assert [t.text for t in unframed(tokenise("Thanks, Ben! The deploy is done."))][:2] == [
        "!",
        "The",
    ]


def test_a_content_word_frames_only_before_punctuation() -> None:
    with_mark = tokenise("No, deploys run on Friday.")
    without = tokenise("No deploys on Friday.")
    assert _frame_end(with_mark, 0) == 2
    assert _frame_end(without, 0) == 0
    assert unframed(without)[0].text == "No"


def test_the_word_after_a_framing_opens_the_sentence() -> None:
    """Its capital says nothing there, as at any sentence's start."""
    kept = unframed(tokenise("Oh wow, Deploys are green"))
    assert kept[0].text == "Deploys" and kept[0].start


def test_each_kind_of_swap_finds_its_own() -> None:
    def pair(a: str, b: str) -> tuple[Analysis, Analysis, set[str]]:
        x, y = analyse(a), analyse(b)
        return x, y, set(x.sequence) & set(y.sequence)

    assert _role_swap(*pair("Move from HTTP to HTTPS.", "Move from HTTPS to HTTP.")) != ""
    assert _name_swap(*pair("Ana reports to Ben.", "Ben reports to Ana.")) == (
        "ana and ben traded places"
    )
    assert _name_swap(*pair("Ana and Ben review.", "Ben and Ana review.")) == ""
    assert _repaired(
        *pair("June 3, July 1 and May 5 ship.", "June 1, July 3 and May 5 ship.")
    ).startswith("values paired differently")
    assert _slot_swap(*pair("Run the tests.", "Run the tests.")) == ""


def test_the_first_kind_that_finds_a_swap_says_it() -> None:
    a, b = analyse("Move from HTTP to HTTPS."), analyse("Move from HTTPS to HTTP.")
    shared = set(a.sequence) & set(b.sequence)
    first = next(found for check in _CHECKS if (found := check(a, b, shared)))
    assert transposed(a, b) == first
    assert first.startswith(("from ", "to "))


def test_a_change_of_voice_swaps_nothing() -> None:
    assert transposed(analyse("Ana called Ben."), analyse("Ben was called by Ana.")) == ""


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Maya's partner is Tom.", "Tom is Maya's partner."),
        ("The primary database is Postgres.", "Postgres is the primary database."),
        ("Lily's pediatrician is Dr. Omar Haddad.", "Dr. Omar Haddad is Lily's pediatrician."),
    ],
)
def test_an_identity_read_the_other_way_round_swaps_nothing(a: str, b: str) -> None:
    assert transposed(analyse(a), analyse(b)) == ""


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Ana is Ben's manager.", "Ben is Ana's manager."),
        ("Alice's manager is Bob.", "Bob's manager is Alice."),
        ("Tom is Maya's partner.", "Maya is Tom's partner."),
        ("A cat is an animal.", "An animal is a cat."),
        ("All admins are users.", "All users are admins."),
    ],
)
def test_what_is_said_of_each_side_still_swaps(a: str, b: str) -> None:
    assert transposed(analyse(a), analyse(b)) != ""


def test_a_name_after_is_is_no_participle_and_a_title_ends_no_sentence() -> None:
    assert not analyse("Ana is Ben's manager.").passive
    assert analyse("Ana was chosen by Ben.").passive
    assert [t.text for t in tokenise("Dr. Berg is here.") if t.mark] == ["."]


def test_the_reader_joins_items_by_what_stood_between() -> None:
    read = analyse("Ana uses React and Vite, from MySQL")
    assert read.sequence == ("ana", "use", "react", "vit", "mysql")
    assert read.listed == (False, False, True, False)
    assert read.touching == (True, True, False, False)
    assert ("from", "mysql") in read.roles
    assert read.names == ("ana", "react", "vit", "mysql")


def test_the_reader_keeps_values_negations_and_compounds() -> None:
    read = analyse("We never deploy v2.1 on Fridays, lock files stay")
    assert read.values == ("2.1", "friday")
    assert read.negations == 1 and read.cues == ("never",)
    assert ("lockfil", "lock") in read.compounds


def test_the_steps_of_the_wording() -> None:
    unit = _unit({"gb"}, {"mb"})
    assert unit is not None and unit.difference is Difference.UNIT
    assert _unit({"gb"}, set()) is None
    entity = _entity({"ana"}, {"ben"})
    assert entity is not None and entity.verdict is Verdict.CONFLICT
    assert _entity({"ana"}, set()) is None
    added = _added(set(), {"nightly"}, said=4)
    assert added is not None and added.verdict is Verdict.DISTINCT
    assert "the new text says more" in added.reason
    repeat = _added({"nightly"}, set(), said=3)
    assert repeat is not None and repeat.verdict is Verdict.MERGE
    assert "repeats part of the existing one" in repeat.reason
    fragment = _added({"nightly", "build", "cache"}, set(), said=2)
    assert fragment is not None and fragment.verdict is Verdict.DISTINCT
    assert "the existing text says more" in fragment.reason
    assert _added({"a"}, {"b"}, said=3) is None
    term = _term({"a"}, {"b"})
    assert term is not None and term.verdict is Verdict.DISTINCT
    assert _term(set(), set()) is None


def _every_text() -> list[str]:
    """Every text of the pair sets and every chat turn, with and without its speaker."""
    import json
    from pathlib import Path

    eval_dir = Path(__file__).resolve().parents[2] / "benchmarks" / "eval"
    texts = [
        row[key]
        for path in sorted(eval_dir.glob("dedup_*.jsonl"))
        for line in path.read_text().splitlines()
        if line.strip()
        for row in [json.loads(line)]
        for key in ("text_a", "text_b")
    ]
    chats = json.loads((eval_dir / "chats.json").read_text())["conversations"]
    turns = [t for c in chats for s in c["sessions"] for t in s["turns"]]
    shapes = [
        "12345 67890",
        "None",
        "It returns None.",
        "v2.1 ships to prod-a on 2025-03-14",
        "one-off fix for the 3x slowdown",
        "Thanks, Ben!",
        "EU data stays in the EU.",
        "May we meet in May?",
        "https://example.com/a?b=1",
        "",
    ]
    return (
        texts
        + shapes
        + [t["text"] for t in turns]
        + [f"{t['speaker']}: {t['text']}" for t in turns]
    )


def test_a_glance_says_what_the_full_reading_says() -> None:
    """``glance`` (every write) and ``analyse`` (the texts judged) agree on
    whether a text can be compared and whether it holds a value or a name."""
    for text in _every_text():
        read, seen = analyse(text), glance(text)
        assert seen.readable == read.readable, text
        assert seen.named == bool(read.values or read.entities), text
