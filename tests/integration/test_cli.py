"""The ``graphmem`` command, run for real on an embedded FalkorDB in a temp directory."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import pytest

from graphmem.api import GraphMem
from graphmem.graphql.schema import export_sdl
from graphmem.settings import Settings
from graphmem.store.embedded import PID_NAME, SOCKET_NAME
from tests.integration.conftest import run_cli as cli

MEMORY_ID = re.compile(r"\b[0-9a-f]{32}\b")


def clean_env(data_dir: Path) -> dict[str, str]:
    """The caller's environment without any GRAPHMEM_* setting but the data directory."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    env["GRAPHMEM_DATA_DIR"] = str(data_dir)
    # These commands do not need embeddings; loading the model costs seconds.
    env["GRAPHMEM_EMBEDDER"] = "none"
    return env


def remember(data_dir: Path, *args: str) -> str:
    result = cli(data_dir, "remember", *args)
    assert result.exit_code == 0, result.output
    (memory_id,) = MEMORY_ID.findall(result.stdout)
    return memory_id


def row_of(output: str, memory_id: str) -> list[str]:
    (line,) = [line for line in output.splitlines() if memory_id in line]
    return line.split()


def test_remember_then_list_shows_tier_status_and_importance(data_dir: Path) -> None:
    memory_id = remember(
        data_dir, "Use FalkorDB [embedded] in tests", "--type", "decision",
        "--confidence", "0.9", "--tag", "db", "--tag", "tests", "--session", "s1",
    )  # fmt: skip
    candidate = remember(data_dir, "Maybe the cache is stale", "--source", "auto_extracted")

    listed = cli(data_dir, "list")
    assert listed.exit_code == 0, listed.output
    # A fresh memory is maximally recent: 0.2*1 + 0.3*0 + 0.25*0.9 + 0.25*salience(decision)=1.
    assert row_of(listed.stdout, memory_id)[:5] == [
        memory_id,
        "working",
        "active",
        "decision",
        "0.675",
    ]
    assert row_of(listed.stdout, candidate)[:3] == [candidate, "working", "candidate"]
    assert "Use FalkorDB [embedded] in tests" in listed.stdout  # brackets are text, not markup

    with GraphMem.open(Settings(data_dir=data_dir)) as gm:
        stored = gm.get(memory_id)
    assert (stored.tags, stored.session_id, stored.confidence) == (["db", "tests"], "s1", 0.9)

    only_tagged = cli(data_dir, "list", "--tag", "db", "--status", "active").stdout
    assert memory_id in only_tagged and candidate not in only_tagged
    assert "no memories match" in cli(data_dir, "list", "--type", "risk").stdout


def test_remembering_a_duplicate_says_it_merged(data_dir: Path) -> None:
    first = remember(data_dir, "The staging database resets nightly", "--type", "fact")
    again = cli(data_dir, "remember", "the staging  database resets nightly")
    assert again.exit_code == 0, again.output
    assert MEMORY_ID.findall(again.stdout) == [first]
    assert "Already known (exact match)" in again.stdout
    assert re.search(r"occurrences\s+│\s+2\s", again.stdout)


def test_list_pages_with_the_printed_cursor(data_dir: Path) -> None:
    texts = [
        "the cache lives in Redis",
        "deploys go out on Tuesdays",
        "tests never touch the network",
    ]
    ids = [remember(data_dir, text) for text in texts]

    first = cli(data_dir, "list", "--first", "2").stdout
    assert MEMORY_ID.findall(first) == [ids[2], ids[1]]
    (cursor,) = re.findall(r"--after (\S+)", first)

    rest = cli(data_dir, "list", "--first", "2", "--after", cursor).stdout
    assert MEMORY_ID.findall(rest) == [ids[0]]
    assert "no more pages" in rest


def test_global_data_dir_option_wins_over_the_environment(data_dir: Path) -> None:
    other = Path(tempfile.mkdtemp(dir="/tmp", prefix="gmcli-"))
    try:
        result = cli(data_dir, "--data-dir", str(other), "remember", "kept elsewhere")
        assert result.exit_code == 0, result.output
        assert "no memories match" in cli(data_dir, "list").stdout
        assert "kept elsewhere" in cli(data_dir, "--data-dir", str(other), "list").stdout
    finally:
        shutil.rmtree(other, ignore_errors=True)


def test_show_prints_fields_breakdown_and_relations(data_dir: Path) -> None:
    rule = remember(data_dir, "Never run migrations without a backup", "--type", "rule")
    decision = remember(data_dir, "Run migrations nightly", "--type", "decision")
    with GraphMem.open(Settings(data_dir=data_dir)) as gm:
        gm.relate(rule, decision, "CONSTRAINS", rationale="backups run at night")

    result = cli(data_dir, "show", decision)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Run migrations nightly" in out
    assert re.search(r"memory_type\s+│\s+decision", out)
    for name, weight in (("recency", "0.200"), ("frequency", "0.300"), ("salience", "0.250")):
        assert re.search(rf"{name}\s+│\s+[01]\.\d{{3}}\s+│\s+{weight}\s+│", out), name
    assert re.search(r"frequency\s+│\s+0\.000\s+│\s+0\.300\s+│\s+0\.000", out)
    assert re.search(r"total\s+│.*│\s+0\.\d{3}", out)
    assert re.search(
        rf"CONSTRAINS\s+│\s+{rule}\s+│\s+{decision}\s+│\s+1\.00\s+│\s+backups run", out
    )


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ["remember", ""],
            "error [INVALID_INPUT]: content: must not be empty",
        ),
        (["remember", "x", "--confidence", "2"], "error [INVALID_INPUT]: confidence: "),
        (["remember", "x", "--type", "whim"], "error [INVALID_INPUT]: memory_type: "),
        (["list", "--after", "not-a-cursor"], "error [INVALID_INPUT]: after: "),
        (["show", "0123"], "error [NOT_FOUND]: id: no memory '0123'"),
    ],
)
def test_bad_input_prints_one_clear_line_and_exits_1(
    data_dir: Path, args: list[str], expected: str
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "graphmem", *args],
        env=clean_env(data_dir),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert done.stderr.startswith(expected), done.stderr
    assert "Traceback" not in done.stderr
    assert "no memories match" in cli(data_dir, "list").stdout  # nothing was written


def test_schema_prints_the_sdl(data_dir: Path) -> None:
    result = cli(data_dir, "schema")
    assert result.exit_code == 0
    assert result.stdout == export_sdl().rstrip("\n") + "\n"
    assert "remember(" in result.stdout


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("stop_with", [signal.SIGINT, signal.SIGTERM])
def test_serve_answers_graphql_and_stops_cleanly(data_dir: Path, stop_with: signal.Signals) -> None:
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "graphmem", "serve", "--port", str(port)],
        env=clean_env(data_dir),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120  # a busy machine starts it slowly
        while time.monotonic() < deadline and server.poll() is None:
            try:
                if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        assert server.poll() is None, server.communicate()
        assert (data_dir / SOCKET_NAME).exists()

        created = httpx.post(
            f"{url}/graphql",
            json={
                "query": "mutation($i: MemoryInput!) "
                "{ remember(input: $i) { memory { id tier status } } }",
                "variables": {"i": {"content": "served over HTTP", "memoryType": "FACT"}},
            },
        ).json()
        assert "errors" not in created, created
        memory_id = created["data"]["remember"]["memory"]["id"]
        read = httpx.post(
            f"{url}/graphql",
            json={
                "query": "query($id: ID!) { memory(id: $id) { content } }",
                "variables": {"id": memory_id},
            },
        ).json()
        assert read == {"data": {"memory": {"content": "served over HTTP"}}}
        assert (
            "graphiql" in httpx.get(f"{url}/graphql", headers={"accept": "text/html"}).text.lower()
        )
    finally:
        server.send_signal(stop_with)
        try:
            _, err = server.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            raise

    assert server.returncode == 0, err
    assert f"GraphiQL at http://127.0.0.1:{port}/graphql" in err
    assert f"explorer at http://127.0.0.1:{port}/explore" in err
    assert "Traceback" not in err
    assert not (data_dir / SOCKET_NAME).exists()
    assert not (data_dir / PID_NAME).exists()
    # The data outlived the server: AOF persistence was flushed on the way out.
    with GraphMem.open(Settings(data_dir=data_dir)) as gm:
        assert gm.get(memory_id).content == "served over HTTP"
