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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import groupby
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from graphmem.domain.errors import GraphMemError, MissingExtraError
from graphmem.domain.models import Memory
from graphmem.domain.wording import plural
from graphmem.services.evaluator.checks import CODES, Finding, Severity

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


# -- HTML ------------------------------------------------------------------------

HTML_FINDINGS = 500
"""Findings drawn in full on the HTML page; the JSON carries every one."""
CONTENT_CHARS = 400
"""A memory's content is shown up to this many characters."""
_SEVERITY_COLOUR = {
    Severity.ERROR: "#b42318",
    Severity.WARNING: "#b54708",
    Severity.INFO: "#026aa2",
}
_BAR_COLOUR = "#4c72b0"
_MANY = {Severity.ERROR: "errors", Severity.WARNING: "warnings", Severity.INFO: "info"}
MAX_DAY_LABELS = 8
"""Day labels on the daily chart's x axis: a label per day would overlap."""


def shown_memory_ids(report: ConsistencyReport, *, limit: int = HTML_FINDINGS) -> list[str]:
    """The memories the HTML page shows the content of, in order of appearance:
    those of the first ``limit`` findings, the planned fixes and the
    load-bearing memories. The caller reads them (the snapshot holds no
    content) and passes them to ``render_html``."""
    ids = [i for f in report.findings[:limit] for i in f.memory_ids]
    if report.fixes is not None:
        ids += [fix["memory_id"] for fix in report.fixes["planned"]]
    ids += [m["id"] for m in report.metrics.get("pagerank_top", [])]
    return list(dict.fromkeys(ids))


def render_html(
    report: ConsistencyReport,
    memories: Mapping[str, Memory] | None = None,
    *,
    limit: int = HTML_FINDINGS,
) -> str:
    """A self-contained page, findings first: each with the content of the
    memories it is about and what to do, grouped by code, most severe first;
    then notes, fixes, plots (PNG inline) and the load-bearing memories.

    ``memories`` maps ids to memories (``shown_memory_ids`` lists the ids);
    an id it lacks is shown bare. Plots need matplotlib, installed with the
    ``report`` extra.
    """
    plots = _plots(report.metrics) if report.metrics else []
    memories = memories or {}
    counts = report.counts()
    esc = html.escape
    total = report.summary()["findings"]
    chips = "".join(
        f'<span class="chip {s.value}">{plural(counts[s.value], s.value, _MANY[s])}</span>'
        for s in (Severity.ERROR, Severity.WARNING, Severity.INFO)
    )
    if report.findings:
        shown = report.findings[:limit]
        groups = "\n".join(
            _finding_group(code, list(group), memories) for code, group in groupby(shown, _code)
        )
        rest = total - len(shown)
        more = (
            f"<p class='more'>{plural(rest, 'more finding')} not drawn here: "
            "<code>graphmem evaluate --format json</code> lists every one.</p>"
            if rest > 0
            else ""
        )
        findings = f"{_fix_hint(report)}{groups}{more}"
    else:
        findings = "<p class='clean'>No findings: every check passed.</p>"
    images = "\n".join(
        f'<figure><img alt="{esc(title)}" src="data:image/png;base64,{data}">'
        f"<figcaption>{esc(title)}</figcaption></figure>"
        for title, data in plots
    )
    notes = "".join(f"<p class='note'>{esc(n)}</p>" for n in report.notes)
    top = "".join(
        f"<li>{_memory(m['id'], memories)}<p class='meta'>PageRank {m['score']:.3e}, "
        f"{m['in_degree']} in / {m['out_degree']} out</p></li>"
        for m in report.metrics.get("pagerank_top", [])
    )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>graphmem consistency report: {esc(report.project_id)}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em auto; max-width: 70em; padding: 0 1em;
       color: #1f2933; line-height: 1.4; }}
h1 {{ margin-bottom: 0.2em; }}
h2 {{ margin-top: 1.6em; border-bottom: 1px solid #e4e7eb; padding-bottom: 0.2em; }}
.run {{ color: #52606d; margin-top: 0; }}
.chip {{ display: inline-block; padding: 0.1em 0.7em; margin-right: 0.5em; border-radius: 1em;
        font-weight: 600; color: #fff; }}
.chip.error {{ background: {_SEVERITY_COLOUR[Severity.ERROR]}; }}
.chip.warning {{ background: {_SEVERITY_COLOUR[Severity.WARNING]}; }}
.chip.info {{ background: {_SEVERITY_COLOUR[Severity.INFO]}; }}
.group {{ margin: 1.2em 0; }}
.group h3 {{ margin: 0 0 0.4em; font-size: 1.05em; }}
.group h3 code {{ font-size: 0.95em; }}
.severity {{ text-transform: uppercase; font-size: 0.75em; font-weight: 700; letter-spacing: 0.04em;
            margin-right: 0.5em; }}
.error .severity {{ color: {_SEVERITY_COLOUR[Severity.ERROR]}; }}
.warning .severity {{ color: {_SEVERITY_COLOUR[Severity.WARNING]}; }}
.info .severity {{ color: {_SEVERITY_COLOUR[Severity.INFO]}; }}
.finding {{ border: 1px solid #e4e7eb; border-left: 4px solid #cbd2d9; border-radius: 4px;
           padding: 0.5em 0.8em; margin: 0.5em 0; background: #fff; }}
.error .finding {{ border-left-color: {_SEVERITY_COLOUR[Severity.ERROR]}; }}
.warning .finding {{ border-left-color: {_SEVERITY_COLOUR[Severity.WARNING]}; }}
.info .finding {{ border-left-color: {_SEVERITY_COLOUR[Severity.INFO]}; }}
.finding .message {{ margin: 0 0 0.4em; }}
.memories {{ list-style: none; padding: 0; margin: 0.3em 0; }}
.memories li {{ margin: 0.3em 0; }}
blockquote {{ margin: 0; padding: 0.2em 0.7em; background: #f5f7fa; border-radius: 3px;
             white-space: pre-wrap; overflow-wrap: anywhere; }}
.meta {{ color: #52606d; font-size: 0.85em; margin: 0.1em 0 0; }}
.todo {{ margin: 0.4em 0 0; }}
.todo b {{ color: #323f4b; }}
.fixable {{ font-size: 0.8em; background: #e3f8e5; color: #1c6b2a; padding: 0 0.4em;
           border-radius: 3px; margin-left: 0.4em; }}
.hint, .more, .note {{ color: #52606d; }}
.clean {{ color: #1c6b2a; font-weight: 600; }}
table {{ border-collapse: collapse; width: 100%; font-size: 0.9em; }}
td, th {{ border: 1px solid #e4e7eb; padding: 4px 6px; vertical-align: top; text-align: left; }}
figure {{ display: inline-block; margin: 0 1em 1em 0; vertical-align: top; }}
figcaption {{ color: #52606d; font-size: 0.9em; }}
ol.top li {{ margin-bottom: 0.5em; }}
</style></head><body>
<h1>Consistency report: project {esc(report.project_id)}</h1>
<p class="run">Run <code>{esc(report.id)}</code> at {esc(_iso(report.created_at))}:
{plural(report.memories, "memory", "memories")}, {plural(report.relations, "relation")},
{report.duration_ms / 1000:.2f} s.</p>
<p>{chips}</p>
<h2 id="findings">Findings ({total:,})</h2>
{findings}
{notes}
{_fixes_html(report.fixes, memories)}
<h2 id="metrics">Metrics</h2>
{images}
<h2>Load-bearing memories</h2><ol class="top">{top}</ol>
</body></html>
"""


def _code(finding: Finding) -> str:
    return finding.code


def _fix_hint(report: ConsistencyReport) -> str:
    fixable = sum(1 for f in report.findings if f.fixable)
    if not fixable:
        return ""
    return (
        f"<p class='hint'>{plural(fixable, 'finding is', 'findings are')} marked "
        "<span class='fixable'>fixable</span>: <code>graphmem evaluate --fix --dry-run</code> "
        "lists the repairs, <code>graphmem evaluate --fix</code> applies them.</p>"
    )


def _finding_group(code: str, findings: list[Finding], memories: Mapping[str, Memory]) -> str:
    esc = html.escape
    severity = findings[0].severity
    info = CODES.get(code)
    title = f": {esc(info.title)}" if info else ""
    cards = "\n".join(_finding(f, memories) for f in findings)
    return (
        f'<section class="group {severity.value}" id="{esc(code)}">'
        f'<h3><span class="severity">{severity.value}</span><code>{esc(code)}</code>{title} '
        f"({len(findings):,})</h3>\n{cards}</section>"
    )


def _finding(finding: Finding, memories: Mapping[str, Memory]) -> str:
    esc = html.escape
    shown = "".join(f"<li>{_memory(i, memories)}</li>" for i in finding.memory_ids)
    fixable = "<span class='fixable'>fixable</span>" if finding.fixable else ""
    return (
        f'<article class="finding"><p class="message">{esc(finding.message)}</p>'
        f'<ul class="memories">{shown}</ul>'
        f'<p class="todo"><b>What to do:</b> {esc(finding.fix)}{fixable}</p></article>'
    )


def _memory(memory_id: str, memories: Mapping[str, Memory]) -> str:
    """A memory's content with its id, tier and status; the bare id when it was not read."""
    esc = html.escape
    memory = memories.get(memory_id)
    if memory is None:
        return f"<p class='meta'><code>{esc(memory_id)}</code> (content not read)</p>"
    content = memory.content
    if len(content) > CONTENT_CHARS:
        content = content[: CONTENT_CHARS - 1] + "\u2026"
    kind = f" · {memory.memory_type.value}" if memory.memory_type else ""
    return (
        f"<blockquote>{esc(content)}</blockquote>"
        f"<p class='meta'><code>{esc(memory_id)}</code> · {memory.tier.value} · "
        f"{memory.status.value}{kind} · importance {memory.importance:.2f}</p>"
    )


def _fixes_html(fixes: dict[str, Any] | None, memories: Mapping[str, Memory]) -> str:
    if fixes is None:
        return ""
    esc = html.escape
    applied = set(fixes["applied"])
    verb = "Fixes this run would apply" if fixes["dry_run"] else "Fixes applied"
    rows = "".join(
        f"<tr><td>{esc(fix['action'])}</td><td>{_memory(fix['memory_id'], memories)}</td>"
        f"<td>{esc(fix['detail'])}</td><td>"
        f"{'-' if fixes['dry_run'] else 'yes' if fix['memory_id'] in applied else 'skipped'}"
        "</td></tr>"
        for fix in fixes["planned"]
    )
    return (
        f"<h2>{verb} ({len(fixes['planned']):,})</h2>"
        "<table><tr><th>action</th><th>memory</th><th>detail</th><th>done</th></tr>"
        f"{rows}</table>"
    )


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise MissingExtraError("the HTML report", "matplotlib", "report") from exc
    return plt


def charts(metrics: dict[str, Any]) -> list[tuple[str, Any]]:
    """The report's plots as matplotlib figures, titled; the caller closes them.

    Tick labels are laid out so none overlaps another: tiers are bars along
    the y axis (a label per row, however long), and the daily chart labels
    at most ``MAX_DAY_LABELS`` days.
    """
    plt = _pyplot()
    out = []
    tiers = metrics["by_tier"]
    fig, ax = plt.subplots(figsize=(5, 0.45 * len(tiers) + 0.9))
    names = list(tiers)[::-1]
    values = [tiers[name] for name in names]
    bars = ax.barh(names, values, color=_BAR_COLOUR)
    ax.bar_label(bars, padding=3)
    ax.set_xlabel("memories")
    ax.margins(x=0.15)
    ax.spines[["top", "right"]].set_visible(False)
    out.append(("Tier distribution", fig))

    fig, ax = plt.subplots(figsize=(5, 3))
    bins = metrics["importance"]["histogram"]
    ax.bar([i / 10 for i in range(10)], bins, width=0.1, align="edge", color="#55a868")
    ax.set_xticks([i / 5 for i in range(6)])
    ax.set_xlabel("importance")
    ax.set_ylabel("memories")
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.spines[["top", "right"]].set_visible(False)
    out.append(("Importance histogram", fig))

    fig, ax = plt.subplots(figsize=(7, 3))
    days: Sequence[dict[str, Any]] = metrics["daily"]
    positions = list(range(len(days)))
    ax.plot(positions, [d["promotions"] for d in days], marker=".", label="promotions")
    ax.plot(positions, [d["archivals"] for d in days], marker=".", label="archivals")
    step = max(1, -(-len(days) // MAX_DAY_LABELS))
    # Every step-th day, counted back from the last, so today is always labelled.
    ticks = positions[::-1][::step][::-1]
    ax.set_xticks(ticks, [days[i]["day"][5:] for i in ticks])
    ax.set_ylabel("per day")
    ax.yaxis.get_major_locator().set_params(integer=True)
    # Counts: the axis starts at zero and spans at least one, even on a quiet month.
    peak = max((max(d["promotions"], d["archivals"]) for d in days), default=0)
    ax.set_ylim(0, max(peak * 1.1, 1))
    ax.spines[["top", "right"]].set_visible(False)
    ax.legend()
    out.append(("Promotions and archivals per day (UTC)", fig))
    return out


def _plots(metrics: dict[str, Any]) -> list[tuple[str, str]]:
    plt = _pyplot()

    def png(fig: Any) -> str:
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=96, bbox_inches="tight")
        plt.close(fig)
        return base64.b64encode(buffer.getvalue()).decode()

    return [(title, png(fig)) for title, fig in charts(metrics)]
