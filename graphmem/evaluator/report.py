"""The evaluator's report: one versioned JSON document, rendered three ways.

``to_dict`` is the contract (docs/evaluator-report.md): machines read the
JSON, people read the rich table on the CLI or the HTML page with plots.
The same document is stored in the graph as a ``:ConsistencyReport`` node,
so past runs and their trend can be listed.
"""

from __future__ import annotations

import base64
import html
import io
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from graphmem.errors import GraphMemError
from graphmem.evaluator.checks import Finding, Severity

SCHEMA_VERSION = 1
_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}


@dataclass
class ConsistencyReport:
    id: str
    project_id: str
    created_at: float
    """The evaluation's clock time: every time-dependent check used this one instant."""
    findings: list[Finding] = field(default_factory=list)
    metrics: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    memories: int = 0
    relations: int = 0
    duration_ms: float = 0.0
    timings_ms: dict[str, float] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    fixes: dict[str, Any] | None = None
    """``{"dry_run", "planned": [...], "applied": [...]}`` when fixes were asked for."""
    evidence: dict[str, Any] | None = None
    """``{"written", "activated": [...]}`` when relevance evidence was written."""
    findings_total: int | None = None
    """How many findings the run had, when ``findings`` holds fewer (a stored report)."""
    schema_version: int = SCHEMA_VERSION
    stored_summary: dict[str, Any] | None = None
    """The summary as stored, for a report read without its body (a trend listing)."""

    def counts(self) -> dict[str, int]:
        if self.stored_summary is not None:
            s = self.stored_summary
            return {"error": s["errors"], "warning": s["warnings"], "info": s["infos"]}
        by_severity = Counter(f.severity.value for f in self.findings)
        return {s.value: by_severity.get(s.value, 0) for s in Severity}

    def by_code(self) -> dict[str, int]:
        if self.stored_summary is not None:
            return dict(self.stored_summary["by_code"])
        return dict(sorted(Counter(f.code for f in self.findings).items()))

    def at_or_above(self, severity: Severity) -> list[Finding]:
        return [f for f in self.findings if f.severity.rank >= severity.rank]

    def summary(self) -> dict[str, Any]:
        if self.stored_summary is not None:
            return dict(self.stored_summary)
        counts = self.counts()
        return {
            "memories": self.memories,
            "relations": self.relations,
            "findings": self.findings_total
            if self.findings_total is not None
            else len(self.findings),
            "errors": counts["error"],
            "warnings": counts["warning"],
            "infos": counts["info"],
            "by_code": self.by_code(),
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": self.schema_version,
            "id": self.id,
            "project_id": self.project_id,
            "created_at": self.created_at,
            "created_at_iso": _iso(self.created_at),
            "duration_ms": self.duration_ms,
            "timings_ms": self.timings_ms,
            "settings": self.settings,
            "summary": self.summary(),
            "findings": [finding_to_dict(f) for f in self.findings],
            "findings_truncated": self.findings_total is not None
            and self.findings_total > len(self.findings),
            "notes": self.notes,
            "metrics": self.metrics,
            "fixes": self.fixes,
            "evidence": self.evidence,
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, sort_keys=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ConsistencyReport:
        version = data.get("schema_version")
        if version != SCHEMA_VERSION:
            raise GraphMemError(f"report schema_version {version!r} is not {SCHEMA_VERSION}")
        findings = [finding_from_dict(f) for f in data["findings"]]
        total = data["summary"]["findings"]
        return cls(
            id=data["id"],
            project_id=data["project_id"],
            created_at=data["created_at"],
            findings=findings,
            metrics=data["metrics"],
            notes=data["notes"],
            memories=data["summary"]["memories"],
            relations=data["summary"]["relations"],
            duration_ms=data["duration_ms"],
            timings_ms=data["timings_ms"],
            settings=data["settings"],
            fixes=data["fixes"],
            evidence=data["evidence"],
            findings_total=total if total != len(findings) else None,
        )


def finding_to_dict(f: Finding) -> dict[str, Any]:
    return {
        "code": f.code,
        "severity": f.severity.value,
        "memory_ids": list(f.memory_ids),
        "message": f.message,
        "fix": f.fix,
        "fixable": f.fixable,
        "details": dict(f.details),
    }


def finding_from_dict(data: dict[str, Any]) -> Finding:
    return Finding(
        code=data["code"],
        severity=Severity(data["severity"]),
        memory_ids=tuple(data["memory_ids"]),
        message=data["message"],
        fix=data["fix"],
        fixable=data["fixable"],
        details=data["details"],
    )


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, tz=UTC).isoformat()


# -- rich (CLI) ----------------------------------------------------------------


def render_table(report: ConsistencyReport, *, limit: int = 200) -> RenderableType:
    """Summary, findings (most severe first) and the headline metrics."""
    counts = report.counts()
    head = Text.assemble(
        (f"project {report.project_id}", "bold"),
        f"  {report.memories:,} memories, {report.relations:,} relations, "
        f"{report.duration_ms / 1000:.2f} s  ",
        (f"{counts['error']} errors", _STYLE[Severity.ERROR] if counts["error"] else ""),
        ", ",
        (f"{counts['warning']} warnings", _STYLE[Severity.WARNING] if counts["warning"] else ""),
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
                f"evidence: relevance written for {report.evidence['written']} candidates, "
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
            f"{candidates['backlog']} candidates, {candidates['older_than_7d']} older than 7 days",
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


# -- HTML ------------------------------------------------------------------------


def render_html(report: ConsistencyReport) -> str:
    """A self-contained page: summary, plots (PNG inline) and the findings table.

    Plots need matplotlib, installed with the ``report`` extra.
    """
    plots = _plots(report.metrics) if report.metrics else []
    counts = report.counts()
    esc = html.escape
    rows = "\n".join(
        f'<tr class="{f.severity.value}"><td>{f.severity.value}</td><td>{esc(f.code)}</td>'
        f"<td>{esc(', '.join(f.memory_ids))}</td><td>{esc(f.message)}</td>"
        f"<td>{esc(f.fix)}{' <b>[fixable]</b>' if f.fixable else ''}</td></tr>"
        for f in report.findings
    )
    images = "\n".join(
        f'<figure><img alt="{esc(title)}" src="data:image/png;base64,{data}">'
        f"<figcaption>{esc(title)}</figcaption></figure>"
        for title, data in plots
    )
    notes = "".join(f"<p class='note'>{esc(n)}</p>" for n in report.notes)
    top = "".join(
        f"<li><code>{esc(m['id'])}</code> {esc(str(m['memory_type']))} in {esc(str(m['tier']))}"
        f" (PageRank {m['score']:.3e}, {m['in_degree']} in / {m['out_degree']} out)</li>"
        for m in report.metrics.get("pagerank_top", [])
    )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>graphmem consistency report: {esc(report.project_id)}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em; color: #222; }}
table {{ border-collapse: collapse; width: 100%; font-size: 0.9em; }}
td, th {{ border: 1px solid #ccc; padding: 4px 6px; vertical-align: top; text-align: left; }}
tr.error td:first-child {{ color: #b00; font-weight: bold; }}
tr.warning td:first-child {{ color: #a60; }}
tr.info td:first-child {{ color: #06a; }}
figure {{ display: inline-block; margin: 0 1em 1em 0; }}
.note {{ color: #666; }}
</style></head><body>
<h1>Consistency report: project {esc(report.project_id)}</h1>
<p>Run <code>{esc(report.id)}</code> at {esc(_iso(report.created_at))};
{report.memories:,} memories, {report.relations:,} relations;
{report.duration_ms / 1000:.2f} s.</p>
<p><b>{counts["error"]}</b> errors, <b>{counts["warning"]}</b> warnings,
<b>{counts["info"]}</b> info.</p>
{notes}
{images}
<h2>Load-bearing memories</h2><ol>{top}</ol>
<h2>Findings</h2>
<table><tr><th>severity</th><th>code</th><th>memories</th><th>message</th><th>fix</th></tr>
{rows}
</table>
</body></html>
"""


def _plots(metrics: dict[str, Any]) -> list[tuple[str, str]]:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise GraphMemError(
            "the HTML report draws its plots with matplotlib: pip install 'graphmem[report]'"
        ) from exc

    def png(fig: Any) -> str:
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=90, bbox_inches="tight")
        plt.close(fig)
        return base64.b64encode(buffer.getvalue()).decode()

    out = []
    fig, ax = plt.subplots(figsize=(5, 3))
    tiers = metrics["by_tier"]
    ax.bar(list(tiers), list(tiers.values()), color="#4c72b0")
    ax.set_ylabel("memories")
    out.append(("Tier distribution", png(fig)))
    fig, ax = plt.subplots(figsize=(5, 3))
    bins = metrics["importance"]["histogram"]
    ax.bar([i / 10 for i in range(10)], bins, width=0.1, align="edge", color="#55a868")
    ax.set_xlabel("importance")
    ax.set_ylabel("memories")
    out.append(("Importance histogram", png(fig)))
    fig, ax = plt.subplots(figsize=(7, 3))
    days: Sequence[dict[str, Any]] = metrics["daily"]
    labels = [d["day"][5:] for d in days]
    ax.plot(labels, [d["promotions"] for d in days], marker=".", label="promotions")
    ax.plot(labels, [d["archivals"] for d in days], marker=".", label="archivals")
    ax.set_ylabel("per day")
    ax.tick_params(axis="x", labelrotation=90, labelsize=7)
    ax.legend()
    out.append(("Promotion and archival rate over time", png(fig)))
    return out
