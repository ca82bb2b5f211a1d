"""A command whose optional module is not installed says which extra to install,
in one line, never as an internal error or a traceback."""

from __future__ import annotations

import html
import os
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphmem.cli import app

# A surface suite: what it checks is the surface, the same on every backend; the
# store suites beneath it run on Neo4j as well (tests/conftest.py).
pytestmark = pytest.mark.backends("falkordb")


def run(data_dir: Path, *args: str, **env: str) -> tuple[int, str]:
    unset: dict[str, str | None] = {k: None for k in os.environ if k.startswith("GRAPHMEM_")}
    environment = {
        **unset,
        "GRAPHMEM_DATA_DIR": str(data_dir),
        "GRAPHMEM_EMBEDDER": "none",
        **env,
    }
    result = CliRunner().invoke(app, list(args), env=environment)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


def test_the_html_report_without_matplotlib_is_the_page_without_plots(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if not installed
    page = data_dir / "report.html"
    code, output = run(data_dir, "evaluate", "--format", "html", "--output", str(page))
    assert code == 0, output
    missing = (
        "plotting the report's metrics needs matplotlib, which is not installed: "
        "pip install 'graphmem[report]'"
    )
    assert f"the page has no plots: {missing}" in " ".join(output.split())
    text = page.read_text()
    assert f"<p class='note'>No plots: {html.escape(missing)}.</p>" in text
    assert "data:image/png" not in text and "No findings: every check passed." in text


def test_the_neo4j_backend_without_its_driver_names_the_neo4j_extra(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "graphmem.store.neo4j", None)
    code, output = run(
        data_dir, "list", GRAPHMEM_BACKEND="neo4j", GRAPHMEM_NEO4J_URI="bolt://127.0.0.1:9"
    )
    assert code == 1
    assert "INTERNAL" not in output and "Traceback" not in output
    assert "pip install 'graphmem[neo4j]'" in output
    assert output.startswith("error [MISSING_EXTRA]: GRAPHMEM_BACKEND=neo4j needs")
