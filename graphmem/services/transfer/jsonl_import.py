"""Import of graphmem's own JSONL (``graphmem.services.transfer.jsonl``): reads line
by line and writes a page of ``page_size`` records at a time.

Import is idempotent: every record is merged by its id, so a record already
in the project takes the file's properties (properties the file lacks are
kept) and counts as merged, and importing the same file twice creates
nothing the second time. A memory whose id another project of the store holds
takes a new id here, and every record naming it follows
(``graphmem.services.transfer.placing``): an id taken elsewhere imports as one
no memory holds, and nothing tells of the other project. A line that is not
JSON, fails validation, or
links to a session or memory the project does not hold (which is also what
becomes of a line moved ahead of what it links to) is reported with its
number and the reason, and then the import takes back every record it
created: the project holds the whole file or nothing of it (records it
merged into were there before and keep the file's properties). The closing ``end`` line holds
the counts, so a cut-off file is reported rather than taken as the whole
project.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import TypeAdapter, ValidationError

from graphmem.domain.checks import Identifier
from graphmem.domain.errors import InvalidInputError, StoreUnavailableError, invalid_input
from graphmem.services.transfer.jsonl import COUNTED, FORMAT, KINDS, VERSION
from graphmem.services.transfer.jsonl_pages import WRITE, Outcome
from graphmem.services.transfer.jsonl_records import PREPARE, key
from graphmem.services.transfer.lines import decode, numbered
from graphmem.services.transfer.paging import WRITE_PAGE
from graphmem.services.transfer.placing import Renames
from graphmem.services.transfer.report import ImportReport, refusal
from graphmem.store import Store
from graphmem.store.queries import transfer_import

_project_id = TypeAdapter(Identifier)


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
    loader = _Loader(store, source, target, page_size, report, Renames(store, target))
    seen: Counter[str] = Counter()
    end: dict[str, Any] | None = None
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


@dataclass
class _Loader:
    """Gathers validated records of one kind into pages and writes each page."""

    store: Store
    source: str
    target: str
    page_size: int
    report: ImportReport
    renames: Renames
    kind: str = ""
    rows: list[dict[str, Any]] = field(default_factory=list)
    keys: set[Any] = field(default_factory=set)
    created: dict[str, list[Any]] = field(default_factory=dict)
    """The keys of the records this import created, by kind, for a roll back."""

    def add(self, kind: str, line: int, record: Mapping[str, Any]) -> None:
        try:
            row, found_by = PREPARE[kind](record, self.source, self.target)
        except InvalidInputError as exc:
            self.report.skip(line, f"{kind}: {exc.message}")
            return
        # A page holds each record once: two lines for one id go in two writes,
        # the second merging into the first.
        if kind != self.kind or len(self.rows) >= self.page_size or found_by in self.keys:
            self.flush()
        self.kind = kind
        if kind != "memory":  # memories are placed a page at a time, in flush
            self.renames.rewrite(kind, row)
        row["line"] = line
        self.rows.append(row)
        self.keys.add(found_by)

    def flush(self) -> None:
        if not self.rows:
            return
        if self.kind == "memory":
            self.renames.place_memories(self.rows)
        by_line = {row["line"]: row for row in self.rows}
        for outcome in self._write(self.rows):
            if outcome.result == "created":
                self.report.created[self.kind] += 1
                self.created.setdefault(self.kind, []).append(key(self.kind, by_line[outcome.line]))
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
        transfer_import.roll_back(self.store, self.target, self.created)
        self.report.rolled_back = Counter(self.report.created)
        self.report.created.clear()

    def _write(self, rows: list[dict[str, Any]]) -> list[Outcome]:
        """Write a page in one statement; if the store refuses it, write its
        records one by one so only the ones it refuses are left out (each
        statement is atomic, so a refused one wrote nothing)."""
        try:
            return WRITE[self.kind](self.store, self.target, rows)
        except StoreUnavailableError:
            raise
        except Exception as exc:
            if len(rows) > 1:
                return [outcome for row in rows for outcome in self._write([row])]
            return [Outcome(rows[0]["line"], "skipped", refusal(exc))]
