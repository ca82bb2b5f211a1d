"""Memory streams written through ``GraphMem.remember``, in the shape of real use.

A stream file (``benchmarks/eval/stream_*.json``) is one project's memories
in threads: ``{"description": ..., "threads": [{"type": "decision",
"source": "agent", "items": [[day, label, text], ...]}, ...]}``. A thread is
one fact. Its first item is ``new``; each later item is ``restates`` (says the
thread's current value again, in other words or another format), ``corrects``
(gives the current value a new one) or ``reverses`` (goes back to an earlier
value), so each restates, corrects or reverses the thread's latest ``new``,
``corrects`` or ``reverses`` item. An item may carry a fifth field, its source
(``agent`` by default, or the thread's ``source``). Items are written in the
order of their day, then their thread: a stream of weeks with the threads
interleaved.

Every third thread (the thread's index in the file, counted from 0, divisible
by 3) is held out: written with the rest, reported apart, and never used to
change the judge.

Each write's outcome (``created``, ``merged_*``, ``superseded``,
``flagged_conflict`` and the memory it relates to) gives the end state, which
is scored against the labels:

- duplicates left live: a restatement stored as its own memory (created or
  flagged) instead of merged into the memory it restates;
- stale values left live without a flag: a correction after which a memory
  holding the old value is neither superseded nor flagged against;
- true memories lost: a new memory or a correction merged into another
  memory, or any write superseding a memory of another thread. Superseding a
  memory of its own thread loses nothing: a restatement replacing the memory
  it restates keeps the value, and one replacing the thread's stale value (a
  correction stored apart, then restated) is what the correction should have
  done.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphmem.services.embeddings import MiniLMEmbedder

EVAL = Path(__file__).resolve().parent / "eval"
STREAMS = {"coding": EVAL / "stream_coding.json", "assistant": EVAL / "stream_assistant.json"}
HELD_OUT_EVERY = 3


@dataclass(frozen=True)
class StreamItem:
    thread: int
    day: int
    label: str
    text: str
    type: str
    source: str

    @property
    def part(self) -> str:
        return "heldout" if self.thread % HELD_OUT_EVERY == 0 else "dev"


def load_stream(path: Path) -> list[StreamItem]:
    """The stream's items in the order they are written."""
    items = []
    for index, thread in enumerate(json.loads(path.read_text())["threads"]):
        for entry in thread["items"]:
            day, label, text = entry[:3]
            source = entry[3] if len(entry) > 3 else thread.get("source", "agent")
            items.append(StreamItem(index, day, label, text, thread["type"], source))
    return sorted(items, key=lambda i: (i.day, i.thread))


@dataclass
class Tally:
    """One part's figures, and the store state that scores them."""

    restatements: int = 0
    duplicates_live: int = 0
    corrections: int = 0
    stale_live: int = 0
    lost: int = 0
    false_flags: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)


@dataclass
class Threads:
    """Which stored memories hold each thread's current value."""

    current: dict[int, set[str]] = field(default_factory=dict)
    held: dict[int, set[str]] = field(default_factory=dict)
    """Per thread, every memory that ever held one of its values."""
    stale: list[tuple[StreamItem, set[str]]] = field(default_factory=list)
    superseded: set[str] = field(default_factory=set)
    flagged: dict[int, set[str]] = field(default_factory=dict)
    """Per thread, the memories a write of that thread was flagged against."""


def score(
    item: StreamItem, result: str, own: str, related: str | None, state: Threads, tally: Tally
) -> None:
    """Count one write and move its thread's current memories on."""
    tally.outcomes[f"{item.label}:{result}"] += 1
    held = state.current.setdefault(item.thread, set())
    ever = state.held.setdefault(item.thread, set())
    ever.add(own)
    if result == "superseded" and related is not None:
        state.superseded.add(related)
        if related not in ever:
            tally.lost += 1  # hid a memory of another thread
    if result == "flagged_conflict" and related is not None:
        state.flagged.setdefault(item.thread, set()).add(related)
    merged = result.startswith("merged")
    if item.label == "restates":
        tally.restatements += 1
        if merged and own not in held:
            tally.lost += 1  # merged into another thread's memory
        if not merged:
            tally.duplicates_live += 1 if result in ("created", "flagged_conflict") else 0
            held.add(own)
        return
    if merged:
        tally.lost += 1
    if item.label == "new":
        tally.false_flags += result == "flagged_conflict"
        state.current[item.thread] = {own}
        return
    tally.corrections += 1
    state.stale.append((item, set(held)))
    state.current[item.thread] = set() if merged else {own}


def stale_left(state: Threads, item: StreamItem, old: set[str]) -> bool:
    """A memory holding the value ``item`` corrected, neither superseded nor flagged against."""
    flagged = state.flagged.get(item.thread, set())
    return any(m not in state.superseded and m not in flagged for m in old)


Remember = Callable[[dict[str, Any]], tuple[str, str, str | None]]
"""Writes one memory: (result, the memory it is stored as, the memory it relates to)."""


def run_stream(items: Sequence[StreamItem], remember: Remember) -> dict[str, Tally]:
    """Write the items in order and score each part."""
    tallies = {"dev": Tally(), "heldout": Tally()}
    state = Threads()
    for item in items:
        result, own, related = remember(
            {"content": item.text, "memory_type": item.type, "source": item.source}
        )
        score(item, result, own, related, state, tallies[item.part])
    for item, old in state.stale:
        tallies[item.part].stale_live += stale_left(state, item, old)
    return tallies


def write_streams(
    names: Sequence[str], embedder: MiniLMEmbedder, label: str
) -> list[dict[str, Any]]:
    """Each stream into a project of its own on an embedded FalkorDB."""
    from benchmarks.retrieval_eval import Server

    server = Server()
    rows = []
    try:
        for name in names:
            remember = _writer(server.graphmem(f"stream_{name}_{label}", embedder), name)
            for part, tally in run_stream(load_stream(STREAMS[name]), remember).items():
                rows.append({"stream": name, "part": part, "judge": label, **tally.__dict__})
    finally:
        server.close()
    return rows


def _writer(gm: Any, name: str) -> Remember:
    def remember(item: dict[str, Any]) -> tuple[str, str, str | None]:
        _, written = gm.remember_detailed(item, project_id=f"stream-{name}")
        return written.result.value, written.id, written.related_id

    return remember


def with_judge(old: Any, action: Callable[[], list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Run ``action`` with the write path's judge replaced by ``old``'s (the
    ``--before`` revision), its judgements read into today's types."""
    from graphmem.domain.restatement.verdicts import Difference, Judgement, Verdict
    from graphmem.services import near_matches

    def adapt(judged: Any) -> Judgement:
        value = judged.difference.value
        kind = Difference(value) if value in Difference._value2member_map_ else Difference.TERM
        return Judgement(Verdict(judged.verdict.value), kind, judged.reason)

    saved = near_matches.judge, near_matches.judge_events
    near_matches.judge = lambda *a, **k: adapt(old.judge(*a, **{**k, "thresholds": None}))
    near_matches.judge_events = lambda *a, **k: adapt(
        old.judge_events(*a, **{**k, "thresholds": None})
    )
    try:
        return action()
    finally:
        near_matches.judge, near_matches.judge_events = saved


def print_streams(rows: Sequence[dict[str, Any]]) -> None:
    print("\n== streams written memory by memory (remember) ==")
    print(
        f"{'stream':<10} {'part':<8} {'judge':<7} {'dups live':>14} {'stale unflagged':>16} "
        f"{'lost':>5} {'false flags':>12}"
    )
    for r in rows:
        dups = f"{r['duplicates_live']}/{r['restatements']}"
        stale = f"{r['stale_live']}/{r['corrections']}"
        print(
            f"{r['stream']:<10} {r['part']:<8} {r['judge']:<7} {dups:>14} {stale:>16} "
            f"{r['lost']:>5} {r['false_flags']:>12}"
        )
    print(
        "targets: 0 lost; stale values left live without a flag <= 5% of corrections; "
        "duplicates left live <= 25% of restatements"
    )


def measure(names: Sequence[str], embedder: MiniLMEmbedder, old: Any) -> list[dict[str, Any]]:
    """The streams written with today's judge and, when ``old`` is given, with it."""
    rows = write_streams(names, embedder, "after")
    if old is not None:
        rows += with_judge(old, lambda: write_streams(names, embedder, "before"))
    rows.sort(key=lambda r: (r["stream"], r["part"], r["judge"] != "before"))
    print_streams(rows)
    return rows
