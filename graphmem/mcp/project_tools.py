"""The tools over a project as a whole: its review queue, who sees which memory
and where it is copied, and the projects there are."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from graphmem.domain.checks import MAX_PAGE_SIZE, Identifier
from graphmem.domain.review import ReviewFilter
from graphmem.mcp import results
from graphmem.mcp.params import fields, own
from graphmem.mcp.results import (
    MemoryView,
    ProjectsView,
    ReviewView,
    SharingEventsView,
)
from graphmem.mcp.tool import Tool
from graphmem.mcp.vocabulary import (
    READ_ONLY,
    TAGS,
    WRITES,
    memory_id,
)

PROJECT_TOOLS = (
    Tool(
        "review_candidates",
        "Candidates awaiting review, with the evidence for each (occurrences, feedback, age, "
        "near duplicates), a page at a time.",
        READ_ONLY,
        [
            *fields(
                ReviewFilter,
                session_id="Only this session's.",
                memory_type="Only this type.",
                tags=TAGS,
            ),
            # No upper bound shown: the filter's is the store's integer range.
            own(
                "min_occurrences",
                Annotated[int, Field(ge=1, description="Written at least this often.")],
                1,
                at=(),
            ),
            *fields(ReviewFilter, older_than_seconds="Written at least this long ago."),
            own(
                "order",
                Annotated[
                    Literal["oldest", "evidence"],
                    Field(description="oldest first, or most evidence first."),
                ],
                "oldest",
            ),
            own(
                "first", Annotated[int, Field(ge=1, le=MAX_PAGE_SIZE, description="Page size.")], 20
            ),
            own(
                "after",
                Annotated[
                    str | None,
                    Field(max_length=128, description="next_cursor of the previous page."),
                ],
                None,
            ),
        ],
        ReviewView,
        lambda page, _: results.review_view(page),
        operation="review_queue",
        request=("filter", ReviewFilter),
    ),
    Tool(
        "share",
        "Let every agent of the project see one of your memories (logged).",
        WRITES,
        [memory_id()],
        MemoryView,
    ),
    Tool(
        "unshare",
        "Make one of your memories private to you again (logged).",
        WRITES,
        [memory_id()],
        MemoryView,
    ),
    Tool(
        "copy_memory",
        "Copy a memory into another project you work in; the copy names where it came from "
        "and the original stays as it is (logged).",
        WRITES,
        [
            memory_id(),
            own(
                "to_project_id",
                Annotated[Identifier, Field(description="The project to copy it into.")],
            ),
        ],
        MemoryView,
    ),
    Tool(
        "sharing_events",
        "Who shared, unshared or copied which memory, newest first.",
        READ_ONLY,
        [
            own(
                "memory_id",
                Annotated[
                    str | None, Field(max_length=128, description="Only this memory's events.")
                ],
                None,
            ),
            own("limit", Annotated[int, Field(ge=1, le=200, description="How many events.")], 50),
        ],
        SharingEventsView,
        results.sharing_events_view,
    ),
    Tool(
        "projects",
        "The projects you may read that hold memories, sessions or settings, sorted: the "
        "values project_id takes. A project named that is not among them holds nothing (a "
        "typo, or one not written to yet).",
        READ_ONLY,
        [],
        ProjectsView,
        results.projects_readable,
        operation="project_ids",
    ),
)
