"""The restatement rule: same statement, new value, or possible contradiction."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphmem.restatement import (
    Difference,
    RestatementThresholds,
    Verdict,
    analyse,
    judge,
)

PAIRS = Path(__file__).resolve().parents[2] / "benchmarks" / "eval" / "dedup_pairs.jsonl"


@pytest.mark.parametrize(
    ("existing", "new", "verdict", "difference"),
    [
        (
            "Never retry failed charges in the billing worker.",
            "Always retry failed charges in the billing worker.",
            Verdict.CONFLICT,
            Difference.NEGATION,
        ),
        (
            "Direct pushes are allowed.",
            "Direct pushes aren't allowed.",
            Verdict.CONFLICT,
            Difference.NEGATION,
        ),
        (
            "Strict mode is enabled.",
            "Strict mode is disabled.",
            Verdict.CONFLICT,
            Difference.POLARITY,
        ),
        (
            "The server listens on port 8000.",
            "The server listens on port 9000.",
            Verdict.SUPERSEDE,
            Difference.NUMBER,
        ),
        (
            "The project targets Python 3.11.",
            "The project targets Python 3.12.",
            Verdict.SUPERSEDE,
            Difference.VERSION,
        ),
        (
            "The freeze starts on 2024-11-15.",
            "The freeze starts on 2024-11-22.",
            Verdict.SUPERSEDE,
            Difference.DATE,
        ),
        (
            "The dentist is on Tuesday.",
            "The dentist is on Thursday.",
            Verdict.SUPERSEDE,
            Difference.DATE,
        ),
        (
            "Config lives in config/a.yaml.",
            "Config lives in config/b.yaml.",
            Verdict.SUPERSEDE,
            Difference.IDENTIFIER,
        ),
        (
            "We chose PostgreSQL as the datastore.",
            "We chose MySQL as the datastore.",
            Verdict.CONFLICT,
            Difference.ENTITY,
        ),
        (
            "Prefer composition over inheritance.",
            "Prefer inheritance over composition.",
            Verdict.CONFLICT,
            Difference.ORDER,
        ),
    ],
)
def test_differences_never_merge(existing: str, new: str, verdict: Verdict, difference: Difference):
    # A cosine of 0.99 on purpose: the words decide, not the embedding.
    judgement = judge(new, existing, 0.99)
    assert (judgement.verdict, judgement.difference) == (verdict, difference)
    assert judgement.reason


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("Do not use print for logging.", "Don't use print for logging."),
        ("The worker pool has 8 threads.", "The worker pool has eight threads."),
        (
            "Sessions expire after 30 minutes of inactivity.",
            "After 30 minutes without activity a session expires.",
        ),
        ("Pushes to main are not allowed.", "Pushes to main are forbidden."),
        ("Sarah is my wife.", "My wife is called Sarah."),
        ("Feature flags are stored in LaunchDarkly.", "LaunchDarkly holds our feature flags."),
    ],
)
def test_restatements_merge(existing: str, new: str):
    assert judge(new, existing, 0.9).verdict is Verdict.MERGE


def test_a_swapped_term_below_the_paraphrase_similarity_is_a_conflict():
    # Above paraphrase_similarity (0.89) a rewording merges whatever its words;
    # MiniLM gives this pair 0.86.
    judgement = judge("We use spaces for indentation.", "We use tabs for indentation.", 0.86)
    assert (judgement.verdict, judgement.difference) == (Verdict.CONFLICT, Difference.TERM)
    assert "tab -> spac" in judgement.reason


def test_a_changed_value_from_another_source_is_a_conflict():
    judgement = judge("Port 9000 it is.", "Port 8000 it is.", 0.95, same_source=False)
    assert (judgement.verdict, judgement.difference) == (Verdict.CONFLICT, Difference.NUMBER)
    assert "8000 -> 9000" in judgement.reason


def test_below_the_candidate_similarity_is_distinct():
    limits = RestatementThresholds(candidate_similarity=0.85)
    judgement = judge("I like jazz.", "I like jazz.", 0.84, thresholds=limits)
    assert judgement.verdict is Verdict.DISTINCT


def test_jaccard_skips_the_cosine_floor_and_the_paraphrase_shortcut():
    same = judge(
        "Run the tests before pushing.", "Before pushing run the tests.", 0.6, measure="jaccard"
    )
    assert same.verdict is Verdict.MERGE
    swapped = judge(
        "Use yarn for installs here.", "Use npm for installs here.", 0.6, measure="jaccard"
    )
    assert swapped.verdict is not Verdict.MERGE


def test_analysis_extracts_values_cues_and_names():
    analysis = analyse("Don't deploy v2.3 to eu-west on Friday; ask Priya.")
    assert analysis.negations == 1
    assert {"2.3", "friday"} <= analysis.values
    assert "priya" in analysis.entities


def test_labelled_pairs_are_well_formed():
    pairs = [json.loads(line) for line in PAIRS.read_text().splitlines()]
    assert len(pairs) >= 200
    assert {p["label"] for p in pairs} == {"merge", "contradiction", "update", "distinct"}
    assert {p["domain"] for p in pairs} == {"technical", "conversational"}
    assert len({(p["text_a"], p["text_b"]) for p in pairs}) == len(pairs)
    assert all(p["text_a"] != p["text_b"] and p["kind"] for p in pairs)
