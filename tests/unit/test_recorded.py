"""benchmarks.recorded: the figures docs/figures.md keeps, and a run set against them."""

from __future__ import annotations

from pathlib import Path

from benchmarks import recorded
from benchmarks.report import Figure

PAGE = """# Benchmarks

Some prose.

## Recorded figures

How the table is read.

## Later section

Kept as it is.
"""


def page(tmp_path: Path) -> Path:
    path = tmp_path / "figures.md"
    path.write_text(PAGE)
    return path


def test_recorded_figures_read_back_and_other_sections_stay(tmp_path: Path) -> None:
    path = page(tmp_path)
    recorded.record("eval", [recorded.quality("a/HYBRID/recall@10", "a", 0.6951)], path, today="D")
    rows = recorded.read(path)
    assert rows[("eval", "a/HYBRID/recall@10")].value == 0.6951
    text = path.read_text()
    assert "How the table is read." in text and "## Later section\n\nKept as it is." in text
    assert text.index("| eval |") < text.index("## Later section")


def test_recording_replaces_the_rows_of_what_it_measured_only(tmp_path: Path) -> None:
    path = page(tmp_path)
    both = [recorded.quality("x", "x", 0.5), recorded.quality("y", "y", 0.4)]
    recorded.record("eval", both, path)
    recorded.record("load", [recorded.quality("x", "x", 0.3)], path)
    recorded.record("eval", [recorded.quality("x", "x", 0.7)], path)
    rows = recorded.read(path)
    assert set(rows) == {("eval", "x"), ("eval", "y"), ("load", "x")}
    assert (rows[("eval", "x")].value, rows[("eval", "y")].value) == (0.7, 0.4)
    assert rows[("load", "x")].value == 0.3


def test_a_quality_figure_below_its_record_is_a_regression(tmp_path: Path) -> None:
    path = page(tmp_path)
    recorded.record(
        "eval", [recorded.quality("x", "x", 0.700), recorded.quality("y", "y", 0.5)], path
    )
    lines = recorded.regressions(
        "eval",
        [
            recorded.quality("x", "x", 0.698),  # worse
            recorded.quality("y", "y", 0.4996),  # rounding
            recorded.quality("new", "new", 0.1),  # not recorded
        ],
        path,
    )
    assert len(lines) == 2
    assert lines[0].startswith("REGRESSION x: 0.698 against 0.7")
    assert lines[-1] == (
        "against docs/figures.md: 2 figures compared, 1 worse, 1 not recorded (--record keeps them)"
    )


def test_a_speed_ratio_is_a_regression_only_past_its_margin(tmp_path: Path) -> None:
    path = page(tmp_path)

    def ratio(value: float) -> list[recorded.Measured]:
        return recorded.speed(
            [Figure(key="p95", name="p95", value=value, unit="ms", baseline=10.0, ratio=value / 10)]
        )

    recorded.record("retrieval", ratio(20.0), path)
    assert recorded.read(path)[("retrieval", "p95")].margin == "15%"
    assert len(recorded.regressions("retrieval", ratio(22.0), path)) == 1  # 10% worse: noise
    assert recorded.regressions("retrieval", ratio(24.0), path)[0].startswith("REGRESSION p95")
    assert len(recorded.regressions("retrieval", ratio(12.0), path)) == 1  # better


def test_a_page_without_the_table_gets_one(tmp_path: Path) -> None:
    path = tmp_path / "figures.md"
    path.write_text("# Benchmarks\n")
    assert recorded.read(path) == {}
    recorded.record("eval", [recorded.quality("x", "x", 0.5)], path)
    assert recorded.HEADING in path.read_text()
    assert recorded.read(path)[("eval", "x")].value == 0.5
