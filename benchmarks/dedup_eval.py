"""``python -m benchmarks.dedup_eval``: does near-duplicate merging keep meaning?

Two measurements, before and after in the same run:

**Pairs.** Each labelled pair (``text_a`` stored, then ``text_b`` written by
the same source) is decided as a write decides it: exact dedup on the
normalised text, then, from cosine ``restatement.candidate_similarity``, the
restatement judge (``judge`` for claims, ``judge_events`` for events, whose
pairs carry the seconds between them). Each decision is an outcome: merged,
flagged (a possible contradiction), superseded or created. Printed per set and
per category: the outcomes, merge precision and recall, and the contradictions
and distinct pairs merged. The sets:

- ``dev``: ``benchmarks/eval/dedup_pairs.jsonl``, the pairs the first rule was
  built on;
- ``hard``: ``benchmarks/eval/dedup_hard.jsonl``, 439 pairs in the categories
  cue lists miss (antonyms beyond negation words, comparatives, swapped roles,
  regions, units and time zones, options, other verbs on one object) and
  conversation turns (greetings, thanks, follow-ups, two events of one person);
  the rule was developed on it;
- ``heldout``: ``benchmarks/eval/dedup_heldout.jsonl``, 211 pairs written
  apart from the rule and never used to change it: its figures are the ones
  that say whether the judgment generalises;
- ``heldout2``: ``benchmarks/eval/dedup_heldout2.jsonl``, 48 pairs written
  before the closed-class words and the values were read, and never used to
  change them: a quantifier, modal, direction, person, tense or restriction
  that differs (``qualifier``), a value in another form (``format``: 1,000 and
  1000, July 1, 2026 and 2026-07-01, 11 pm and 23:00, k8s and Kubernetes),
  another value in another form (``value_change``) and equivalent closed-class
  words (each/every, has to/must);
- ``heldout3``: ``benchmarks/eval/dedup_heldout3.jsonl``, 51 pairs written
  before the judge's paraphrase rules that follow it and before any run on
  them, in domains the other sets hardly
  touch (cooking, gardening, travel, health, finance, sports, civic life) and
  shapes of their own (a correction naming what it moves, a restriction added
  at the end, another verb on the same object); never used to change the judge.

"Before" is the judge of ``--before`` (a git revision; its
``graphmem/domain/restatement`` package, or the ``restatement.py`` module of
older revisions, is loaded as it was with the rest of ``graphmem`` of that
revision), with the exact dedup of that time (any same text merges).

**Conversations written turn by turn.** Each conversation of the chat dev
sets (``chats``, ``conversations``) goes into a project of its own on an
embedded FalkorDB, one ``remember`` per turn, type ``event``, with its session
and ``occurredAt``, as an agent logging a chat writes it; then again as type
``fact``, as an agent filing every turn as a claim writes it. Printed: the share
of turns flagged, superseded or merged into another turn, and the share of
those that are not the same turn repeated (an exact merge, "Haha" written again
by its speaker), which the target counts (at most 1%); and the time per write.

**Streams** (``benchmarks.dedup_streams``): a project's memories written one
by one, each labelled new, restates, corrects or reverses; printed per part
(dev, held out): duplicates left live, stale values left live without a flag
and true memories lost.

**Cost.** The judge's per-call cost, after and before, beside the cost of
embedding one memory (what every write already pays).
"""

from __future__ import annotations

import argparse
import atexit
import importlib
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import Any

from benchmarks import dedup_streams
from graphmem.domain import restatement
from graphmem.domain.restatement.analysis import forget_texts
from graphmem.domain.restatement.verdicts import Verdict
from graphmem.domain.retention import RetentionRules
from graphmem.domain.text import normalise
from graphmem.services.embeddings import MiniLMEmbedder
from graphmem.settings.retention import load_rules

ROOT = Path(__file__).resolve().parents[1]
EVAL = ROOT / "benchmarks" / "eval"
PAIRS = EVAL / "dedup_pairs.jsonl"
SETS = {
    "dev": PAIRS,
    "hard": EVAL / "dedup_hard.jsonl",
    "heldout": EVAL / "dedup_heldout.jsonl",
    "heldout2": EVAL / "dedup_heldout2.jsonl",
    "heldout3": EVAL / "dedup_heldout3.jsonl",
}
TURN_SETS = {"chats": EVAL / "chats.json", "conversations": EVAL / "conversations.json"}
RULES = ROOT / "retention_rules.yaml"
LABELS = ("merge", "contradiction", "update", "distinct")
OUTCOMES = ("merged", "flagged", "superseded", "created")
BEFORE = "d8bedba"
"""The last revision with the cue-list judge."""
MERGE_RECALL_TARGET = 0.80
RESTATEMENTS = ("restatement", "turn_repeat", "format")
"""The kinds the target counts as restatements: the same statement in the same
words, reordered, reinflected or repunctuated, or with a value written in
another form. Paraphrases (other words for the same thing) are reported
beside them."""
TURN_SHARE_TARGET = 0.01


@dataclass(frozen=True)
class Pair:
    text_a: str
    text_b: str
    label: str
    kind: str
    domain: str
    type: str = "fact"
    seconds_apart: float = 0.0
    cosine: float = 0.0


@dataclass(frozen=True)
class MergeQuality:
    precision: float
    recall: float
    merged: int
    wrong: int
    """Merges of a pair that is not the same statement."""


def load_pairs(path: Path = PAIRS) -> list[Pair]:
    return [Pair(**json.loads(line)) for line in path.read_text().splitlines() if line.strip()]


def with_cosines(pairs: list[Pair], embedder: MiniLMEmbedder) -> list[Pair]:
    texts = sorted({t for p in pairs for t in (p.text_a, p.text_b)})
    vectors = dict(zip(texts, embedder.embed(texts), strict=True))
    return [replace(p, cosine=_dot(vectors[p.text_a], vectors[p.text_b])) for p in pairs]


_OUTCOME = {
    Verdict.MERGE: "merged",
    Verdict.CONFLICT: "flagged",
    Verdict.SUPERSEDE: "superseded",
    Verdict.DISTINCT: "created",
}


def decide_now(pair: Pair, rules: RetentionRules) -> str:
    """What a write of ``text_b`` does today beside ``text_a`` (same source)."""
    return decide_with(restatement, pair, rules.restatement)


def decide_with(judges: Any, pair: Pair, limits: Any) -> str:
    """What a write of ``text_b`` does beside ``text_a`` (same source) with the
    ``judge``, ``judge_events`` and ``readable`` of ``judges``."""
    event = pair.type == "event"
    if not (judges.readable(pair.text_a) and judges.readable(pair.text_b)):
        return "created"
    if normalise(pair.text_a) == normalise(pair.text_b):
        if event and abs(pair.seconds_apart) > limits.event_window_seconds:
            return "created"
        return "merged"
    floor = getattr(judges, "fetch_floor", lambda text, limits: limits.candidate_similarity)
    if pair.cosine < floor(pair.text_b, limits):
        return "created"
    if event:
        judged = judges.judge_events(
            pair.text_b, pair.text_a, pair.seconds_apart, thresholds=limits
        )
    else:
        judged = judges.judge(pair.text_b, pair.text_a, pair.cosine, thresholds=limits)
    return _OUTCOME[Verdict(judged.verdict.value)]


def decide_before(old: ModuleType) -> Callable[[Pair, RetentionRules], str]:
    """The write decision of the ``old`` judge: as today's when it judges events
    too; before that (the cue-list judge), any same text merged."""
    thresholds = old.RestatementThresholds()
    if hasattr(old, "judge_events"):
        return lambda pair, rules: decide_with(
            old, pair, old.RestatementThresholds(**rules.restatement.model_dump())
        )

    def decide(pair: Pair, rules: RetentionRules) -> str:
        if normalise(pair.text_a) == normalise(pair.text_b):
            return "merged"
        judged = old.judge(pair.text_b, pair.text_a, pair.cosine, thresholds=thresholds)
        return _OUTCOME[Verdict(judged.verdict.value)]

    return decide


def load_before(revision: str) -> ModuleType | None:
    """The restatement judge as it was at ``revision``, or None without git.

    The ``graphmem`` tree of that revision is unpacked into a temporary folder
    and its ``graphmem.domain.restatement`` imported from there, with this
    checkout's ``graphmem`` modules set aside meanwhile and put back after: the
    old modules keep their own imports (lexicon, values) of that revision."""
    folder = Path(tempfile.mkdtemp(prefix="dedup_before_"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    try:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", revision, "graphmem"],
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    current = {name: m for name, m in sys.modules.items() if _ours(name)}
    for name in current:
        del sys.modules[name]
    sys.path.insert(0, str(folder))
    try:
        try:
            return importlib.import_module("graphmem.domain.restatement")
        except ModuleNotFoundError:
            return importlib.import_module("graphmem.restatement")
    finally:
        sys.path.remove(str(folder))
        for name in [n for n in sys.modules if _ours(n)]:
            del sys.modules[name]
        sys.modules.update(current)


def _ours(name: str) -> bool:
    return name == "graphmem" or name.startswith("graphmem.")


def quality(pairs: Sequence[Pair], outcomes: Sequence[str]) -> MergeQuality:
    true = sum(
        1 for p, o in zip(pairs, outcomes, strict=True) if o == "merged" and p.label == "merge"
    )
    wrong = sum(
        1 for p, o in zip(pairs, outcomes, strict=True) if o == "merged" and p.label != "merge"
    )
    should = sum(1 for p in pairs if p.label == "merge")
    return MergeQuality(
        precision=true / (true + wrong) if true + wrong else 1.0,
        recall=true / should if should else 1.0,
        merged=true + wrong,
        wrong=wrong,
    )


def pair_report(
    name: str, pairs: list[Pair], now: list[str], before: list[str] | None
) -> dict[str, Any]:
    kinds: dict[str, dict[str, Any]] = {}
    olds: list[str | None] = [*before] if before is not None else [None] * len(pairs)
    for pair, outcome, old in zip(pairs, now, olds, strict=True):
        row = kinds.setdefault(
            pair.kind,
            {"kind": pair.kind, "labels": Counter(), "n": 0, **dict.fromkeys(OUTCOMES, 0)},
        )
        row["n"] += 1
        row["labels"][pair.label] += 1
        row[outcome] += 1
        row["merged_before"] = row.get("merged_before", 0) + (old == "merged")
    after = quality(pairs, now)
    wrong = Counter(p.label for p, o in zip(pairs, now, strict=True) if o == "merged")
    report: dict[str, Any] = {
        "set": name,
        "pairs": len(pairs),
        "kinds": [
            {**row, "labels": dict(row["labels"])} for row in sorted(kinds.values(), key=_order)
        ],
        "after": after.__dict__,
        "contradictions_merged": wrong["contradiction"],
        "distinct_merged": wrong["distinct"],
        "updates_merged": wrong["update"],
        "restatements_merged": _share_merged(pairs, now, RESTATEMENTS),
        "paraphrases_merged": _share_merged(pairs, now, ("paraphrase",)),
    }
    if before is not None:
        old_wrong = Counter(p.label for p, o in zip(pairs, before, strict=True) if o == "merged")
        report["before"] = quality(pairs, before).__dict__
        report["before_contradictions_merged"] = old_wrong["contradiction"]
        report["before_distinct_merged"] = old_wrong["distinct"]
    return report


def _share_merged(pairs: Sequence[Pair], outcomes: Sequence[str], kinds: Sequence[str]) -> float:
    chosen = [o for p, o in zip(pairs, outcomes, strict=True) if p.kind in kinds]
    return sum(o == "merged" for o in chosen) / len(chosen) if chosen else 1.0


def _order(row: dict[str, Any]) -> tuple[int, str]:
    label = max(row["labels"], key=row["labels"].get)
    return LABELS.index(label), row["kind"]


def print_pairs(report: dict[str, Any]) -> None:
    before = "before" in report
    print(f"\n== {report['set']}: {report['pairs']} pairs ==")
    header = f"{'kind':<20} {'label':<14} {'n':>4}" + "".join(f"{o:>11}" for o in OUTCOMES)
    print(header + (f"{'merged before':>15}" if before else ""))
    for row in report["kinds"]:
        labels = "/".join(sorted(row["labels"]))
        line = f"{row['kind']:<20} {labels:<14} {row['n']:>4}"
        line += "".join(f"{row[o]:>11}" for o in OUTCOMES)
        print(line + (f"{row['merged_before']:>15}" if before else ""))
    after = report["after"]
    print(
        f"after:  merge precision {after['precision']:.3f}, recall {after['recall']:.3f}; "
        f"contradictions merged {report['contradictions_merged']}, distinct merged "
        f"{report['distinct_merged']}, updates merged {report['updates_merged']}"
    )
    if before:
        old = report["before"]
        print(
            f"before: merge precision {old['precision']:.3f}, recall {old['recall']:.3f}; "
            f"contradictions merged {report['before_contradictions_merged']}, distinct merged "
            f"{report['before_distinct_merged']}"
        )
    restated = report["restatements_merged"]
    print(
        f"restatements merged (same words reworded: {', '.join(RESTATEMENTS)}): "
        f"{restated:.3f}; paraphrases merged (other words): {report['paraphrases_merged']:.3f}"
    )
    met = (
        report["contradictions_merged"] == 0
        and report["distinct_merged"] == 0
        and restated >= MERGE_RECALL_TARGET
    )
    print(
        f"target (no contradiction or distinct pair merged, restatements merged >= "
        f"{MERGE_RECALL_TARGET}): {'met' if met else 'NOT met'}"
    )


# -- conversations written turn by turn ---------------------------------------


TURN_TYPES = ("event", "fact")
"""Each conversation is written twice: its turns as events (what a chat log is),
then as facts (what an agent that files every turn as a claim writes), where
the restatement judge reads every near pair."""


def turn_items(path: Path, memory_type: str) -> dict[str, list[dict[str, Any]]]:
    """Each conversation's turns as ``remember`` inputs of ``memory_type``, in order."""
    data = json.loads(path.read_text())
    conversations = {}
    for conversation in data["conversations"]:
        items = []
        for session in conversation["sessions"]:
            start = datetime.fromisoformat(session["date"]).timestamp()
            for index, turn in enumerate(session["turns"]):
                items.append(
                    {
                        "content": f"{turn['speaker']}: {turn['text']}",
                        "memory_type": memory_type,
                        "session_id": session["id"],
                        "occurred_at": start + 60.0 * index,
                        "source": "agent",
                    }
                )
        conversations[conversation["id"]] = items
    return conversations


def run_turns(names: Sequence[str], embedder: MiniLMEmbedder) -> list[dict[str, Any]]:
    from benchmarks.retrieval_eval import Server

    server = Server()
    rows = []
    try:
        for name, memory_type in [(n, t) for n in names for t in TURN_TYPES]:
            gm = server.graphmem(f"turns_{name}_{memory_type}", embedder)
            results: Counter[str] = Counter()
            took: list[float] = []
            for conversation, items in turn_items(TURN_SETS[name], memory_type).items():
                for item in items:
                    began = time.perf_counter()
                    _, written = gm.remember_detailed(item, project_id=f"{name}-{conversation}")
                    took.append(time.perf_counter() - began)
                    results[written.result.value] += 1
            turns = sum(results.values())
            touched = turns - results["created"]
            rows.append(
                {
                    "set": name,
                    "type": memory_type,
                    "turns": turns,
                    "results": dict(results),
                    "share_touched": touched / turns,
                    "share_not_repeats": (touched - results["merged_exact"]) / turns,
                    "write_ms_median": statistics.median(took) * 1e3,
                }
            )
    finally:
        server.close()
    return rows


def print_turns(rows: Sequence[dict[str, Any]]) -> None:
    """Two shares per row: every turn merged, superseded or flagged, and those
    that are not the same turn repeated (an exact merge: the same speaker's
    same words, "Haha" twice), which is what the target counts."""
    print("\n== conversations written turn by turn (remember, as events and as facts) ==")
    print(
        f"{'set':<15} {'type':<6} {'turns':>6}"
        + "".join(f"{o:>18}" for o in _TURN_RESULTS)
        + "  touched, all / not a repeat"
    )
    for row in rows:
        counts = "".join(f"{row['results'].get(o, 0):>18}" for o in _TURN_RESULTS)
        verdict = "met" if row["share_not_repeats"] <= TURN_SHARE_TARGET else "NOT met"
        print(
            f"{row['set']:<15} {row['type']:<6} {row['turns']:>6}{counts}  "
            f"{row['share_touched']:.2%} / {row['share_not_repeats']:.2%} "
            f"(target <= {TURN_SHARE_TARGET:.0%} not a repeat: {verdict}); "
            f"{row['write_ms_median']:.1f} ms a write (median)"
        )


_TURN_RESULTS = ("created", "merged_exact", "merged_near", "superseded", "flagged_conflict")


# -- cost ----------------------------------------------------------------------


def per_call_us(
    pairs: Sequence[Pair], judge: Callable[..., Any], forget: Callable[[], Any], rounds: int = 10
) -> tuple[float, float]:
    """Median microseconds per claim judged: texts never seen (``forget`` empties
    the caches of texts read each round: the cost of a new write) and the
    existing side cached (as in a server)."""
    claims = [p for p in pairs if p.type == "fact"]
    cold, warm = [], []
    for _ in range(rounds):
        forget()
        began = time.perf_counter()
        for p in claims:
            judge(p.text_b, p.text_a, p.cosine)
        cold.append((time.perf_counter() - began) / len(claims))
        began = time.perf_counter()
        for p in claims:
            judge(p.text_b, p.text_a, p.cosine)
        warm.append((time.perf_counter() - began) / len(claims))
    return statistics.median(cold) * 1e6, statistics.median(warm) * 1e6


def _forgetting(old: ModuleType) -> Callable[[], Any]:
    """How the ``--before`` judge forgets the texts it read: its own
    ``forget_texts`` where it has one, else its ``analyse`` cache emptied."""
    forget = getattr(getattr(old, "analysis", None), "forget_texts", None)
    return forget or old.analyse.cache_clear


def embed_one_us(embedder: MiniLMEmbedder, pairs: Sequence[Pair], n: int = 50) -> float:
    """Median microseconds to embed one memory's text, as each write does."""
    times = []
    for p in pairs[:n]:
        began = time.perf_counter()
        embedder.embed([p.text_b])
        times.append(time.perf_counter() - began)
    return statistics.median(times) * 1e6


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.dedup_eval")
    parser.add_argument(
        "--sets", default=",".join(SETS), help="pair sets: dev,hard,heldout, or none"
    )
    parser.add_argument(
        "--turns",
        default=",".join(TURN_SETS),
        help="conversation sets written turn by turn (chats,conversations), or none",
    )
    parser.add_argument(
        "--streams",
        default=",".join(dedup_streams.STREAMS),
        help="memory streams (coding,assistant), or none",
    )
    parser.add_argument("--before", default=BEFORE, help="git revision of the judge to compare")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    rules = load_rules(RULES)
    embedder = MiniLMEmbedder()
    old = load_before(args.before)
    if old is None:
        print(f"(no git revision {args.before}: the before columns are left out)")
    figures: dict[str, Any] = {"pairs": [], "turns": []}
    everything: list[Pair] = []
    for name in [s for s in args.sets.split(",") if s and s != "none"]:
        pairs = with_cosines(load_pairs(SETS[name]), embedder)
        everything += pairs
        now = [decide_now(p, rules) for p in pairs]
        before = [decide_before(old)(p, rules) for p in pairs] if old else None
        report = pair_report(name, pairs, now, before)
        print_pairs(report)
        figures["pairs"].append(report)
    turn_sets = [s for s in args.turns.split(",") if s and s != "none"]
    if turn_sets:
        figures["turns"] = run_turns(turn_sets, embedder)
        print_turns(figures["turns"])
    if streams := [s for s in args.streams.split(",") if s and s != "none"]:
        figures["streams"] = dedup_streams.measure(streams, embedder, old)
    if everything:
        cold, warm = per_call_us(everything, restatement.judge, forget_texts)
        embed = embed_one_us(embedder, everything)
        print(
            f"\nper-call cost of the judge: {cold:.1f} us with both texts new, {warm:.1f} us "
            f"with the existing text cached ({cold / embed:.2%} of embedding one memory, "
            f"{embed:.0f} us)"
        )
        figures["cost_us"] = {"cold": cold, "warm": warm, "embed": embed}
        if old is not None:
            old_cold, old_warm = per_call_us(everything, old.judge, _forgetting(old))
            print(
                f"before ({args.before}): {old_cold:.1f} us new, {old_warm:.1f} us cached; "
                f"ratio after/before {cold / old_cold:.2f} (new), {warm / old_warm:.2f} (cached)"
            )
            figures["cost_us"]["before"] = {"cold": old_cold, "warm": old_warm}
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2, default=str))


def _dot(a: object, b: object) -> float:
    return float(sum(x * y for x, y in zip(a, b, strict=True)))  # type: ignore[call-overload]


if __name__ == "__main__":
    main()
