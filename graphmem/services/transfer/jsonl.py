"""graphmem's own format: a whole project as JSONL, lossless, both ways streaming.

One JSON object per line, so export and import both stream: export pages
through the store and writes line by line, import reads line by line and
writes a page of ``page_size`` records at a time; neither holds more than a
page (plus, on export, a spool file of relations). Lines come in this order:

    {"kind": "header", "format": "graphmem-export", "version": 1, "project_id": ...}
    {"kind": "project", "props": {...}}
    {"kind": "session", "props": {...}, "in_project": ...}            (each session)
    {"kind": "memory", "props": {...}, "embedding": [...], "in_session": ...}
    {"kind": "relation", "type": ..., "from_id": ..., "to_id": ..., "props": {...}}
    {"kind": "promotion_run", "props": {...}, "for_session": ...}
    {"kind": "promotion_event", "props": {...}, "promoted": ...}
    {"kind": "staging_event", "props": {...}, "changed": ...}
    {"kind": "archival_event", "props": {...}, "moved": ...}
    {"kind": "failure_capsule", "props": {...}, "for_sessions": [...], "in_context": [...],
     "taught": ...}
    {"kind": "end", "counts": {...}}

Every property is carried as the store returns it (nothing is picked by
name, so properties added later move too), and so are the structural links
(a memory's session, an event's memory), read from the graph rather than
inferred from ids: an orphan stays an orphan. Embeddings travel as lists of
floats and are stored as each backend's vector type.

Import is idempotent: every record is merged by its id, so a record already
in the project takes the file's properties (properties the file lacks are
kept) and counts as merged, and importing the same file twice creates
nothing the second time. A line that is not JSON, fails validation, or
links to a session or memory the project does not hold (which is also what
becomes of a line moved ahead of what it links to) is reported with its
number and the reason, and then the import takes back every record it
created: the project holds the whole file or nothing of it (records it
merged into were there before and keep the file's properties). The closing ``end`` line holds
the counts, so a cut-off file is reported rather than taken as the whole
project. A file whose memories are another project's in the same store (an
export imported back under a new name) is refused as a whole, with what to do
instead: a memory id is unique across a store (``report.ids_taken``).
"""

from __future__ import annotations

import json
import math
import tempfile
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import IO, Any, NamedTuple

from pydantic import BaseModel, TypeAdapter, ValidationError

from graphmem.domain import textscope
from graphmem.domain.capsules import FailureCapsule
from graphmem.domain.errors import InvalidInputError, StoreUnavailableError
from graphmem.domain.models import (
    Identifier,
    Memory,
    Relation,
    RelationType,
    Session,
    invalid_input,
)
from graphmem.services.embeddings import DIMENSION
from graphmem.services.transfer.lines import (
    decode,
    numbered,
    optional_id,
    properties,
    text_id,
    write_line,
)
from graphmem.services.transfer.paging import (
    READ_PAGE,
    WRITE_PAGE,
    pages,
    project_summary,
    relations_of,
)
from graphmem.services.transfer.report import (
    ImportReport,
    Progress,
    TransferCounts,
    ids_taken,
    refusal,
)
from graphmem.store import Row, Store

FORMAT = "graphmem-export"
VERSION = 1
RELATION_TYPES = frozenset(t.value for t in RelationType)
"""The relations between memories import writes (import_relations has a branch for
each: a relationship type cannot be a Cypher parameter)."""
EXPORTS = {
    "session": "export_sessions",
    "memory": "export_memories",
    "promotion_run": "export_promotion_runs",
    "promotion_event": "export_promotion_events",
    "staging_event": "export_staging_events",
    "archival_event": "export_archival_events",
    "failure_capsule": "export_failure_capsules",
}
LINKS = {
    "session": "in_project",
    "memory": "in_session",
    "promotion_run": "for_session",
    "promotion_event": "promoted",
    "staging_event": "changed",
    "archival_event": "moved",
}
"""Each kind's structural link: the id of the node it hangs off, read from the graph."""
KINDS = ("project", "session", "memory", "relation", "promotion_run", "promotion_event",
         "staging_event", "archival_event", "failure_capsule")  # fmt: skip
COUNTED = KINDS[1:]
"""The kinds the end line counts (there is one project line)."""
LINKED = {"session": "session", "memory": "session", "promotion_run": "session",
          "promotion_event": "memory", "staging_event": "memory",
          "archival_event": "memory"}  # fmt: skip
"""What each kind's link column names."""
_project_id = TypeAdapter(Identifier)


def export_project(
    store: Store,
    project_id: str,
    out: IO[str],
    *,
    page_size: int = READ_PAGE,
    progress: Progress | None = None,
) -> TransferCounts:
    """Write project ``project_id`` of ``store`` to ``out``; returns what was written."""
    project = project_summary(store, project_id)
    counts = TransferCounts(Counter(dict.fromkeys(COUNTED, 0)))
    write_line(
        out, {"kind": "header", "format": FORMAT, "version": VERSION, "project_id": project_id}
    )
    write_line(out, {"kind": "project", "props": _sorted(project["props"] or {"id": project_id})})
    with tempfile.TemporaryFile("w+", encoding="utf-8") as relations:
        for kind in ("session", "memory"):
            for rows in pages(store, EXPORTS[kind], project_id, page_size):
                for row in rows:
                    write_line(out, _record(kind, row))
                counts.add(kind, len(rows))
                if kind == "memory":
                    # Relations may point at memories of later pages, and import
                    # needs both ends in place: they follow all memories.
                    found = relations_of(store, project_id, rows)
                    for relation in found:
                        write_line(relations, {"kind": "relation", **relation,
                                          "props": _sorted(relation["props"])})  # fmt: skip
                    counts.add("relation", len(found))
                    if progress is not None:
                        progress(len(rows))
        relations.seek(0)
        for text in relations:
            out.write(text)
    for kind in (
        "promotion_run",
        "promotion_event",
        "staging_event",
        "archival_event",
        "failure_capsule",
    ):
        for rows in pages(store, EXPORTS[kind], project_id, page_size):
            for row in rows:
                write_line(out, _record(kind, row))
            counts.add(kind, len(rows))
    write_line(out, {"kind": "end", "counts": dict(counts.counts)})
    return counts


def import_project(
    store: Store,
    lines: Iterable[str],
    *,
    project_id: str | None = None,
    page_size: int = WRITE_PAGE,
) -> ImportReport:
    """Load a graphmem export into ``store``, into project ``project_id`` (by
    default the project it was exported from); see the module for what is
    merged and what is skipped.

    Only a file that is not a graphmem export at all (its first line is no
    header) is refused as a whole, before anything is written.
    """
    records = numbered(lines)
    header = _header(next(records, None))
    source = header["project_id"]
    try:
        target = _project_id.validate_python(project_id or source)
    except ValidationError as exc:
        raise invalid_input(exc, locate=lambda _: "project") from None
    report = ImportReport(target)
    loader = _Loader(store, source, target, page_size, report)
    seen: Counter[str] = Counter()
    end: dict[str, Any] | None = None
    try:
        for number, text in records:
            try:
                record = decode(text)
                kind = _kind(record, end is not None)
            except InvalidInputError as exc:
                report.skip(number, exc.message)
                continue
            if kind == "end":
                end = record
                continue
            seen[kind] += 1
            loader.add(kind, number, record)
        loader.flush()
    except _Taken as taken:
        loader.roll_back()
        raise ids_taken(target, taken.owners, report.merged) from None
    _check_end(end, seen, report)
    report.skipped.sort(key=lambda skipped: skipped.line)
    if report.skipped:
        loader.roll_back()
    return report


def _header(first: tuple[int, str] | None) -> dict[str, Any]:
    header: Any = None
    if first is not None:
        try:
            header = decode(first[1])
        except InvalidInputError:
            header = None
    is_header = isinstance(header, dict) and header.get("kind") == "header"
    if not is_header or header.get("format") != FORMAT:
        raise InvalidInputError("file: not a graphmem export (no header line)", field="file")
    if header.get("version") != VERSION:
        raise InvalidInputError(
            f"file: export version {header.get('version')} is not {VERSION}", field="file"
        )
    if not isinstance(header.get("project_id"), str):
        raise InvalidInputError("file: the header names no project", field="file")
    return header


def _kind(record: Mapping[str, Any], ended: bool) -> str:
    kind = record.get("kind")
    if ended:
        raise InvalidInputError("line: after the end line", field="line")
    if kind == "header":
        raise InvalidInputError("kind: a second header line", field="kind")
    if kind not in (*KINDS, "end"):
        raise InvalidInputError(f"kind: unknown kind {kind!r}", field="kind")
    return kind


def _check_end(end: Mapping[str, Any] | None, seen: Counter[str], report: ImportReport) -> None:
    if end is None:
        report.warnings.append(
            "the file has no end line: it may be cut off (the lines it held were imported)"
        )
        return
    counts = end.get("counts")
    expected = {k: counts.get(k, 0) for k in COUNTED} if isinstance(counts, dict) else None
    held = {k: seen[k] for k in COUNTED}
    if expected != held:
        report.warnings.append(
            f"the end line counts {expected} but the file held {held}: lines are missing "
            "or were added"
        )


class _Taken(Exception):
    """Memory ids of the file belong to other projects of the store: the import
    stops, since every memory line and all that hangs off them would clash."""

    def __init__(self, owners: set[str]) -> None:
        super().__init__(", ".join(sorted(owners)))
        self.owners = owners


class Outcome(NamedTuple):
    """What became of one line: ``created``, ``merged`` or ``skipped`` (with the reason)."""

    line: int
    result: str
    reason: str = ""


@dataclass
class _Loader:
    """Gathers validated records of one kind into pages and writes each page."""

    store: Store
    source: str
    target: str
    page_size: int
    report: ImportReport
    kind: str = ""
    rows: list[dict[str, Any]] = field(default_factory=list)
    keys: set[Any] = field(default_factory=set)
    created: dict[str, list[Any]] = field(default_factory=dict)
    """The keys of the records this import created, by kind, for a roll back."""

    def add(self, kind: str, line: int, record: Mapping[str, Any]) -> None:
        try:
            row, key = _PREPARE[kind](record, self)
        except InvalidInputError as exc:
            self.report.skip(line, f"{kind}: {exc.message}")
            return
        # A page holds each record once: two lines for one id go in two writes,
        # the second merging into the first.
        if kind != self.kind or len(self.rows) >= self.page_size or key in self.keys:
            self.flush()
        self.kind = kind
        row["line"] = line
        self.rows.append(row)
        self.keys.add(key)

    def flush(self) -> None:
        if not self.rows:
            return
        by_line = {row["line"]: row for row in self.rows}
        for outcome in self._write(self.rows):
            if outcome.result == "created":
                self.report.created[self.kind] += 1
                self.created.setdefault(self.kind, []).append(
                    _key(self.kind, by_line[outcome.line])
                )
            elif outcome.result == "merged":
                self.report.merged[self.kind] += 1
            else:
                self.report.skip(outcome.line, f"{self.kind}: {outcome.reason}")
        self.rows = []
        self.keys = set()

    def roll_back(self) -> None:
        """Delete what this import created: a file with a bad line leaves nothing
        behind (a half-made project is worse than none; fix the lines and import
        again). The report then counts nothing as created."""
        created = self.created
        self.store.write(
            "import_rollback",
            {
                "project_id": self.target,
                "project_created": bool(created.get("project")),
                "session_ids": created.get("session", []),
                "memory_ids": created.get("memory", []),
                "relations": [
                    {"type": kind, "from_id": from_id, "to_id": to_id}
                    for kind, from_id, to_id in created.get("relation", [])
                ],
                "run_ids": created.get("promotion_run", []),
                "event_ids": created.get("promotion_event", [])
                + created.get("staging_event", [])
                + created.get("archival_event", []),
                "capsule_ids": created.get("failure_capsule", []),
            },
        )
        self.report.rolled_back = Counter(self.report.created)
        self.report.created.clear()

    def _write(self, rows: list[dict[str, Any]]) -> list[Outcome]:
        """Write a page in one statement; if the store refuses it, write its
        records one by one so only the ones it refuses are left out (each
        statement is atomic, so a refused one wrote nothing)."""
        try:
            return _WRITE[self.kind](self, rows)
        except (StoreUnavailableError, _Taken):
            raise
        except Exception as exc:
            if len(rows) > 1:
                return [outcome for row in rows for outcome in self._write([row])]
            return [Outcome(rows[0]["line"], "skipped", refusal(exc))]


# -- validating one record -------------------------------------------------------------


def _strict(model: type[BaseModel], props: Mapping[str, Any]) -> None:
    """Check ``props`` against a model without changing them: strict, as JSON, so a
    string where a number belongs is an error rather than quietly converted."""
    try:
        model.model_validate_json(json.dumps(props), strict=True)
    except ValidationError as exc:
        raise invalid_input(exc, locate=lambda loc: ".".join(["props", *map(str, loc)])) from None


def _key(kind: str, row: Mapping[str, Any]) -> Any:
    """What finds a created record again: its id, or a relation's type and ends."""
    if kind == "relation":
        return (row["type"], row["from_id"], row["to_id"])
    return row["props"]["id"]


def _prepare_project(record: Mapping[str, Any], loader: _Loader) -> tuple[dict[str, Any], str]:
    props = properties(record.get("props"), "props")
    props["id"] = loader.target
    return {"props": props}, "project"


def _prepare_session(record: Mapping[str, Any], loader: _Loader) -> tuple[dict[str, Any], str]:
    props = properties(record.get("props"), "props")
    props["project_id"] = loader.target
    _strict(Session, props)
    in_project = optional_id(record.get("in_project"), "in_project")
    # Linked to the project only where it was linked to the exported one.
    return {"props": props, "linked": in_project == loader.source}, props["id"]


def _prepare_memory(record: Mapping[str, Any], loader: _Loader) -> tuple[dict[str, Any], str]:
    props = properties(record.get("props"), "props")
    props["project_id"] = loader.target
    props.pop("embedding", None)
    _strict(Memory, props)
    # The scope words are the target project's, whatever the file says.
    props[textscope.FIELD] = textscope.text_scope(
        loader.target, props.get("agent_id"), props.get("visibility")
    )
    return {
        "props": props,
        "embedding": _embedding(record.get("embedding")),
        "in_session": optional_id(record.get("in_session"), "in_session"),
    }, props["id"]


def _embedding(value: Any) -> array | None:
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != DIMENSION:
        raise InvalidInputError(
            f"embedding: must be null or a list of {DIMENSION} numbers", field="embedding"
        )
    try:
        vector = array("f", value)
    except TypeError:
        raise InvalidInputError("embedding: must hold numbers only", field="embedding") from None
    if not all(map(math.isfinite, vector)):
        raise InvalidInputError("embedding: must hold finite numbers", field="embedding")
    return vector


def _prepare_relation(
    record: Mapping[str, Any], loader: _Loader
) -> tuple[dict[str, Any], tuple[str, str, str]]:
    kind = record.get("type")
    if kind not in RELATION_TYPES:
        raise InvalidInputError(
            f"type: {kind!r} is not one of {', '.join(sorted(RELATION_TYPES))}", field="type"
        )
    from_id = text_id(record.get("from_id"), "from_id")
    to_id = text_id(record.get("to_id"), "to_id")
    props = properties(record.get("props"), "props")
    try:
        Relation.model_validate_json(
            json.dumps({**props, "type": kind, "from_id": from_id, "to_id": to_id}), strict=True
        )
    except ValidationError as exc:
        raise invalid_input(exc, locate=lambda loc: ".".join(["props", *map(str, loc)])) from None
    return {"type": kind, "from_id": from_id, "to_id": to_id, "props": props}, (
        kind, from_id, to_id
    )  # fmt: skip


def _prepare_event(kind: str) -> Callable[[Mapping[str, Any], _Loader], tuple[dict[str, Any], str]]:
    link = LINKS[kind]

    def prepare(record: Mapping[str, Any], loader: _Loader) -> tuple[dict[str, Any], str]:
        props = properties(record.get("props"), "props")
        props["project_id"] = loader.target
        text_id(props.get("id"), "props.id")
        if kind != "promotion_run":
            # Events are found again by the memory they concern (an indexed property).
            text_id(props.get("memory_id"), "props.memory_id")
        return {"props": props, link: optional_id(record.get(link), link)}, props["id"]

    return prepare


def _prepare_capsule(record: Mapping[str, Any], loader: _Loader) -> tuple[dict[str, Any], str]:
    props = properties(record.get("props"), "props")
    props["project_id"] = loader.target
    _strict(FailureCapsule, props)
    links = {}
    for name in ("for_sessions", "in_context"):
        value = record.get(name)
        if not isinstance(value, list):
            raise InvalidInputError(f"{name}: must be a list of ids", field=name)
        links[name] = [text_id(item, name) for item in value]
    taught = optional_id(record.get("taught"), "taught")
    return {"props": props, **links, "taught": taught}, props["id"]


_PREPARE: dict[str, Callable[[Mapping[str, Any], _Loader], tuple[dict[str, Any], Any]]] = {
    "project": _prepare_project,
    "session": _prepare_session,
    "memory": _prepare_memory,
    "relation": _prepare_relation,
    "promotion_run": _prepare_event("promotion_run"),
    "promotion_event": _prepare_event("promotion_event"),
    "staging_event": _prepare_event("staging_event"),
    "archival_event": _prepare_event("archival_event"),
    "failure_capsule": _prepare_capsule,
}


# -- writing a page --------------------------------------------------------------------


def _write_project(loader: _Loader, rows: list[dict[str, Any]]) -> list[Outcome]:
    (row,) = rows
    (written,) = loader.store.write(
        "import_project", {"project_id": loader.target, "props": row["props"]}
    )
    return [Outcome(row["line"], "created" if written["fresh"] else "merged")]


def _write_fresh(statement: str) -> Callable[[_Loader, list[dict[str, Any]]], list[Outcome]]:
    """Sessions and logs: the statement merges each row it can link and says
    whether it was new; a row it leaves out names something the project lacks."""

    def write(loader: _Loader, rows: list[dict[str, Any]]) -> list[Outcome]:
        written = loader.store.write(statement, {"rows": rows, "project_id": loader.target})
        fresh = {w["line"]: w["fresh"] for w in written}
        return [
            Outcome(row["line"], "created" if fresh[row["line"]] else "merged")
            if row["line"] in fresh
            else _unlinked(loader.kind, row, loader.target)
            for row in rows
        ]

    return write


def _unlinked(kind: str, row: Mapping[str, Any], project: str) -> Outcome:
    if kind == "failure_capsule":
        return Outcome(
            row["line"],
            "skipped",
            f"for_sessions, in_context or taught: names a session or memory project {project} "
            "does not hold",
        )
    link = LINKS[kind]
    return Outcome(
        row["line"], "skipped", f"{link}: no {LINKED[kind]} {row[link]} in project {project}"
    )


def _write_memories(loader: _Loader, rows: list[dict[str, Any]]) -> list[Outcome]:
    ids = [row["props"]["id"] for row in rows]
    owners = {
        found["id"]: found["project_id"]
        for found in loader.store.read("import_existing_memories", {"ids": ids})
    }
    taken = set(owners.values()) - {loader.target}
    if taken:
        raise _Taken(taken)
    outcomes = [
        Outcome(row["line"], "merged" if row["props"]["id"] in owners else "created")
        for row in rows
    ]
    by_line = {row["line"]: row for row in rows}
    (written,) = loader.store.write("import_memories", {"rows": rows, "project_id": loader.target})
    lines = set(written["written"])
    return [
        outcome
        if outcome.line in lines
        else _unlinked("memory", by_line[outcome.line], loader.target)
        for outcome in outcomes
    ]


def _write_relations(loader: _Loader, rows: list[dict[str, Any]]) -> list[Outcome]:
    written = loader.store.write("import_relations", {"rows": rows, "project_id": loader.target})
    by_line = {row["line"]: row for row in rows}
    outcomes = []
    for w in written:
        row = by_line[w["line"]]
        missing = [end for end, found in (("from_id", w["from_found"]), ("to_id", w["to_found"]))
                   if not found]  # fmt: skip
        if missing:
            ends = " and ".join(f"{end} {row[end]}" for end in missing)
            outcomes.append(Outcome(w["line"], "skipped",
                                    f"unknown relation endpoint: {ends} is no memory of project "
                                    f"{loader.target}"))  # fmt: skip
        else:
            outcomes.append(Outcome(w["line"], "merged" if w["existed"] else "created"))
    return outcomes


_WRITE: dict[str, Callable[[_Loader, list[dict[str, Any]]], list[Outcome]]] = {
    "project": _write_project,
    "session": _write_fresh("import_sessions"),
    "memory": _write_memories,
    "relation": _write_relations,
    "promotion_run": _write_fresh("import_promotion_runs"),
    "promotion_event": _write_fresh("import_promotion_events"),
    "staging_event": _write_fresh("import_staging_events"),
    "archival_event": _write_fresh("import_archival_events"),
    "failure_capsule": _write_fresh("import_failure_capsules"),
}


# -- writing lines ---------------------------------------------------------------------


def _sorted(props: Mapping[str, Any]) -> dict[str, Any]:
    """Properties in name order: the store keeps them in the order they were
    first set, and an export should not depend on that."""
    return dict(sorted(props.items()))


def _record(kind: str, row: Row) -> dict[str, Any]:
    props = _sorted(row["props"])
    record: dict[str, Any] = {"kind": kind, "props": props}
    if kind == "memory":
        embedding = props.pop("embedding", None)
        record["embedding"] = None if embedding is None else [float(x) for x in embedding]
    if kind == "failure_capsule":
        record.update(
            for_sessions=sorted(row["for_sessions"]),
            in_context=sorted(row["in_context"]),
            taught=row["taught"],
        )
        return record
    link = LINKS[kind]
    record[link] = row[link]
    return record
