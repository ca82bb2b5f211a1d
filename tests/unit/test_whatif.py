"""The pure parts of what-if tuning: how a variant's rules and scorer are built
from the ones in force, and how a report counts its sides."""

from __future__ import annotations

import pytest

from graphmem.domain.errors import InvalidInputError
from graphmem.domain.kinds import Tier
from graphmem.domain.retention import RetentionRules
from graphmem.domain.scoring import ImportanceScorer
from graphmem.services.whatif import Outcome, WhatIfReport, variant_rules, variant_scorer


def test_variant_rules_start_from_the_rules_in_force():
    current = RetentionRules(max_promotions_per_run=7)
    tried = variant_rules(current, rules_yaml="promote_threshold: 0.7\n", overrides={})
    assert (tried.max_promotions_per_run, tried.promote_threshold) == (7, 0.7)
    assert type(tried) is RetentionRules
    # Inline overrides win over the file; the rules in force are left alone.
    tried = variant_rules(
        current, rules_yaml="promote_threshold: 0.7\n", overrides={"promote_threshold": 0.8}
    )
    assert tried.promote_threshold == 0.8
    assert current.promote_threshold == 0.6


def test_a_mapping_rule_changes_only_the_keys_named():
    tried = variant_rules(RetentionRules(), rules_yaml="stale_after_days:\n  working: 3\n")
    assert tried.stale_seconds(Tier.WORKING) == 3 * 86_400
    assert tried.stale_seconds(Tier.EPISODIC) == 14 * 86_400
    assert tried.stale_seconds(Tier.PROCEDURAL) is None


def test_an_empty_variant_file_changes_nothing():
    assert variant_rules(RetentionRules(), rules_yaml="") == RetentionRules()


def test_the_error_names_where_the_bad_key_came_from():
    with pytest.raises(InvalidInputError) as caught:
        variant_rules(RetentionRules(), rules_yaml="dedup_jacard: 0.5\n", yaml_field="rules_file")
    assert caught.value.field == "rules_file.dedup_jacard"


def test_variant_scorer_is_a_new_scorer():
    current = ImportanceScorer()
    tried = variant_scorer(current, preset=None, weights={"recency": 0.0})
    assert tried is not current
    assert current.preset.weights != tried.preset.weights
    assert variant_scorer(current, preset="jarvis", weights={}).preset.name == "jarvis"


def test_totals_count_each_side():
    report = WhatIfReport(
        project_id="p",
        at=0.0,
        current_rules=RetentionRules(),
        variant_rules=RetentionRules(),
        current_preset="default",
        variant_preset="default",
        sessions=1,
        transitions={
            (Outcome.PROMOTE, Outcome.STAY): 2,
            (Outcome.STAY, Outcome.ARCHIVE): 3,
            (Outcome.PROMOTE, Outcome.PROMOTE): 1,
        },
    )
    assert report.totals("current") == {Outcome.PROMOTE: 3, Outcome.ARCHIVE: 0}
    assert report.totals("variant") == {Outcome.PROMOTE: 1, Outcome.ARCHIVE: 3}
    body = report.to_dict()
    assert body["variant"]["totals"] == {"promote": 1, "archive": 3}
    assert {"current": "promote", "variant": "stay", "count": 2} in body["transitions"]
