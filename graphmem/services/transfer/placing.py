"""Where an imported memory goes when its id is another project's.

A memory id names one memory in the whole store, and a project's memories
are its own: an import never merges into, names, or tells of a memory of
another project. A file's memory whose id another project of the store holds
therefore takes a new id in the target project, as an id no memory holds
would be written under its own: the import reads the same either way, and
says nothing of the other project. The new id is derived from the old one
and the target project, so importing the same file into the same project
again finds the memories it wrote the first time (and merges into them);
every id the file names (relation ends, the memories an event or a failure
capsule names, ``superseded_by`` and the other references, an archive reason)
follows the memory to its new id.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, MutableMapping
from typing import Any

from graphmem.services.memories import NAMING, REASONS, REFERENCES, named_ids
from graphmem.store import Store
from graphmem.store.queries import transfer_import

ROUNDS = 8
"""How many derivations a file's id may take before import gives up on it: a
derived id held by yet another project takes one more."""

LINKED = tuple(name for name in REFERENCES if name != "copied_from")
"""A memory's references to memories of its own project (``copied_from`` names
the source in the project it was copied from, and stays as the file says)."""
EVENT_IDS = {
    "promotion_event": ("memory_id",),
    "staging_event": ("memory_id", "merged_from"),
    "archival_event": ("memory_id", "other_id"),
}
"""The properties of each log's records that hold a memory id."""
EVENT_LINKS = {"promotion_event": "promoted", "staging_event": "changed", "archival_event": "moved"}


def derived(memory_id: str, project_id: str) -> str:
    """The id a memory of ``memory_id`` takes in ``project_id`` when another
    project holds that id: the same for every import of it there."""
    digest = hashlib.blake2b(f"{project_id}\x00{memory_id}".encode(), digest_size=16)
    return digest.hexdigest()


def placed(store: Store, ids: Collection[str], project_id: str) -> dict[str, str]:
    """Each of ``ids`` with the id it takes in ``project_id``: itself unless
    another project holds it (then ``derived``, as often as needed)."""
    place = {memory_id: memory_id for memory_id in ids}
    pending = set(place)
    for _ in range(ROUNDS):
        if not pending:
            break
        wanted = sorted({place[memory_id] for memory_id in pending})
        owners = transfer_import.owners(store, wanted)
        taken = {
            memory_id
            for memory_id in pending
            if owners.get(place[memory_id], project_id) != project_id
        }
        for memory_id in taken:
            place[memory_id] = derived(place[memory_id], project_id)
        pending = taken
    return place


class Renames:
    """The ids one import moved, applied to every record that names them."""

    def __init__(self, store: Store, project_id: str) -> None:
        self.store = store
        self.project_id = project_id
        self.moved: dict[str, str] = {}
        self._known: set[str] = set()

    def place_memories(self, rows: list[dict[str, Any]]) -> None:
        """Settle the ids a page of memory rows names, and rewrite the rows."""
        named = set().union(
            *(named_ids(row["props"], LINKED) | {row["props"]["id"]} for row in rows)
        )
        fresh = named - self._known
        if fresh:
            place = placed(self.store, fresh, self.project_id)
            self.moved.update((old, new) for old, new in place.items() if old != new)
            self._known |= fresh
        for row in rows:
            self._props(row["props"], ("id", *LINKED), REASONS)

    def rewrite(self, kind: str, row: dict[str, Any]) -> None:
        """A record of another kind naming the memories the file moved."""
        if not self.moved:
            return
        if kind == "relation":
            self._fields(row, ("from_id", "to_id"))
        elif kind in EVENT_IDS:
            self._fields(row, (EVENT_LINKS[kind],))
            self._props(row["props"], EVENT_IDS[kind], ("reason",))
            # An event's id may start with its memory's ("<memory id>:<kind>:<time>").
            head, sep, tail = row["props"]["id"].partition(":")
            if sep:
                row["props"]["id"] = self.moved.get(head, head) + sep + tail
        elif kind == "failure_capsule":
            self._fields(row, ("taught",))
            row["in_context"] = [self.moved.get(i, i) for i in row["in_context"]]
            self._props(row["props"], ("lesson_id",), ())
        elif kind == "delivery":
            ids = row["props"]["memory_ids"]
            row["props"]["memory_ids"] = [self.moved.get(i, i) for i in ids]

    def _props(
        self, props: MutableMapping[str, Any], names: Collection[str], texts: Collection[str]
    ) -> None:
        self._fields(props, names)
        for name in texts:
            text = props.get(name)
            for prefix in NAMING:
                if isinstance(text, str) and text.removeprefix(prefix) in self.moved:
                    props[name] = prefix + self.moved[text.removeprefix(prefix)]

    def _fields(self, record: MutableMapping[str, Any], names: Collection[str]) -> None:
        for name in names:
            value = record.get(name)
            if isinstance(value, str) and value in self.moved:
                record[name] = self.moved[value]
