"""What the command line says to a person: help without Python types, enum
values in any case, a missing --reason named as such, counts that agree."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import typer
from typer.testing import Result

from graphmem.api import GraphMem
from graphmem.cli import app
from graphmem.domain.kinds import MemoryType, Source, Status, Tier
from graphmem.settings import Settings
from tests.integration.conftest import run_cli


def cli(data_dir: Path, *args: str) -> Result:
    return run_cli(data_dir, *args, env={"COLUMNS": "200"})


def command_paths() -> list[tuple[str, ...]]:
    root = typer.main.get_command(app)
    assert isinstance(root, typer.core.TyperGroup)
    ctx = typer.Context(root)
    paths: list[tuple[str, ...]] = [()]
    for name in root.list_commands(ctx):
        # Each command's module is imported on first use (graphmem.cli): ask for it.
        command = root.get_command(ctx, name)
        paths.append((name,))
        paths.extend((name, sub) for sub in getattr(command, "commands", {}))
    return paths


@pytest.mark.parametrize("path", command_paths(), ids=lambda p: " ".join(p) or "graphmem")
def test_help_shows_no_python_types_for_flags_and_repeated_options(
    path: tuple[str, ...], data_dir: Path
) -> None:
    shown = cli(data_dir, *path, "--help")
    assert shown.exit_code == 0, shown.output
    assert "<bool>" not in shown.output
    assert not re.search(r"<list\[", shown.output), shown.output


def test_the_help_of_a_repeated_option_names_one_value(data_dir: Path) -> None:
    shown = cli(data_dir, "list", "--help").output
    assert re.search(r"--tag\s+<str>", shown), shown
    assert re.search(r"--exclude-candidates\s+Hide", shown), shown


def test_enum_options_take_any_case(data_dir: Path) -> None:
    written = cli(
        data_dir, "remember", "Releases are tagged", "--type", "Decision", "--source", "AGENT"
    )
    assert written.exit_code == 0, written.output
    listed = cli(data_dir, "list", "--type", "DECISION", "--tier", "Working", "--status", "Active")
    assert listed.exit_code == 0, listed.output
    assert "Releases are tagged" in listed.output
    with GraphMem.open(Settings(data_dir=data_dir, embedder="none")) as gm:
        (memory,) = gm.list().items
    assert (memory.memory_type, memory.source, memory.tier) == (
        MemoryType.DECISION,
        Source.AGENT,
        Tier.WORKING,
    )
    assert cli(data_dir, "evaluate", "--format", "JSON", "--fail-on", "Never").exit_code == 0


def test_reject_without_a_reason_asks_for_reason_and_changes_nothing(data_dir: Path) -> None:
    with GraphMem.open(Settings(data_dir=data_dir, embedder="none")) as gm:
        candidate = gm.remember({"content": "Maybe shard", "source": "auto_extracted"})
    for args in (
        ["--reject", candidate.id],
        ["--all", "REJECT"],
        ["--reject", candidate.id, "--reason", " "],
    ):
        refused = cli(data_dir, "review", *args)
        assert refused.exit_code == 1
        assert refused.output.strip() == "error [INVALID_INPUT]: --reason is required to reject"
    with GraphMem.open(Settings(data_dir=data_dir, embedder="none")) as gm:
        assert gm.get(candidate.id).status is Status.CANDIDATE
        assert gm.get(candidate.id).tier is Tier.WORKING


def test_counts_agree_with_their_nouns(data_dir: Path) -> None:
    with GraphMem.open(Settings(data_dir=data_dir, embedder="none")) as gm:
        gm.remember({"content": "Maybe shard", "source": "auto_extracted"})
    assert re.search(r"^\s*1 memory\s*$", cli(data_dir, "list").output, re.MULTILINE)
    assert (
        "would approve 1 candidate\n"
        in cli(data_dir, "review", "--all", "approve", "--dry-run").output
    )
    assert re.search(r"^\s*1 candidate\s*$", cli(data_dir, "review", "--list").output, re.MULTILINE)


def test_consolidating_with_nothing_to_consolidate_says_so(data_dir: Path) -> None:
    shown = cli(data_dir, "consolidate")
    assert shown.exit_code == 0, shown.output
    assert "nothing to consolidate: no related memories form a group" in shown.output
    assert "consolidated 0" not in shown.output
