"""``graphmem evaluate``, run for real: exit codes, formats and fixes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from typer.testing import Result

from graphmem.api import GraphMem
from graphmem.domain.kinds import Tier
from graphmem.settings import Settings
from tests.conftest import cypher
from tests.integration.conftest import run_cli
from tests.integration.test_cli import free_port


def cli(data_dir: Path, *args: str, env: dict[str, str] | None = None) -> Result:
    return run_cli(data_dir, "evaluate", *args, env=env)


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


def one_line(text: str) -> str:
    return " ".join(text.split())


@contextmanager
def backend_store(
    backend: str, data_dir: Path, request: pytest.FixtureRequest
) -> Iterator[tuple[GraphMem, dict[str, str]]]:
    """The store the CLI will evaluate, open for the test to fill, and the
    environment that points the CLI at it: the embedded FalkorDB of the data
    directory, or the test Neo4j, emptied."""
    if backend == "neo4j":
        store = request.getfixturevalue("neo4j_store")
        yield GraphMem(store), request.getfixturevalue("neo4j_env")
        return
    with opened(data_dir) as gm:
        yield gm, {}


def test_findings_and_an_unknown_project_exit_with_codes_of_their_own(
    backend: str, data_dir: Path, request: pytest.FixtureRequest
):
    with backend_store(backend, data_dir, request) as (gm, env):
        broken = gm.remember({"content": "scored wrong", "memory_type": "fact"}).id
        corrupt(gm, "MATCH (m:Memory {id: $id}) SET m.importance = 1.7", broken)
    found = cli(data_dir, env=env)
    assert found.exit_code == 3, found.output
    assert "1 finding at or above error" in found.stderr
    typo = cli(data_dir, "--project", "defualt", env=env)
    assert typo.exit_code == 4, typo.output
    assert one_line(typo.stderr) == (
        "error [NOT_FOUND]: project: no project named 'defualt' (projects: default)"
    )
    assert typo.stdout == ""
    for wrong in (("--fail-on", "sometimes"), ("--dry-run",), ("--limit", "3")):
        usage = cli(data_dir, *wrong, env=env)
        assert usage.exit_code == 2, (wrong, usage.output)


def test_fix_reports_and_exits_on_what_remains_after_fixing(
    backend: str, data_dir: Path, request: pytest.FixtureRequest
):
    with backend_store(backend, data_dir, request) as (gm, env):
        fixable = gm.remember({"content": "scored wrong", "memory_type": "fact"}).id
        corrupt(gm, "MATCH (m:Memory {id: $id}) SET m.importance = 1.7", fixable)
        kept = gm.remember({"content": "replaces itself", "memory_type": "fact"}).id
        corrupt(gm, "MATCH (m:Memory {id: $id}) CREATE (m)-[:SUPERSEDES]->(m)", kept)
    dry = cli(data_dir, "--fix", "--dry-run", "--format", "json", env=env)
    assert dry.exit_code == 3 and "2 findings at or above error" in dry.stderr, dry.output
    assert len(json.loads(dry.stdout)["findings"]) == 2

    fixed = cli(data_dir, "--fix", "--format", "json", env=env)
    assert fixed.exit_code == 3, fixed.output
    assert "1 finding at or above error" in fixed.stderr, "the fixed one no longer counts"
    report = json.loads(fixed.stdout)
    assert [(f["code"], f["memory_ids"]) for f in report["findings"]] == [
        ("SUPERSEDES_SELF", [kept])
    ]
    assert report["fixes"]["applied"] == [fixable]
    note = report["notes"][0]
    assert note.startswith("checked again after 1 fix: report ")
    before = note.split()[6]
    with backend_store(backend, data_dir, request) as (gm, _):
        (stored,) = gm.consistency_reports(report_id=before)
    assert stored.summary()["errors"] == 2, "the report before the fixes is kept"

    table = cli(data_dir, "--fix", env=env)
    assert table.exit_code == 3 and "SUPERSEDES_SELF" in table.stdout, table.output
    assert "IMPORTANCE_OUT_OF_RANGE" not in table.stdout
    assert "checked again" not in table.stdout, "nothing left to fix: one check"


def test_an_unavailable_store_exits_with_its_own_code(data_dir: Path):
    not_a_directory = data_dir / "file"
    not_a_directory.write_text("")
    embedded = cli(not_a_directory)
    assert embedded.exit_code == 5, embedded.output
    assert one_line(embedded.stderr).startswith(
        f"error [STORE_UNAVAILABLE]: the data directory {not_a_directory} cannot be used"
    )
    dead = f"bolt://127.0.0.1:{free_port()}"
    neo4j = cli(data_dir, env={"GRAPHMEM_BACKEND": "neo4j", "GRAPHMEM_NEO4J_URI": dead})
    assert neo4j.exit_code == 5, neo4j.output
    assert one_line(neo4j.stderr).startswith(
        f"error [STORE_UNAVAILABLE]: cannot reach Neo4j at {dead}"
    )
    assert neo4j.stdout == ""


def test_help_lists_the_exit_codes(data_dir: Path):
    shown = one_line(cli(data_dir, "--help").stdout)
    for code in (
        "0 no finding at or above --fail-on",
        "1 the command failed",
        "2 the command line was wrong",
        "3 a finding at or above --fail-on (after --fix: one that remains)",
        "4 no project named --project",
        "5 the store is unavailable",
    ):
        assert code in shown
