"""The pure steps of ``services.near_matches``: what a judged difference makes
of a new row."""

from __future__ import annotations

from graphmem.domain.models import WriteOutcome, WriteResult
from graphmem.domain.restatement.verdicts import Difference, Judgement, Verdict
from graphmem.services.near_matches import _differ, _weighed

UPDATE = Judgement(Verdict.SUPERSEDE, Difference.NUMBER, "number differs: 30 -> 60")


def test_a_newer_value_stated_less_surely_conflicts_instead() -> None:
    weighed = _weighed({"confidence": 0.4}, {"confidence": 0.9}, UPDATE)
    assert weighed.verdict is Verdict.CONFLICT
    assert weighed.difference is Difference.NUMBER
    assert weighed.reason == "number differs: 30 -> 60, stated with less confidence (0.4 < 0.9)"


def test_a_value_stated_as_surely_or_against_an_unknown_confidence_supersedes() -> None:
    assert _weighed({"confidence": 0.9}, {"confidence": 0.9}, UPDATE) is UPDATE
    assert _weighed({"confidence": 0.1}, {}, UPDATE) is UPDATE


def test_a_conflict_is_never_weighed_into_anything_else() -> None:
    conflict = Judgement(Verdict.CONFLICT, Difference.POLARITY, "polarity flips: on vs off")
    assert _weighed({"confidence": 0.1}, {"confidence": 0.9}, conflict) is conflict


def test_an_update_gives_its_edge_and_a_conflict_flags_the_row() -> None:
    outcomes = [WriteOutcome(id="new", created=True, result=WriteResult.CREATED)]
    row = {"id": "new", "confidence": 0.9}
    edges = _differ(row, {"id": "old", "confidence": 0.5}, UPDATE, outcomes)
    assert edges == [{"new_id": "new", "old_id": "old", "rationale": UPDATE.reason}]
    assert outcomes[0].result is WriteResult.SUPERSEDED and outcomes[0].related_id == "old"
    assert "status" not in row

    unsure = {"id": "new", "confidence": 0.2}
    outcomes = [WriteOutcome(id="new", created=True, result=WriteResult.CREATED)]
    assert _differ(unsure, {"id": "old", "confidence": 0.5}, UPDATE, outcomes) == []
    assert outcomes[0].result is WriteResult.FLAGGED_CONFLICT
    assert unsure["status"] == "candidate" and unsure["conflicts_with"] == "old"
