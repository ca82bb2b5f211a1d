"""Schema migrations of the memory graph, recorded by version in the graph.

Each migration is idempotent, so a migration interrupted half-way is simply
run again; read paths tolerate the old shape while a migration rolls out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from graphmem.domain.analysis import LENGTH_FIELD, indexed_fields
from graphmem.domain.clock import EARLIEST, LATEST, Clock, nearest_showable, stored_now
from graphmem.domain.text import content_key
from graphmem.domain.textscope import FIELD
from graphmem.store import Store

PAGE = 2_000


@dataclass(frozen=True)
class MigrationReport:
    version: int
    name: str
    changed: int


def _statuses(store: Store) -> int:
    return int(store.write("migrate_status")[0]["changed"])


def _content_keys(store: Store) -> int:
    changed = 0
    while rows := store.read("memories_without_content_key", {"limit": PAGE}):
        items = [{"id": r["id"], "key": content_key(r["content"] or "")} for r in rows]
        changed += store.write("set_content_keys", {"items": items})[0]["changed"]
    return changed


def text_fields(store: Store) -> int:
    """Give every memory without them its full-text scope words and length: full
    text finds a memory only within its scope (graphmem.domain.textscope), and a
    project's mean length is the sum of its memories' (graphmem.domain.analysis).
    Opening a store runs this too, so memories a Cypher script wrote are found
    and counted without a migration."""
    changed = 0
    while rows := store.read("memories_without_text_fields", {"limit": PAGE}):
        items = []
        for row in rows:
            fields = indexed_fields(
                row["project_id"],
                row["agent_id"],
                row["visibility"],
                row["content"],
                row["rationale"],
            )
            items.append({"id": row["id"], "scope": fields[FIELD], "length": fields[LENGTH_FIELD]})
        changed += store.write("set_text_fields", {"items": items})[0]["changed"]
    return changed


def unshowable_times(store: Store, project_id: str | None = None) -> dict[str, dict[str, float]]:
    """The memories (of one project, or of all) holding a time no surface can
    show, with those times by name: no write takes one, but raw Cypher or an
    older version may have stored it."""
    found: dict[str, dict[str, float]] = {}
    after = ""
    while rows := store.read(
        "unshowable_times",
        {
            "project_id": project_id,
            "after": after,
            "earliest": EARLIEST,
            "latest": LATEST,
            "limit": PAGE,
        },
    ):
        for row in rows:
            found[row["id"]] = {name: value for name, value in row["unshowable"]}
        after = rows[-1]["id"]
    return found


def repair_times(store: Store) -> int:
    """Bring every time no surface can show to the nearest one it can: reads
    already show it so, and say it is stored otherwise."""
    items = [
        {"id": memory_id, "times": {name: nearest_showable(v) for name, v in times.items()}}
        for memory_id, times in unshowable_times(store).items()
    ]
    changed = 0
    for start in range(0, len(items), PAGE):
        changed += store.write("set_memory_times", {"items": items[start : start + PAGE]})[0][
            "changed"
        ]
    return changed


MIGRATIONS: list[tuple[int, str, Callable[[Store], int]]] = [
    (1, "every memory without a status is active", _statuses),
    (2, "every memory has a content key for exact dedup", _content_keys),
    (3, "every memory has full-text scope words and length (statistics per project)", text_fields),
]
REPAIRS: list[tuple[str, Callable[[Store], int]]] = [
    ("every stored time is one every surface can show", repair_times),
]
"""What every ``migrate`` looks for again, whatever the schema version: rows
that raw Cypher, an import by hand or an older version may write at any time.
Each is reported only when it changed something."""


def schema_version(store: Store) -> int:
    return int(store.read("schema_version")[0]["version"])


def migrate(store: Store, clock: Clock, *, rerun: bool = False) -> list[MigrationReport]:
    """Apply the migrations the graph has not had (all of them with ``rerun``),
    then the repairs."""
    current = 0 if rerun else schema_version(store)
    reports = []
    for version, name, apply in MIGRATIONS:
        if version <= current:
            continue
        reports.append(MigrationReport(version, name, apply(store)))
        store.write("set_schema_version", {"version": version, "now": stored_now(clock)})
    for name, repair in REPAIRS:
        changed = repair(store)
        if changed:
            reports.append(MigrationReport(schema_version(store), name, changed))
    return reports
