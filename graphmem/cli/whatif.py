"""``graphmem what-if``: promotion and archival under other rules, as a diff
against the rules in force. Reads only."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
import yaml
from rich.table import Table

from graphmem.cli.common import ProjectOption, app, opened, out
from graphmem.cli.terminal import shown
from graphmem.domain.errors import InvalidInputError
from graphmem.services.whatif import DEFAULT_CHANGES, Fate, Outcome, WhatIfReport


class Format(StrEnum):
    TABLE = "table"
    JSON = "json"


@app.command("what-if")
def what_if(
    ctx: typer.Context,
    rules: Annotated[
        Path | None,
        typer.Option(
            "--rules",
            metavar="FILE",
            help="A retention_rules.yaml variant; its keys override the rules in force.",
            show_default=False,
        ),
    ] = None,
    preset: Annotated[
        str | None, typer.Option(help="A scoring preset: default or jarvis.", show_default=False)
    ] = None,
    weights: Annotated[
        list[str] | None,
        typer.Option(
            "--weight", metavar="FACTOR=W", help="A factor weight, e.g. recency=0.4 (repeatable)."
        ),
    ] = None,
    settings: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            metavar="RULE=VALUE",
            help="One retention rule, e.g. promote_threshold=0.7 (repeatable; applied last).",
        ),
    ] = None,
    limit: Annotated[
        int, typer.Option(help="Changes listed, most significant first (the counts cover all).")
    ] = DEFAULT_CHANGES,
    format: Annotated[Format, typer.Option("--format", help="table or json.")] = Format.TABLE,
    project: ProjectOption = None,
) -> None:
    """Show which memories would be promoted, kept or archived under other rules."""
    with opened(ctx) as gm:
        variant: dict[str, Any] = {
            "preset": preset,
            "weights": _pairs(weights or [], "weights"),
            "rules": _pairs(settings or [], "rules"),
            "limit": limit,
        }
        report = gm.what_if(
            {k: v for k, v in variant.items() if v is not None},
            rules_file=rules,
            project_id=project,
        )
    if format is Format.JSON:
        typer.echo(json.dumps(report.to_dict(), indent=2))
        return
    out.print(_summary(report))
    out.print(_changes(report), crop=False)


def _pairs(given: list[str], field: str) -> dict[str, Any]:
    """``NAME=VALUE`` options as a mapping; the value is read as YAML (0.7, null, {...})."""
    pairs: dict[str, Any] = {}
    for text in given:
        name, sep, value = text.partition("=")
        if not sep or not name.strip():
            raise InvalidInputError(f"{field}: expected NAME=VALUE, got {text!r}", field=field)
        try:
            pairs[name.strip()] = yaml.safe_load(value)
        except yaml.YAMLError:
            key = f"{field}.{name.strip()}"
            raise InvalidInputError(f"{key}: cannot read {value!r}", field=key) from None
    return pairs


def _summary(report: WhatIfReport) -> Table:
    table = Table(title=f"What if, project {report.project_id} ({report.sessions} sessions)")
    for column in ("", "preset", "threshold", "archive below", "per run", "promote", "archive"):
        table.add_column(column, justify="left" if column in ("", "preset") else "right")
    sides = (
        ("current", report.current_rules, report.current_preset),
        ("variant", report.variant_rules, report.variant_preset),
    )
    for name, rules, preset in sides:
        totals = report.totals(name)
        table.add_row(
            name,
            preset,
            f"{rules.promote_threshold:.2f}",
            f"{rules.archive_importance_below:.2f}",
            str(rules.max_promotions_per_run),
            str(totals[Outcome.PROMOTE]),
            str(totals[Outcome.ARCHIVE]),
        )
    return table


def _changes(report: WhatIfReport) -> Table:
    listed = "" if len(report.changes) == report.changed else f", {len(report.changes)} shown"
    table = Table(title=f"{report.changed} memories change{listed}")
    for column in ("id", "tier", "now", "variant", "score now", "score variant", "content"):
        table.add_column(column, no_wrap=column == "id")
    for c in report.changes:
        table.add_row(
            c.memory.id,
            c.memory.tier.value,
            _fate(c.current),
            _fate(c.variant),
            f"{c.current.score:.3f}",
            f"{c.variant.score:.3f}",
            shown(" ".join(c.memory.content.split())[:60]),
        )
    return table


def _fate(fate: Fate) -> str:
    if fate.outcome is Outcome.PROMOTE and fate.to_tier is not None:
        return f"promote -> {fate.to_tier.value}"
    return fate.outcome.value
