"""``graphmem inject`` run for real: a subprocess fed a hook event on stdin,
against a real uvicorn server over HTTP, and against the store alone when no
server is there."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from graphmem.api import GraphMem
from graphmem.domain.kinds import Status
from graphmem.domain.models import Memory
from graphmem.graphql.app import create_app
from graphmem.settings import Settings
from tests.integration.conftest import serve

# A surface suite: what it checks is the surface, the same on every backend; the
# store suites beneath it run on Neo4j as well (tests/conftest.py).
pytestmark = pytest.mark.backends("falkordb")

ENTRY = "import sys; from graphmem.entry import main; main()"
"""The ``graphmem`` console script's own code, whichever way the package is installed."""
PROMPT = "why does the ledger need Postgres row locks when we settle payments?"
ACTIVE = "Use Postgres row locks for the ledger: settling payments must not race"
CANDIDATE = "Maybe the ledger should drop Postgres row locks and settle payments in a queue"
UNRELATED = "The marketing site is deployed from the website branch"
FAILURE = (
    "Traceback (most recent call last):\n"
    '  File "/work/app/importer.py", line 12, in <module>\n'
    "ModuleNotFoundError: No module named 'requests'"
)


def hook(
    *args: str,
    event: dict[str, Any],
    url: str,
    data_dir: Path,
    api_key: str | None = None,
    python_m: bool = False,
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    env.update(GRAPHMEM_URL=url, GRAPHMEM_DATA_DIR=str(data_dir), GRAPHMEM_EMBEDDER="none")
    if api_key is not None:
        env["GRAPHMEM_API_KEY"] = api_key
    command = [sys.executable, "-m", "graphmem"] if python_m else [sys.executable, "-c", ENTRY]
    return subprocess.run(
        [*command, "inject", *args],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        env=env,
        cwd=event.get("cwd"),
        timeout=120,
    )


def prompt(cwd: Path, text: str = PROMPT) -> dict[str, Any]:
    return {
        "session_id": "3f1c",
        "transcript_path": str(cwd / "t.jsonl"),
        "cwd": str(cwd),
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": text,
    }


def injected(done: subprocess.CompletedProcess[str], event_name: str) -> str:
    """The additionalContext of a hook run that must have printed one."""
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", done.stderr
    body = json.loads(done.stdout)
    assert body["hookSpecificOutput"]["hookEventName"] == event_name
    return body["hookSpecificOutput"]["additionalContext"]


def nothing(done: subprocess.CompletedProcess[str]) -> str:
    """A run that added nothing and did not stop the agent; its one stderr line."""
    assert done.returncode == 0
    assert done.stdout == ""
    assert done.stderr.count("\n") <= 1, done.stderr
    return done.stderr


def seed(gm: GraphMem, project: str | None = None) -> tuple[Memory, Memory]:
    active = gm.remember({"content": ACTIVE, "memory_type": "decision"}, project_id=project)
    candidate = gm.remember(
        {"content": CANDIDATE, "memory_type": "decision", "source": "auto_extracted"},
        project_id=project,
    )
    gm.remember({"content": UNRELATED}, project_id=project)
    assert (active.status, candidate.status) == (Status.ACTIVE, Status.CANDIDATE)
    return active, candidate


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A working directory in no git repository: the project is the server's default."""
    path = tmp_path / "work"
    path.mkdir()
    return path


@pytest.fixture
def no_store(tmp_path: Path) -> Path:
    """A data directory that does not exist, so only the server can answer."""
    return tmp_path / "no-store"


@pytest.fixture
def server_url(gm: GraphMem) -> Iterator[str]:
    with serve(create_app(gm)) as http:
        yield str(http.base_url.join("/graphql"))


@pytest.fixture
def refused_url() -> Iterator[str]:
    """A local port that refuses connections: bound here and never listened on,
    so no other process can take it while the test runs."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{held.getsockname()[1]}/graphql"


def test_a_prompt_gets_the_active_memory_from_the_server_and_never_the_candidate(
    gm: GraphMem, server_url: str, outside: Path, no_store: Path
):
    active, candidate = seed(gm)
    context = injected(
        hook(event=prompt(outside), url=server_url, data_dir=no_store), "UserPromptSubmit"
    )
    assert ACTIVE in context and active.id in context
    assert candidate.id not in context and CANDIDATE not in context
    assert UNRELATED not in context


def test_a_tool_call_gets_context_in_the_pre_tool_use_form(
    gm: GraphMem, server_url: str, outside: Path, no_store: Path
):
    active, _ = seed(gm)
    event = {
        "session_id": "3f1c",
        "cwd": str(outside),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "psql -c 'select * from ledger for update' # row locks"},
        "tool_use_id": "toolu_01",
    }
    context = injected(hook(event=event, url=server_url, data_dir=no_store), "PreToolUse")
    assert active.id in context


def test_the_project_is_the_one_every_surface_writes_to_unless_asked_for_the_repository(
    gm: GraphMem, server_url: str, tmp_path: Path, no_store: Path
):
    default, _ = seed(gm)
    ours = gm.remember(
        {"content": "The ledger settles payments with Postgres row locks per account"},
        project_id="shop",
    )
    repo = tmp_path / "shop"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    # Inside a repository, the hook still reads what the CLI, GraphQL and Python wrote.
    plain = hook(event=prompt(repo / "src"), url=server_url, data_dir=no_store)
    context = injected(plain, "UserPromptSubmit")
    assert default.id in context and ours.id not in context

    by_repo = hook(
        "--project-from-repo", event=prompt(repo / "src"), url=server_url, data_dir=no_store
    )
    context = injected(by_repo, "UserPromptSubmit")
    assert ours.id in context
    assert default.id not in context

    flagged = hook(
        "--project",
        "default",
        "--project-from-repo",
        event=prompt(repo / "src"),
        url=server_url,
        data_dir=no_store,
    )
    assert default.id in injected(flagged, "UserPromptSubmit")


def test_explain_says_which_project_how_many_matched_and_why_nothing_was_injected(
    gm: GraphMem, server_url: str, outside: Path, no_store: Path
):
    seed(gm, project="shop")
    done = hook("--explain", event=prompt(outside), url=server_url, data_dir=no_store)
    assert done.stdout == ""
    assert "project: the server default (from the server's default project" in done.stderr
    assert "0 memories matched" in done.stderr
    assert "nothing injected: no active memory of this project" in done.stderr

    found = hook(
        "--explain", "--project", "shop", event=prompt(outside), url=server_url, data_dir=no_store
    )
    assert "project: shop (from --project)" in found.stderr
    assert re.search(r"graphmem inject: [1-9]\d* memor(y|ies) matched", found.stderr)
    assert "nothing injected" not in found.stderr
    assert "row locks" in json.loads(found.stdout)["hookSpecificOutput"]["additionalContext"]


def test_nothing_relevant_prints_nothing(
    gm: GraphMem, server_url: str, outside: Path, no_store: Path
):
    seed(gm)
    done = hook(
        event=prompt(outside, "compile the kotlin android widget"),
        url=server_url,
        data_dir=no_store,
    )
    assert nothing(done) == ""


def test_python_m_graphmem_inject_runs_the_same_hook(
    gm: GraphMem, server_url: str, outside: Path, no_store: Path
):
    active, _ = seed(gm)
    done = hook(event=prompt(outside), url=server_url, data_dir=no_store, python_m=True)
    assert active.id in injected(done, "UserPromptSubmit")


def test_a_server_that_requires_a_key_gets_it_and_a_bad_key_adds_nothing(
    gm: GraphMem, outside: Path, no_store: Path
):
    active, _ = seed(gm)
    _, token = gm.keys.create("hook", ["default"], "read")
    with serve(create_app(gm, Settings(auth="required"))) as http:
        url = str(http.base_url.join("/graphql"))
        with_key = hook(event=prompt(outside), url=url, data_dir=no_store, api_key=token)
        assert active.id in injected(with_key, "UserPromptSubmit")
        without = nothing(hook(event=prompt(outside), url=url, data_dir=no_store))
        assert "UNAUTHENTICATED" in without
        wrong = nothing(hook(event=prompt(outside), url=url, data_dir=no_store, api_key="gmk_x"))
        assert "UNAUTHENTICATED" in wrong


def test_a_server_error_is_one_line_and_adds_nothing(
    gm: GraphMem, server_url: str, outside: Path, no_store: Path
):
    seed(gm)
    done = hook(
        "--project", "no spaces allowed", event=prompt(outside), url=server_url, data_dir=no_store
    )
    assert "INVALID_INPUT" in nothing(done)


def test_a_server_that_does_not_answer_in_time_adds_nothing(outside: Path, no_store: Path):
    with socket.socket() as silent:  # accepts connections, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(4)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/graphql"
        done = hook("--timeout", "0.3", event=prompt(outside), url=url, data_dir=no_store)
    assert "did not answer within 0.3 s" in nothing(done)


@pytest.fixture
def stored() -> Iterator[Path]:
    """A data directory holding a store, with no database or server running."""
    path = Path(tempfile.mkdtemp(dir="/tmp", prefix="gminj-"))  # short: unix socket paths
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_without_a_server_the_hook_reads_the_running_database_on_full_text(
    stored: Path, outside: Path, refused_url: str
):
    # This process holds the database open, as `graphmem mcp` or a script would.
    with GraphMem.open(Settings(data_dir=stored, embedder="none")) as gm:
        active, candidate = seed(gm)
        context = injected(
            hook(event=prompt(outside), url=refused_url, data_dir=stored), "UserPromptSubmit"
        )
        assert active.id in context and ACTIVE in context
        assert candidate.id not in context and UNRELATED not in context

        off = hook("--fallback", "off", event=prompt(outside), url=refused_url, data_dir=stored)
        assert "no server at" in nothing(off)


@pytest.mark.slow
def test_without_a_server_the_hook_sees_as_the_agent_of_its_key(
    stored: Path, outside: Path, refused_url: str
):
    with GraphMem.open(Settings(data_dir=stored, embedder="none")) as gm:
        private = gm.as_agent("ana").remember(
            {"content": ACTIVE, "memory_type": "decision", "visibility": "private"}
        )
        _, ana = gm.keys.create("ana", ["default"], "read", agent_id="ana")
        _, ben = gm.keys.create("ben", ["default"], "read", agent_id="ben")
        mine = hook(event=prompt(outside), url=refused_url, data_dir=stored, api_key=ana)
        assert private.id in injected(mine, "UserPromptSubmit")
        other = hook(event=prompt(outside), url=refused_url, data_dir=stored, api_key=ben)
        assert other.returncode == 0 and private.id not in other.stdout


def test_a_stopped_database_is_started_only_when_asked(
    stored: Path, outside: Path, refused_url: str
):
    with GraphMem.open(Settings(data_dir=stored, embedder="none")) as gm:
        active, candidate = seed(gm)
    # Closed: the database is down.
    down = hook(event=prompt(outside), url=refused_url, data_dir=stored)
    assert "--fallback start" in nothing(down)

    started = hook("--fallback", "start", event=prompt(outside), url=refused_url, data_dir=stored)
    context = injected(started, "UserPromptSubmit")
    assert active.id in context and candidate.id not in context


def test_without_a_server_or_a_store_the_hook_says_so_and_adds_nothing(
    outside: Path, no_store: Path, refused_url: str
):
    done = hook(event=prompt(outside), url=refused_url, data_dir=no_store)
    assert f"no graphmem store at {no_store}" in nothing(done)
    assert not no_store.exists()


def test_events_it_has_nothing_for_and_broken_input_never_stop_the_agent(
    outside: Path, no_store: Path, refused_url: str
):
    url = refused_url
    stop = {"hook_event_name": "Stop", "cwd": str(outside), "stop_hook_active": False}
    assert nothing(hook(event=stop, url=url, data_dir=no_store)) == ""
    broken = {"hook_event_name": "UserPromptSubmit", "cwd": str(outside)}
    assert "UserPromptSubmit.prompt: required text" in nothing(
        hook(event=broken, url=url, data_dir=no_store)
    )
    bad_flag = hook("--budget", "9", event=prompt(outside), url=url, data_dir=no_store)
    assert "--budget" in nothing(bad_flag)


def failed_bash(cwd: Path, stderr: str = FAILURE) -> dict[str, Any]:
    return {
        "session_id": "3f1c",
        "cwd": str(cwd),
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "python importer.py", "description": "Run the CSV importer"},
        "tool_response": {"stdout": "", "stderr": stderr, "exit_code": 1, "interrupted": False},
        "tool_use_id": "toolu_01",
    }


def test_the_hook_records_a_failed_tool_call_and_answers_a_recurrence_with_its_lesson(
    gm: GraphMem, server_url: str, outside: Path, no_store: Path
):
    first = hook(event=failed_bash(outside), url=server_url, data_dir=no_store)
    assert nothing(first) == ""  # new: recorded, nothing to tell yet
    (capsule,) = gm.failure_capsules()
    assert (capsule.occurrence_count, capsule.tool, capsule.command) == (
        1,
        "Bash",
        "python importer.py",
    )
    assert capsule.session_ids == ["3f1c"] and capsule.attempted == "Run the CSV importer"

    second = hook(event=failed_bash(outside), url=server_url, data_dir=no_store)
    context = injected(second, "PostToolUse")
    assert f"seen 2 times (failure capsule {capsule.id})" in context
    assert f"Lesson learned (memory {capsule.lesson_id})" in context
    assert "No module named 'requests'" in context
    assert gm.get(capsule.lesson_id).status is Status.ACTIVE

    ok = dict(failed_bash(outside), tool_response={"stdout": "done", "exit_code": 0})
    assert nothing(hook(event=ok, url=server_url, data_dir=no_store)) == ""
    assert gm.failure_capsules()[0].occurrence_count == 2


def test_without_a_server_the_hook_records_the_failure_in_the_running_store(
    stored: Path, outside: Path, refused_url: str
):
    with GraphMem.open(Settings(data_dir=stored, embedder="none")) as gm:
        nothing(hook(event=failed_bash(outside), url=refused_url, data_dir=stored))
        context = injected(
            hook(event=failed_bash(outside), url=refused_url, data_dir=stored), "PostToolUse"
        )
        (capsule,) = gm.failure_capsules()
        assert capsule.occurrence_count == 2 and capsule.id in context
