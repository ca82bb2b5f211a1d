"""The figures recorded in docs/figures.md, and a run's figures set against them.

A benchmark prints what it measured beside a baseline of the same run; that
says how graphmem compares with the floor now, not whether it got worse than
it was. The table "Recorded figures" in docs/figures.md holds the latest
figure of each benchmark that keeps one, with the day and the margin it is
read with, and every benchmark that records prints, after its own tables,
each figure that came out worse than the record as a regression
(``regressions``); ``--record`` writes the run's figures there instead
(``record``), replacing the rows of the figures it measured.

Two kinds of figure are kept. Quality (recall, MRR, a share of pairs) is the
same on every run of the same code and data, so a worse value by more than
rounding is a regression. Speed is kept only as a ratio to a baseline of the
same run (a rate or latency against the floor), since this machine is shared
and its absolute times move with the load beside it; a ratio worse by more
than its margin is a regression.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from benchmarks.report import Figure

FIGURES = Path(__file__).resolve().parents[1] / "docs" / "figures.md"
HEADING = "## Recorded figures"
COLUMNS = ("benchmark", "key", "figure", "recorded", "better", "margin", "on")
QUALITY_MARGIN = 0.0005
"""Quality figures are printed to three decimals: below that, no change."""
SPEED_MARGIN = 0.15
"""A speed ratio may move this share run to run on a shared 2-core machine."""

Better = Literal["higher", "lower"]


@dataclass(frozen=True, slots=True)
class Measured:
    """One figure of a run, as it is recorded and compared."""

    key: str
    """Stable across runs: what the record is looked up by."""
    name: str
    value: float
    better: Better
    margin: float
    """How much worse it may read before it is a regression: absolute for
    quality, a share of the recorded value for speed (``relative``)."""
    relative: bool = False

    def worse_than(self, recorded: float) -> bool:
        allowed = self.margin * abs(recorded) if self.relative else self.margin
        if self.better == "higher":
            return self.value < recorded - allowed
        return self.value > recorded + allowed


@dataclass(frozen=True, slots=True)
class Recorded:
    benchmark: str
    key: str
    name: str
    value: float
    better: Better
    margin: str
    on: str


def quality(key: str, name: str, value: float) -> Measured:
    """A quality figure (recall, MRR, a share): higher is better, rounding aside."""
    return Measured(key=key, name=name, value=value, better="higher", margin=QUALITY_MARGIN)


def speed(figures: Iterable[Figure]) -> list[Measured]:
    """The figures measured against a same-run baseline, as their ratio (lower
    is better: ``Figure.ratio`` is graphmem's cost over the baseline's)."""
    return [
        Measured(
            key=f.key,
            name=f"{f.name} / baseline",
            value=f.ratio,
            better="lower",
            margin=SPEED_MARGIN,
            relative=True,
        )
        for f in figures
        if f.ratio is not None
    ]


def read(path: Path = FIGURES) -> dict[tuple[str, str], Recorded]:
    """Every recorded figure by (benchmark, key); none when the page has no table."""
    rows: dict[tuple[str, str], Recorded] = {}
    for cells in _table_rows(path.read_text() if path.exists() else ""):
        benchmark, key, name, value, better, margin, on = cells
        if better not in ("higher", "lower"):
            continue
        rows[(benchmark, key)] = Recorded(
            benchmark,
            key,
            name,
            float(value),
            better,
            margin,
            on,  # type: ignore[arg-type]
        )
    return rows


def regressions(benchmark: str, measured: Sequence[Measured], path: Path = FIGURES) -> list[str]:
    """One line per figure worse than its record, then a line of the count;
    figures with no record are counted, not compared."""
    known = read(path)
    lines, compared = [], 0
    for figure in measured:
        recorded = known.get((benchmark, figure.key))
        if recorded is None:
            continue
        compared += 1
        if figure.worse_than(recorded.value):
            lines.append(
                f"REGRESSION {figure.name}: {figure.value:.4g} against {recorded.value:.4g} "
                f"recorded on {recorded.on} ({figure.better} is better, margin {recorded.margin})"
            )
    unrecorded = len(measured) - compared
    lines.append(
        f"against docs/figures.md: {compared} figures compared, {len(lines)} worse"
        + (f", {unrecorded} not recorded (--record keeps them)" if unrecorded else "")
    )
    return lines


def record(
    benchmark: str, measured: Sequence[Measured], path: Path = FIGURES, *, today: str | None = None
) -> None:
    """Write ``measured`` into the table, dated ``today``: each replaces the
    benchmark's row of its key, and the benchmark's other rows stay (a run of
    some sets records those)."""
    text = path.read_text() if path.exists() else ""
    on = today or datetime.now(UTC).date().isoformat()
    keys = {m.key for m in measured}
    kept = [
        cells for cells in _table_rows(text) if not (cells[0] == benchmark and cells[1] in keys)
    ]
    new: list[tuple[str, ...]] = [
        (
            benchmark,
            m.key,
            m.name,
            f"{m.value:.4f}",
            m.better,
            f"{m.margin:.0%}" if m.relative else f"{m.margin:g}",
            on,
        )
        for m in measured
    ]
    rows = sorted(kept + new, key=lambda cells: (cells[0], cells[1]))
    table = "\n".join(
        ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
        + ["| " + " | ".join(cells) + " |" for cells in rows]
    )
    path.write_text(_with_table(text, table))


def _table_rows(text: str) -> list[tuple[str, ...]]:
    """The cells of each data row of the table under ``HEADING``."""
    section = _section(text)
    rows = []
    for line in section.splitlines():
        cells = tuple(cell.strip() for cell in line.strip().strip("|").split("|"))
        if len(cells) == len(COLUMNS) and cells[0] != COLUMNS[0] and not set(cells[0]) <= {"-"}:
            rows.append(cells)
    return rows


def _section(text: str) -> str:
    start = text.find(HEADING)
    if start < 0:
        return ""
    rest = text[start + len(HEADING) :]
    end = re.search(r"^## ", rest, re.MULTILINE)
    return rest[: end.start()] if end else rest


def _with_table(text: str, table: str) -> str:
    """``text`` with the table under ``HEADING`` replaced (the section's prose kept)."""
    start = text.find(HEADING)
    if start < 0:
        return text.rstrip() + f"\n\n{HEADING}\n\n{table}\n"
    body_start = start + len(HEADING)
    section = _section(text)
    lines = section.splitlines()
    prose = [line for line in lines if not line.lstrip().startswith("|")]
    while prose and not prose[-1].strip():
        prose.pop()
    after = text[body_start + len(section) :]
    rebuilt = "\n".join(prose) + "\n\n" + table + "\n"
    return text[:body_start] + rebuilt + ("\n" + after if after else "")
