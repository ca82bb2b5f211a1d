"""The embedded database is supervised: killed, it comes back on the same data,
and a server that cannot keep it up exits non-zero.

Everything here kills a real FalkorDB server with SIGKILL, as the OOM killer
would, and talks to graphmem through its Python API or a real ``graphmem
serve`` process over HTTP.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
import redis

from benchmarks.server_process import ServerProcess
from graphmem.api import GraphMem
from graphmem.domain.errors import StoreUnavailableError
from graphmem.settings import Settings
from graphmem.store.embedded import PID_NAME, SOCKET_NAME, EmbeddedFalkorDB
from graphmem.store.supervisor import State, Supervisor

SERVE_ENV = {
    "GRAPHMEM_DURABILITY": "strict",
    "GRAPHMEM_EMBEDDER": "none",
    "GRAPHMEM_SCHEDULER": "false",
}
REMEMBER = "mutation ($input: MemoryInput!) { remember(input: $input) { memory { id content } } }"
READ = "query ($id: ID!) { memory(id: $id) { id content } }"


@pytest.fixture
def short_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("sup")


def database_pid(data_dir: Path) -> int:
    return int((data_dir / PID_NAME).read_text())


def kill_database(data_dir: Path) -> int:
    """SIGKILL the server and wait until the process is gone; its pid."""
    pid = database_pid(data_dir)
    os.kill(pid, signal.SIGKILL)
    wait_until(lambda: not _running(pid), "the killed server to go")
    return pid


def wait_until(condition: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_a_killed_database_comes_back_with_every_acknowledged_write(short_dir: Path):
    with GraphMem.open(Settings(data_dir=short_dir, durability="strict", embedder="none")) as gm:
        written = [gm.remember({"content": f"before the kill {n}"}) for n in range(50)]
        old = kill_database(short_dir)

        # The same instance answers again: no reopening, no person involved.
        assert [gm.get(m.id).content for m in written] == [m.content for m in written]
        after = gm.remember({"content": "after the kill"})
        assert gm.get(after.id).content == "after the kill"
        assert database_pid(short_dir) != old
        assert gm.store._server.supervisor.state is State.SERVING

        # And again: each death is noticed, not only the first.
        kill_database(short_dir)
        assert gm.get(after.id).content == "after the kill"


def test_a_write_arriving_during_the_restart_is_applied_once(short_dir: Path):
    with GraphMem.open(Settings(data_dir=short_dir, durability="strict", embedder="none")) as gm:
        gm.remember({"content": "warm"})
        kill_database(short_dir)
        memory = gm.remember({"content": "sent while the database was down"})
        matches = [m for m in gm.list(first=100).items if m.content == memory.content]
        assert [m.id for m in matches] == [memory.id]


def test_repeated_deaths_end_in_one_fatal_line(short_dir: Path, caplog: pytest.LogCaptureFixture):
    server = EmbeddedFalkorDB(short_dir)
    server.start()
    reasons: list[str] = []
    supervisor = Supervisor(
        server, name="test", limit=2, window=600.0, backoff=(0.0,), on_give_up=reasons.append
    )
    server.supervisor = supervisor.start()
    try:
        with caplog.at_level(logging.WARNING, logger="graphmem.store.supervisor"):
            for _ in range(2):
                old = kill_database(short_dir)
                wait_until(lambda old=old: server.pid() not in (None, old), "the restarted server")
                assert supervisor.await_serving(30)
            kill_database(short_dir)
            wait_until(lambda: supervisor.state is State.FAILED, "the supervisor to give up")
        assert reasons and "died 2 times within 600 s" in reasons[0]
        fatal = [r for r in caplog.records if r.levelno == logging.CRITICAL]
        assert len(fatal) == 1 and fatal[0].getMessage().startswith("FATAL:")
        assert not supervisor.await_serving(0)
        assert supervisor.reason == "the graph database stopped and could not be restarted"
        assert server.pid() is None
    finally:
        server.stop(force=True)


def test_a_stray_client_does_not_keep_the_database_running(short_dir: Path):
    gm = GraphMem.open(Settings(data_dir=short_dir, embedder="none"))
    pid = database_pid(short_dir)
    stray = redis.Redis(unix_socket_path=str(short_dir / SOCKET_NAME), client_name="redis-cli")
    assert stray.ping()
    assert len(stray.client_list()) >= 2  # graphmem's connection and the stray one
    gm.close()
    wait_until(lambda: not _running(pid), "the database to stop")
    assert not (short_dir / SOCKET_NAME).exists()
    stray.close()


def test_a_graphmem_process_that_crashed_does_not_keep_the_database_running(short_dir: Path):
    """The users' lock of a dead process is gone with it."""
    import subprocess
    import sys

    script = (
        "import os, signal\n"
        "from graphmem import GraphMem, Settings\n"
        f"gm = GraphMem.open(Settings(data_dir={str(short_dir)!r}, embedder='none'))\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    crashed = subprocess.run([sys.executable, "-c", script], timeout=60)
    assert crashed.returncode == -signal.SIGKILL
    pid = database_pid(short_dir)
    assert _running(pid), "the crashed process left its database running"
    with GraphMem.open(Settings(data_dir=short_dir, embedder="none")) as gm:
        assert database_pid(short_dir) == pid  # reused, not restarted
        gm.remember({"content": "x"})
    wait_until(lambda: not _running(pid), "the database to stop")


def test_strict_raises_a_server_a_balanced_process_started(short_dir: Path):
    balanced = GraphMem.open(Settings(data_dir=short_dir, embedder="none"))
    raw = redis.Redis(unix_socket_path=str(short_dir / SOCKET_NAME), decode_responses=True)
    assert raw.config_get("appendfsync") == {"appendfsync": "everysec"}
    strict = GraphMem.open(Settings(data_dir=short_dir, embedder="none", durability="strict"))
    assert raw.config_get("appendfsync") == {"appendfsync": "always"}

    # The balanced process restarts the server after a crash, at everysec; the
    # strict one raises it again before its next statement runs.
    strict.store._server.supervisor.stop()
    strict.store._server.supervisor = None
    kill_database(short_dir)
    balanced.remember({"content": "restarted by the balanced process"})
    raw.close()
    raw = redis.Redis(unix_socket_path=str(short_dir / SOCKET_NAME), decode_responses=True)
    assert raw.config_get("appendfsync") == {"appendfsync": "everysec"}
    strict.remember({"content": "written at always"})
    assert raw.config_get("appendfsync") == {"appendfsync": "always"}
    raw.close()
    strict.close()
    balanced.close()


# -- graphmem serve --------------------------------------------------------------


class Writer(threading.Thread):
    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.acknowledged: dict[str, str] = {}
        self.stop = threading.Event()

    def run(self) -> None:
        with httpx.Client(base_url=self.url, timeout=30.0) as http:
            for n in range(100_000):
                if self.stop.is_set():
                    return
                variables = {"input": {"content": f"served write {n}"}}
                try:
                    body = http.post(
                        "/graphql", json={"query": REMEMBER, "variables": variables}
                    ).json()
                except (httpx.TransportError, ValueError):
                    continue
                if not body.get("errors"):
                    memory = body["data"]["remember"]["memory"]
                    self.acknowledged[memory["id"]] = memory["content"]


@pytest.fixture
def server(short_dir: Path) -> Iterator[ServerProcess]:
    with ServerProcess(short_dir, env=SERVE_ENV) as process:
        yield process


def test_serve_answers_again_after_its_database_is_killed(server: ServerProcess, short_dir: Path):
    writer = Writer(server.url)
    writer.start()
    wait_until(lambda: len(writer.acknowledged) >= 40, "writes before the kill")
    kill_database(short_dir)
    wait_until(lambda: httpx.get(f"{server.url}/readyz").status_code == 200, "readiness")
    count = len(writer.acknowledged)
    wait_until(lambda: len(writer.acknowledged) >= count + 40, "writes after the kill")
    writer.stop.set()
    writer.join(30)

    with httpx.Client(base_url=server.url, timeout=30.0) as http:
        for memory_id, content in writer.acknowledged.items():
            body = http.post("/graphql", json={"query": READ, "variables": {"id": memory_id}})
            assert body.json()["data"]["memory"] == {"id": memory_id, "content": content}
    assert server.terminate() == 0, server.log_tail()


def test_serve_exits_non_zero_when_its_database_keeps_dying(server: ServerProcess, short_dir: Path):
    for _ in range(5):
        old = kill_database(short_dir)
        wait_until(lambda old=old: _restarted(short_dir, old), "the restarted server")
    kill_database(short_dir)
    assert server.process is not None
    assert server.process.wait(60) == 69, server.log_tail()
    log = server.log_tail(50)
    assert "FATAL: the embedded FalkorDB server of" in log
    assert "Traceback" not in log


def _restarted(data_dir: Path, old: int) -> bool:
    try:
        pid = database_pid(data_dir)
    except (OSError, ValueError):
        return False
    return pid != old and _running(pid) and (data_dir / SOCKET_NAME).exists()


def test_an_outage_is_store_unavailable_without_detail(short_dir: Path):
    """With supervision off and the database gone, calls fail fast and plainly."""
    gm = GraphMem.open(Settings(data_dir=short_dir, embedder="none"))
    server = gm.store._server
    server.supervisor.stop()
    server.supervisor = None
    kill_database(short_dir)
    with pytest.raises(StoreUnavailableError, match="did not answer"):
        gm.remember({"content": "nowhere to go"})
    gm.close()
