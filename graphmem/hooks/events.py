"""The hook events a coding agent sends on stdin, and what to ask memory about.

The shapes follow Claude Code's hook input (snake_case fields); fields the
hook does not use are ignored, so newer agent versions that add fields keep
working. Events other than the two below add nothing.

Read with the standard library rather than pydantic: the hook is a new
process on every prompt, and importing pydantic and building its models
costs about as much as everything else the hook does together
(docs/hooks.md has the figures). The checks are the few the hook relies on,
and a failing one names the field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, ClassVar

HINT_MIN_CHARS = 3
HINT_MAX_CHARS = 1_000
"""knowledgeContext's limits on ``contextHint``; a longer prompt is cut to fit."""


class EventError(ValueError):
    """The event on stdin is not one the hook can read."""


@dataclass(frozen=True, slots=True)
class UserPromptSubmit:
    hook_event_name: ClassVar[str] = "UserPromptSubmit"
    prompt: str
    cwd: str | None = None
    session_id: str | None = None


@dataclass(frozen=True, slots=True)
class PreToolUse:
    hook_event_name: ClassVar[str] = "PreToolUse"
    tool_name: str
    tool_input: dict[str, Any] = field(default_factory=dict)
    cwd: str | None = None
    session_id: str | None = None


HookEvent = UserPromptSubmit | PreToolUse


def parse_event(raw: str | bytes) -> HookEvent | None:
    """The event on stdin; ``None`` for an event this hook has nothing to add to.

    Raises ``EventError`` naming the field when the JSON is malformed or a
    supported event lacks what the hook needs.
    """
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise EventError(f"event: not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise EventError("event: must be a JSON object")
    name = data.get("hook_event_name")
    if name not in (UserPromptSubmit.hook_event_name, PreToolUse.hook_event_name):
        return None
    cwd = _optional_text(data, name, "cwd")
    session_id = _optional_text(data, name, "session_id")
    if name == UserPromptSubmit.hook_event_name:
        prompt = _text(data, name, "prompt")
        return UserPromptSubmit(prompt=prompt, cwd=cwd, session_id=session_id)
    tool_input = data.get("tool_input", {})
    if not isinstance(tool_input, dict):
        raise EventError(f"{name}.tool_input: must be an object")
    return PreToolUse(
        tool_name=_text(data, name, "tool_name"),
        tool_input=tool_input,
        cwd=cwd,
        session_id=session_id,
    )


def _text(data: dict[str, Any], event: str, name: str) -> str:
    value = data.get(name)
    if not isinstance(value, str):
        raise EventError(f"{event}.{name}: {'required' if value is None else 'must be'} text")
    return value


def _optional_text(data: dict[str, Any], event: str, name: str) -> str | None:
    return None if data.get(name) is None else _text(data, event, name)


def context_hint(event: HookEvent) -> str | None:
    """What the agent is about to do, in at most ``HINT_MAX_CHARS``; ``None`` when
    too short to match anything on.

    A prompt is its own hint. For a tool call, the hint is the text of its
    input (a shell command, a file path, a search pattern, the text being
    written), without the tool's name: every call of a tool shares that word,
    and it would only dilute the match.
    """
    if isinstance(event, UserPromptSubmit):
        text = event.prompt
    else:
        text = "\n".join(_strings(event.tool_input))
    return _fit(text)


def _strings(value: Any) -> list[str]:
    """Every string in a tool input, depth first and in order, up to the hint's size."""
    found: list[str] = []
    size = 0
    pending = [value]
    while pending and size < HINT_MAX_CHARS:
        item = pending.pop()
        if isinstance(item, str):
            if item.strip():
                found.append(item)
                size += len(item) + 1
        elif isinstance(item, dict):
            pending.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            pending.extend(reversed(item))
    return found


def _fit(text: str) -> str | None:
    text = " ".join(text.split())
    if len(text) > HINT_MAX_CHARS:
        cut = text[:HINT_MAX_CHARS]
        space = cut.rfind(" ")
        text = cut[:space] if space > HINT_MAX_CHARS // 2 else cut
    return text if len(text) >= HINT_MIN_CHARS else None
