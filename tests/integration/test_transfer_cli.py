"""``graphmem export`` / ``graphmem import`` on real data directories."""

from __future__ import annotations

import json
import os
import pty
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import networkx as nx
import pytest
from typer.testing import CliRunner

from graphmem.api import GraphMem
from graphmem.cli import app
from graphmem.settings import Settings

runner = CliRunner()


@pytest.fixture
def dirs() -> Iterator[tuple[Path, Path]]:
    """Two data directories, short and under /tmp (unix socket paths are length-limited)."""
    made = [Path(tempfile.mkdtemp(dir="/tmp", prefix="gmx-")) for _ in range(2)]
    yield made[0], made[1]
    for path in made:
        shutil.rmtree(path, ignore_errors=True)


def env(data_dir: Path) -> dict[str, str | None]:
    unset: dict[str, str | None] = {k: None for k in os.environ if k.startswith("GRAPHMEM_")}
    return {**unset, "GRAPHMEM_DATA_DIR": str(data_dir), "GRAPHMEM_EMBEDDER": "none"}


def run(data_dir: Path, *args: str):
    return runner.invoke(app, list(args), env=env(data_dir))


def opened(data_dir: Path) -> GraphMem:
    return GraphMem.open(Settings(data_dir=data_dir, embedder="none"))


def test_a_project_moves_between_data_directories_and_again_adds_nothing(dirs):
    source, target = dirs
    with opened(source) as gm:
        kept = gm.remember({"content": "moves with its project", "tags": ["x"]})
        other = gm.remember({"content": "stays behind"}, project_id="other")
        gm.relate(kept.id, gm.remember({"content": "second"}).id, "ENABLES")
    dump = source / "project.jsonl"
    exported = run(source, "export", str(dump))
    assert exported.exit_code == 0, exported.output
    assert "exported project default (graphmem): 1 session, 2 memories, 1 relation" in (
        exported.output
    )
    assert other.id not in dump.read_text()
    imported = run(target, "import", str(dump))
    assert imported.exit_code == 0, imported.output
    assert (
        "imported into project default: created 1 project, 1 session, 2 memories, "
        "1 relation; merged nothing; skipped 0 lines" in imported.output
    )
    with opened(target) as gm:
        assert gm.get(kept.id) == kept
    again = run(target, "import", str(dump))
    assert again.exit_code == 0, again.output
    assert "created nothing; merged 1 project, 1 session, 2 memories, 1 relation" in (again.output)


def test_skipped_lines_are_listed_and_the_exit_status_says_so(dirs):
    source, target = dirs
    with opened(source) as gm:
        gm.remember({"content": "fine"})
    dump = source / "project.jsonl"
    assert run(source, "export", str(dump)).exit_code == 0
    lines = dump.read_text().splitlines()
    lines.insert(3, "{broken")
    dump.write_text("\n".join(lines[:-1]) + "\n")  # and no end line
    result = run(target, "import", str(dump))
    assert result.exit_code == 1
    output = " ".join(result.output.split())
    assert "nothing imported into project default: 1 bad line, so" in output
    assert "what it had created (1 project, 1 session, 1 memory) was removed again" in output
    # One summary: no second line saying something was imported after all.
    assert "imported into project" not in output.replace("nothing imported into project", "")
    assert "line 4: line: not JSON" in result.output
    assert "warning: the file has no end line" in result.output
    refused = run(target, "import", str(source / "nowhere.jsonl"))
    assert refused.exit_code == 2 and "cannot read" in refused.output


def test_a_project_imported_under_a_new_name_beside_itself_is_a_copy_of_it(dirs):
    """Its memory ids are the original project's: the copy's memories take ids of
    their own, the import says what it would say in a store without those ids,
    and the original project is neither changed nor named."""
    source, _ = dirs
    with opened(source) as gm:
        for n in range(3):
            gm.remember({"content": f"fact {n} about the build cache"}, project_id="alpha")
        alpha = {m.id: m.content for m in gm.list(first=10, project_id="alpha").items}
    dump = source / "alpha.jsonl"
    assert run(source, "export", str(dump), "--project", "alpha").exit_code == 0
    result = run(source, "import", str(dump), "--project", "beta")
    assert result.exit_code == 0, result.output
    assert "alpha" not in result.output and "3 memories" in result.output
    with opened(source) as gm:
        beta = {m.id: m.content for m in gm.list(first=10, project_id="beta").items}
        assert {m.id: m.content for m in gm.list(first=10, project_id="alpha").items} == alpha
    assert sorted(beta.values()) == sorted(alpha.values()) and not set(beta) & set(alpha)
    again = run(source, "import", str(dump), "--project", "beta")
    assert again.exit_code == 0 and "created nothing" in " ".join(again.output.split()), (
        again.output
    )


def test_sky_files_import_by_their_term_and_export_back(dirs):
    _, target = dirs
    short = target / "short_term.jsonl"
    long = target / "long_term.jsonl"
    short.write_text(json.dumps({"ts": 1735812000, "type": "fact", "content": "short one"}) + "\n")
    long.write_text(
        json.dumps({"ts": 1735812000, "type": "decision", "content": "long one"}) + "\n"
    )
    for path in (short, long):
        result = run(target, "import", str(path), "--format", "sky", "--project", "sky")
        assert result.exit_code == 0, result.output
        assert "created 1 memory" in result.output
    with opened(target) as gm:
        tiers = {m.content: m.tier for m in gm.list(project_id="sky").items}
    assert tiers == {"short one": "working", "long one": "semantic"}
    exported = run(target, "export", "-", "--format", "sky", "--project", "sky", "--term", "long")
    assert exported.exit_code == 0, exported.output
    record = json.loads(exported.stdout.splitlines()[0])
    assert record["content"] == "long one" and record["promoted_at"] == "2025-01-02T10:00:00Z"
    assert run(target, "import", str(short), "--format", "sky", "--term", "all").exit_code == 2


def test_the_format_follows_the_file_suffix(dirs):
    source, _ = dirs
    with opened(source) as gm:
        a = gm.remember({"content": "a"})
        gm.relate(a.id, gm.remember({"content": "b"}).id, "CONSTRAINS")
    graphml = source / "project.graphml"
    script = source / "project.cypher"
    assert run(source, "export", str(graphml)).exit_code == 0
    assert run(source, "export", str(script)).exit_code == 0
    graph = nx.read_graphml(graphml)
    assert (graph.number_of_nodes(), graph.number_of_edges()) == (2, 1)
    assert "MERGE (a)-[r:CONSTRAINS]->(b)" in script.read_text()
    missing = run(source, "export", "-", "--project", "nothing-here")
    assert missing.exit_code == 1 and "no project 'nothing-here'" in missing.output


def _stderr_on_a_terminal(data_dir: Path, *args: str) -> str:
    """Run the command with standard error on a pseudo-terminal; what it showed there."""
    leader, follower = pty.openpty()
    environment = {k: v for k, v in env(data_dir).items() if v is not None}
    environment = {**{k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")},
                   **environment, "COLUMNS": "120"}  # fmt: skip
    try:
        process = subprocess.run(
            [sys.executable, "-m", "graphmem", *args],
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=follower,
            timeout=120,
            check=False,
        )
    finally:
        os.close(follower)
    shown = b""
    try:
        while chunk := os.read(leader, 65536):
            shown += chunk
    except OSError:  # the terminal is closed once read to the end
        pass
    finally:
        os.close(leader)
    assert process.returncode == 0, shown
    return shown.decode(errors="replace")


def test_the_progress_bar_shows_on_a_terminal_unless_quiet(dirs):
    source, _ = dirs
    with opened(source) as gm:
        gm.remember_many([{"content": f"memory {i}"} for i in range(30)])
    dump = str(source / "p.jsonl")
    shown = _stderr_on_a_terminal(source, "export", dump)
    assert "exporting memories" in shown and "30/30" in shown
    assert "exported project default" in shown
    quiet = _stderr_on_a_terminal(source, "export", dump, "--quiet")
    assert "exporting memories" not in quiet and "exported project default" in quiet
    # Off a terminal (as under the test runner) there is no bar either.
    assert "exporting memories" not in run(source, "export", dump).output
