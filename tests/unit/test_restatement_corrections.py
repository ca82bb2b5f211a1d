"""A correction replaces what it corrects: the phrases that name the old value
(graphmem.domain.restatement.corrections), read below the candidate cosine
only for a text that carries one, and "no longer" from the same source; a
later restatement of the corrected value merges into the correction; and what
is still kept apart: a correction of something else, and any plain statement
(a changed value included) below the candidate cosine."""

from __future__ import annotations

import pytest

from graphmem.domain.restatement import fetch_floor, judge
from graphmem.domain.restatement.analysis import analyse
from graphmem.domain.restatement.corrections import correction, cued, current, reversal
from graphmem.domain.restatement.verdicts import DEFAULT_THRESHOLDS, Difference, Verdict

CORRECTIONS = [
    (
        "We use Redis for the session cache.",
        "We switched the session cache from Redis to Memcached.",
        "Redis",
        "Memcached",
    ),
    (
        "The billing database runs on MySQL.",
        "The billing database uses Postgres instead of MySQL.",
        "MySQL",
        "Postgres",
    ),
    (
        "CI runs on GitHub Actions.",
        "CI now runs on Buildkite (was GitHub Actions).",
        "GitHub Actions",
        "Buildkite",
    ),
    (
        "Use black for formatting Python code.",
        "Use ruff format instead of black for formatting Python code.",
        "black",
        "ruff format",
    ),
    (
        "Lint with flake8 before each commit.",
        "Lint with ruff, not flake8, before each commit.",
        "flake8",
        "ruff",
    ),
    (
        "Background jobs run on Celery.",
        "We replaced Celery with RQ for background jobs.",
        "Celery",
        "RQ",
    ),
    (
        "The weekly report goes out at 9 am.",
        "The weekly report goes out at 8:30 am, not 9.",
        "9:00",
        "8:30",
    ),
    (
        "The team dinner starts at 7 pm.",
        "The team dinner starts at 7:30 pm instead of 7.",
        "19:00",
        "19:30",
    ),
]


@pytest.mark.parametrize(("existing", "new", "old_value", "new_value"), CORRECTIONS)
def test_a_correction_names_what_it_replaces(
    existing: str, new: str, old_value: str, new_value: str
):
    found = correction(new, analyse(new), analyse(existing))
    assert found is not None and (found.old, found.new) == (old_value, new_value)
    same = judge(new, existing, 0.6, same_source=True)
    assert (same.verdict, same.difference) == (Verdict.SUPERSEDE, Difference.CORRECTION)
    other = judge(new, existing, 0.6, same_source=False)
    assert other.verdict is Verdict.CONFLICT
    assert f"corrects {old_value} -> {new_value}" in other.reason


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        # The old value is not in the existing text: it corrects something else.
        ("Deploys run from the main branch.", "We moved from Jenkins to GitHub Actions for CI."),
        # Nothing else in common: another subject that happens to hold the old value.
        ("Redis keeps the rate limiter's counters.", "We switched search from Redis to Typesense."),
        # The existing text already holds the new value: not a change of it.
        ("We use Redis and Memcached.", "We switched from Redis to Memcached for the cache."),
    ],
)
def test_a_phrase_that_corrects_something_else_is_no_correction(existing: str, new: str):
    assert correction(new, analyse(new), analyse(existing)) is None


def test_below_the_candidate_cosine_only_a_correction_or_a_slot_swap_is_read():
    """Under ``candidate_similarity`` a pair is read only as a correction naming
    what the existing text holds, or as the same words with another value or
    name in one slot; never as a merge, and a plain statement that shares a
    word or two with another stays apart."""
    floor = DEFAULT_THRESHOLDS.candidate_similarity
    swapped = judge(
        "The API is deployed to Render from the main branch.",
        "The API is deployed to Fly.io from the main branch.",
        0.61,
        same_source=True,
    )
    assert swapped.verdict is Verdict.SUPERSEDE
    assert "fly.io -> render" in swapped.reason
    lockfile = judge(
        "Dependencies are pinned in uv.lock.", "Dependencies are pinned in requirements.lock.", 0.74
    )
    assert lockfile.verdict is Verdict.SUPERSEDE
    for new, existing in [
        ("deploys read the build cache", "the old cache was in /tmp"),
        ("Ana works in Paris on 2026-03-01.", "Ana lives in Berlin."),
        ("The API is not deployed to Render.", "The API is deployed to Fly.io."),
        ("All tests run on Render.", "Some tests run on Fly.io."),
    ]:
        plain = judge(new, existing, 0.6)
        assert (plain.verdict, plain.difference) == (Verdict.DISTINCT, Difference.SIMILARITY)
    restated = judge("Tests never call the network.", "Tests never call the network!", 0.6)
    assert (restated.verdict, restated.difference) == (Verdict.DISTINCT, Difference.SIMILARITY)
    moved = judge(
        "The API is deployed to Render instead of Fly.io.",
        "The API is deployed to Fly.io from the main branch.",
        0.61,
    )
    assert (moved.verdict, moved.difference) == (Verdict.SUPERSEDE, Difference.CORRECTION)
    far = judge("We moved from Jenkins to Buildkite.", "We deploy on Fridays.", 0.5)
    assert far.difference is Difference.SIMILARITY
    assert fetch_floor("deploys read the build cache") == floor
    assert fetch_floor("Sessions live in Postgres instead of Redis.") < floor
    assert fetch_floor("Dependencies are pinned in uv.lock.") < floor


@pytest.mark.parametrize(
    ("text", "is_cued"),
    [
        ("Line length is now 120 (was 100).", True),
        ("Staging deploys are no longer automatic.", True),
        ("We switched CI from Jenkins to Buildkite.", True),
        ("The dev server listens on port 8000.", False),
        ("Not now, later.", False),
        ("We went to the office from home.", False),
    ],
)
def test_a_cue_is_a_phrase_that_names_the_old_value(text: str, is_cued: bool):
    assert cued(text) is is_cued


@pytest.mark.parametrize(
    ("correcting", "restating"),
    [
        ("The dev server listens on port 8000, not 8080.", "The dev server listens on port 8000."),
        ("Sessions are stored in Postgres instead of Redis.", "Sessions are stored in Postgres."),
    ],
)
def test_a_restatement_of_the_corrected_value_merges_into_the_correction(
    correcting: str, restating: str
):
    assert current(correcting) == restating.rstrip(".")
    judged = judge(restating, correcting, 0.9)
    assert judged.verdict is Verdict.MERGE
    # The old value restated is no restatement of the correction.
    old = judge(
        "Sessions are stored in Redis.", "Sessions are stored in Postgres instead of Redis.", 0.9
    )
    assert old.verdict is not Verdict.MERGE


def test_one_name_for_another_is_the_same_subject():
    judged = judge(
        "Secrets are stored in AWS Secrets Manager.",
        "Secrets are stored in HashiCorp Vault.",
        0.8,
        same_source=False,
    )
    assert (judged.verdict, judged.difference) == (Verdict.CONFLICT, Difference.ENTITY)


def test_no_longer_from_the_same_source_is_an_update_from_another_a_conflict():
    existing, new = (
        "We use Redis for the session cache.",
        "We no longer use Redis for the session cache.",
    )
    assert judge(new, existing, 0.9, same_source=True).verdict is Verdict.SUPERSEDE
    assert judge(new, existing, 0.9, same_source=False).verdict is Verdict.CONFLICT
    never = judge("We never use Redis for the session cache.", existing, 0.9, same_source=True)
    assert never.verdict is Verdict.CONFLICT  # a flat negation stays a possible contradiction
    manual = judge(
        "Staging deploys are no longer automatic; they are started by hand.",
        "Staging deploys run automatically on every merge to main.",
        0.62,
    )
    assert (manual.verdict, manual.difference) == (Verdict.SUPERSEDE, Difference.CORRECTION)
    assert "automatic" in manual.reason


def test_saying_the_corrected_value_again_goes_back_to_it():
    """After "Postgres instead of Redis", "in Redis again" reverses the
    correction: an update from the same source, for review from another."""
    correcting = "Sessions are stored in Postgres instead of Redis."
    back = judge("Sessions are stored in Redis again.", correcting, 0.88)
    assert (back.verdict, back.difference) == (Verdict.SUPERSEDE, Difference.CORRECTION)
    assert back.reason.startswith("goes back to Redis")
    other = judge("Sessions are stored in Redis again.", correcting, 0.88, same_source=False)
    assert other.verdict is Verdict.CONFLICT
    # A word set aside, said again, is flagged: a reversal or a contradiction.
    again = judge("Use spaces.", "Use tabs, not spaces.", 0.88)
    assert (again.verdict, again.difference) == (Verdict.CONFLICT, Difference.CORRECTION)
    assert judge("Use spaces.", "Use tabs instead of spaces.", 0.88).verdict is Verdict.CONFLICT


def test_a_clause_that_changes_the_memory_decides_for_a_text_that_says_more():
    judged = judge(
        "The on-call lead is now Ines Duarte; Tomas Berg moved to the data team.",
        "The on-call lead is Tomas Berg.",
        0.8,
    )
    assert (judged.verdict, judged.difference) == (Verdict.CONFLICT, Difference.ENTITY)
    assert "(in: The on-call lead is now Ines Duarte)" in judged.reason
    value = judge(
        "Standup is moved for the holidays. The standup starts at 10:00 daily.",
        "The standup starts at 9:30 daily.",
        0.85,
    )
    assert (value.verdict, value.difference) == (Verdict.SUPERSEDE, Difference.DATE)


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("Marco: All good. How are you, Jules?", "Marco: You're back! How was it, Jules?"),
        ("Priya: Okay, have a good one!", "Priya: Good! I'll tell you more later."),
    ],
)
def test_a_question_or_a_fragment_is_no_clause_that_changes(existing: str, new: str):
    assert judge(new, existing, 0.85).verdict is Verdict.DISTINCT


@pytest.mark.parametrize(
    ("existing", "new", "named"),
    [
        (
            "The lab's centrifuge is an Eppendorf 5424.",
            "The lab's centrifuge was replaced with a Beckman Allegra.",
            "Beckman",
        ),
        ("Our CI runner is Jenkins.", "Our CI runner has been replaced by Buildkite.", "Buildkite"),
    ],
)
def test_what_a_subject_names_replaced_corrects_the_name_it_had(
    existing: str, new: str, named: str
):
    assert cued(new)
    judged = judge(new, existing, 0.7)
    assert (judged.verdict, judged.difference) == (Verdict.SUPERSEDE, Difference.CORRECTION)
    assert named in judged.reason
    assert judge(new, existing, 0.7, same_source=False).verdict is Verdict.CONFLICT


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        # another subject
        (
            "The lab's centrifuge is an Eppendorf 5424.",
            "The lab's freezer was replaced with a Thermo.",
        ),
        # the two share more than the subject
        (
            "Our CI runner is Jenkins; deploys use Argo.",
            "Our CI runner was replaced by Buildkite for deploys.",
        ),
        # the new name is the one already held
        ("Our CI runner is Jenkins.", "Our CI runner was replaced with Jenkins."),
    ],
)
def test_a_replacement_of_something_else_corrects_nothing(existing: str, new: str):
    assert correction(new, analyse(new), analyse(existing)) is None


@pytest.mark.parametrize(
    ("existing", "new", "back"),
    [
        (
            "The team moved its chat from Slack to Discord.",
            "The team's chat is back on Slack.",
            "Slack",
        ),
        (
            "The office switched from Brita to Aquaclara water.",
            "The office went back to Brita water again.",
            "Brita",
        ),
        ("We use Poetry instead of pip-tools now.", "We reverted to pip-tools.", "pip-tools"),
    ],
)
def test_going_back_to_what_a_correction_replaced_is_an_update(existing: str, new: str, back: str):
    judged = judge(new, existing, 0.7)
    assert (judged.verdict, judged.difference) == (Verdict.SUPERSEDE, Difference.CORRECTION)
    assert judged.reason.endswith(back)


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        # the value the correction brought, said again
        ("The team moved its chat from Slack to Discord.", "The team's chat is back on Discord."),
        # no correction to go back from
        ("The team chats on Slack.", "The team chats on Slack again."),
        # both values named
        ("The team moved its chat from Slack to Discord.", "Back to Slack? Discord stays."),
    ],
)
def test_a_reversal_needs_the_old_value_of_a_correction_alone(existing: str, new: str):
    assert reversal(new, existing, analyse(new), analyse(existing)) is None
