"""The report as a self-contained HTML page: each finding with the content
of the memories it is about and what to do, then the plots."""

from __future__ import annotations

import html
from collections.abc import Mapping
from itertools import groupby
from typing import Any

from graphmem.domain.consistency import CODES, ConsistencyReport, Finding, Severity, utc_iso
from graphmem.domain.models import Memory
from graphmem.domain.wording import plural
from graphmem.services.evaluator.charts import plots_missing, png_charts

HTML_FINDINGS = 500
"""Findings drawn in full on the HTML page; the JSON carries every one."""
CONTENT_CHARS = 400
"""A memory's content is shown up to this many characters."""
_SEVERITY_COLOUR = {
    Severity.ERROR: "#b42318",
    Severity.WARNING: "#b54708",
    Severity.INFO: "#026aa2",
}
_MANY = {Severity.ERROR: "errors", Severity.WARNING: "warnings", Severity.INFO: "info"}


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
    ``report`` extra; without it the page says so where they would be.
    """
    missing = plots_missing() if report.metrics else None
    plots = png_charts(report.metrics) if report.metrics and missing is None else []
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
    if missing is not None:
        images = f"<p class='note'>No plots: {esc(missing)}.</p>"
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
<p class="run">Run <code>{esc(report.id)}</code> at {esc(utc_iso(report.created_at))}:
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
