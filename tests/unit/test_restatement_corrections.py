"""A correction replaces what it corrects: the phrases that name the old value
(graphmem.domain.restatement.corrections), a changed value far below the
candidate cosine, and "no longer" from the same source; and what is still
kept apart: a correction of something else, a merge far below the cosine."""

from __future__ import annotations

import pytest

from graphmem.domain.restatement import judge
from graphmem.domain.restatement.analysis import analyse
from graphmem.domain.restatement.corrections import correction
from graphmem.domain.restatement.verdicts import Difference, Verdict

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
        "runs on Buildkite",
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


def test_a_changed_value_is_read_below_the_candidate_cosine_a_merge_never():
    update = judge(
        "The API is deployed to Render from the main branch.",
        "The API is deployed to Fly.io from the main branch.",
        0.61,
        same_source=True,
    )
    assert update.verdict is Verdict.SUPERSEDE
    restated = judge("Tests never call the network.", "Tests never call the network!", 0.6)
    assert (restated.verdict, restated.difference) == (Verdict.DISTINCT, Difference.SIMILARITY)
    far = judge("We deploy on Fridays.", "The cache holds sessions.", 0.5, same_source=True)
    assert far.difference is Difference.SIMILARITY


def test_one_name_for_another_is_the_same_subject():
    judged = judge(
        "Secrets are stored in AWS Secrets Manager.",
        "Secrets are stored in HashiCorp Vault.",
        0.67,
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
