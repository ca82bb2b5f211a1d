"""Figures and how they are shown: a rich table for people, JSON for machines."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass
from typing import Any

from rich.console import Console
from rich.table import Table

PIPE_WIDTH = 140


@dataclass(frozen=True, slots=True)
class Figure:
    """One measured figure beside its same-run baseline.

    ``ratio`` is always graphmem's cost per item over the baseline's, so
    lower is better whatever the unit (a rate is inverted first).
    """

    key: str
    """Stable across runs and settings, for machines comparing reports."""
    name: str
    value: float
    unit: str
    baseline: float | None = None
    ratio: float | None = None
    target: str | None = None
    passed: bool | None = None
    count: int = 0
    """How many items or requests the figure is measured over."""


def table(figures: list[Figure], title: str) -> Table:
    out = Table(title=title)
    out.add_column("figure", no_wrap=True)
    out.add_column("n", justify="right")
    for column in ("value", "baseline", "ratio"):
        out.add_column(column, justify="right")
    out.add_column("target", no_wrap=True)
    out.add_column("pass/fail")
    for f in figures:
        verdict = "-" if f.passed is None else "[green]pass[/]" if f.passed else "[red]fail[/]"
        out.add_row(
            f.name,
            f"{f.count:,}",
            _amount(f.value, f.unit),
            "-" if f.baseline is None else _amount(f.baseline, f.unit),
            "-" if f.ratio is None else f"{f.ratio:.2f}x",
            f.target or "-",
            verdict,
        )
    return out


def to_json(figures: list[Figure], info: dict[str, Any]) -> str:
    return json.dumps({**info, "figures": [asdict(f) for f in figures]}, indent=2)


def show(figures: list[Figure], info: dict[str, Any], console: Console) -> None:
    console.print(
        table(figures, title=f"graphmem benchmark (reads at {info['memories_read_at']:,} memories)")
    )


def console(*, stderr: bool) -> Console:
    """Rich's 80 columns are too few for the table when output is not a terminal."""
    stream = sys.stderr if stderr else sys.stdout
    return Console(stderr=stderr, width=None if stream.isatty() else PIPE_WIDTH)


def _amount(value: float, unit: str) -> str:
    return f"{value:,.0f} {unit}" if value >= 100 else f"{value:.3g} {unit}"
