"""``graphmem inject``: read one hook event on stdin, print the memories that
bear on it for the agent to add to the model's context. A failed tool call
(PostToolUse with an error) is recorded as a failure capsule instead, and a
failure seen before is answered with what was learned from it.

The running server answers first (it has the embedding model loaded; found
as graphmem.hooks.client.find_server says); when none is running, the hook
reads the store itself on full text. Whatever goes
wrong, the hook prints one line on stderr, nothing on stdout, and exits 0: a
memory lookup must never stop an agent from working.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

from graphmem.domain.retrieval.prompt import (
    DEFAULT_BUDGET_TOKENS,
    MAX_BUDGET_TOKENS,
    MIN_BUDGET_TOKENS,
)
from graphmem.domain.wording import plural
from graphmem.hooks import client
from graphmem.hooks.errors import HookError, ServerUnavailable
from graphmem.hooks.events import (
    EventError,
    PostToolUse,
    context_hint,
    failure_report,
    parse_event,
)
from graphmem.hooks.project import resolve_project
from graphmem.hooks.render import Recalled, Recorded, failure_block, hook_output
from graphmem.settings import names

T = TypeVar("T")

DEFAULT_MAX_RESULTS = 5
MAX_RESULTS = 50
MAX_TIMEOUT_S = 30.0
FALLBACKS = ("running", "start", "off")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise HookError(message)


def _bounded_int(low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be a whole number from {low} to {high}")
        return value

    return parse


def _timeout(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= MAX_TIMEOUT_S:
        raise argparse.ArgumentTypeError(f"must be over 0 and at most {MAX_TIMEOUT_S:g} seconds")
    return value


def parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="graphmem inject",
        description="Read a coding agent's hook event (UserPromptSubmit, PreToolUse) on "
        "stdin and print the memories that bear on it as the hook's additionalContext; "
        "a PostToolUse event of a failed tool call is recorded as a failure capsule, and "
        "a recurring failure is answered with its lesson and fix.",
    )
    p.add_argument(
        "--project",
        help=f"project to read (default: {names.PROJECT}, else the server's default "
        "project, as on every other surface)",
    )
    p.add_argument(
        "--project-from-repo",
        action="store_true",
        help="read the project named after the git repository of the event's cwd "
        "(unless --project is given)",
    )
    p.add_argument(
        "--explain",
        action="store_true",
        help="say on stderr which project was read, which server answered (or that the "
        "store was read), how many memories matched and why nothing was injected",
    )
    p.add_argument(
        "--url",
        default=None,
        help=f"GraphQL endpoint (default: {names.URL}, else the server of the data "
        f"directory, from its serve.json, else port {names.PORT} (8000) of this machine)",
    )
    p.add_argument(
        "--max-results",
        type=_bounded_int(1, MAX_RESULTS),
        default=DEFAULT_MAX_RESULTS,
        help="memories asked for (default: %(default)s)",
    )
    p.add_argument(
        "--budget",
        type=_bounded_int(MIN_BUDGET_TOKENS, MAX_BUDGET_TOKENS),
        default=DEFAULT_BUDGET_TOKENS,
        help="most tokens the context block may take (default: %(default)s)",
    )
    p.add_argument(
        "--timeout",
        type=_timeout,
        default=client.DEFAULT_TIMEOUT_S,
        help="seconds to wait for the server (default: %(default)s)",
    )
    p.add_argument(
        "--fallback",
        choices=FALLBACKS,
        default="running",
        help="when no server is running: read the store if its database is running "
        "(running, the default), starting it if need be (start: seconds per call), "
        "or add nothing (off)",
    )
    return p


def main(argv: list[str] | None = None) -> int:
    """Always 0: an agent may treat any other status as a reason to stop."""
    explain = Explanation(enabled="--explain" in (argv if argv is not None else sys.argv[1:]))
    try:
        text = run(argv, sys.stdin.buffer.read(), explain)
    except Exception as exc:
        explain.say(f"nothing injected: {_one_line(exc)}")
        sys.stderr.write(f"graphmem inject: {_one_line(exc)}\n")
        return 0
    finally:
        explain.flush()
    if text:
        sys.stdout.buffer.write(text.encode("utf-8") + b"\n")
        sys.stdout.flush()
    return 0


class Explanation:
    """What ``--explain`` prints on stderr (stdout stays the hook's answer)."""

    def __init__(self, *, enabled: bool) -> None:
        self.enabled = enabled
        self.lines: list[str] = []

    def say(self, line: str) -> None:
        self.lines.append(line)

    def flush(self) -> None:
        if self.enabled and self.lines:
            sys.stderr.write("".join(f"graphmem inject: {line}\n" for line in self.lines))
            self.lines.clear()


def run(argv: list[str] | None, stdin: bytes, explain: Explanation | None = None) -> str | None:
    """What to print for the event in ``stdin``; ``None`` when there is nothing to add."""
    explain = explain or Explanation(enabled=False)
    options = parser().parse_args(argv)
    try:
        event = parse_event(stdin)
    except EventError as exc:
        raise HookError(f"cannot read the hook event on stdin: {exc}") from None
    if event is None:
        explain.say("nothing injected: the event is not one the hook answers")
        return None
    if isinstance(event, PostToolUse):
        return _failed_tool(event, options, explain)
    hint = context_hint(event)
    if hint is None:
        explain.say(f"nothing injected: {event.hook_event_name} carries no text to look up")
        return None
    project, rule = resolve_project(options.project, event.cwd, from_repo=options.project_from_repo)
    explain.say(f"project: {project or 'the server default'} (from {rule})")
    recalled = _recall(hint, project, options, explain)
    explain.say(f"{plural(recalled.matched, 'memory', 'memories')} matched {hint[:80]!r}")
    block = recalled.block
    if not recalled.matched:
        explain.say(
            "nothing injected: no active memory of this project bears on the prompt "
            "(candidates, archived and superseded memories are never injected)"
        )
    elif not block:
        explain.say(f"nothing injected: no memory fits the {options.budget}-token budget")
    return hook_output(event.hook_event_name, block) if block else None


def _failed_tool(
    event: PostToolUse, options: argparse.Namespace, explain: Explanation
) -> str | None:
    """A failed tool call is reported as a failure capsule; once the failure
    recurs (or its lesson is active) the agent is told the lesson and the fix."""
    report = failure_report(event)
    if report is None:
        explain.say(f"nothing recorded: the {event.tool_name} call did not fail")
        return None
    project, rule = resolve_project(options.project, event.cwd, from_repo=options.project_from_repo)
    explain.say(f"project: {project or 'the server default'} (from {rule})")
    recorded = _record(report, project, options, explain)
    explain.say(
        f"failure recorded on capsule {recorded.capsule_id} "
        f"(seen {recorded.occurrences}x, lesson {recorded.lesson_status or 'none'})"
    )
    block = failure_block(recorded, budget_tokens=options.budget)
    if block is None:
        explain.say("nothing injected: the failure is new and its lesson awaits review")
    return hook_output(event.hook_event_name, block) if block else None


def _record(
    report: dict[str, Any], project: str | None, options: argparse.Namespace, explain: Explanation
) -> Recorded:
    return _server_first(
        options,
        explain,
        lambda url, key: client.record_failure(
            report, project=project, url=url, timeout=options.timeout, api_key=key
        ),
        lambda fallback, key: fallback.record_failure(
            report, project=project, api_key=key, start=options.fallback == "start"
        ),
    )


def _recall(
    hint: str, project: str | None, options: argparse.Namespace, explain: Explanation
) -> Recalled:
    return _server_first(
        options,
        explain,
        lambda url, key: client.recall(
            hint,
            project=project,
            max_results=options.max_results,
            budget_tokens=options.budget,
            url=url,
            timeout=options.timeout,
            api_key=key,
        ),
        lambda fallback, key: fallback.recall(
            hint,
            project=project,
            max_results=options.max_results,
            budget_tokens=options.budget,
            api_key=key,
            start=options.fallback == "start",
        ),
    )


def _server_first(
    options: argparse.Namespace,
    explain: Explanation,
    remote: Callable[[str, str | None], T],
    local: Callable[[Any, str | None], T],
) -> T:
    """Ask the server; only when none answers (and ``--fallback`` allows it) open
    the store in this process, whose import costs the model and the driver."""
    api_key = os.environ.get(names.API_KEY) or None
    server = client.find_server(options.url)
    try:
        answered = remote(server.url, api_key)
    except ServerUnavailable:
        if options.fallback == "off":
            explain.say(f"no server at {server.url} (found by {server.found_by}); --fallback off")
            raise
        explain.say(
            f"no server at {server.url} (found by {server.found_by}): "
            "reading the store itself (full text only)"
        )
    else:
        explain.say(f"answered by the server at {server.url} (found by {server.found_by})")
        return answered
    from graphmem.hooks import fallback

    return local(fallback, api_key)


def _one_line(exc: BaseException) -> str:
    message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    return " ".join(message.split())
