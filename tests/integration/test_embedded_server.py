"""The embedded FalkorDB server's life: start, reuse, crash recovery, shutdown."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from graphmem.api import GraphMem
from graphmem.settings import Settings
from graphmem.store.embedded import EmbeddedFalkorDB


@pytest.fixture
def short_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("db")


def server_pid(data_dir: Path) -> int:
    return int((data_dir / "falkordb.pid").read_text())


def test_data_survives_a_clean_restart(short_dir: Path):
    settings = Settings(data_dir=short_dir)
    with GraphMem.open(settings) as gm:
        memory = gm.remember({"content": "kept across restarts", "tags": ["aof"]})
    assert not (short_dir / "falkordb.sock").exists(), "the last user shuts the server down"
    with GraphMem.open(settings) as gm:
        assert gm.get(memory.id).tags == ["aof"]


def test_a_second_process_reuses_the_running_server(short_dir: Path):
    settings = Settings(data_dir=short_dir)
    first = GraphMem.open(settings)
    pid = server_pid(short_dir)
    memory = first.remember({"content": "shared"})
    script = textwrap.dedent(
        f"""
        from graphmem import GraphMem, Settings
        with GraphMem.open(Settings(data_dir={str(short_dir)!r})) as gm:
            print(gm.get({memory.id!r}).content)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "shared"
    # The second process left; the first still uses the same server.
    assert server_pid(short_dir) == pid
    assert first.get(memory.id).content == "shared"
    first.close()
    assert not (short_dir / "falkordb.sock").exists()


def test_a_user_leaving_does_not_stop_the_server_under_another(short_dir: Path):
    settings = Settings(data_dir=short_dir)
    first = GraphMem.open(settings)
    second = GraphMem.open(settings)
    first.close()
    assert second.remember({"content": "still served"}).content == "still served"
    second.close()
    assert not (short_dir / "falkordb.sock").exists()


def test_recovers_after_the_server_is_killed(short_dir: Path):
    settings = Settings(data_dir=short_dir, durability="strict")
    gm = GraphMem.open(settings)
    memory = gm.remember({"content": "acknowledged before the crash"})
    # Unsupervised, as when graphmem itself died too: the next start recovers.
    gm.store._server.supervisor.stop()
    os.kill(server_pid(short_dir), signal.SIGKILL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and gm.store._server._process.poll() is None:
        time.sleep(0.05)
    assert (short_dir / "falkordb.sock").exists(), "a crash leaves the socket behind"
    with GraphMem.open(settings) as again:
        assert again.get(memory.id).content == "acknowledged before the crash"
    # The crashed server's user leaves last and shuts down the one that recovered.
    gm.close()
    assert not (short_dir / "falkordb.sock").exists()


def test_stale_pid_of_an_unrelated_process_is_ignored(short_dir: Path):
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        (short_dir / "falkordb.pid").write_text(str(sleeper.pid))
        (short_dir / "falkordb.sock").write_text("")
        with GraphMem.open(Settings(data_dir=short_dir)) as gm:
            assert gm.remember({"content": "x"}).content == "x"
    finally:
        sleeper.kill()
        sleeper.wait()


def test_unusable_data_dir_is_a_clear_error(tmp_path: Path):
    deep = tmp_path / ("d" * 90)
    server = EmbeddedFalkorDB(deep)
    with pytest.raises(Exception, match="too long for a unix socket"):
        server.start()


def test_unknown_durability_is_refused(short_dir: Path):
    with pytest.raises(ValueError, match="durability"):
        EmbeddedFalkorDB(short_dir, durability="yolo")


def _history(server: EmbeddedFalkorDB, updates: int) -> None:
    """One node rewritten ``updates`` times: a long history over little data."""
    from falkordb import FalkorDB

    db = FalkorDB(unix_socket_path=str(server.socket_path))
    graph = db.select_graph("history")
    graph.query("MERGE (c:Counter {id: 1}) ON CREATE SET c.n = 0")
    for _ in range(updates):
        graph.query(
            "MATCH (c:Counter {id: 1}) SET c.n = c.n + 1, c.note = $note", {"note": "x" * 64}
        )
    db.close()


def _count(server: EmbeddedFalkorDB) -> int:
    from falkordb import FalkorDB

    db = FalkorDB(unix_socket_path=str(server.socket_path))
    try:
        return db.select_graph("history").query("MATCH (c:Counter) RETURN c.n").result_set[0][0]
    finally:
        db.close()


def _base_generation(data_dir: Path) -> int:
    manifest = (data_dir / "appendonlydir" / "appendonly.aof.manifest").read_text()
    (base,) = [line for line in manifest.splitlines() if "type b" in line]
    return int(base.split()[1].split(".")[2])


def _rewritten(data_dir: Path, before: int) -> bool:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if _base_generation(data_dir) > before:
            return True
        time.sleep(0.1)
    return False


def test_a_history_longer_than_the_data_is_compacted(
    short_dir: Path, monkeypatch: pytest.MonkeyPatch
):
    """Restart time follows the data, not its history: a store whose append-only
    file grew long before (here: under a server that never rewrote it) is
    rewritten when a server starts on it, and a running one rewrites by itself."""
    from graphmem.store import embedded

    monkeypatch.setattr(embedded, "AOF_REWRITE_MIN_BYTES", 1 << 30)
    server = EmbeddedFalkorDB(short_dir)
    server.start()
    _history(server, 1500)
    assert server.stop()
    first = _base_generation(short_dir)
    monkeypatch.setattr(embedded, "AOF_REWRITE_MIN_BYTES", 64 << 10)
    server = EmbeddedFalkorDB(short_dir)
    server.start()
    try:
        assert _rewritten(short_dir, first), "the start rewrote the long history"
        assert _count(server) == 1500
        second = _base_generation(short_dir)
        _history(server, 1500)
        assert _rewritten(short_dir, second), "the running server rewrote it again by itself"
    finally:
        assert server.stop()
    server = EmbeddedFalkorDB(short_dir)
    server.start()
    try:
        assert _count(server) == 3000, "nothing was lost to the rewrites"
    finally:
        server.stop()


def test_the_replayed_part_is_bounded_by_a_size_not_by_the_snapshot(
    short_dir: Path, monkeypatch: pytest.MonkeyPatch
):
    """A large store is rewritten once the statements since its snapshot reach
    the bound, long before they would outweigh the snapshot (where Redis's own
    rule waits), and the file holds each write's effects, not its text."""
    from falkordb import FalkorDB

    from graphmem.store import embedded

    monkeypatch.setattr(embedded, "AOF_REWRITE_MIN_BYTES", 64 << 10)
    server = EmbeddedFalkorDB(short_dir)
    server.start()
    try:
        db = FalkorDB(unix_socket_path=str(server.socket_path))
        texts = [os.urandom(500).hex() for _ in range(3000)]
        db.select_graph("big").query(
            "UNWIND range(0, size($texts) - 1) AS i CREATE (:Note {id: i, text: $texts[i]})",
            {"texts": texts},
        )
        db.close()
        first = _base_generation(short_dir)
        server.tend()  # the 3 MB just written are statements past the bound
        assert _rewritten(short_dir, first)
        _wait_rewrite_done(server)
        second = _base_generation(short_dir)
        snapshot = embedded._aof_bytes(short_dir, "*.base.*")
        _history(server, 1000)
        history = embedded._aof_bytes(short_dir, "*.incr.aof")
        assert 64 << 10 <= history < snapshot / 10
        server._rewrite_asked = -embedded.REWRITE_RETRY_SECONDS  # no earlier ask to wait out
        server.tend()
        assert _rewritten(short_dir, second), "rewritten at the bound, not at the snapshot's size"
        incr = (short_dir / "appendonlydir").glob("*.incr.aof")
        _history(server, 1)
        text = b"".join(path.read_bytes() for path in incr)
        assert b"GRAPH.EFFECT" in text and b"GRAPH.QUERY" not in text
        assert _count(server) == 1001
    finally:
        server.stop()


def _wait_rewrite_done(server: EmbeddedFalkorDB) -> None:
    import redis

    client = redis.Redis(unix_socket_path=str(server.socket_path))
    try:
        deadline = time.monotonic() + 30
        while int(client.info("persistence")["aof_rewrite_in_progress"]):
            assert time.monotonic() < deadline, "the rewrite finished"
            time.sleep(0.05)
    finally:
        client.close()


def _servers_of(data_dir: Path) -> list[int]:
    """The redis-server processes whose command line names ``data_dir``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if b"redis-server" in cmdline and str(data_dir).encode() in cmdline:
            found.append(int(entry.name))
    return found


def test_one_server_per_directory_even_while_it_loads(
    short_dir: Path, monkeypatch: pytest.MonkeyPatch
):
    """A server loading a long append-only file does not answer yet; a start
    waits for it as long as it loads (here past a stall limit of 1 s: on a busy
    machine a process starved of the CPU makes no progress for a few tenths of
    a second), a second start on the directory meanwhile waits for it instead
    of starting another server on the same files, and a server killed while
    loading leaves nothing behind that stops the next start."""
    import threading

    from graphmem.store import embedded

    monkeypatch.setattr(embedded, "AOF_REWRITE_MIN_BYTES", 1 << 30)
    server = EmbeddedFalkorDB(short_dir)
    server.start()
    _history(server, 40000)
    assert server.stop()

    def start(into: list) -> None:
        other = EmbeddedFalkorDB(short_dir, startup_timeout=1.0)
        try:
            other.start()
            into.append(other)
        except Exception as exc:  # reported to the test thread
            into.append(exc)

    first: list = []
    loading = threading.Thread(target=start, args=(first,))
    loading.start()
    deadline = time.monotonic() + 30
    while not _servers_of(short_dir) and time.monotonic() < deadline:
        time.sleep(0.01)
    second: list = []
    waiting = threading.Thread(target=start, args=(second,))
    waiting.start()
    loading.join(60)
    waiting.join(60)
    assert len(_servers_of(short_dir)) == 1, "the second start reused the loading server"
    assert isinstance(first[0], EmbeddedFalkorDB) and isinstance(second[0], EmbeddedFalkorDB)
    assert _count(first[0]) == 40000
    second[0].stop()
    assert first[0].stop()

    # Killed while loading: the next start finds the directory free and loads it.
    loading = threading.Thread(target=start, args=(first,))
    first.clear()
    loading.start()
    deadline = time.monotonic() + 30
    while not (pids := _servers_of(short_dir)) and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(pids[0], signal.SIGKILL)
    loading.join(60)
    assert not _servers_of(short_dir)
    again = EmbeddedFalkorDB(short_dir)
    again.start()
    try:
        assert _count(again) == 40000
    finally:
        again.stop()


class HangsOnce(EmbeddedFalkorDB):
    """A server whose first process stops (SIGSTOP) as soon as it is started,
    as a start that hangs while loading does: no CPU time, no answer."""

    hung: list[int] = []

    def _launch(self) -> bool:
        launched = super()._launch()
        if launched and not self.hung and self._process is not None:
            os.kill(self._process.pid, signal.SIGSTOP)
            self.hung.append(self._process.pid)
        return launched


def test_a_start_that_hangs_while_loading_is_started_again(
    short_dir: Path, caplog: pytest.LogCaptureFixture
):
    server = HangsOnce(short_dir, startup_timeout=1.0)
    server.start()
    try:
        (hung,) = server.hung
        assert server._answers()
        assert _servers_of(short_dir) == [server._process.pid]  # type: ignore[union-attr]
        assert hung not in _servers_of(short_dir)
        assert "hung loading" in caplog.text
    finally:
        assert server.stop()


def test_a_server_that_does_not_answer_is_ended_by_its_stop(short_dir: Path):
    """A server of this instance that hangs (here: stopped by SIGSTOP) answers no
    shutdown; ``stop`` ends it rather than leave it holding the directory, and
    the next start serves the data."""
    server = EmbeddedFalkorDB(short_dir)
    server.start()
    _history(server, 10)
    pid = server.pid()
    assert pid is not None
    os.kill(pid, signal.SIGSTOP)
    assert server.stop()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    again = EmbeddedFalkorDB(short_dir)
    again.start()
    try:
        assert _count(again) == 10
    finally:
        assert again.stop()
