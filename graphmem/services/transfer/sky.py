"""Sky-style short-term / long-term memory JSONL, both ways.

A Sky record is one JSON object per line::

    {"ts": "2025-01-02T10:00:00Z", "type": "decision", "content": "...",
     "tags": ["db"], "importance": 0.7, "promoted_at": null}

Sky keeps short-term and long-term memory in separate files. Import maps:

- ``ts`` (ISO 8601, or epoch seconds; a number over 10^11 is read as epoch
  milliseconds; a time without a zone is UTC) -> ``occurred_at`` (when it
  happened, which recency and staleness count from) and ``created_at``;
- the tier: records of a short-term file -> ``working``; records of a
  long-term file, and any record with a ``promoted_at``, -> the long-term
  tier graphmem promotes such a memory to (``procedural`` for rules,
  conventions and coding standards, ``semantic`` otherwise), with
  ``promoted_at`` (the record's, else its ``ts``). Which file is which is
  given (``term``); the command line reads it from the file name when not;
- ``type``: graphmem's own memory types map to themselves (case-insensitive);
  ``lesson`` -> lesson_learned, ``insight`` -> discovery, ``error`` ->
  error_pattern, ``constraint`` -> rule, ``architecture`` ->
  architectural_decision, ``standard`` -> coding_standard; anything else
  -> no type (scored like any untyped memory, and not promoted on score).
  Where the type is not graphmem's own name, the original is kept as the tag
  ``sky-type:<type>``, which export turns back into the Sky type;
- ``importance`` (default 0.7) -> ``confidence``: graphmem computes its own
  importance from confidence, type, use and age, and Sky's importance is the
  writer's estimate of worth, which is what confidence feeds into that score;
  export writes confidence back as ``importance``;
- ``content`` and ``tags`` as they are (graphmem's limits apply: content up
  to 10,000 characters, 32 tags of up to 64); status ``active``, source
  ``import``, into one session (``default`` unless named). Other fields are
  ignored. No embeddings are computed (``graphmem backfill-embeddings`` does).

Import is idempotent: a record's memory id is derived from the project, its
``ts`` and its content, and a record whose id, or whose normalised text,
matches a live memory of the project merges into it (its tags join the
memory's; a long-term record lifts a short-term memory to the long-term
tier) instead of creating one. Importing the short-term file and then the
long-term file of one Sky store therefore leaves one memory per item, in
the tier it reached.

Export writes the project's live memories (archived ones are left out) in
id order, short-term tiers (working, episodic) with ``promoted_at: null``
and long-term tiers (semantic, procedural) with their ``promoted_at`` (or,
where none was logged, their ``updated_at``), so that importing the file
puts each memory back in a tier of the same term. ``term`` limits it to one
of the two files.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import IO, Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from graphmem.domain.analysis import indexed_fields
from graphmem.domain.checks import (
    MAX_CONTENT_CHARS,
    MAX_TAGS,
    Epoch,
    Identifier,
    Tag,
    Text,
    no_controls,
)
from graphmem.domain.clock import as_datetime
from graphmem.domain.errors import InvalidInputError, StoreUnavailableError, invalid_input
from graphmem.domain.kinds import MemoryType, Source, Status, SuggestedBy, Tier
from graphmem.domain.lifecycle import long_term_target
from graphmem.domain.scoring import ImportanceScorer, ScoreInputs
from graphmem.domain.sessions import DEFAULT_SESSION
from graphmem.domain.text import content_key
from graphmem.services.transfer.lines import decode, numbered, write_line
from graphmem.services.transfer.paging import READ_PAGE, WRITE_PAGE, pages, project_summary
from graphmem.services.transfer.placing import placed
from graphmem.services.transfer.report import ImportReport, Progress, TransferCounts, refusal
from graphmem.store import Store
from graphmem.store.queries import transfer_import


class Term(StrEnum):
    """Which of Sky's two files: short-term or long-term memory."""

    SHORT = "short"
    LONG = "long"


ALIASES = {
    "lesson": MemoryType.LESSON_LEARNED,
    "insight": MemoryType.DISCOVERY,
    "error": MemoryType.ERROR_PATTERN,
    "constraint": MemoryType.RULE,
    "architecture": MemoryType.ARCHITECTURAL_DECISION,
    "standard": MemoryType.CODING_STANDARD,
}
"""Sky types with another name in graphmem."""
TYPE_TAG = "sky-type:"
LONG_TERM = frozenset({Tier.SEMANTIC.value, Tier.PROCEDURAL.value})
SHORT_TERM = frozenset({Tier.WORKING.value, Tier.EPISODIC.value})


class SkyRecord(BaseModel):
    """One line of a Sky memory file; fields Sky may add are ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True, str_strip_whitespace=True)

    ts: Epoch
    type: str | None = Field(default=None, max_length=64)
    content: Text = Field(min_length=1, max_length=MAX_CONTENT_CHARS)
    tags: list[Tag] = Field(default_factory=list, max_length=MAX_TAGS)
    importance: float = Field(default=0.7, ge=0.0, le=1.0, allow_inf_nan=False)
    promoted_at: Epoch | None = None

    # A memory's rule (graphmem.domain.models.MemoryInput): a bad line is named, nothing written.
    _content_without_controls = field_validator("content")(no_controls)


def parse_record(data: Any) -> SkyRecord:
    try:
        return SkyRecord.model_validate(data)
    except ValidationError as exc:
        raise invalid_input(exc) from None


def memory_type(sky_type: str | None) -> tuple[MemoryType | None, str | None]:
    """graphmem's type for a Sky type, and the tag that keeps the original
    where graphmem does not call it the same."""
    if sky_type is None or not sky_type.strip():
        return None, None
    name = sky_type.strip()
    key = name.lower()
    if key in {t.value for t in MemoryType}:
        return MemoryType(key), None
    return ALIASES.get(key), f"{TYPE_TAG}{name}"[:64]


def sky_type(props: Mapping[str, Any]) -> tuple[str | None, list[str]]:
    """The Sky type of a memory and its tags without the one that kept it."""
    tags = [t for t in props.get("tags") or [] if not t.startswith(TYPE_TAG)]
    kept = [t[len(TYPE_TAG) :] for t in props.get("tags") or [] if t.startswith(TYPE_TAG)]
    return (kept[0] if kept else props.get("memory_type")), tags


def memory_id(project_id: str, ts: float, content: str) -> str:
    """Time-ordered like graphmem's own ids, and the same for the same record."""
    millis = round(ts * 1000) & 0xFFFF_FFFF_FFFF
    digest = hashlib.blake2b(
        f"{project_id}\x00{ts:.3f}\x00{content}".encode(), digest_size=10
    ).hexdigest()
    return f"{millis:012x}{digest}"


def memory_row(
    record: SkyRecord,
    term: Term,
    *,
    project_id: str,
    session_id: str,
    scorer: ImportanceScorer,
    now: float,
) -> dict[str, Any]:
    """The node a Sky record becomes (see the module for the mapping)."""
    kind, type_tag = memory_type(record.type)
    tags = list(dict.fromkeys([*record.tags, *([type_tag] if type_tag else [])]))
    if len(tags) > MAX_TAGS:
        raise InvalidInputError(
            f"tags: at most {MAX_TAGS - 1} tags where the type is kept as a tag", field="tags"
        )
    long_term = term is Term.LONG or record.promoted_at is not None
    row: dict[str, Any] = {
        "id": memory_id(project_id, record.ts, record.content),
        "project_id": project_id,
        "session_id": session_id,
        "content": record.content,
        "content_key": content_key(record.content),
        **indexed_fields(project_id, None, None, record.content, None),
        "tier": (long_term_target(kind, pinned=False) if long_term else Tier.WORKING).value,
        "status": Status.ACTIVE.value,
        "confidence": record.importance,
        "access_count": 0,
        "occurrence_count": 1,
        "feedback": 0,
        "feedback_count": 0,
        "pinned": False,
        "source": Source.IMPORT.value,
        "suggested_by": SuggestedBy.IMPLICIT.value,
        "tags": tags,
        "evidence": [],
        "created_at": record.ts,
        "occurred_at": record.ts,
        "updated_at": now,
    }
    if kind is not None:
        row["memory_type"] = kind.value
    if long_term:
        row["promoted_at"] = record.promoted_at if record.promoted_at is not None else record.ts
    inputs = ScoreInputs(
        memory_type=kind, confidence=record.importance, access_count=0, last_used_at=record.ts
    )
    row.update(scorer.stored_fields(inputs, now))
    return row


_project_id = TypeAdapter(Identifier)


def import_sky(
    store: Store,
    lines: Iterable[str],
    *,
    project_id: str,
    term: Term,
    now: float,
    session_id: str = DEFAULT_SESSION,
    scorer: ImportanceScorer | None = None,
    page_size: int = WRITE_PAGE,
) -> ImportReport:
    """Load a Sky memory file of the given ``term`` into project ``project_id``;
    ``now`` is when the import happens (what importance is computed at)."""
    for field, value in (("project", project_id), ("session", session_id)):
        try:
            _project_id.validate_python(value)
        except ValidationError as exc:

            def at(_: tuple[Any, ...], field: str = field) -> str:
                return field

            raise invalid_input(exc, locate=at) from None
    scorer = scorer or ImportanceScorer()
    report = ImportReport(project_id)
    # Every line is checked before anything is written: a file with a bad line
    # leaves the project as it was (fix the lines and import again).
    parsed: list[tuple[int, dict[str, Any]]] = []
    for number, text in numbered(lines):
        try:
            record = parse_record(decode(text))
            row = memory_row(record, term, project_id=project_id, session_id=session_id,
                             scorer=scorer, now=now)  # fmt: skip
        except InvalidInputError as exc:
            report.skip(number, exc.message)
            continue
        parsed.append((number, row))
    if report.skipped:
        report.refused = True
        return report
    for start in range(0, len(parsed), page_size):
        _write(store, parsed[start : start + page_size], project_id, session_id, now, report)
    report.skipped.sort(key=lambda skipped: skipped.line)
    return report


def _write(
    store: Store,
    page: list[tuple[int, dict[str, Any]]],
    project_id: str,
    session_id: str,
    now: float,
    report: ImportReport,
) -> None:
    """One statement per page: what is new is created, what repeats a memory
    of the project (by id or by normalised text) merges into it. If the store
    refuses the page, its records are written one by one, so only the ones it
    refuses are left out (each statement is atomic)."""
    if not page:
        return
    plan = _plan_page(store, page, project_id)
    outcomes = plan.outcomes
    try:
        transfer_import.sky_memories(
            store,
            project_id=project_id,
            session_id=session_id,
            now=now,
            rows=plan.rows,
            merges=list(plan.merges.values()),
            max_tags=MAX_TAGS,
        )
    except StoreUnavailableError:
        raise
    except Exception as exc:
        if len(page) > 1:
            for one in page:
                _write(store, [one], project_id, session_id, now, report)
            return
        outcomes = [(page[0][0], refusal(exc))]
    _tally(outcomes, report)


@dataclasses.dataclass
class _PagePlan:
    """What one page writes: the rows it creates, the merges into memories of
    the project, and each record's outcome ("created", "merged" or why not)."""

    rows: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    new_by_key: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    merges: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    outcomes: list[tuple[int, str]] = dataclasses.field(default_factory=list)

    def place(self, number: int, row: dict[str, Any], into: str | None) -> None:
        """A record merged into memory ``into``, or into a new row of the page
        with its text, or created."""
        if into is not None:
            fresh: dict[str, Any] = {"id": into, "tags": [], "tier": None, "promoted_at": None}
            merge = self.merges.setdefault(into, fresh)
            _absorb(merge, row)
        elif row["content_key"] in self.new_by_key:
            _absorb(self.new_by_key[row["content_key"]], row)
        else:
            self.rows.append(dict(row))
            self.new_by_key[row["content_key"]] = self.rows[-1]
            self.outcomes.append((number, "created"))
            return
        self.outcomes.append((number, "merged"))


def _plan_page(store: Store, page: list[tuple[int, dict[str, Any]]], project_id: str) -> _PagePlan:
    """Each record of the page placed, after the reads it is decided on: the
    ids placed in the project, their owners, and the memories of the same text."""
    # An id another project holds takes a new one here (placing), as in JSONL.
    place = placed(store, [row["id"] for _, row in page], project_id)
    for _, row in page:
        row["id"] = place[row["id"]]
    owners = transfer_import.owners(store, [r["id"] for _, r in page])
    keys = sorted({row["content_key"] for _, row in page})
    same_text = transfer_import.oldest_by_text(store, keys, project_id)
    plan = _PagePlan()
    for number, row in page:
        owner = owners.get(row["id"])
        if owner is not None and owner != project_id:
            # Taken since it was placed, by a concurrent write: left out.
            plan.outcomes.append((number, f"id {row['id']} was taken while this import ran"))
            continue
        into = row["id"] if owner is not None else same_text.get(row["content_key"])
        plan.place(number, row, into)
    return plan


def _tally(outcomes: Iterable[tuple[int, str]], report: ImportReport) -> None:
    """Each record's outcome counted in the report, or its line skipped with why."""
    for number, result in outcomes:
        if result in ("created", "merged"):
            (report.created if result == "created" else report.merged)["memory"] += 1
        else:
            report.skip(number, result)


def _absorb(into: dict[str, Any], row: dict[str, Any]) -> None:
    """A record repeating ``into`` (a merge, or a new row of the same page):
    tags are joined, and a long-term record lifts a short-term one."""
    into["tags"] = list(dict.fromkeys([*into["tags"], *row["tags"]]))[:MAX_TAGS]
    if row.get("promoted_at") is not None and into["tier"] in (None, *SHORT_TERM):
        into["tier"], into["promoted_at"] = row["tier"], row["promoted_at"]


def export_sky(
    store: Store,
    project_id: str,
    out: IO[str],
    *,
    term: Term | None = None,
    page_size: int = READ_PAGE,
    progress: Progress | None = None,
) -> TransferCounts:
    """Write the project's live memories as Sky records (one term, or both)."""
    project_summary(store, project_id)
    counts = TransferCounts()
    wanted = {None: LONG_TERM | SHORT_TERM, Term.SHORT: SHORT_TERM, Term.LONG: LONG_TERM}[term]
    for rows in pages(store, "memory_fields", project_id, page_size):
        for row in rows:
            props = row.props
            if props.get("tier") not in wanted:
                continue
            kind, tags = sky_type(props)
            promoted = None
            if props.get("tier") in LONG_TERM:
                promoted = props.get("promoted_at") or props.get("updated_at")
            write_line(out, {
                "ts": iso(props.get("occurred_at") or props["created_at"]),
                "type": kind,
                "content": props["content"],
                "tags": tags,
                "importance": props.get("confidence"),
                "promoted_at": None if promoted is None else iso(promoted),
            })  # fmt: skip
            counts.add("memory", 1)
        if progress is not None:
            progress(len(rows))
    return counts


def iso(epoch: float) -> str:
    """UTC ISO 8601 with a ``Z``, to the millisecond where there is one."""
    moment = as_datetime(epoch)
    text = moment.isoformat(timespec="milliseconds" if moment.microsecond else "seconds")
    return text.replace("+00:00", "Z")
