"""The report's metrics plotted with matplotlib, which the ``report`` extra installs."""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from typing import Any

from graphmem.domain.errors import MissingExtraError

_BAR_COLOUR = "#4c72b0"
MAX_DAY_LABELS = 8
"""Day labels on the daily chart's x axis: a label per day would overlap."""


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise MissingExtraError("plotting the report's metrics", "matplotlib", "report") from exc
    return plt


def plots_missing() -> str | None:
    """Why the plots cannot be drawn here (matplotlib is an extra), or ``None``:
    the page is drawn without them rather than not at all."""
    try:
        _pyplot()
    except MissingExtraError as exc:
        return exc.message
    return None


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


def png_charts(metrics: dict[str, Any]) -> list[tuple[str, str]]:
    """The plots as titled PNG images, base64-encoded for inlining in a page."""
    plt = _pyplot()

    def png(fig: Any) -> str:
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=96, bbox_inches="tight")
        plt.close(fig)
        return base64.b64encode(buffer.getvalue()).decode()

    return [(title, png(fig)) for title, fig in charts(metrics)]
