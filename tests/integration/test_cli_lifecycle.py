"""The lifecycle commands (promote, archive, restore, review, migrate), run for real."""

from __future__ import annotations

import time
from pathlib import Path

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.domain.kinds import Status, Tier
from graphmem.settings import Settings
from tests.integration.conftest import run_cli as cli


def store(data_dir: Path, *, days_ago: float = 0.0) -> GraphMem:
    clock = ManualClock(time.time() - days_ago * 86_400)
    return GraphMem.open(Settings(data_dir=data_dir, embedder="none"), clock=clock)


def test_promote_dry_run_then_for_real(data_dir: Path):
    with store(data_dir) as gm:
        hot = gm.remember(
            {
                "content": "risk: tokens expire",
                "memory_type": "risk",
                "confidence": 0.9,
                "session_id": "s1",
            }
        )
    dry = cli(data_dir, "promote", "s1", "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert hot.id in dry.stdout and "episodic" in dry.stdout and "0.675" in dry.stdout
    assert "(run:" in dry.stdout, "the rules that applied show in the dry run"
    with store(data_dir) as gm:
        assert gm.get(hot.id).tier is Tier.WORKING
    real = cli(data_dir, "promote", "s1")
    assert real.exit_code == 0, real.output
    with store(data_dir) as gm:
        assert gm.get(hot.id).tier is Tier.EPISODIC
    missing = cli(data_dir, "promote", "nope")
    assert missing.exit_code == 1 and "NOT_FOUND" in missing.stderr


def test_archive_and_restore(data_dir: Path):
    with store(data_dir, days_ago=3) as gm:
        stale = gm.remember(
            {"content": "an old guess", "memory_type": "assumption", "confidence": 0.2}
        )
    dry = cli(data_dir, "archive", "--dry-run")
    assert dry.exit_code == 0 and stale.id in dry.stdout and "would archive 1" in dry.stdout
    done = cli(data_dir, "archive")
    assert done.exit_code == 0 and "archived 1" in done.stdout
    with store(data_dir) as gm:
        assert gm.get(stale.id).tier is Tier.ARCHIVED
    restored = cli(data_dir, "restore", stale.id)
    assert restored.exit_code == 0 and "working" in restored.stdout


def test_review_flags_and_interactive(data_dir: Path):
    with store(data_dir) as gm:
        a, b, c = (
            gm.remember({"content": f"candidate {i}", "source": "auto_extracted", "tags": ["x"]})
            for i in range(3)
        )
    listed = cli(data_dir, "review", "--list")
    assert all(m.id in listed.stdout for m in (a, b, c))
    assert cli(data_dir, "review", "--approve", a.id).exit_code == 0
    refused = cli(data_dir, "review", "--reject", b.id)
    assert refused.exit_code == 1 and "reason" in refused.stderr
    interactive = cli(data_dir, "review", input="r\nnot useful\nq\n")
    assert interactive.exit_code == 0, interactive.output
    with store(data_dir) as gm:
        assert gm.get(a.id).status is Status.ACTIVE
        assert gm.get(b.id).tier is Tier.ARCHIVED
        assert gm.get(c.id).status is Status.CANDIDATE
    dry = cli(data_dir, "review", "--all", "approve", "--tag", "x", "--dry-run")
    assert "would approve 1" in dry.stdout and c.id in dry.stdout
    with store(data_dir) as gm:
        assert gm.get(c.id).status is Status.CANDIDATE


def test_migrate_reports_then_is_a_noop(data_dir: Path):
    first = cli(data_dir, "migrate")
    assert first.exit_code == 0 and "Migrations applied" in first.stdout
    again = cli(data_dir, "migrate")
    assert "up to date" in again.stdout


def test_list_can_exclude_candidates(data_dir: Path):
    with store(data_dir) as gm:
        candidate = gm.remember({"content": "maybe", "source": "auto_extracted"})
        active = gm.remember({"content": "surely"})
    shown = cli(data_dir, "list", "--exclude-candidates")
    assert active.id in shown.stdout and candidate.id not in shown.stdout
