"""The tools that write memories, their relations and failures: remember, rate,
pin, relate, supersede, restore, unrelate, forget and record a failure."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal

from mcp_types import ToolAnnotations
from pydantic import Field

from graphmem.domain import capsules
from graphmem.domain.models import MemoryInput
from graphmem.domain.undo import Curation, UndoResult
from graphmem.mcp import results
from graphmem.mcp.params import fields, own
from graphmem.mcp.results import (
    FailureResult,
    ForgetResult,
    MemoryView,
    RelationView,
    RememberResult,
)
from graphmem.mcp.tool import Tool
from graphmem.mcp.vocabulary import (
    DESTROYS,
    TAGS,
    WRITES,
    MemoryId,
    Rationale,
    RelationType,
    acting,
    memory_id,
    reason,
)

MEMORY_TOOLS = (
    Tool(
        "remember",
        "Store a memory. Text matching a live memory (ignoring case and punctuation), or a "
        "near match saying the same, is counted into it as another occurrence instead of "
        "stored twice. A near match that differs by a sign of contradiction (negation, "
        "antonym, number, version, date, identifier, name, unit, swapped roles, a quantifier, "
        "modal, direction, person or tense such as all/some, must/may, up/down, her/his, "
        "was/is), or a correction naming what it replaces (X instead of Y, switched from Y "
        "to X, now X (was Y), X, not Y, no longer Y) is stored as "
        "its own memory: it supersedes the old one when you restate a fact with a new value, "
        "else it is flagged for review as a possible contradiction; any other difference "
        "keeps both. Events (memory_type event) merge only as the same text at the same time "
        "and never supersede or flag. The result's outcome says which happened.",
        WRITES,
        fields(
            MemoryInput,
            content="The memory.",
            memory_type="What kind of memory; decisions, rules and risks weigh most.",
            confidence="How sure you are it is true.",
            source="auto_extracted memories start as candidates awaiting evidence; the others "
            "start active.",
            suggested_by="agent: the user asked to remember this; it is kept long-term at once.",
            self_assessment="Your own rating of its value.",
            pinned="Never archive it.",
            tags=TAGS,
            rationale="Why; shown with the memory.",
            evidence="What supports it.",
            session_id="The thread of work it belongs to.",
            agent_id="Who is writing it; a key bound to an agent writes as it only.",
            visibility="private to its agent, or shared with every agent of the project; the "
            "project's default when omitted.",
            occurred_at="When it happened (ISO 8601), for a past event or conversation turn; "
            "now when omitted.",
            valid_from="When what it records began to hold (ISO 8601); occurred_at when omitted.",
            valid_to="When it stopped holding (ISO 8601), e.g. a key rotated on a known day; "
            "open when omitted.",
        ),
        RememberResult,
        results.remembered,
        operation="remember_detailed",
        request=("item", MemoryInput),
    ),
    Tool(
        "record_feedback",
        "Rate a memory you used: 1 helped, 0 neutral, -1 wrong or misleading. It is "
        "rescored, and net positive feedback confirms a candidate.",
        WRITES,
        [
            memory_id(),
            own("value", Annotated[Literal[-1, 0, 1], Field(description="1, 0 or -1.")]),
        ],
        MemoryView,
        operation="feedback",
    ),
    Tool(
        "pin",
        "Pin a memory: it is confirmed (a candidate becomes active) and never archived.",
        ToolAnnotations(
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=True,
            open_world_hint=False,
        ),
        [memory_id()],
        MemoryView,
    ),
    Tool(
        "relate",
        "Add or update a typed relation from one memory to another: CONSTRAINS (a rule that "
        "binds the other), ENABLES, RELATED_TO or SUPERSEDES.",
        WRITES,
        [
            memory_id("from_id"),
            memory_id("to_id"),
            own("type", RelationType),
            own("rationale", Rationale, None),
            own("weight", Annotated[float, Field(ge=0.0, le=1.0, description="How strong.")], 1.0),
        ],
        RelationView,
    ),
    Tool(
        "supersede",
        "Mark new_id as replacing old_id. The old memory is kept but no longer offered in its "
        "successor's place.",
        WRITES,
        [memory_id("old_id"), memory_id("new_id"), own("rationale", Rationale, None)],
        RelationView,
    ),
    Tool(
        "restore",
        "Bring an archived memory back to the tier it left (a hit marked archived); it counts "
        "as just used.",
        WRITES,
        [memory_id()],
        MemoryView,
    ),
    Tool(
        "unrelate",
        "Remove one wrong relation, saying why; it is logged with who removed it (agent_id, "
        "else the API key). Removing a SUPERSEDES relation restores the older memory, unless "
        "another still supersedes it. A relation that does not exist is a NOT_FOUND error "
        "and nothing is written.",
        DESTROYS,
        [
            memory_id("from_id"),
            memory_id("to_id"),
            own("type", RelationType),
            reason("Why it is removed."),
            acting("removed_by", "Who removes it."),
        ],
        RelationView,
    ),
    Tool(
        "undo",
        "Take back a curation of a memory, saying why; it is logged with who undid it "
        "(agent_id, else the API key): merge (the newest merge into it, or by a merged-away "
        "memory's id the merge that took it; a write's merge becomes a memory of its own), "
        "supersede, consolidation, archive, rejection or mark. Review marks the change left "
        "go with it. A CONFLICT error says what blocks it when a later change rests on it.",
        WRITES,
        [
            own(
                "curation",
                Annotated[Curation, Field(description="What to take back.")],
            ),
            memory_id(),
            reason("Why."),
            acting("by", "Who undoes it."),
        ],
        UndoResult,
        lambda done, _called: done,
    ),
    Tool(
        "forget",
        "Delete a memory and its relations for good. Prefer supersede for outdated memories: "
        "stale ones are archived on their own.",
        DESTROYS,
        [memory_id()],
        ForgetResult,
        results.forgotten,
    ),
    Tool(
        "record_failure",
        "Report a failure of a step you took: what you attempted, the tool or command, the "
        "error, and what fixed it if you know. The same failure reported again is counted on "
        "its capsule; its lesson goes to the review queue and becomes active on recurrence or "
        "once a fix is recorded. The capsule and its lesson are private or shared like a "
        "memory you remember.",
        WRITES,
        [
            *fields(
                capsules.FailureReport,
                error="The error text as the tool gave it.",
                attempted="What you tried to do.",
                tool="The tool that failed.",
                command="The command run.",
                files="Files the step worked on.",
            ),
            # Checked as ids by the report; an agent sees them as the memory ids it holds.
            own(
                "context_memory_ids",
                Annotated[
                    Sequence[MemoryId],
                    Field(
                        max_length=capsules.MAX_CONTEXT_MEMORIES,
                        description="Ids of the memories you had in context when it failed.",
                    ),
                ],
                (),
                at=(),
            ),
            *fields(
                capsules.FailureReport,
                fix="What fixed it, if known.",
                session_id="The thread of work it happened in.",
                agent_id="Who is reporting.",
                visibility="private: only its agent reads the capsule and its lesson; shared: "
                "every agent of the project. The project's default when omitted.",
                tags=TAGS,
            ),
        ],
        FailureResult,
        results.failure_recorded,
        request=("report", capsules.FailureReport),
    ),
)
