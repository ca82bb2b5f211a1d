"""Paraphrases the judge proves the same: phrases read as one word, the same
order of events said from the other end, a word a shared compound opens, a
time word moving, and one value shared under the candidate cosine."""

from __future__ import annotations

import time

import pytest

from graphmem.domain.restatement import judge
from graphmem.domain.restatement.analysis import analyse
from graphmem.domain.restatement.converse import converse
from graphmem.domain.restatement.phrases import inflected, rewritten
from graphmem.domain.restatement.relations import _opens_a_shared_compound
from graphmem.domain.restatement.verdicts import Verdict
from graphmem.domain.restatement.words import stemmed


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("The database is backed up nightly.", "The database is backuped nightly."),
        ("The launch was pushed back.", "The launch was postponed."),
        ("They are putting off the move.", "They are postponing the move."),
        ("We put off the move.", "We postponed the move."),
        ("They called off the match.", "They canceled the match."),
        ("I found out yesterday.", "I discovered yesterday."),
        ("I'd rather walk.", "I prefer walk."),
        ("We would like a table.", "We want a table."),
        ("Priya is in charge of hiring.", "Priya is leading hiring."),
        ("Once merged, branches go.", "after merged, branches go."),
        ("Delete it once the tests pass.", "Delete it after the tests pass."),
        ("Logs are used to debug.", "Logs are to debug."),
        ("Logs are used for audits.", "Logs are for audits."),
    ],
)
def test_a_phrase_is_read_as_the_word_it_says(text: str, read: str) -> None:
    assert rewritten(text) == read


@pytest.mark.parametrize(
    "text",
    [
        "The job runs once a day.",
        "Run it once more.",
        "We used to use MySQL.",
        "He is used to working late.",
        "Users log in with SSO.",
        "Scale up the workers.",
        "I like tea.",
    ],
)
def test_what_no_phrase_says_stays_as_written(text: str) -> None:
    assert rewritten(text) == text


def test_a_target_word_is_written_in_each_form_of_its_verb() -> None:
    assert inflected("postpone") == {
        "base": "postpone",
        "s": "postpones",
        "past": "postponed",
        "ing": "postponing",
    }
    assert inflected("carry")["s"] == "carries"
    assert inflected("carry")["past"] == "carried"
    assert inflected("push")["s"] == "pushes"


def test_a_verb_and_its_noun_in_ment_meet_in_every_form() -> None:
    assert stemmed("documented") == stemmed("document") == stemmed("documents")
    assert stemmed("implementing") == stemmed("implement")


@pytest.mark.parametrize(
    ("existing", "new", "similarity"),
    [
        (
            "The database is backed up every night.",
            "Nightly backups are taken of the database.",
            0.83,
        ),
        (
            "We decided to postpone the launch until after the holidays.",
            "The launch has been pushed back until after the holidays.",
            0.83,
        ),
        ("I want to read more books this year.", "This year I'd like to read more books.", 0.95),
        (
            "Feature branches are deleted after merging.",
            "Once merged, feature branches get removed.",
            0.92,
        ),
        (
            "Functions should have docstrings.",
            "Every function ought to be documented with a docstring.",
            0.84,
        ),
        (
            "The warehouse load starts after the ingest job finishes.",
            "The ingest job finishes before the warehouse load starts.",
            0.94,
        ),
        ("Priya is in charge of the hiring process.", "The hiring process is led by Priya.", 0.96),
    ],
)
def test_paraphrases_whose_every_difference_is_explained_merge(
    existing: str, new: str, similarity: float
) -> None:
    assert judge(new, existing, similarity).verdict is Verdict.MERGE


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("Run the migrations before deploying.", "Run the migrations after deploying."),
        (
            "The cache is warmed after the deploy finishes.",
            "The cache is warmed before the deploy finishes.",
        ),
        (
            "Jonas prefers a light breakfast before his long runs.",
            "Jonas prefers a heavy breakfast before his long runs.",
        ),
        (
            "The backup runs after the ingest job finishes.",
            "The ingest job finishes after the backup runs.",
        ),
    ],
)
def test_an_order_of_events_turned_around_is_no_restatement(existing: str, new: str) -> None:
    assert judge(new, existing, 0.95).verdict is Verdict.CONFLICT


def test_a_converse_is_read_only_between_two_clauses() -> None:
    assert converse("The load starts after the ingest job finishes.") == (
        "The ingest job finishes before the load starts."
    )
    assert converse("Ana leaves before Ben arrives.") == "Ben arrives after Ana leaves."
    assert converse("Run the tests before pushing.") is None
    assert converse("Before pushing, run the tests.") is None
    assert converse("The deploy runs after lunch, before the standup.") is None


def test_the_other_verdict_of_a_converse_stands_instead_of_the_opposite() -> None:
    judged = judge(
        "Merging is only allowed once the tests pass.", "Tests must pass before merging.", 0.88
    )
    assert judged.verdict is Verdict.CONFLICT
    assert "only" in judged.reason


def test_a_word_of_time_moving_swaps_no_roles_but_two_trading_do() -> None:
    assert (
        judge(
            "Ana works nights and Ben works days.", "Ana works days and Ben works nights.", 0.97
        ).verdict
        is not Verdict.MERGE
    )


def test_a_word_a_shared_compound_opens_is_explained_only_with_a_second_word_after_it() -> None:
    with_docs = analyse("Functions should have docstrings.")
    documented = analyse("Functions should be documented with docstrings.")
    assert _opens_a_shared_compound(stemmed("documented"), documented, with_docs)
    builders = analyse("Builders run in CI.")
    assert not _opens_a_shared_compound("build", analyse("Builders build in CI."), builders)
    assert (
        judge(
            "Functions should be documented with docstrings.",
            "Functions should have docstrings.",
            0.9,
        ).verdict
        is Verdict.MERGE
    )


def test_one_value_under_the_candidate_cosine_merges_only_when_every_word_matches() -> None:
    existing = "The Thursday planning meeting has been cancelled."
    assert (
        judge("The Thursday planning meeting is called off.", existing, 0.77).verdict
        is Verdict.MERGE
    )
    assert (
        judge("The Thursday planning meeting is moved.", existing, 0.77).verdict is Verdict.DISTINCT
    )
    repeat = judge("The vet visit is on Monday.", "Rex's vet visit is on Monday.", 0.66)
    assert repeat.verdict is Verdict.DISTINCT


def test_version_beside_a_version_both_texts_hold_adds_nothing() -> None:
    existing = "The service targets Python 3.11."
    assert judge("Python 3.11 is the version the service targets.", existing, 0.92).verdict is (
        Verdict.MERGE
    )
    assert judge(
        "Node 18 is the version the build uses.", "The build uses Node 18.", 0.9
    ).verdict is (Verdict.MERGE)
    assert judge(
        "The API version returns 3 results.", "The API returns 3 results.", 0.93
    ).verdict is (Verdict.DISTINCT)


def test_where_an_identity_holds_may_open_it() -> None:
    existing = "The entry point is main() in cli.py."
    assert judge("In cli.py, main() is the entry point.", existing, 0.97).verdict is Verdict.MERGE
    swapped = judge("Ben is Ana's manager in Berlin.", "Ana is Ben's manager in Berlin.", 0.97)
    assert swapped.verdict is Verdict.CONFLICT
    moved = judge("Errors go to production in Sentry.", "In production, errors go to Sentry.", 0.95)
    assert moved.verdict is Verdict.CONFLICT
    assert judge(
        "The team deploys to staging on Mondays.", "On Mondays, the team deploys to staging.", 0.98
    ).verdict is (Verdict.MERGE)


def test_an_acronym_in_brackets_spelling_the_words_before_it_adds_nothing() -> None:
    existing = "Don't log personally identifiable information."
    assert judge(
        "Do not log personally identifiable information (PII).", existing, 0.84
    ).verdict is (Verdict.MERGE)
    ttl = "Cache entries expire after their time to live."
    assert judge("Cache entries expire after their time to live (TLS).", ttl, 0.88).verdict is not (
        Verdict.MERGE
    )
    assert judge(
        "Use content delivery networks (CDNs).", "Use content delivery networks.", 0.9
    ).verdict is (Verdict.MERGE)


def test_a_long_text_with_brackets_is_read_in_one_pass() -> None:
    """Each bracket looks back a few words only: a text of 10,000 characters
    with a bracket at its end is read as fast as one without."""
    text = " ".join(f"word{i % 97}" for i in range(1500)) + " (abc (AB)"
    began = time.perf_counter()
    assert judge(text, text.replace("word5 ", "word6 "), 0.9).reason
    assert time.perf_counter() - began < 1.5


def test_a_word_opening_a_shared_compound_is_no_proof_by_itself() -> None:
    existing = "The user table lives in the database."
    assert judge("The user data table lives in the database.", existing, 0.9).verdict is not (
        Verdict.MERGE
    )


def test_a_converse_keeps_a_name_that_is_also_a_word() -> None:
    assert converse("Alice leaves before Bob arrives.") == "Bob arrives after Alice leaves."
    judged = judge("Alice leaves before Bob arrives.", "Alice arrives after Bob leaves.", 0.95)
    assert judged.verdict is Verdict.CONFLICT
