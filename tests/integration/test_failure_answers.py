"""What a client and an operator are told when something outside the request
fails: the database is gone, the disk is full, the body is not text, the data
directory cannot be written, the port is taken."""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from falkordb import FalkorDB

from graphmem.api import GraphMem
from graphmem.domain.auth import Role
from graphmem.domain.errors import GraphMemError
from graphmem.graphql.app import create_app
from graphmem.server.observability.logs import JsonFormatter, RequestIdFilter
from graphmem.settings import Settings
from graphmem.store.embedded import EmbeddedFalkorDB
from graphmem.store.falkordb import FalkorStore
from graphmem.store.supervisor import State
from tests.integration.conftest import GraphQLClient, serve

KEYS_REQUIRED = Settings.model_validate(dict(auth="required", host="0.0.0.0", mode="production"))
REMEMBER = 'mutation { remember(input: {content: "%s"}) { memory { id } } }'


@pytest.fixture
def json_logs() -> Iterator[io.StringIO]:
    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        yield buffer
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def test_a_keyed_request_during_an_outage_gets_a_generic_503(
    data_dir: Path, json_logs: io.StringIO
):
    server = EmbeddedFalkorDB(data_dir / "db")
    socket_path = server.start()
    db = FalkorDB(unix_socket_path=str(socket_path), socket_timeout=5.0)
    gm = GraphMem(FalkorStore(db, "outage"))
    _, token = gm.keys.create("agent", ["default"], Role.WRITE)
    with serve(create_app(gm, KEYS_REQUIRED)) as http:
        assert server.stop()
        response = http.post(
            "/graphql",
            json={"query": "{ __typename }"},
            headers={"authorization": f"Bearer {token}", "x-request-id": "outage-1"},
        )
    db.close()

    assert response.status_code == 503
    (error,) = response.json()["errors"]
    assert error == {
        "message": "The graph database is unavailable; try again shortly",
        "extensions": {"code": "STORE_UNAVAILABLE"},
    }
    for internal in (str(data_dir), "sock", "Error ", "redis"):
        assert internal not in response.text
    lines = [json.loads(line) for line in json_logs.getvalue().splitlines()]
    detail = [line for line in lines if str(socket_path) in line["message"]]
    assert detail and all(line["request_id"] == "outage-1" for line in detail)


@pytest.mark.parametrize(
    "body",
    [b'{"query": "{ __typename }", "x": "\xff"}', b"\xff\xfe", b"\xc3\x28"],
    ids=["inside a string", "utf-16 mark", "bad continuation"],
)
def test_a_body_that_is_not_utf8_is_a_400(gql: GraphQLClient, graph_snapshot, body: bytes):
    before = graph_snapshot()
    response = gql.http.post("/graphql", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 400
    assert "Traceback" not in response.text and "Internal" not in response.text
    assert graph_snapshot() == before


@contextlib.contextmanager
def tmpfs(options: str) -> Iterator[Path]:
    """A small filesystem of its own, to fill or to mount read-only."""
    path = Path(tempfile.mkdtemp(dir="/tmp", prefix="gmfs-"))
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)], capture_output=True
    )
    if mounted.returncode != 0:
        path.rmdir()
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)
        path.rmdir()


def fill(directory: Path) -> None:
    with open(directory / "filler", "wb") as filler, contextlib.suppress(OSError):
        while True:
            filler.write(b"\0" * 65536)
            filler.flush()


FULL_DISK_SECONDS = 30.0
"""How long writes are tried on a full disk before the test gives up."""


def written_until_refused(gql: GraphQLClient) -> list[dict[str, Any]]:
    """Write until the server refuses, and return its errors: in balanced mode
    the database acknowledges writes it holds in memory, and while its once-a-
    second flush is postponed (an fsync still running) it tries no disk at all,
    so how many writes go through first depends on where that second stands."""
    deadline = time.monotonic() + FULL_DISK_SECONDS
    n = 0
    while time.monotonic() < deadline:
        errors = gql.execute(REMEMBER % f"after the disk filled {n}").get("errors", [])
        if errors:
            return list(errors)
        n += 1
        time.sleep(0.05)
    return []


def test_a_full_disk_in_balanced_mode_is_storage_full():
    with tmpfs("size=4m") as disk:
        settings = Settings(data_dir=disk, embedder="none", durability="balanced")
        with GraphMem.open(settings) as gm, serve(create_app(gm)) as http:
            gql = GraphQLClient(http)
            kept = gql.data(REMEMBER % "written before the disk filled")
            fill(disk)
            errors = written_until_refused(gql)
            assert errors, "no write failed on a full disk"
            assert {e["extensions"]["code"] for e in errors} == {"STORAGE_FULL"}
            assert all(e["message"].startswith("disk full") for e in errors)
            assert str(disk) not in str(errors)
            # Reads go on, and writes come back once there is space again.
            memory_id = kept["remember"]["memory"]["id"]
            read = gql.data("query ($id: ID!) { memory(id: $id) { id } }", {"id": memory_id})
            assert read == {"memory": {"id": memory_id}}
            (disk / "filler").unlink()
            assert gql.data(REMEMBER % "space again")["remember"]["memory"]["id"]


def serve_command(data_dir: Path, port: int) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    env |= {"GRAPHMEM_DATA_DIR": str(data_dir), "GRAPHMEM_EMBEDDER": "none"}
    return subprocess.run(
        [sys.executable, "-m", "graphmem", "serve", "--port", str(port)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_serve_on_a_read_only_data_dir_is_one_line():
    with tmpfs("ro,size=1m") as read_only:
        result = serve_command(read_only / "data", 0)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert lines == [
        f"error [STORE_UNAVAILABLE]: the data directory {read_only / 'data'} is not writable "
        "(Read-only file system); choose another GRAPHMEM_DATA_DIR or fix its permissions"
    ], result.stderr


def test_serve_on_a_busy_port_says_so(data_dir: Path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = serve_command(data_dir, port)
    assert result.returncode == 1
    # The holder is named: this test's own process, which listens there.
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(
        f"error: port {port} is in use on 127.0.0.1; it is pid {os.getpid()} ("
    ), line
    assert line.endswith(
        f"): stop it (Ctrl-C where it runs, or kill {os.getpid()}), or choose another "
        f"port: set GRAPHMEM_PORT={port + 1} or pass --port {port + 1}"
    ), line
    assert not (data_dir / "falkordb.sock").exists(), "the database started for nothing"


def test_a_full_disk_in_strict_mode_is_named_in_the_log(caplog: pytest.LogCaptureFixture):
    """A strict server that cannot fsync exits without a word in its own log
    (the disk is full); the supervisor's lines and the FATAL one name the cause."""
    with tmpfs("size=4m") as disk:
        settings = Settings(data_dir=disk, embedder="none", durability="strict")
        with caplog.at_level(logging.WARNING), GraphMem.open(settings) as gm:
            gm.remember({"content": "written before the disk filled"})
            fill(disk)
            supervisor = gm.store._server.supervisor
            deadline = time.monotonic() + 90
            n = 0
            while supervisor.state is not State.FAILED and time.monotonic() < deadline:
                with contextlib.suppress(GraphMemError):
                    gm.remember({"content": f"after the disk filled {n}"})
                n += 1
                time.sleep(0.2)
            assert supervisor.state is State.FAILED, "the server kept dying and was given up"
        fatal = [r.getMessage() for r in caplog.records if r.levelno == logging.CRITICAL]
        assert fatal and "No space left on device" in fatal[0]
        died = [r.getMessage() for r in caplog.records if "died" in r.getMessage()]
        assert any("No space left on device" in line for line in died)
