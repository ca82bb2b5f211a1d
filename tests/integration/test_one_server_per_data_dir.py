"""One store per data directory, with real ``graphmem serve`` processes on
127.0.0.1: a second server of the directory on another store (any backend) is
refused before it binds its port or opens its store, naming the one already
there; one on the same store serves beside it and leaves it the address; one
beside it on a data directory of its own runs, and stopping it leaves the
first's address alone; two started at once on two stores leave exactly one
serving; a server killed with SIGKILL leaves a directory the next one takes
over; and a command whose settings name another store than the server's acts
on its own and says so."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner, Result

import graphmem.cli.memories  # noqa: F401 (registers the commands on the app)
from benchmarks.server_process import ServerProcess
from graphmem.cli import app
from graphmem.server import discovery
from graphmem.server.discovery import ADDRESS_FILE
from tests.integration.test_cli import MEMORY_ID, free_port
from tests.integration.test_cli_server_first import env_for, operations

QUICK = {"GRAPHMEM_EMBEDDER": "none", "GRAPHMEM_SCHEDULER": "false"}


@pytest.fixture
def other_dir() -> Iterator[Path]:
    """A second data directory, short and under /tmp like ``data_dir`` (the
    embedded server's socket lives in it)."""
    path = Path(tempfile.mkdtemp(dir="/tmp", prefix="gm-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def run(data_dir: Path, *args: str, **env: str) -> Result:
    """A command as a person runs it in a shell with only these settings."""
    unset: dict[str, str | None] = {k: None for k in os.environ if k.startswith("GRAPHMEM_")}
    return CliRunner().invoke(app, list(args), env={**unset, **env_for(data_dir), **QUICK, **env})


def ok(data_dir: Path, *args: str, **env: str) -> Result:
    result = run(data_dir, *args, **env)
    assert result.exit_code == 0, result.output
    return result


def serve(data_dir: Path, port: int, **env: str) -> subprocess.Popen[str]:
    """``graphmem serve`` on ``port``, its stderr kept for the test to read."""
    return subprocess.Popen(
        [sys.executable, "-m", "graphmem", "serve", "--port", str(port)],
        env={**env_for(data_dir), **QUICK, **env},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def refused(data_dir: Path, port: int, **env: str) -> str:
    """What a server that must not start said (one line), once it has exited 1."""
    process = serve(data_dir, port, **env)
    _, said = process.communicate(timeout=120)
    assert process.returncode == 1, said
    assert said.strip().count("\n") == 0, said
    return " ".join(said.split())


def embedded(data_dir: Path) -> str:
    return f"embedded FalkorDB in {data_dir.resolve()}, graph graphmem"


@pytest.mark.slow
def test_a_second_server_of_the_data_directory_is_refused_and_the_commands_keep_to_the_first(
    data_dir: Path, other_dir: Path
) -> None:
    with ServerProcess(data_dir, env=QUICK) as first:
        address = (data_dir / ADDRESS_FILE).read_text()
        assert json.loads(address) == {
            "pid": first.pid,
            "url": f"{first.url}/graphql",
            "backend": "falkordb",
            "store": embedded(data_dir),
        }
        nowhere = f"bolt://127.0.0.1:{free_port()}"
        for port, env, store in (
            # Its port is taken too, and the directory is said first.
            (
                first.port,
                {"GRAPHMEM_GRAPH": "other"},
                f"embedded FalkorDB in {data_dir.resolve()}, graph other",
            ),
            (
                free_port(),
                {"GRAPHMEM_BACKEND": "neo4j", "GRAPHMEM_NEO4J_URI": nowhere},
                f"Neo4j at {nowhere}, database neo4j",
            ),
        ):
            said = refused(data_dir, port, **env)
            assert (
                f"error: {data_dir} is already served by graphmem serve pid {first.pid} at "
                f"{first.url}/graphql (falkordb: {embedded(data_dir)}), and this one would "
                f"serve {store}: two stores behind one data directory would split the commands"
            ) in said
            assert (
                f"graphmem --data-dir DIR serve --port {port + 1} (or GRAPHMEM_DATA_DIR=DIR)"
                in said
            )
            # Neither its port nor its store was tried.
            assert "is in use" not in said and "STORE_UNAVAILABLE" not in said, said
        assert (data_dir / ADDRESS_FILE).read_text() == address

        # On the same store a second server runs beside it (several servers on one
        # database), and the directory's address stays the first's.
        with ServerProcess(data_dir, env=QUICK) as twin:
            assert f"served by graphmem serve pid {first.pid} at {first.url}/graphql" in (
                " ".join(twin.log_tail().split())
            )
            assert (data_dir / ADDRESS_FILE).read_text() == address
        assert (data_dir / ADDRESS_FILE).read_text() == address

        # The commands of the directory still go to the first server.
        ok(data_dir, "remember", "the first server keeps the ledger", "--project", "one")
        assert operations(first.url).get("CliRemember") == 1

        # Beside it, on a data directory of its own: both serve, each its own.
        with ServerProcess(other_dir, env=QUICK) as beside:
            ok(other_dir, "remember", "the second server keeps the queue", "--project", "two")
            assert operations(beside.url).get("CliRemember") == 1
            assert operations(first.url).get("CliRemember") == 1
            assert discovery.server_url(data_dir) == f"{first.url}/graphql"
            assert discovery.server_url(other_dir) == f"{beside.url}/graphql"
        # Stopping the one beside removed its own address, not the first's.
        assert not (other_dir / ADDRESS_FILE).exists()
        assert (data_dir / ADDRESS_FILE).read_text() == address
        listed = ok(data_dir, "list", "--project", "one").stdout
        assert "the first server keeps the ledger" in listed
    assert not (data_dir / ADDRESS_FILE).exists()


def test_two_servers_of_two_stores_started_at_once_on_one_data_directory_leave_one_serving(
    data_dir: Path,
) -> None:
    ports = [free_port(), free_port()]
    processes = [serve(data_dir, ports[0]), serve(data_dir, ports[1], GRAPHMEM_GRAPH="other")]
    try:
        deadline = time.monotonic() + 120
        while all(p.poll() is None for p in processes) and time.monotonic() < deadline:
            time.sleep(0.05)
        ended = [p for p in processes if p.poll() is not None]
        assert len(ended) == 1, [p.communicate() for p in ended]
        (loser,) = ended
        (winner,) = [p for p in processes if p is not loser]
        _, said = loser.communicate()
        assert loser.returncode == 1, said
        assert f"is already served by graphmem serve pid {winner.pid} at " in " ".join(said.split())
        url = f"http://127.0.0.1:{ports[processes.index(winner)]}"
        while time.monotonic() < deadline and discovery.server_url(data_dir) is None:
            assert winner.poll() is None, winner.communicate()
            time.sleep(0.05)
        assert discovery.server_url(data_dir) == f"{url}/graphql"
        assert httpx.get(f"{url}/readyz", timeout=30).status_code == 200
    finally:
        for process in processes:
            if process.poll() is None:
                process.terminate()
            process.communicate(timeout=60)
    assert {p.returncode for p in processes} == {0, 1}
    assert not (data_dir / ADDRESS_FILE).exists()


def test_a_server_killed_with_sigkill_leaves_a_directory_the_next_one_takes(
    data_dir: Path,
) -> None:
    first = ServerProcess(data_dir, env=QUICK).start()
    left = json.loads((data_dir / ADDRESS_FILE).read_text())
    first.kill()  # the server and its database: no way out runs
    assert json.loads((data_dir / ADDRESS_FILE).read_text()) == left

    # The commands pass the dead address over and open the store themselves.
    written = ok(data_dir, "remember", "deploys happen on Tuesdays")
    (memory_id,) = MEMORY_ID.findall(written.stdout)
    assert memory_id in ok(data_dir, "list").stdout

    with ServerProcess(data_dir, env=QUICK) as second:
        address = json.loads((data_dir / ADDRESS_FILE).read_text())
        assert address["pid"] == second.pid != left["pid"]
        found = json.loads(ok(data_dir, "search", "deploys Tuesdays", "--json").stdout)
        assert [h["memory"]["id"] for h in found["hits"]] == [memory_id]
        assert operations(second.url).get("CliSearch") == 1


def test_a_garbled_or_unwritable_address_file(data_dir: Path) -> None:
    (data_dir / ADDRESS_FILE).write_text('{"pid": 12, "url": ')
    ok(data_dir, "remember", "invoices go out on the first")  # garbled: read the store itself
    with ServerProcess(data_dir, env=QUICK) as server:
        assert json.loads((data_dir / ADDRESS_FILE).read_text())["pid"] == server.pid
    # A data directory the server cannot claim is one line, not a traceback.
    (data_dir / discovery.LOCK_FILE).unlink()
    (data_dir / discovery.LOCK_FILE).mkdir()
    said = refused(data_dir, free_port())
    assert f"error [STORE_UNAVAILABLE]: the data directory {data_dir} cannot be used: " in said


def test_a_command_whose_settings_name_another_store_acts_on_its_own_and_says_so(
    data_dir: Path,
) -> None:
    other = {"GRAPHMEM_GRAPH": "other"}
    with ServerProcess(data_dir, env=QUICK) as server:
        # remember (server-first) and list (local) with the same settings: one store.
        written = run(data_dir, "remember", "kept in the other graph", "--project", "p", **other)
        assert written.exit_code == 0, written.output
        note = (
            f"graphmem: acting on embedded FalkorDB in {data_dir.resolve()}, graph other, the "
            f"store this command's settings name, not on the store of the server of {data_dir} "
            f"(pid {server.pid} at {server.url}/graphql (falkordb: {embedded(data_dir)}))"
        )
        assert note in " ".join(written.stderr.split())
        listed = run(data_dir, "list", "--project", "p", **other)
        assert "kept in the other graph" in listed.stdout
        assert note in " ".join(listed.stderr.split())
        assert operations(server.url).get("CliRemember") is None
        # The server's store holds none of it, and a command on that store says nothing more.
        missing = run(data_dir, "search", "kept in the other graph", "--project", "p")
        assert missing.exit_code == 2, missing.output
        assert "no project named 'p'" in missing.stderr
        assert "graphmem: acting on" not in missing.stderr
        assert operations(server.url).get("CliProjects") == 1


@pytest.mark.slow
def test_a_neo4j_server_runs_beside_the_embedded_one_on_a_data_directory_of_its_own(
    data_dir: Path, other_dir: Path, neo4j_env: dict[str, str]
) -> None:
    """The README's Neo4j lines while ``make serve`` runs: refused on the data
    directory in use, served beside it on another, each command on one store."""
    project = f"beside-{uuid.uuid4().hex[:8]}"
    with ServerProcess(data_dir, env=QUICK) as first:
        said = refused(data_dir, free_port(), **neo4j_env)
        assert f"is already served by graphmem serve pid {first.pid} at {first.url}/graphql" in said
        with ServerProcess(other_dir, env={**QUICK, **neo4j_env}) as beside:
            address = json.loads((other_dir / ADDRESS_FILE).read_text())
            assert address["backend"] == "neo4j"
            assert address["store"] == f"Neo4j at {neo4j_env['GRAPHMEM_NEO4J_URI']}, database neo4j"
            # With the server's settings, every command acts on Neo4j.
            written = ok(other_dir, "remember", "kept in Neo4j", "--project", project, **neo4j_env)
            (memory_id,) = MEMORY_ID.findall(written.stdout)
            assert operations(beside.url).get("CliRemember") == 1
            listed = ok(other_dir, "list", "--project", project, **neo4j_env)
            assert memory_id in listed.stdout and "graphmem: acting on" not in listed.stderr
            # Without them, a command acts on the embedded store its settings name, and says so.
            plain = ok(other_dir, "list")
            assert "no memories match" in plain.stdout
            assert (
                f"graphmem: acting on {embedded(other_dir)}, the store this command's settings "
                f"name, not on the store of the server of {other_dir} (pid {beside.pid} at "
                f"{beside.url}/graphql (neo4j: {address['store']})); to act on that one, use "
                "the server's settings (GRAPHMEM_BACKEND=neo4j and its store's)"
            ) in " ".join(plain.stderr.split())
            ok(other_dir, "forget", memory_id, "--project", project, **neo4j_env)
            assert operations(beside.url).get("CliForget") == 1
            assert operations(first.url).get("CliRemember") is None
        assert json.loads((data_dir / ADDRESS_FILE).read_text())["pid"] == first.pid
