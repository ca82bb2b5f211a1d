"""The report as people read it on the command line: a rich table of the
findings, most severe first, and the headline metrics."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from graphmem.domain.consistency import ConsistencyReport, Severity
from graphmem.domain.wording import plural

_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}


def render_table(report: ConsistencyReport, *, limit: int = 200) -> RenderableType:
    """Summary, findings (most severe first) and the headline metrics."""
    counts = report.counts()
    head = Text.assemble(
        (f"project {report.project_id}", "bold"),
        f"  {plural(report.memories, 'memory', 'memories')}, "
        f"{plural(report.relations, 'relation')}, "
        f"{report.duration_ms / 1000:.2f} s  ",
        (plural(counts["error"], "error"), _STYLE[Severity.ERROR] if counts["error"] else ""),
        ", ",
        (
            plural(counts["warning"], "warning"),
            _STYLE[Severity.WARNING] if counts["warning"] else "",
        ),
        f", {counts['info']} info",
    )
    parts: list[RenderableType] = [head]
    if report.findings:
        table = Table(title=f"Findings ({len(report.findings)})", show_lines=False)
        for column in ("severity", "code", "memories", "message", "fix"):
            table.add_column(column, no_wrap=column in ("severity", "code"))
        for f in report.findings[:limit]:
            ids = ", ".join(f.memory_ids[:3]) + (
                f" +{len(f.memory_ids) - 3}" if len(f.memory_ids) > 3 else ""
            )
            table.add_row(
                Text(f.severity.value, style=_STYLE[f.severity]),
                f.code,
                ids,
                Text(f.message),
                Text(f.fix + (" [fixable]" if f.fixable else "")),
            )
        parts.append(table)
        if len(report.findings) > limit:
            parts.append(Text(f"... and {len(report.findings) - limit} more (use --format json)"))
    else:
        parts.append(Text("no findings", style="green"))
    parts += [Text(f"note: {note}", style="dim") for note in report.notes]
    parts.append(_metrics_table(report.metrics))
    if report.fixes is not None:
        parts.append(_fixes_table(report.fixes))
    if report.evidence is not None:
        parts.append(
            Text(
                "evidence: relevance written for "
                f"{plural(report.evidence['written'], 'candidate')}, "
                f"{len(report.evidence['activated'])} activated"
            )
        )
    return Group(*parts)


def _metrics_table(metrics: dict[str, Any]) -> Table:
    table = Table(title="Metrics", show_header=False)
    table.add_column("metric", no_wrap=True)
    table.add_column("value")
    if not metrics:
        return table
    graph = metrics["graph"]
    chains = metrics["supersede_chains"]
    candidates = metrics["candidates"]
    rows = [
        ("by tier", _pairs(metrics["by_tier"])),
        ("by status", _pairs(metrics["by_status"])),
        ("by type", _pairs(metrics["by_type"])),
        ("relations", _pairs(metrics["relations_by_type"])),
        (
            "promotions 1d / 7d / 30d",
            " / ".join(str(metrics["promotion"][w]["count"]) for w in ("1d", "7d", "30d")),
        ),
        (
            "archivals 1d / 7d / 30d",
            " / ".join(str(metrics["archival"][w]["count"]) for w in ("1d", "7d", "30d")),
        ),
        (
            "review backlog",
            f"{plural(candidates['backlog'], 'candidate')}, "
            f"{candidates['older_than_7d']} older than 7 days",
        ),
        (
            "graph",
            f"density {graph['density']:.2e}, {graph['weak_components']} weak components "
            f"(largest {graph['largest_component']}), {graph['isolated']} isolated, "
            f"degree mean {graph['degree']['mean']:.2f} max {graph['degree']['max']}",
        ),
        (
            "supersede chains",
            f"{chains['chains']} chains, longest {chains['max_length']}, "
            f"mean {chains['mean_length']:.2f}",
        ),
        (
            "load-bearing (PageRank)",
            ", ".join(f"{m['id']} ({m['score']:.2e})" for m in metrics["pagerank_top"][:5]),
        ),
    ]
    for name, value in rows:
        table.add_row(name, Text(value))
    return table


def _fixes_table(fixes: dict[str, Any]) -> Table:
    verb = "would apply" if fixes["dry_run"] else "applied"
    table = Table(title=f"Fixes: {verb} {len(fixes['planned'])}")
    for column in ("action", "memory", "detail", "done"):
        table.add_column(column, no_wrap=column != "detail")
    applied = set(fixes["applied"])
    for fix in fixes["planned"]:
        done = "-" if fixes["dry_run"] else "yes" if fix["memory_id"] in applied else "skipped"
        table.add_row(fix["action"], fix["memory_id"], Text(fix["detail"]), done)
    return table


def _pairs(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in counts.items() if v) or "-"
