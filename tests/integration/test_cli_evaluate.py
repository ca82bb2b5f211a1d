"""``graphmem evaluate``, run for real: exit codes, formats and fixes."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import Result

from graphmem.api import GraphMem
from graphmem.domain.config import Settings
from graphmem.domain.kinds import Tier
from tests.conftest import cypher
from tests.integration.conftest import run_cli


def cli(data_dir: Path, *args: str) -> Result:
    return run_cli(data_dir, "evaluate", *args)


def opened(data_dir: Path) -> GraphMem:
    return GraphMem.open(Settings(data_dir=data_dir, embedder="none"))


def corrupt(gm: GraphMem, text: str, memory_id: str) -> None:
    cypher(gm.store, text, {"id": memory_id})


def test_fail_on_exit_codes_and_formats(data_dir: Path):
    with opened(data_dir) as gm:
        broken = gm.remember({"content": "scored wrong", "memory_type": "fact"}).id
        corrupt(gm, "MATCH (m:Memory {id: $id}) SET m.importance = 1.7", broken)
        pinned = gm.remember({"content": "a pinned note"}, project_id="w").id
        gm.pin(pinned, project_id="w")
    table = cli(data_dir)
    assert table.exit_code == 3, table.output
    assert "IMPORTANCE_OUT_OF_RANGE" in table.stdout and broken in table.stdout
    assert "1 finding at or above error" in table.stderr
    report = json.loads(cli(data_dir, "--format", "json", "--fail-on", "never").stdout)
    assert report["schema_version"] == 1 and report["summary"]["errors"] == 1
    assert report["findings"][0]["memory_ids"] == [broken]
    assert cli(data_dir, "--project", "w").exit_code == 0, "only a warning there"
    assert cli(data_dir, "--project", "w", "--fail-on", "warning").exit_code == 3
    both = json.loads(
        cli(data_dir, "--all-projects", "--format", "json", "--fail-on", "never").stdout
    )
    assert sorted(r["project_id"] for r in both) == ["default", "w"]
    page = data_dir / "report.html"
    html = cli(data_dir, "--format", "html", "--output", str(page), "--fail-on", "never")
    assert html.exit_code == 0, html.output
    text = page.read_text()
    assert text.count("data:image/png;base64,") == 3 and "IMPORTANCE_OUT_OF_RANGE" in text
    # Findings first, showing what the memory says, not only its id.
    assert text.index("IMPORTANCE_OUT_OF_RANGE") < text.index("data:image/png")
    assert "<blockquote>scored wrong</blockquote>" in text
    assert cli(data_dir, "--dry-run").exit_code == 2, "--dry-run needs --fix"


def test_fix_dry_run_then_fix_then_a_clean_rerun(data_dir: Path):
    with opened(data_dir) as gm:
        stale = gm.remember({"content": "accessed behind our back", "memory_type": "fact"}).id
        corrupt(gm, "MATCH (m:Memory {id: $id}) SET m.access_count = 8", stale)
        orphan = gm.remember({"content": "lost", "memory_type": "fact"}).id
        corrupt(gm, "MATCH (:Memory {id: $id})-[r:IN_SESSION]->() DELETE r", orphan)
        before = gm.get(stale).importance
    dry = cli(data_dir, "--fix", "--dry-run", "--fail-on", "never")
    assert dry.exit_code == 0 and "would apply 2" in dry.stdout, dry.output
    with opened(data_dir) as gm:
        assert gm.get(stale).importance == before and gm.get(orphan).tier is Tier.WORKING
    fixed = cli(data_dir, "--fix", "--fail-on", "never")
    assert fixed.exit_code == 0 and "applied 2" in fixed.stdout, fixed.output
    with opened(data_dir) as gm:
        assert gm.get(stale).importance > before and gm.get(orphan).tier is Tier.ARCHIVED
    clean = cli(data_dir, "--fail-on", "info")
    assert clean.exit_code == 0 and "no findings" in clean.stdout, clean.output
