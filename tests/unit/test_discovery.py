"""One store per data directory's servers: the claim a server holds on the
directory, the address it advertises there, and what a command makes of what it
finds (real files and real locks in a temporary directory; a second claim comes
from a second open file, which the kernel locks against the first as it would
another process)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from graphmem.server import discovery
from graphmem.server.discovery import ADDRESS_FILE, DirectoryServedError, Entry
from graphmem.settings import Settings

STORE = "embedded FalkorDB in /somewhere, graph graphmem"
NEO4J = "Neo4j at bolt://127.0.0.1:7687, database neo4j"


def claim(
    directory: Path, port: int = 8000, backend: str = "falkordb", store: str = STORE
) -> AbstractContextManager[discovery.Claim]:
    return discovery.claimed(directory, "127.0.0.1", port, backend=backend, store=store)


def gone_pid() -> int:
    """The pid of a process that has exited."""
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout)


def test_a_claim_on_another_store_is_refused_naming_the_holder_until_it_ends(
    tmp_path: Path,
) -> None:
    with claim(tmp_path) as first, first.advertised("0.0.0.0", 8123):
        assert first.beside is None
        with pytest.raises(DirectoryServedError) as refused, claim(tmp_path, 8001, "neo4j", NEO4J):
            pass
        assert refused.value.holder == Entry(
            os.getpid(), "http://127.0.0.1:8123/graphql", "falkordb", STORE
        )
        assert f"{tmp_path} is already served by graphmem serve pid {os.getpid()} at " in str(
            refused.value
        )
        assert "http://127.0.0.1:8123/graphql (falkordb: embedded FalkorDB in" in str(refused.value)
        # The refused claim wrote nothing: the address is still the first's.
        assert discovery.served(tmp_path) == first.entry
    with claim(tmp_path, 8001, "neo4j", NEO4J) as second:
        assert second.beside is None and second.entry.backend == "neo4j"


def test_a_claim_on_the_same_store_serves_beside_the_holder_and_leaves_its_address(
    tmp_path: Path,
) -> None:
    with claim(tmp_path) as first, first.advertised("127.0.0.1", 8123):
        address = (tmp_path / ADDRESS_FILE).read_text()
        with claim(tmp_path, 8124) as beside:
            assert beside.beside == first.entry
            with beside.advertised("127.0.0.1", 8124):
                assert (tmp_path / ADDRESS_FILE).read_text() == address
        assert (tmp_path / ADDRESS_FILE).read_text() == address
        assert discovery.server_url(tmp_path) == "http://127.0.0.1:8123/graphql"
        # Another store is still refused, the holder named.
        with pytest.raises(DirectoryServedError), claim(tmp_path, 8125, "neo4j", NEO4J):
            pass


def test_a_holder_not_yet_listening_is_named_from_its_lock(tmp_path: Path) -> None:
    with claim(tmp_path, 8010):
        # Not advertised yet: no command is sent to it.
        assert discovery.server_url(tmp_path) is None
        with pytest.raises(DirectoryServedError) as refused, claim(tmp_path, store=NEO4J):
            pass
    assert refused.value.holder == Entry(
        os.getpid(), "http://127.0.0.1:8010/graphql", "falkordb", STORE
    )


def test_the_advertised_entry_says_pid_url_backend_and_store_and_goes_with_its_server(
    tmp_path: Path,
) -> None:
    with claim(tmp_path) as held, held.advertised("::", 9000):
        written = json.loads((tmp_path / ADDRESS_FILE).read_text())
        assert written == {
            "pid": os.getpid(),
            "url": "http://[::1]:9000/graphql",
            "backend": "falkordb",
            "store": STORE,
        }
        assert discovery.server_url(tmp_path) == "http://[::1]:9000/graphql"
    assert not (tmp_path / ADDRESS_FILE).exists()
    assert discovery.served(tmp_path) is None


def test_a_stopping_server_removes_only_its_own_entry(tmp_path: Path) -> None:
    other = {"pid": 1, "url": "http://127.0.0.1:8001/graphql", "backend": "neo4j"}
    with claim(tmp_path) as held, held.advertised("127.0.0.1", 8000):
        (tmp_path / ADDRESS_FILE).write_text(json.dumps(other))
    assert json.loads((tmp_path / ADDRESS_FILE).read_text()) == other


@pytest.mark.parametrize(
    "left",
    [
        "dead pid",
        "live pid, no server holding the directory",
        "garbled",
        "not json",
        "not text",
        "a directory",
    ],
)
def test_a_left_over_address_is_ignored_and_the_next_server_takes_the_directory(
    tmp_path: Path, left: str
) -> None:
    path = tmp_path / ADDRESS_FILE
    url = "http://127.0.0.1:8999/graphql"
    match left:
        case "dead pid":
            path.write_text(json.dumps({"pid": gone_pid(), "url": url, "backend": "falkordb"}))
        case "live pid, no server holding the directory":
            # A pid taken again by another process after the server died.
            path.write_text(json.dumps({"pid": os.getpid(), "url": url}))
        case "garbled":
            path.write_text('{"pid": "twelve", "url": ')
        case "not json":
            path.write_text(json.dumps(["pid", 12]))
        case "not text":
            path.write_bytes(b"\xff\xfe\x00pid")
        case "a directory":
            path.mkdir()
    assert discovery.served(tmp_path) is None
    assert discovery.server_url(tmp_path) is None
    if left == "a directory":
        return  # the server's claim fails on it: tests/integration says how
    with claim(tmp_path) as held:
        assert not path.exists()  # no command is sent to a dead address while it starts
        with held.advertised("127.0.0.1", 8123):
            assert discovery.server_url(tmp_path) == "http://127.0.0.1:8123/graphql"


def test_a_lock_file_with_no_readable_holder_is_still_a_refusal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(discovery, "CLAIM_SECONDS", 0.2)
    with claim(tmp_path):
        (tmp_path / discovery.LOCK_FILE).write_text("garbage")
        with pytest.raises(DirectoryServedError) as refused, claim(tmp_path, store=NEO4J):
            pass
    assert refused.value.holder is None
    assert "a process that does not say which" in str(refused.value)


def test_the_store_in_words_tells_stores_apart_and_keeps_credentials_out(tmp_path: Path) -> None:
    embedded = Settings(data_dir=tmp_path, backend="falkordb")
    other_graph = Settings(data_dir=tmp_path, backend="falkordb", graph="other")
    remote = Settings(data_dir=tmp_path, falkordb_url="redis://:secret@db:6379")
    neo4j = Settings(data_dir=tmp_path, backend="neo4j", neo4j_uri="bolt://ana:pw@db:7687")
    home = Settings(
        data_dir=tmp_path, backend="neo4j", neo4j_uri="bolt://db:7687", neo4j_database=""
    )
    named = [discovery.store_of(s) for s in (embedded, other_graph, remote, neo4j, home)]
    assert len(set(named)) == len(named)
    assert named[0] == f"embedded FalkorDB in {tmp_path.resolve()}, graph graphmem"
    assert named[2] == "FalkorDB at redis://db:6379, graph graphmem"
    assert named[3] == "Neo4j at bolt://db:7687, database neo4j"
    assert named[4] == "Neo4j at bolt://db:7687, database the user's home database"
    assert not any("secret" in n or "pw" in n for n in named)
    # One directory named two ways is one store.
    assert discovery.store_of(Settings(data_dir=tmp_path / "x" / "..")) == named[0]
