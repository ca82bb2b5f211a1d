"""Retention rules: the YAML file, environment overrides and validation."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem.domain.errors import InvalidInputError
from graphmem.domain.kinds import MemoryType, Tier
from graphmem.domain.lifecycle import long_term_target, promotion_target
from graphmem.domain.retention import RetentionRules
from graphmem.settings.retention import load_rules

ROOT = Path(__file__).resolve().parents[2]


def test_defaults_match_the_shipped_file():
    assert load_rules(ROOT / "retention_rules.yaml") == RetentionRules()


def test_file_values_and_environment_overrides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    path = tmp_path / "rules.yaml"
    path.write_text("promote_threshold: 0.7\nshort_term_max: 100\nstale_after_days: {working: 3}\n")
    rules = load_rules(path)
    assert (rules.promote_threshold, rules.short_term_max) == (0.7, 100)
    assert rules.stale_seconds(Tier.WORKING) == 3 * 86_400
    monkeypatch.setenv("GRAPHMEM_SHORT_TERM_MAX", "250")
    assert load_rules(path).short_term_max == 250


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("promote_threshold: 1.5\n", "promote_threshold"),
        ("short_term_max: 0\n", "short_term_max"),
        ("unknown_rule: 1\n", "unknown_rule"),
        ("stale_after_days: {episodic: -1}\n", "stale_after_days.episodic"),
        ("restatement: {event_window_seconds: -1}\n", "restatement.event_window_seconds"),
        ("restatement: {typo: 1}\n", "restatement.typo"),
        ("tag_thresholds: {critical: -0.1}\n", "tag_thresholds.critical"),
        ("time_decay: {floor: 1.5}\n", "time_decay.floor"),
        ("semantic_evidence: {min_dwell_days: -2}\n", "semantic_evidence.min_dwell_days"),
        ("archive_expiry: {after_days: -30}\n", "archive_expiry.after_days"),
        ("- a list\n", "retention_file"),
    ],
)
def test_bad_rules_name_the_field(tmp_path: Path, text: str, field: str):
    path = tmp_path / "rules.yaml"
    path.write_text(text)
    with pytest.raises(InvalidInputError) as error:
        load_rules(path)
    assert error.value.field == field


def test_rotation_keeps_headroom():
    assert RetentionRules(rotate_headroom=0.1).rotate_to(5000) == 4500


@pytest.mark.parametrize(
    ("tier", "memory_type", "pinned", "constrains", "expected"),
    [
        (Tier.WORKING, MemoryType.FACT, False, False, Tier.EPISODIC),
        (Tier.EPISODIC, MemoryType.FACT, False, False, Tier.SEMANTIC),
        (Tier.WORKING, MemoryType.RULE, False, False, Tier.PROCEDURAL),
        (Tier.WORKING, MemoryType.FACT, True, False, Tier.PROCEDURAL),
        (Tier.EPISODIC, MemoryType.FACT, False, True, Tier.PROCEDURAL),
        (Tier.SEMANTIC, MemoryType.FACT, False, False, None),
        (Tier.ARCHIVED, MemoryType.FACT, False, False, None),
    ],
)
def test_promotion_targets(tier, memory_type, pinned, constrains, expected):
    assert promotion_target(tier, memory_type, pinned=pinned, constrains=constrains) is expected


def test_agent_decisions_land_long_term():
    assert long_term_target(MemoryType.FACT, pinned=False) is Tier.SEMANTIC
    assert long_term_target(MemoryType.CONVENTION, pinned=False) is Tier.PROCEDURAL
