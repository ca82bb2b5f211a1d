"""The hook's pure parts: reading events, choosing the hint and the project,
rendering the context block within its budget."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from graphmem.domain import capsules
from graphmem.hooks import events
from graphmem.hooks.client import recall, recalled
from graphmem.hooks.errors import HookError
from graphmem.hooks.events import (
    HINT_MAX_CHARS,
    EventError,
    PostToolUse,
    PreToolUse,
    UserPromptSubmit,
    context_hint,
    failure_report,
    parse_event,
)
from graphmem.hooks.inject import run
from graphmem.hooks.project import repository_name, resolve_project
from graphmem.hooks.render import Recalled, Recorded, failure_block, hook_output


def prompt_event(prompt: str, **more: object) -> bytes:
    return json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": prompt, **more}).encode()


def test_a_prompt_event_is_read_with_the_fields_agents_send_and_extra_ones_ignored():
    event = parse_event(
        prompt_event(
            "fix the flaky login test",
            session_id="s1",
            transcript_path="/tmp/t.jsonl",
            cwd="/repo",
            permission_mode="default",
        )
    )
    assert isinstance(event, UserPromptSubmit)
    assert (event.prompt, event.cwd, event.session_id) == (
        "fix the flaky login test",
        "/repo",
        "s1",
    )


def test_a_tool_event_keeps_its_tool_input():
    raw = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "pytest tests/unit", "description": "Run the unit tests"},
        "tool_use_id": "toolu_1",
    }
    event = parse_event(json.dumps(raw))
    assert isinstance(event, PreToolUse)
    assert event.tool_input["command"] == "pytest tests/unit"


@pytest.mark.parametrize("name", ["Stop", "SessionStart", "Notification", None])
def test_other_events_add_nothing(name: str | None):
    assert parse_event(json.dumps({"hook_event_name": name, "prompt": "hello there"})) is None


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"not json", "event: not JSON"),
        (b"\xff\xfe", "event: not JSON"),
        (b"[1, 2]", "event: must be a JSON object"),
        (b'{"hook_event_name": "UserPromptSubmit"}', "UserPromptSubmit.prompt: required text"),
        (b'{"hook_event_name": "UserPromptSubmit", "prompt": 42}', "prompt: must be text"),
        (
            b'{"hook_event_name": "UserPromptSubmit", "prompt": "hi", "cwd": 5}',
            "UserPromptSubmit.cwd: must be text",
        ),
        (b'{"hook_event_name": "PreToolUse"}', "PreToolUse.tool_name: required text"),
        (
            b'{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": "ls"}',
            "PreToolUse.tool_input: must be an object",
        ),
    ],
)
def test_events_the_hook_cannot_read_are_refused_naming_the_field(raw: bytes, message: str):
    with pytest.raises(EventError, match=message):
        parse_event(raw)


def test_a_long_prompt_is_cut_at_a_word_to_the_hint_limit():
    prompt = "refactor the session store " * 100
    hint = context_hint(UserPromptSubmit(prompt=prompt))
    assert hint is not None and len(hint) <= HINT_MAX_CHARS
    assert prompt.startswith(hint) and hint.endswith("store")


@pytest.mark.parametrize("prompt", ["", "ok", "  \n y \t"])
def test_a_prompt_too_short_to_match_gives_no_hint(prompt: str):
    assert context_hint(UserPromptSubmit(prompt=prompt)) is None


def test_a_tool_hint_is_the_text_of_its_input_in_order_without_the_tool_name():
    event = PreToolUse(
        tool_name="MultiEdit",
        tool_input={
            "file_path": "/repo/graphmem/store/falkordb.py",
            "edits": [{"old_string": "timeout = 5", "new_string": "timeout = 30"}],
            "replace_all": False,
        },
    )
    hint = context_hint(event)
    assert hint == "/repo/graphmem/store/falkordb.py timeout = 5 timeout = 30"
    assert "MultiEdit" not in hint


def test_a_tool_input_without_text_gives_no_hint():
    event = PreToolUse(tool_name="Read", tool_input={"limit": 20})
    assert context_hint(event) is None


@pytest.mark.parametrize("event_name", ["UserPromptSubmit", "PreToolUse"])
def test_the_output_is_the_hook_specific_json_the_agent_reads(event_name: str):
    out = json.loads(hook_output(event_name, "ctx ✓"))
    assert out == {
        "hookSpecificOutput": {"hookEventName": event_name, "additionalContext": "ctx ✓"}
    }


def git_repo(root: Path, name: str) -> Path:
    repo = root / name
    (repo / ".git").mkdir(parents=True)
    (repo / "src" / "deep").mkdir(parents=True)
    return repo


def test_the_project_is_the_servers_default_unless_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.delenv("GRAPHMEM_PROJECT", raising=False)
    repo = git_repo(tmp_path, "shop-backend")
    assert resolve_project(None, str(repo / "src"))[0] is None
    monkeypatch.setenv("GRAPHMEM_PROJECT", "from-env")
    assert resolve_project(None, str(repo)) == ("from-env", "GRAPHMEM_PROJECT")
    assert resolve_project("from-flag", str(repo)) == ("from-flag", "--project")


def test_the_repository_holding_cwd_is_the_project_when_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("GRAPHMEM_PROJECT", "from-env")
    repo = git_repo(tmp_path, "shop-backend")
    assert resolve_project(None, str(repo / "src" / "deep"), from_repo=True)[0] == "shop-backend"
    # Outside any repository the usual rule applies.
    assert resolve_project(None, str(tmp_path), from_repo=True)[0] == "from-env"
    assert resolve_project("flag", str(repo), from_repo=True)[0] == "flag"


def test_a_linked_work_tree_shares_its_repository_name(tmp_path: Path):
    main = git_repo(tmp_path, "shop")
    git_dir = main / ".git" / "worktrees" / "feature"
    git_dir.mkdir(parents=True)
    (git_dir / "commondir").write_text("../..\n")
    tree = tmp_path / "shop-feature-x"
    tree.mkdir()
    (tree / ".git").write_text(f"gitdir: {git_dir}\n")
    assert repository_name(tree) == "shop"


def test_a_submodule_keeps_its_own_name(tmp_path: Path):
    main = git_repo(tmp_path, "shop")
    module_dir = main / ".git" / "modules" / "vendor-lib"
    module_dir.mkdir(parents=True)
    sub = main / "vendor-lib"
    sub.mkdir()
    (sub / ".git").write_text("gitdir: ../.git/modules/vendor-lib\n")
    assert repository_name(sub / ".") == "vendor-lib"


def test_a_directory_name_becomes_a_valid_project_id(tmp_path: Path):
    repo = git_repo(tmp_path, "My Repo (copy)")
    assert repository_name(repo) == "My-Repo-copy"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--budget", "10"], "--budget: must be a whole number from 50 to 2400"),
        (["--max-results", "99"], "--max-results: must be a whole number from 1 to 50"),
        (["--timeout", "0"], "--timeout: must be over 0 and at most 30 seconds"),
        (["--colour"], "unrecognized arguments: --colour"),
    ],
)
def test_bad_options_name_the_option_and_its_limit(argv: list[str], message: str):
    with pytest.raises(HookError, match=message):
        run(argv, prompt_event("what is the deploy process"))


def test_an_unreadable_event_names_the_missing_field():
    with pytest.raises(HookError, match=r"UserPromptSubmit\.prompt: required text"):
        run([], b'{"hook_event_name": "UserPromptSubmit"}')


def test_a_server_answer_becomes_its_match_count_and_its_block():
    """The block is the server's own rendering (graphmem.domain.retrieval.prompt)."""
    data = {"knowledgeContext": {"context": "Memories…", "items": [{"score": 0.9}, {"score": 0.5}]}}
    assert recalled(data) == Recalled(2, "Memories…")
    assert recalled({"knowledgeContext": {"context": None, "items": []}}) == Recalled(0, None)


@pytest.mark.parametrize(
    ("status", "payload", "message"),
    [
        (200, b"<html>", r"server error: HTTP 200 from .*: not a GraphQL answer"),
        (502, b"Bad Gateway", r"server error: HTTP 502 from .*: not a GraphQL answer"),
        (200, b'{"data": {"knowledgeContext": null}}', "not a knowledgeContext result"),
        (
            200,
            b'{"data": {"knowledgeContext": {"context": 7, "items": [{"score": 1}]}}}',
            "not a knowledgeContext result",
        ),
        (
            403,
            b'{"errors": [{"message": "no access", "extensions": {"code": "FORBIDDEN"}}]}',
            r"^server error \[FORBIDDEN\]: no access$",
        ),
        (
            429,
            b'{"errors": [{"message": "slow down", "extensions": {"code": "RATE_LIMITED"}}]}',
            r"^server error \[RATE_LIMITED\]: slow down$",
        ),
    ],
)
def test_a_server_answer_the_hook_cannot_use_is_one_clear_error(
    status: int, payload: bytes, message: str
):
    """Each answer comes over HTTP from a local server; a refusal is not waited out."""
    asked: list[bytes] = []

    class Answer(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            asked.append(self.rfile.read(int(self.headers["content-length"])))
            self.send_response(status)
            self.send_header("retry-after", "30")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    with ThreadingHTTPServer(("127.0.0.1", 0), Answer) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{server.server_port}/graphql"
        try:
            with pytest.raises(HookError, match=message):
                recall(
                    "deploy", project="alpha", max_results=3, budget_tokens=99, url=url, timeout=5
                )
        finally:
            server.shutdown()
    assert [json.loads(body)["variables"] for body in asked] == [
        {"hint": "deploy", "maxResults": 3, "budget": 99, "projectId": "alpha"}
    ]


# -- failed tool calls ------------------------------------------------------------


def post_tool_use(response: object, **more: object) -> PostToolUse:
    raw = {
        "hook_event_name": "PostToolUse",
        "session_id": "3f1c-aa",
        "tool_name": "Bash",
        "tool_input": {"command": "pytest -x", "description": "Run the tests"},
        "tool_response": response,
        **more,
    }
    event = parse_event(json.dumps(raw))
    assert isinstance(event, PostToolUse)
    return event


@pytest.mark.parametrize(
    ("response", "error"),
    [
        ({"error": "boom: no such table"}, "boom: no such table"),
        ({"is_error": True, "stderr": "E   AssertionError"}, "E   AssertionError"),
        ({"isError": True, "content": [{"type": "text", "text": "denied"}]}, "denied"),
        ({"exit_code": 2, "stderr": "", "stdout": "1 failed"}, "1 failed"),
        ({"success": False}, "the tool failed"),
        ({"returncode": 3}, "exit status 3"),
        ("Error: file not found", "Error: file not found"),
    ],
)
def test_a_failed_tool_call_is_a_report_with_its_error(response: object, error: str):
    report = failure_report(post_tool_use(response))
    assert report == {
        "error": error,
        "tool": "Bash",
        "command": "pytest -x",
        "attempted": "Run the tests",
        "sessionId": "3f1c-aa",
    }


@pytest.mark.parametrize(
    "response",
    [
        {"stdout": "3 passed", "stderr": "", "exit_code": 0},
        {"interrupted": True, "error": "stopped by the user"},
        "all good",
        None,
        ["not", "a", "response"],
    ],
)
def test_a_tool_call_that_did_not_fail_reports_nothing(response: object):
    assert failure_report(post_tool_use(response)) is None


def test_a_post_tool_use_failure_event_and_long_errors_keep_the_telling_end():
    raw = {
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Edit",
        "tool_input": {"file_path": "/repo/app.py", "old_string": "x"},
        "error": "x" * 9_000 + " String to replace not found",
    }
    event = parse_event(json.dumps(raw))
    assert isinstance(event, PostToolUse)
    report = failure_report(event)
    assert report is not None
    assert len(report["error"]) == events.MAX_ERROR_CHARS
    assert report["error"].endswith("String to replace not found")
    assert report["files"] == ["/repo/app.py"]


def test_the_hook_fits_reports_to_the_capsule_limits():
    for name in ("ERROR", "ATTEMPTED", "COMMAND", "TOOL", "FILE"):
        assert getattr(events, f"MAX_{name}_CHARS") == getattr(capsules, f"MAX_{name}_CHARS")
    assert events.MAX_FILES == capsules.MAX_FILES


def test_a_new_failure_adds_nothing_and_a_recurring_one_brings_lesson_and_fix():
    new = Recorded("c1", 1, None, "m1", "candidate", "Failure seen: ...")
    assert failure_block(new) is None
    again = Recorded("c1", 3, "pip install requests", "m1", "active", "Failure seen: x")
    block = failure_block(again)
    assert block is not None
    assert "seen 3 times (failure capsule c1)" in block
    assert "Lesson learned (memory m1): Failure seen: x" in block
    assert "What fixed it: pip install requests" in block
    pending = Recorded("c1", 2, None, "m1", "candidate", "Failure seen: x")
    assert "Lesson learned" not in (failure_block(pending) or "")
    assert len(failure_block(again, budget_tokens=50) or "") <= 200
