"""Does a change to a memory reach what rests on it, and only that?

The dependency scenarios (``benchmarks/eval/dependencies.json``) are small
projects of a coding agent's memories: dependents resting on a base memory by
``ENABLES`` (the target rests on the source) and ``CONSTRAINS`` (the
constrained memory rests on the rule) at depths 1, 2 and 3, a cycle, a memory
resting on two bases, and unrelated memories that share words with the base
or are tied to it by ``RELATED_TO`` only. For each scenario and each way it
lists (superseded by ``supersede``, by a write or by consolidation, forgotten,
archived, expired, rejected, contradicted), the script writes the project on a
real embedded FalkorDB with graphmem's own embedder, changes the base through
the public API and reads every memory's ``review_mark``:

- dependents within the cascade depth marked (target 100%), by their depth;
- dependents beyond it marked (target 0), unrelated memories marked (target 0);
- marks whose cause and change are the base and the way, and whose reason
  names the base (its id or its words);
- marks cleared when the change is undone (``gm.undo`` of the supersede, the
  archive, the rejection or the consolidation); forgetting, expiry and a
  contradiction's flag have no undo and show ``n/a``.

A write the writer does not judge as the expected change (a correction it does
not supersede with, a contradiction it does not flag) is counted "not
triggered", apart from the marks; a way the API does not offer is "not
available". ``--stores alone`` writes each scenario and way into a project of
its own; ``shared`` writes every scenario of a way into one project, so the
look-alikes of one scenario sit beside the others'.

    python -m benchmarks.dependency_eval [--depth 2] [--set dev|heldout|all]
        [--stores alone,shared] [--json out.json]
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.domain.errors import ConflictError
from graphmem.settings import Settings

SET = Path(__file__).resolve().parent / "eval" / "dependencies.json"
START = 1_780_000_000.0
LIFETIME = 3_600.0
"""How long an expiring base holds: the clock is moved past it before the check."""
WAYS = ("supersede", "write", "consolidate", "forget", "archive", "expire", "reject", "contradict")
CHANGE = {
    "supersede": "superseded",
    "write": "superseded",
    "consolidate": "superseded",
    "forget": "forgotten",
    "archive": "archived",
    "expire": "expired",
    "reject": "rejected",
    "contradict": "contradicted",
}
"""The change a mark should name, per way."""
NEEDS = {"archive": "archive", "expire": "check_expired"}
"""API methods a way needs that may not be there yet."""


@dataclass(frozen=True)
class Scenario:
    """One project of the set, as the file holds it."""

    id: str
    split: str
    ways: list[str]
    update: str
    contradiction: str
    memories: list[dict[str, Any]]
    edges: list[list[str]]

    @property
    def base(self) -> dict[str, Any]:
        return self.memories[0]


def load(split: str) -> list[Scenario]:
    """The scenarios of one split (``all``: both)."""
    keep = {"dev", "heldout"} if split == "all" else {split}
    rows = json.loads(SET.read_text())["scenarios"]
    return [
        Scenario(**{k: r[k] for k in Scenario.__dataclass_fields__})
        for r in rows
        if r["split"] in keep
    ]


@dataclass
class Instance:
    """One scenario written into a project to be changed one way."""

    scenario: Scenario
    way: str
    project: str
    ids: dict[str, str] = field(default_factory=dict)
    state: str = "measured"
    """``measured``, ``not triggered``, ``not available`` or ``failed``."""
    note: str = ""
    by_id: str | None = None

    @property
    def base_id(self) -> str:
        return self.ids["base"]


@dataclass
class Tally:
    """One row of the table: a way's figures over the instances that measured."""

    instances: int = 0
    measured: int = 0
    not_triggered: int = 0
    not_available: int = 0
    failed: int = 0
    by_depth: dict[int, list[int]] = field(default_factory=dict)
    """Dependents at each labelled depth: [marked, total]."""
    within: list[int] = field(default_factory=lambda: [0, 0])
    beyond: list[int] = field(default_factory=lambda: [0, 0])
    unrelated: list[int] = field(default_factory=lambda: [0, 0])
    cause_right: list[int] = field(default_factory=lambda: [0, 0])
    reason_names: list[int] = field(default_factory=lambda: [0, 0])
    path_right: list[int] = field(default_factory=lambda: [0, 0])
    """Marked dependents whose path is as long as their shortest one."""
    cleared: list[int] | None = None
    notes: list[str] = field(default_factory=list)


# -- writing a scenario ------------------------------------------------------


def item_of(memory: dict[str, Any], way: str, now: float) -> dict[str, Any]:
    """A memory as written: the base of a rejection starts as a candidate, and
    the base of an expiry holds until shortly after now."""
    item: dict[str, Any] = {"content": memory["text"], "memory_type": memory["type"]}
    if memory["role"] == "base" and way == "reject":
        item["source"] = "auto_extracted"
    if memory["role"] == "base" and way == "expire":
        item["valid_to"] = now + LIFETIME
    return item


def write(gm: GraphMem, instance: Instance, now: float) -> None:
    """The scenario's memories in one batch without dedup (the set's texts are
    look-alikes on purpose; the writer's judgement is measured on the change,
    not on the set-up), then its edges."""
    memories = instance.scenario.memories
    items = [item_of(m, instance.way, now) for m in memories]
    outcomes = gm.remember_many_detailed(items, project_id=instance.project, dedup=False)
    instance.ids = {m["key"]: o.id for m, o in zip(memories, outcomes, strict=True)}
    for source, kind, target in instance.scenario.edges:
        ids = instance.ids
        gm.relate(ids[source], ids[target], kind, project_id=instance.project)


# -- changing the base -------------------------------------------------------


def change(gm: GraphMem, instance: Instance) -> None:
    """Apply the instance's way to its base, or say why it could not be."""
    missing = NEEDS.get(instance.way)
    if missing and not hasattr(gm, missing):
        instance.state, instance.note = "not available", f"GraphMem.{missing} is not there"
        return
    try:
        STEPS[instance.way](gm, instance)
    except Exception as exc:  # a benchmark reports what failed and goes on
        instance.state, instance.note = "failed", f"{type(exc).__name__}: {exc}"


def _supersede(gm: GraphMem, instance: Instance) -> None:
    """The update written as a memory of its own, then named the base's successor."""
    item = {"content": instance.scenario.update, "memory_type": instance.scenario.base["type"]}
    (outcome,) = gm.remember_many_detailed([item], project_id=instance.project, dedup=False)
    gm.supersede(instance.base_id, outcome.id, project_id=instance.project)
    instance.by_id = outcome.id


def _write(gm: GraphMem, instance: Instance) -> None:
    """The update through the writer, from the base's source: it should supersede."""
    base = instance.scenario.base
    item = {"content": instance.scenario.update, "memory_type": base["type"]}
    _, outcome = gm.remember_detailed(item, project_id=instance.project)
    instance.by_id = outcome.id
    if outcome.result.value != "superseded" or outcome.related_id != instance.base_id:
        instance.state = "not triggered"
        instance.note = f"write was {outcome.result.value} ({outcome.reason or 'no reason'})"


def _contradict(gm: GraphMem, instance: Instance) -> None:
    """The contradiction from another source: it should be flagged against the base."""
    base = instance.scenario.base
    item = {"content": instance.scenario.contradiction, "memory_type": base["type"]}
    memory, outcome = gm.remember_detailed(
        {**item, "source": "manual"}, project_id=instance.project
    )
    instance.by_id = memory.id
    if memory.conflicts_with != instance.base_id:
        instance.state = "not triggered"
        instance.note = f"write was {outcome.result.value} ({outcome.reason or 'no reason'})"


def _forget(gm: GraphMem, instance: Instance) -> None:
    gm.forget(instance.base_id, project_id=instance.project)


def _archive(gm: GraphMem, instance: Instance) -> None:
    archive: Callable[..., Any] = getattr(gm, "archive")  # noqa: B009 - may not be there yet
    archive(instance.base_id, reason="the benchmark retires it", project_id=instance.project)


def _reject(gm: GraphMem, instance: Instance) -> None:
    gm.reject(instance.base_id, "the benchmark rejects it", project_id=instance.project)


STEPS: dict[str, Callable[[GraphMem, Instance], None]] = {
    "supersede": _supersede,
    "write": _write,
    "forget": _forget,
    "archive": _archive,
    "reject": _reject,
    "contradict": _contradict,
    "expire": lambda gm, instance: None,
    "consolidate": lambda gm, instance: None,
}
"""Per scenario; expiry and consolidation act on a whole project (``project_step``)."""


def project_step(gm: GraphMem, clock: ManualClock, way: str, instances: list[Instance]) -> None:
    """What a way does once per project, after each scenario's own step: the clock
    passes every expiring base, or one consolidation runs over the project."""
    live = [i for i in instances if i.state == "measured"]
    if not live or way not in ("expire", "consolidate"):
        return
    project = live[0].project
    try:
        if way == "expire":
            clock.advance(2 * LIFETIME)
            check: Callable[..., Any] = getattr(gm, "check_expired")  # noqa: B009
            check(project_id=project)
        else:
            gm.consolidate(project_id=project)
            for instance in live:
                _consolidated(gm, instance)
    except Exception as exc:  # reported per instance, like a step of its own
        for instance in live:
            instance.state, instance.note = "failed", f"{type(exc).__name__}: {exc}"


def _consolidated(gm: GraphMem, instance: Instance) -> None:
    """Consolidation judges its groups itself: a base it left alone is not triggered."""
    base = gm.get(instance.base_id, project_id=instance.project)
    if base.superseded_by is None:
        instance.state, instance.note = "not triggered", "consolidation left the base as it was"
        return
    instance.by_id = base.superseded_by
    swallowed = [
        key
        for key, mid in instance.ids.items()
        if key not in ("base", "partner")
        and gm.get(mid, project_id=instance.project).superseded_by is not None
    ]
    if swallowed:
        instance.note = "consolidation also took " + ", ".join(swallowed)


# -- reading the marks -------------------------------------------------------


def mark_of(gm: GraphMem, instance: Instance, key: str) -> Any:
    """The memory's review mark, or None (also before marks exist at all)."""
    memory = gm.get(instance.ids[key], project_id=instance.project)
    return getattr(memory, "review_mark", None)


def names_base(mark: Any, instance: Instance) -> bool:
    """The reason quotes the base: its id, or the start of its text."""
    reason = str(getattr(mark, "reason", "") or "").lower()
    head = instance.scenario.base["text"][:30].lower()
    return instance.base_id.lower() in reason or head in reason


def score(gm: GraphMem, instance: Instance, depth: int, tally: Tally) -> None:
    """Count one changed instance's marks into its way's row."""
    marked: list[str] = []
    for memory in instance.scenario.memories:
        role, key = memory["role"], memory["key"]
        if role in ("base", "partner"):
            continue
        mark = mark_of(gm, instance, key)
        if mark is None:
            hit = 0
        else:
            hit = 1
            marked.append(key)
            _count_cause(mark, instance, tally)
            if role == "dependent":
                _add(tally.path_right, int(path_right(mark, instance, memory)))
        if role == "unrelated":
            _add(tally.unrelated, hit)
            continue
        level = int(memory["depth"])
        _add(tally.by_depth.setdefault(level, [0, 0]), hit)
        _add(tally.within if level <= depth else tally.beyond, hit)
    if instance.way in UNDO:
        _undo(gm, instance, marked, tally)


def path_right(mark: Any, instance: Instance, memory: dict[str, Any]) -> bool:
    """The mark's path is a shortest one: as many hops as the labelled depth,
    given as its edges or as the ids from the base to the memory."""
    path = [getattr(step, "value", step) for step in getattr(mark, "path", None) or []]
    depth = int(memory["depth"])
    if len(path) == depth:
        return True
    ends = (instance.base_id, instance.ids[memory["key"]])
    return len(path) == depth + 1 and (path[0], path[-1]) == ends


def _count_cause(mark: Any, instance: Instance, tally: Tally) -> None:
    change = getattr(getattr(mark, "change", None), "value", getattr(mark, "change", None))
    right = getattr(mark, "cause_id", None) == instance.base_id and change == CHANGE[instance.way]
    _add(tally.cause_right, int(right))
    _add(tally.reason_names, int(names_base(mark, instance)))


UNDO: dict[str, str] = {
    "supersede": "supersede",
    "write": "supersede",
    "archive": "archive",
    "reject": "rejection",
    "consolidate": "consolidation",
}
"""The curation ``gm.undo`` takes back for each way a base changed (a forgotten
memory is gone, an expiry is time passing, a contradiction's flag is no curation)."""


def _undo(gm: GraphMem, instance: Instance, marked: list[str], tally: Tally) -> None:
    """Undo the change; every mark it caused should be gone."""
    curation = UNDO[instance.way]
    target = instance.by_id if curation == "consolidation" else instance.base_id
    assert target is not None
    try:
        gm.undo(curation, target, reason="the benchmark undoes it", project_id=instance.project)
    except ConflictError as exc:  # a consolidation two instances share is undone once
        if curation != "consolidation" or "not a consolidated memory" not in exc.message:
            raise
    cleared = sum(mark_of(gm, instance, key) is None for key in marked)
    tally.cleared = tally.cleared or [0, 0]
    tally.cleared[0] += cleared
    tally.cleared[1] += len(marked)


def _add(pair: list[int], hit: int) -> None:
    pair[0] += hit
    pair[1] += 1


# -- runs --------------------------------------------------------------------


@contextmanager
def opened(depth: int) -> Iterator[tuple[GraphMem, ManualClock]]:
    """A throwaway embedded store whose cascades travel ``depth`` hops."""
    data_dir = Path(tempfile.mkdtemp(dir="/tmp", prefix="gmdeps-"))
    saved = os.environ.get("GRAPHMEM_CASCADE_DEPTH")
    os.environ["GRAPHMEM_CASCADE_DEPTH"] = str(depth)
    clock = ManualClock(START)
    try:
        with GraphMem.open(_settings(data_dir), clock=clock) as gm:
            yield gm, clock
    finally:
        if saved is None:
            os.environ.pop("GRAPHMEM_CASCADE_DEPTH", None)
        else:
            os.environ["GRAPHMEM_CASCADE_DEPTH"] = saved
        shutil.rmtree(data_dir, ignore_errors=True)


def _settings(data_dir: Path) -> Settings:
    """The embedded default; the depth comes from ``GRAPHMEM_CASCADE_DEPTH``,
    which ``opened`` sets before Settings reads the environment."""
    return Settings(data_dir=data_dir, graph="deps", project="deps", falkordb_url=None)


def projects(scenarios: Sequence[Scenario], stores: str) -> Iterator[tuple[str, list[Instance]]]:
    """Each project and the instances written into it: one per scenario and way
    (``alone``), or one per way holding all its scenarios (``shared``)."""
    for way in WAYS:
        chosen = [s for s in scenarios if way in s.ways]
        if stores == "shared" and chosen:
            yield way, [Instance(s, way, f"shared-{way}") for s in chosen]
        elif stores == "alone":
            for s in chosen:
                yield way, [Instance(s, way, f"{s.id}-{way}")]


def run(
    gm: GraphMem, clock: ManualClock, scenarios: Sequence[Scenario], stores: str, depth: int
) -> dict[tuple[str, str], Tally]:
    """Every project written, changed and scored; rows keyed by (split, way)."""
    rows: dict[tuple[str, str], Tally] = {}
    for way, instances in projects(scenarios, stores):
        for instance in instances:
            write(gm, instance, clock.now())
            change(gm, instance)
        project_step(gm, clock, way, instances)
        for instance in instances:
            _tally(gm, instance, depth, rows.setdefault((instance.scenario.split, way), Tally()))
    return rows


def _tally(gm: GraphMem, instance: Instance, depth: int, tally: Tally) -> None:
    tally.instances += 1
    if instance.note:
        tally.notes.append(f"{instance.scenario.id}: {instance.state}: {instance.note}")
    if instance.state != "measured":
        kind = instance.state.replace(" ", "_")
        setattr(tally, kind, getattr(tally, kind) + 1)
        return
    tally.measured += 1
    try:
        score(gm, instance, depth, tally)
    except Exception as exc:  # a read or an undo that fails is a finding, not a crash
        tally.notes.append(f"{instance.scenario.id}: scoring failed: {type(exc).__name__}: {exc}")


# -- the report --------------------------------------------------------------


def share(pair: list[int] | None, undo: bool = False) -> str:
    if pair is None:
        return "n/a" if undo else "-"
    return "-" if pair[1] == 0 else f"{pair[0]}/{pair[1]} {100 * pair[0] / pair[1]:.0f}%"


HEADER = (
    f"{'split':<8} {'way':<12} {'n':>3} {'run':>3} {'untrig':>6} {'n/a':>4} {'fail':>4} "
    f"{'d1':>10} {'d2':>10} {'d3':>10} {'within':>11} {'beyond':>10} {'unrelated':>10} "
    f"{'cause ok':>11} {'reason':>11} {'path':>11} {'undo':>10}"
)


def line(split: str, way: str, t: Tally) -> str:
    depths = [share(t.by_depth.get(d)) for d in (1, 2, 3)]
    undo = share(t.cleared, undo=True) if way in UNDO else "n/a"
    return (
        f"{split:<8} {way:<12} {t.instances:>3} {t.measured:>3} {t.not_triggered:>6} "
        f"{t.not_available:>4} {t.failed:>4} {depths[0]:>10} {depths[1]:>10} {depths[2]:>10} "
        f"{share(t.within):>11} {share(t.beyond):>10} {share(t.unrelated):>10} "
        f"{share(t.cause_right):>11} {share(t.reason_names):>11} {share(t.path_right):>11} "
        f"{undo:>10}"
    )


def print_rows(stores: str, depth: int, rows: dict[tuple[str, str], Tally]) -> None:
    print(f"\n== dependency cascades: stores {stores}, depth {depth} ==")
    print(HEADER)
    for (split, way), tally in sorted(rows.items(), key=lambda r: (r[0][0], WAYS.index(r[0][1]))):
        print(line(split, way, tally))
    notes = [f"  [{split} {way}] {n}" for (split, way), t in rows.items() for n in t.notes]
    if notes:
        print("notes:")
        print("\n".join(sorted(notes)))


def main(
    depth: Annotated[
        list[int] | None, typer.Option(help="Cascade depth (repeat for several).")
    ] = None,
    set_: Annotated[str, typer.Option("--set", help="dev, heldout or all.")] = "all",
    stores: Annotated[
        str, typer.Option(help="alone, shared, or both: alone,shared.")
    ] = "alone,shared",
    json_out: Annotated[Path | None, typer.Option("--json", help="Write the figures here.")] = None,
) -> None:
    """Change each scenario's base in each of its ways and count the marks."""
    scenarios = load(set_)
    figures: list[dict[str, Any]] = []
    print(
        "targets: within 100%, beyond 0, unrelated 0, cause ok, reason and path 100%, undo 100%; "
        "d1..d3: dependents marked at each labelled depth"
    )
    for level in depth or [2]:
        with opened(level) as (gm, clock):
            for mode in stores.split(","):
                rows = run(gm, clock, scenarios, mode, level)
                print_rows(mode, level, rows)
                figures += [
                    {"stores": mode, "depth": level, "split": s, "way": w, **asdict(t)}
                    for (s, w), t in rows.items()
                ]
    if json_out is not None:
        json_out.write_text(json.dumps({"set": set_, "rows": figures}, indent=2) + "\n")


if __name__ == "__main__":
    typer.run(main)
