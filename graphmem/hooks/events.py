"""The hook events a coding agent sends on stdin, and what to ask memory about.

The shapes follow Claude Code's hook input (snake_case fields); fields the
hook does not use are ignored, so newer agent versions that add fields keep
working. Events other than the three below add nothing; a PostToolUse adds
something only when the tool failed (it is reported as a failure capsule).

Read with the standard library rather than pydantic: the hook is a new
process on every prompt, and importing pydantic and building its models
costs about as much as everything else the hook does together
(docs/hooks.md has the figures). The checks are the few the hook relies on,
and a failing one names the field.
"""

from __future__ import annotations

import json
import re
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


@dataclass(frozen=True, slots=True)
class PostToolUse:
    """A tool call that ran; a failure report when its response carries an error.

    ``PostToolUseFailure`` (sent by agents that report failed calls apart)
    reads into this too, its ``error`` as the response's error."""

    hook_event_name: ClassVar[str] = "PostToolUse"
    tool_name: str
    tool_input: dict[str, Any] = field(default_factory=dict)
    tool_response: Any = None
    cwd: str | None = None
    session_id: str | None = None


HookEvent = UserPromptSubmit | PreToolUse | PostToolUse
POST_TOOL_USE_FAILURE = "PostToolUseFailure"

MAX_ERROR_CHARS = 8_000
MAX_ATTEMPTED_CHARS = 2_000
MAX_COMMAND_CHARS = 4_000
MAX_TOOL_CHARS = 128
MAX_FILES = 64
MAX_FILE_CHARS = 1_024
"""A failure capsule's limits (``graphmem.domain.capsules``, which a test keeps equal):
the hook fits what it reports to them rather than have the report rejected."""
_FILE_KEYS = ("file_path", "notebook_path", "path")
_TEXT_KEYS = ("error", "stderr", "message", "output", "content", "stdout")
_EXIT_KEYS = ("exit_code", "exitCode", "returncode", "return_code")
_SESSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$")


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
    if name == POST_TOOL_USE_FAILURE:
        data = {**data, "tool_response": {"error": data.get("error"), "is_error": True}}
        name = PostToolUse.hook_event_name
    known = (UserPromptSubmit.hook_event_name, PreToolUse.hook_event_name)
    if name not in (*known, PostToolUse.hook_event_name):
        return None
    cwd = _optional_text(data, name, "cwd")
    session_id = _optional_text(data, name, "session_id")
    if name == UserPromptSubmit.hook_event_name:
        prompt = _text(data, name, "prompt")
        return UserPromptSubmit(prompt=prompt, cwd=cwd, session_id=session_id)
    tool_input = data.get("tool_input", {})
    if not isinstance(tool_input, dict):
        raise EventError(f"{name}.tool_input: must be an object")
    if name == PostToolUse.hook_event_name:
        return PostToolUse(
            tool_name=_text(data, name, "tool_name"),
            tool_input=tool_input,
            tool_response=data.get("tool_response"),
            cwd=cwd,
            session_id=session_id,
        )
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


def failure_report(event: PostToolUse) -> dict[str, Any] | None:
    """The failure a tool call's response reports, as ``recordFailure`` input;
    ``None`` when the call did not fail.

    A response fails when it says so (``error`` text, ``is_error``/``isError``,
    ``success: false``), exits non-zero (``exit_code`` and its spellings), or
    is text starting with ``Error``. An interrupted call is not a failure.
    The error keeps its end (where a traceback says what went wrong) when it
    is longer than a capsule holds.
    """
    error = _error_text(event.tool_response)
    if error is None:
        return None
    report: dict[str, Any] = {
        "error": error[-MAX_ERROR_CHARS:],
        "tool": event.tool_name[:MAX_TOOL_CHARS],
    }
    command = event.tool_input.get("command")
    if isinstance(command, str) and command.strip():
        report["command"] = command[:MAX_COMMAND_CHARS]
    attempted = event.tool_input.get("description")
    if isinstance(attempted, str) and attempted.strip():
        report["attempted"] = attempted[:MAX_ATTEMPTED_CHARS]
    files = [
        value[:MAX_FILE_CHARS]
        for key in _FILE_KEYS
        if isinstance(value := event.tool_input.get(key), str) and value.strip()
    ]
    if files:
        report["files"] = files[:MAX_FILES]
    if event.session_id and _SESSION.match(event.session_id):
        report["sessionId"] = event.session_id
    return report


def _error_text(response: Any) -> str | None:
    """What a failed call's response says went wrong; ``None`` when it did not fail
    (see ``failure_report``). A response that fails without saying why still gets
    a line: its exit status, or that the tool failed."""
    if isinstance(response, str):
        return response if response.lstrip().lower().startswith("error") else None
    if not isinstance(response, dict) or response.get("interrupted") is True:
        return None
    exit_code = _exit_code(response)
    if not (_says_failed(response) or exit_code):
        return None
    found = (text for key in _TEXT_KEYS if (text := _as_text(response.get(key))))
    return next(found, None) or (f"exit status {exit_code}" if exit_code else "the tool failed")


def _says_failed(response: dict[str, Any]) -> bool:
    """The response's own word: an error flag (either spelling), ``success: false``,
    or error text."""
    error = response.get("error")
    return (
        response.get("is_error") is True
        or response.get("isError") is True
        or response.get("success") is False
        or (isinstance(error, str) and bool(error.strip()))
    )


def _exit_code(response: dict[str, Any]) -> int:
    """The first exit code under any of its spellings; 0 when none is given."""
    return next((response[k] for k in _EXIT_KEYS if isinstance(response.get(k), int)), 0)


def _as_text(value: Any) -> str | None:
    """Text, or the text blocks of an MCP-style content list, joined."""
    if isinstance(value, str):
        return value if value.strip() else None
    if isinstance(value, list):
        parts = [b.get("text") for b in value if isinstance(b, dict)]
        text = "\n".join(p for p in parts if isinstance(p, str))
        return text if text.strip() else None
    return None


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
