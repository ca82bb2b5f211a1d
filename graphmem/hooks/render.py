"""What the hook prints: the recalled memories as one context block, within a
token budget, in the JSON the agent reads back from the hook's stdout.

Claude Code takes ``hookSpecificOutput.additionalContext`` from both
UserPromptSubmit and PreToolUse hooks, and passes up to 10,000 characters of
it to the model whole (longer output is cut to a preview), so the budget is
capped below that.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

CHARS_PER_TOKEN = 4
"""The usual rough ratio for English text and code; the budget is an estimate."""
DEFAULT_BUDGET_TOKENS = 1_000
MIN_BUDGET_TOKENS = 50
MAX_BUDGET_TOKENS = 2_400
"""9,600 characters: under the 10,000 the agent passes on unabridged."""
MIN_SHORTENED_TOKENS = 25
"""A memory is shortened to fit the budget only if this much of it can be shown."""
ELLIPSIS = "…"


@dataclass(frozen=True, slots=True)
class Recalled:
    """One memory to inject, as either path (server or store) found it."""

    id: str
    content: str
    memory_type: str | None
    score: float


def estimate_tokens(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)


def context_block(
    memories: list[Recalled], *, project: str | None, budget_tokens: int = DEFAULT_BUDGET_TOKENS
) -> str | None:
    """The memories, best first, as many as fit in ``budget_tokens``; ``None`` if none do.

    Each line carries the memory's id so the agent can refer back to it (give
    feedback, supersede it). A memory that does not fit whole is shortened
    when enough room is left to say something, and ends the block.
    """
    scope = f" (project {project})" if project else ""
    lines = [f"Memories from graphmem{scope}, most relevant first:"]
    left = budget_tokens - estimate_tokens(lines[0]) - 1
    for memory in memories:
        kind = f"[{memory.memory_type.lower()}] " if memory.memory_type else ""
        head, tail = f"- {kind}", f" (memory {memory.id})"
        content = "\n  ".join(memory.content.strip().splitlines())
        line = head + content + tail
        cost = estimate_tokens(line) + 1
        if cost <= left:
            lines.append(line)
            left -= cost
            continue
        room = (left - 1) * CHARS_PER_TOKEN - len(head) - len(tail) - len(ELLIPSIS)
        if room >= MIN_SHORTENED_TOKENS * CHARS_PER_TOKEN:
            lines.append(head + content[:room].rstrip() + ELLIPSIS + tail)
        break
    return "\n".join(lines) if len(lines) > 1 else None


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
