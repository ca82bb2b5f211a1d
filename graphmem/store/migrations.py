"""Schema migrations of the memory graph, recorded by version in the graph.

Each migration is idempotent, so a migration interrupted half-way is simply
run again; read paths tolerate the old shape while a migration rolls out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from graphmem.domain.clock import Clock, stored_now
from graphmem.domain.text import content_key
from graphmem.domain.textscope import text_scope
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


def text_scopes(store: Store) -> int:
    """Give every memory without them its full-text scope words: full text finds a
    memory only within its scope (graphmem.domain.textscope). Opening a store runs this
    too, so memories a Cypher script wrote are found without a migration."""
    changed = 0
    while rows := store.read("memories_without_text_scope", {"limit": PAGE}):
        items = [
            {"id": r["id"], "scope": text_scope(r["project_id"], r["agent_id"], r["visibility"])}
            for r in rows
        ]
        changed += store.write("set_text_scopes", {"items": items})[0]["changed"]
    return changed


MIGRATIONS: list[tuple[int, str, Callable[[Store], int]]] = [
    (1, "every memory without a status is active", _statuses),
    (2, "every memory has a content key for exact dedup", _content_keys),
    (3, "every memory has full-text scope words (statistics per project)", text_scopes),
]
LATEST = MIGRATIONS[-1][0]


def schema_version(store: Store) -> int:
    return int(store.read("schema_version")[0]["version"])


def migrate(store: Store, clock: Clock, *, rerun: bool = False) -> list[MigrationReport]:
    """Apply the migrations the graph has not had (all of them with ``rerun``)."""
    current = 0 if rerun else schema_version(store)
    reports = []
    for version, name, apply in MIGRATIONS:
        if version <= current:
            continue
        reports.append(MigrationReport(version, name, apply(store)))
        store.write("set_schema_version", {"version": version, "now": stored_now(clock)})
    return reports
