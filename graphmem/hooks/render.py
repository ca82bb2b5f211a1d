"""What the hook prints: the recalled memories' context block (the one
GraphQL's knowledgeContext and MCP's knowledge_context give too), or a
failure's lesson, within a token budget, in the JSON the agent reads back from
the hook's stdout.

Claude Code takes ``hookSpecificOutput.additionalContext`` from both
UserPromptSubmit and PreToolUse hooks, and passes up to 10,000 characters of
it to the model whole (longer output is cut to a preview), so the budget is
capped below that
(graphmem.domain.retrieval.prompt.MAX_BUDGET_TOKENS).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from graphmem.domain.retrieval.prompt import CHARS_PER_TOKEN, DEFAULT_BUDGET_TOKENS, ELLIPSIS


@dataclass(frozen=True, slots=True)
class Recalled:
    """What either path (server or store) found for a prompt: how many memories
    matched, and the context block of those that fit the budget, rendered by
    the one renderer every surface uses (graphmem.domain.retrieval.prompt)."""

    matched: int
    block: str | None


@dataclass(frozen=True, slots=True)
class Recorded:
    """What graphmem made of a reported failure, as either path found it."""

    capsule_id: str
    occurrences: int
    fix: str | None
    lesson_id: str | None
    lesson_status: str | None
    lesson: str | None


def failure_block(recorded: Recorded, *, budget_tokens: int = DEFAULT_BUDGET_TOKENS) -> str | None:
    """What the agent is told after a failed tool call: nothing the first time;
    once the failure recurs or its lesson is active, how often it was seen, the
    lesson and the fix, cut to the budget."""
    if recorded.occurrences < 2 and recorded.lesson_status != "active":
        return None
    times = f"{recorded.occurrences} times" if recorded.occurrences > 1 else "before"
    lines = [f"graphmem: this failure was seen {times} (failure capsule {recorded.capsule_id})."]
    if recorded.lesson and recorded.lesson_status == "active":
        lines.append(f"Lesson learned (memory {recorded.lesson_id}): {recorded.lesson.strip()}")
    if recorded.fix:
        lines.append(f"What fixed it: {recorded.fix.strip()}")
    text = "\n".join(lines)
    limit = budget_tokens * CHARS_PER_TOKEN
    return text if len(text) <= limit else text[: limit - len(ELLIPSIS)] + ELLIPSIS


def hook_output(event_name: str, context: str) -> str:
    """The JSON an agent reads from a hook's stdout to add ``context`` for the model."""
    return json.dumps(
        {"hookSpecificOutput": {"hookEventName": event_name, "additionalContext": context}},
        ensure_ascii=False,
    )
