"""The first hour with the command line: the commands act in the project they are
given whether a server runs or not, and print the same either way; ``inject``
finds the server as they do; the graph can be built from the command line; a
typo or a time outside a memory's life is said, not passed over."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

import graphmem.cli.memories  # noqa: F401 (registers the commands on the app)
from graphmem.api import GraphMem
from graphmem.cli import app, server_first
from graphmem.domain.clock import Clock, ManualClock, SystemClock, stored_now
from graphmem.graphql.app import create_app
from graphmem.server import serving
from graphmem.settings import Settings
from tests.integration.test_cli import MEMORY_ID, free_port
from tests.integration.test_cli_server_first import (  # noqa: F401 (fixtures)
    Served,
    env_for,
    operations,
    served,
)

pytestmark = pytest.mark.backends("falkordb")

LEDGER = "the ledger takes Postgres row locks when it settles payments"
QUEUE = "payments are settled by the queue worker every minute"
ISO_TIME = re.compile(r"\d{4}-\d\d-\d\dT[\d:.]+\+00:00")


def run(data_dir: Path, *args: str, **env: str) -> Result:
    unset: dict[str, str | None] = {k: None for k in os.environ if k.startswith("GRAPHMEM_")}
    return CliRunner().invoke(app, list(args), env={**unset, **env_for(data_dir), **env})


def ok(data_dir: Path, *args: str, **env: str) -> Result:
    result = run(data_dir, *args, **env)
    assert result.exit_code == 0, result.output
    return result


def normalised(text: str, ids: dict[str, str]) -> str:
    """``text`` with each memory id named by its order of appearance and times blanked,
    so the same session on two stores prints the same."""

    def named(match: re.Match[str]) -> str:
        return ids.setdefault(match.group(), f"<id{len(ids) + 1}>")

    return ISO_TIME.sub("<time>", MEMORY_ID.sub(named, text))


def session(data_dir: Path) -> list[str]:
    """A first hour in project ``demo`` chosen by GRAPHMEM_PROJECT: what each command
    printed (normalised), the errors included."""
    demo = {"GRAPHMEM_PROJECT": "demo"}
    ids: dict[str, str] = {}
    printed: list[str] = []

    def step(*args: str, status: int = 0) -> Result:
        result = run(data_dir, *args, **demo)
        assert result.exit_code == status, result.output
        printed.append(normalised(result.output, ids))
        return result

    (ledger,) = MEMORY_ID.findall(step("remember", LEDGER, "--type", "decision").stdout)
    (queue,) = MEMORY_ID.findall(step("remember", QUEUE, "--type", "fact").stdout)
    step("relate", queue, ledger, "--type", "ENABLES", "--rationale", "settling needs locks")
    bad = step("relate", queue, ledger, "--type", "ENABLEZ", status=1)
    assert "type: must be one of CONSTRAINS, ENABLES, SUPERSEDES, RELATED_TO" in bad.output
    step("relate", queue, queue, "--type", "ENABLES", status=1)
    step("pin", ledger)
    step("unpin", ledger)
    step("feedback", ledger, "1")
    step("feedback", queue, "-1")
    assert "value: feedback must be -1, 0 or 1" in step("feedback", ledger, "5", status=1).output
    assert LEDGER in step("list").stdout
    assert "ENABLES" in step("show", ledger).stdout
    typo = step("show", ledger, "--project", "nosuch", status=2)
    assert "no project named 'nosuch'" in typo.output
    found = json.loads(step("search", "row locks for the ledger", "--json").stdout)
    hits = [(h["memory"]["content"], h["memory"]["project_id"]) for h in found["hits"]]
    assert (LEDGER, "demo") in hits
    printed[-1] = normalised(json.dumps(sorted(hits)), ids)
    given = step("context", "settling payments", "--no-record-access", "--json").stdout
    items = json.loads(given)["items"]
    assert {i["memory"]["project_id"] for i in items} == {"demo"}
    printed[-1] = normalised(json.dumps(sorted(i["memory"]["content"] for i in items)), ids)
    step("unrelate", queue, ledger, "--type", "ENABLES", "--reason", "wrong", "--by", "ana")
    step("forget", queue)
    step("forget", queue, status=1)
    return printed


@pytest.fixture
def frozen(monkeypatch: pytest.MonkeyPatch) -> float:
    """One instant for every store this process opens from here on, the CLI's
    own and a server's: importance decays with time since a memory was last
    touched, so two runs of a session compare equal only at one instant."""
    instant = stored_now(SystemClock())
    opened = GraphMem.open.__func__  # type: ignore[attr-defined]

    def at_instant(
        cls: type[GraphMem], settings: Settings | None = None, *, clock: Clock | None = None
    ) -> GraphMem:
        return opened(cls, settings, clock=clock or ManualClock(instant))

    monkeypatch.setattr(GraphMem, "open", classmethod(at_instant))
    return instant


@pytest.fixture
def frozen_server(frozen: float, data_dir: Path) -> Iterator[str]:
    """A server of the data directory on a store opened at the frozen instant:
    real uvicorn over HTTP, found by the commands through its ``serve.json``."""
    settings = Settings(data_dir=data_dir, scheduler=False)
    with (
        GraphMem.open(settings) as gm,
        server_first.claimed(settings) as claim,
        serving.in_thread(create_app(gm, settings)) as url,
        claim.advertised("127.0.0.1", int(url.rsplit(":", 1)[1])),
    ):
        yield url


def test_every_server_first_command_acts_in_graphmem_project_and_prints_as_locally(
    frozen_server: str, data_dir: Path, tmp_path: Path
) -> None:
    before = operations(frozen_server)
    through_server = session(data_dir)
    counts = operations(frozen_server)
    for operation in ("Remember", "Relate", "Pin", "Unpin", "Feedback", "Search", "Context",
                      "Unrelate", "Forget", "List", "Show"):  # fmt: skip
        name = f"Cli{operation}"
        assert counts.get(name, 0) > before.get(name, 0), (operation, counts)
    local_dir = tmp_path / "local"
    local_dir.mkdir()
    assert session(local_dir) == through_server

    # The Remembered table says where the memory went.
    assert re.search(r"│ project\s+│ demo\s+│", through_server[0])
    # Nothing went to the default project on either path.
    for directory in (data_dir, local_dir):
        assert ok(directory, "list").stdout.strip() == "no memories match"
        listed = ok(directory, "list", "--project", "demo").stdout
        assert LEDGER in listed and QUEUE not in listed


def test_search_and_context_in_a_project_that_does_not_exist_exit_2_on_both_paths(
    served: Served,  # noqa: F811 (the fixture)
    data_dir: Path,
    tmp_path: Path,
) -> None:
    local_dir = tmp_path / "local"
    local_dir.mkdir()
    quick = {"GRAPHMEM_EMBEDDER": "none"}
    ok(data_dir, "remember", LEDGER, "--project", "demo")
    ok(local_dir, "remember", LEDGER, "--project", "demo", **quick)
    missing = "error [NOT_FOUND]: project: no project named 'nosuch' (projects: demo)"
    for directory, env in ((data_dir, {}), (local_dir, quick)):
        for args, more in (
            (("search", "row locks", "--project", "nosuch"), {}),
            (("search", "row locks", "--json"), {"GRAPHMEM_PROJECT": "nosuch"}),
            (("context", "settling payments", "--project", "nosuch"), {}),
            (("context", "settling payments", "--json"), {"GRAPHMEM_PROJECT": "nosuch"}),
        ):
            refused = run(directory, *args, **env, **more)
            assert refused.exit_code == 2, (directory, args, refused.output)
            assert missing in " ".join(refused.stderr.split())
            assert refused.stdout == ""
        # A project that exists but holds nothing that matches is an empty answer.
        empty = ok(directory, "search", "zebra", "--mode", "FULLTEXT", "--project", "demo", **env)
        assert empty.stdout.startswith("0 hits")
        found = ok(directory, "search", "row locks", "--project", "demo", **env).stdout
        assert LEDGER in " ".join(found.split())
    assert operations(served.url).get("CliProjects", 0) >= 4


PROMPT: dict[str, Any] = {
    "session_id": "3f1c",
    "hook_event_name": "UserPromptSubmit",
    "prompt": "why does the ledger take Postgres row locks when it settles payments?",
}


def hook(data_dir: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``graphmem inject`` as the console script runs it, with no GRAPHMEM_URL."""
    entry = "import sys; from graphmem.entry import main; main()"
    return subprocess.run(
        [sys.executable, "-c", entry, "inject", *args],
        input=json.dumps(PROMPT),
        capture_output=True,
        text=True,
        env={**env_for(data_dir), "GRAPHMEM_EMBEDDER": "none", **env},
        timeout=120,
    )


def test_inject_finds_the_server_of_its_data_directory_on_any_port(
    served: Served,  # noqa: F811 (the fixture)
    data_dir: Path,
    tmp_path: Path,
) -> None:
    ok(data_dir, "remember", LEDGER, "--type", "decision", "--project", "shop")
    endpoint = f"{served.url}/graphql"

    done = hook(data_dir, "--explain", "--fallback", "off", "--project", "shop")
    assert done.returncode == 0
    assert LEDGER in json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert f"answered by the server at {endpoint} (found by the server of {data_dir}" in (
        done.stderr
    )

    # A data directory no server advertises: GRAPHMEM_PORT names the server to ask.
    elsewhere = tmp_path / "elsewhere"
    port = endpoint.rsplit(":", 1)[1].split("/")[0]
    by_port = hook(elsewhere, "--explain", "--project", "shop", GRAPHMEM_PORT=port)
    assert LEDGER in json.loads(by_port.stdout)["hookSpecificOutput"]["additionalContext"]
    assert f"answered by the server at {endpoint} (found by GRAPHMEM_PORT)" in by_port.stderr

    # No server there: --explain says the store was read instead.
    nobody = f"http://127.0.0.1:{free_port()}/graphql"
    gone = hook(elsewhere, "--explain", GRAPHMEM_URL=nobody)
    assert f"no server at {nobody} (found by GRAPHMEM_URL): reading the store itself" in (
        gone.stderr
    )


def test_a_project_or_suffix_that_names_nothing_and_a_time_before_a_memory_are_said(
    data_dir: Path,
) -> None:
    quick = {"GRAPHMEM_EMBEDDER": "none"}
    written = ok(
        data_dir, "remember", QUEUE, "--project", "demo",
        "--valid-from", "2019-01-01T00:00:00Z", "--valid-to", "2020-01-01T00:00:00Z", **quick,
    ).stdout  # fmt: skip
    (ended,) = MEMORY_ID.findall(written)
    (held,) = MEMORY_ID.findall(
        ok(data_dir, "remember", LEDGER, "--project", "demo", **quick).stdout
    )

    missing = "no project named 'nosuch' (projects: demo)"
    for args, env in (
        (("list", "--project", "nosuch"), quick),
        (("list",), {**quick, "GRAPHMEM_PROJECT": "nosuch"}),
        (("show", held, "--project", "nosuch"), quick),
        (("evaluate", "--project", "nosuch"), quick),
    ):
        refused = run(data_dir, *args, **env)
        # evaluate's codes are read by jobs: an unknown project is not a bad flag there.
        assert refused.exit_code == (4 if args[0] == "evaluate" else 2), refused.output
        assert missing in refused.stderr

    before = run(data_dir, "show", held, "--project", "demo", "--as-of", "2020-01-01", **quick)
    assert before.exit_code == 1
    created = json.loads(
        ok(data_dir, "search", LEDGER, "--project", "demo", "--json", **quick).stdout
    )["hits"][0]["memory"]["created_at"]
    written_at = datetime.fromtimestamp(created, tz=UTC).isoformat()
    assert f"memory: {held} was written at {written_at}, after 2020-01-01 (--as-of)" in (
        " ".join(before.stderr.split())
    )

    rows = {
        line.split()[0]: line
        for line in ok(data_dir, "list", "--project", "demo", **quick).stdout.splitlines()
        if MEMORY_ID.match(line.strip())
    }
    assert " active, expired " in rows[ended]
    assert " active " in rows[held] and "expired" not in rows[held]

    unknown = run(data_dir, "export", str(data_dir / "out.xyz"), "--project", "demo", **quick)
    assert unknown.exit_code == 2
    assert "'.xyz'" in unknown.output and "graphmem, sky, graphml, cypher" in unknown.output
    assert not (data_dir / "out.xyz").exists()
    named = ("export", str(data_dir / "out.xyz"), "--format", "sky", "--project", "demo")
    ok(data_dir, *named, **quick)
    ok(data_dir, "export", str(data_dir / "out.jsonl"), "--project", "demo", **quick)
    assert json.loads((data_dir / "out.jsonl").read_text().splitlines()[0])
