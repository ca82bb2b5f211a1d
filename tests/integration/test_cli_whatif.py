"""``graphmem what-if`` run for real: the table, ``--format json``, a rules file,
bad variants named, and the store untouched."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.domain.kinds import Tier
from graphmem.settings import Settings
from tests.integration.conftest import run_cli as cli


def opened(data_dir: Path) -> GraphMem:
    return GraphMem.open(
        Settings(data_dir=data_dir, embedder="none"), clock=ManualClock(time.time())
    )


@pytest.fixture
def seeded(data_dir: Path) -> dict[str, str]:
    """A risk (0.675 fresh) and a fact (0.575 fresh) in one session."""
    with opened(data_dir) as gm:
        risk = gm.remember(
            {
                "content": "risk: tokens expire",
                "memory_type": "risk",
                "confidence": 0.9,
                "session_id": "s1",
            }
        ).id
        fact = gm.remember(
            {
                "content": "the api sits behind nginx",
                "memory_type": "fact",
                "confidence": 0.8,
                "session_id": "s1",
            }
        ).id
    return {"risk": risk, "fact": fact}


def test_table_and_json_show_the_same_diff(data_dir: Path, seeded: dict[str, str]):
    table = cli(data_dir, "what-if", "--set", "promote_threshold=0.5")
    assert table.exit_code == 0, table.output
    assert seeded["fact"] in table.stdout and "promote -> episodic" in table.stdout
    assert "1 memories change" in table.stdout and seeded["risk"] not in table.stdout

    body = cli(data_dir, "what-if", "--set", "promote_threshold=0.5", "--format", "json")
    assert body.exit_code == 0, body.output
    report = json.loads(body.stdout)
    assert report["current"]["totals"] == {"promote": 1, "archive": 0}
    assert report["variant"]["totals"] == {"promote": 2, "archive": 0}
    assert report["variant"]["rules"]["promote_threshold"] == 0.5
    (change,) = report["changes"]
    assert change["id"] == seeded["fact"]
    assert change["current"]["outcome"] == "stay"
    assert change["variant"] == {
        "outcome": "promote",
        "to_tier": "episodic",
        "score": pytest.approx(0.575, abs=1e-2),
    }
    with opened(data_dir) as gm:
        assert gm.get(seeded["fact"]).tier is Tier.WORKING
        assert gm.get(seeded["risk"]).tier is Tier.WORKING


def test_a_rules_file_preset_and_weights(data_dir: Path, seeded: dict[str, str], tmp_path: Path):
    variant = tmp_path / "stricter.yaml"
    variant.write_text("promote_threshold: 0.7\n")
    result = cli(
        data_dir,
        "what-if",
        "--rules",
        str(variant),
        "--preset",
        "default",
        "--weight",
        "salience=0.25",
        "--format",
        "json",
    )
    assert result.exit_code == 0, result.output
    (change,) = json.loads(result.stdout)["changes"]
    assert change["id"] == seeded["risk"]
    assert (change["current"]["outcome"], change["variant"]["outcome"]) == ("promote", "stay")


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (("--set", "promote_treshold=0.5"), "rules.promote_treshold"),
        (("--set", "promote_threshold"), "rules:"),
        (("--weight", "novelty=1"), "weights.novelty"),
        (("--preset", "sky"), "preset"),
    ],
)
def test_bad_variants_name_the_key(
    data_dir: Path, seeded: dict[str, str], args: tuple[str, ...], named: str
):
    result = cli(data_dir, "what-if", *args)
    assert result.exit_code == 1
    assert "INVALID_INPUT" in result.stderr and named in result.stderr


def test_a_bad_rules_file_names_the_key(data_dir: Path, seeded: dict[str, str], tmp_path: Path):
    variant = tmp_path / "bad.yaml"
    variant.write_text("stale_after_days:\n  working: soon\n")
    result = cli(data_dir, "what-if", "--rules", str(variant))
    assert result.exit_code == 1
    assert "rules_file.stale_after_days.working" in result.stderr
