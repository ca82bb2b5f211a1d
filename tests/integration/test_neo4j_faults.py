"""How graphmem behaves when Neo4j is down, wrong or too old, each against a real
Neo4j (tests/neo4j_server.py): one line at start naming what to fix and no
traceback; ``STORE_UNAVAILABLE`` and a failing ``/readyz`` while a running
server is away; recovery without a restart when it comes back; and no Neo4j
left behind when one is killed."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from graphmem.api import GraphMem
from graphmem.domain.errors import STORE_UNAVAILABLE_MESSAGE, StoreUnavailableError
from graphmem.graphql.app import create_app
from graphmem.settings import Settings
from graphmem.store import neo4j as neo4j_adapter
from graphmem.store.neo4j import Neo4jStore, version_refusal
from tests import neo4j_server as test_neo4j
from tests.integration.conftest import serve

pytestmark = pytest.mark.slow
"""Each test starts Neo4j servers of its own, some several times: run first (tests/conftest.py)."""

START_SECONDS = 60.0
"""How long a refused ``graphmem serve`` may take to say so, imports included;
well below what a driver retry (GRAPHMEM_NEO4J_RETRY_TIME) or a connection
timeout left at its default would take."""

RECOVERY_SECONDS = 120.0
"""How long graphmem may take to serve again once its Neo4j is back."""

REQUEST_SECONDS = 120.0
"""How long one request may take: a fresh Neo4j plans each statement on first
use, which takes seconds on a busy machine."""

REMEMBER = "mutation($i: MemoryInput!) { remember(input: $i) { memory { id } } }"
READ = "query($id: ID!) { memory(id: $id) { content } }"
UNREADY = {"store": "the graph database is unavailable", "embedder": "off"}


# -- the version check ------------------------------------------------------------


@pytest.mark.parametrize(
    "version",
    ["5.23.0", "5.26.20", "5.27-aura", "2025.01.0", "2025.10.1", "6.0.0", "dev", ""],
)
def test_a_recent_or_unknown_version_is_accepted(version: str):
    assert version_refusal(version) is None


@pytest.mark.parametrize("version", ["5.22.0", "5.13.0", "5.12.0", "5.1.0", "4.4.30", "3.5.35"])
def test_an_old_version_is_refused_naming_the_version_needed(version: str):
    assert version_refusal(version) == (f"runs Neo4j {version}; graphmem needs Neo4j 5.23 or later")


def test_the_docs_name_the_version_graphmem_needs():
    docs = (Path(__file__).parents[2] / "docs" / "neo4j.md").read_text()
    faults = docs.split("## When Neo4j is down, wrong or too old")[1].split("\n## ")[0]
    needed = ".".join(map(str, neo4j_adapter.MINIMUM_VERSION))
    assert f"graphmem needs Neo4j {needed} or later" in faults


def test_the_test_neo4j_passes_the_version_check(neo4j_settings: Settings):
    store = Neo4jStore.connect(neo4j_settings)
    try:
        assert store.server_version is not None
        assert store.server_version.startswith("5.26.")
        assert version_refusal(store.server_version) is None
    finally:
        store.close()


def test_a_server_below_the_minimum_is_refused_at_start(
    neo4j_settings: Settings, neo4j_server: test_neo4j.TestNeo4j, monkeypatch: pytest.MonkeyPatch
):
    """The check runs against the real server's answer: raising the minimum above
    it is what an old server looks like to graphmem."""
    monkeypatch.setattr(neo4j_adapter, "MINIMUM_VERSION", (99, 0))
    with pytest.raises(StoreUnavailableError) as refused:
        GraphMem.open(neo4j_settings.with_values(embedder="none"))
    assert refused.value.message.startswith(f"Neo4j at {neo4j_server.bolt_uri} runs Neo4j 5.26.")
    assert refused.value.message.endswith("graphmem needs Neo4j 99.0 or later")


def test_a_missing_database_is_named(neo4j_settings: Settings, neo4j_server: test_neo4j.TestNeo4j):
    with pytest.raises(StoreUnavailableError) as refused:
        Neo4jStore.connect(neo4j_settings.with_values(neo4j_database="nosuch"))
    assert refused.value.message == (
        f"Neo4j at {neo4j_server.bolt_uri} has no database 'nosuch' (GRAPHMEM_NEO4J_DATABASE)"
    )


# -- refused at start: one line, no traceback -------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def graphmem_env(data_dir: Path, **settings: str) -> dict[str, str]:
    """A ``graphmem`` process's environment: the caller's without its own
    ``GRAPHMEM_`` settings, on Neo4j, with no embedding model to load."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    env |= {
        "GRAPHMEM_DATA_DIR": str(data_dir),
        "GRAPHMEM_EMBEDDER": "none",
        "GRAPHMEM_BACKEND": "neo4j",
        "GRAPHMEM_HOST": "127.0.0.1",
    }
    return env | {f"GRAPHMEM_{name.upper()}": value for name, value in settings.items()}


def refused_start(env: dict[str, str]) -> str:
    """``graphmem serve``'s one line of refusal (it must exit 1, in time, with no
    traceback and nothing else said)."""
    began = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "graphmem", "serve", "--port", str(free_port())],
        env=env,
        capture_output=True,
        text=True,
        timeout=START_SECONDS,
    )
    assert time.monotonic() - began < START_SECONDS
    assert done.returncode == 1, done.stderr
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr
    return done.stderr.strip()


@pytest.mark.parametrize("scheme", ["bolt", "neo4j"])
def test_a_neo4j_that_is_down_stops_the_start_with_one_line(data_dir: Path, scheme: str):
    uri = f"{scheme}://127.0.0.1:{free_port()}"  # nothing listens there
    began = time.monotonic()
    line = refused_start(graphmem_env(data_dir, neo4j_uri=uri, neo4j_retry_time="120"))
    # At once: the start does not wait out the driver's retries.
    assert time.monotonic() - began < 60
    assert line.startswith(f"error [STORE_UNAVAILABLE]: cannot reach Neo4j at {uri} "), line
    assert "(GRAPHMEM_NEO4J_URI)" in line


def test_a_neo4j_that_never_answers_stops_the_start_within_the_timeouts(data_dir: Path):
    """A port that accepts connections and says nothing (a hung server, a
    firewall that swallows packets) is bounded by the driver's timeouts."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        uri = f"bolt://127.0.0.1:{silent.getsockname()[1]}"
        began = time.monotonic()
        line = refused_start(
            graphmem_env(
                data_dir, neo4j_uri=uri, neo4j_connection_timeout="2", neo4j_acquisition_timeout="2"
            )
        )
        assert time.monotonic() - began < 30
    assert line.startswith(f"error [STORE_UNAVAILABLE]: cannot reach Neo4j at {uri} "), line


@pytest.mark.parametrize(
    ("user", "wrong_password"), [("neo4j", True), ("nobody", False)], ids=["password", "user"]
)
def test_wrong_credentials_stop_the_start_naming_the_uri_and_user(
    data_dir: Path, neo4j_server: test_neo4j.TestNeo4j, user: str, wrong_password: bool
):
    password = "not-" + neo4j_server.password if wrong_password else neo4j_server.password
    line = refused_start(
        graphmem_env(
            data_dir, neo4j_uri=neo4j_server.bolt_uri, neo4j_user=user, neo4j_password=password
        )
    )
    assert line.startswith(
        f"error [STORE_UNAVAILABLE]: Neo4j at {neo4j_server.bolt_uri} refused user '{user}': "
    ), line
    assert line.endswith("(GRAPHMEM_NEO4J_USER, GRAPHMEM_NEO4J_PASSWORD)"), line
    assert neo4j_server.password not in line


def test_a_missing_password_is_named(data_dir: Path, neo4j_server: test_neo4j.TestNeo4j):
    line = refused_start(graphmem_env(data_dir, neo4j_uri=neo4j_server.bolt_uri))
    assert line == (
        f"error [STORE_UNAVAILABLE]: Neo4j at {neo4j_server.bolt_uri} requires a password: "
        "set GRAPHMEM_NEO4J_PASSWORD"
    )


# -- a running server that goes away ----------------------------------------------


def processes_of(home: Path) -> list[int]:
    """The processes started on ``home`` (the launcher's java), found by their
    command line so that one whose parent lost track of it is found too."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            args = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:  # it ended while being looked at
            continue
        if b"--home" in args and str(home).encode() in args:
            found.append(int(entry.name))
    return found


class OwnNeo4j:
    """This module's own Neo4j, which its tests stop, kill and start again on the
    same ports and data. Without authentication: see ``test_neo4j.start``."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.server = test_neo4j.start(home, auth=False)
        self.uri = self.server.bolt_uri
        self.bolt_port = urlsplit(self.server.bolt_uri).port
        self.http_port = urlsplit(self.server.http_url).port

    def stop(self) -> None:
        self.server.stop()
        assert not self.server.alive()
        assert processes_of(self.home) == []

    def start_again(self) -> None:
        self.stop()
        self.server = test_neo4j.start(
            self.home, auth=False, bolt_port=self.bolt_port, http_port=self.http_port
        )
        assert self.server.bolt_uri == self.uri


@pytest.fixture(scope="module")
def own_neo4j(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OwnNeo4j]:
    missing = test_neo4j.missing_tools()
    if missing:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{missing}; CI must run them")
        pytest.skip(missing)
    own = OwnNeo4j(tmp_path_factory.mktemp("own-neo4j"))
    yield own
    own.stop()


@pytest.fixture
def neo4j_up(own_neo4j: OwnNeo4j) -> OwnNeo4j:
    """The module's Neo4j, running (a test before this one may have killed it)."""
    if not own_neo4j.server.alive():
        own_neo4j.start_again()
    return own_neo4j


def graphql(http: httpx.Client, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    response = http.post("/graphql", json={"query": query, "variables": variables})
    return response.json()


def assert_unavailable(http: httpx.Client, memory_id: str, uri: str) -> None:
    """Requests answer STORE_UNAVAILABLE with the generic message, and /readyz
    503 with the reason, while the process itself stays alive."""
    body = graphql(http, READ, {"id": memory_id})
    (error,) = body["errors"]
    assert error["extensions"]["code"] == "STORE_UNAVAILABLE", body
    assert error["message"] == STORE_UNAVAILABLE_MESSAGE
    ready = http.get("/readyz")
    assert ready.status_code == 503
    assert ready.json() == {"status": "unavailable", "checks": UNREADY}
    port = str(urlsplit(uri).port)
    assert port not in ready.text and port not in str(body)
    assert http.get("/healthz").status_code == 200


def wait_ready(http: httpx.Client, process: subprocess.Popen[bytes] | None = None) -> None:
    deadline = time.monotonic() + RECOVERY_SECONDS
    while time.monotonic() < deadline:
        assert process is None or process.poll() is None, "graphmem serve exited"
        try:
            if http.get("/readyz").status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"not ready after {RECOVERY_SECONDS:.0f} s")


def test_an_outage_is_store_unavailable_until_neo4j_comes_back(
    neo4j_up: OwnNeo4j, data_dir: Path, tmp_path: Path
):
    """``graphmem serve`` rides out its Neo4j stopping and starting again on the
    same ports and data: unavailable meanwhile, serving again without a restart."""
    port = free_port()
    log = tmp_path / "serve.log"
    # Requests give up after 2 s of driver retries rather than the default 30.
    env = graphmem_env(data_dir, neo4j_uri=neo4j_up.uri, neo4j_retry_time="2")
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "graphmem", "serve", "--port", str(port)],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=REQUEST_SECONDS) as http:
            wait_ready(http, process)
            created = graphql(http, REMEMBER, {"i": {"content": "kept through an outage"}})
            memory_id = created["data"]["remember"]["memory"]["id"]

            neo4j_up.stop()
            assert_unavailable(http, memory_id, neo4j_up.uri)

            neo4j_up.start_again()
            wait_ready(http, process)
            read = graphql(http, READ, {"id": memory_id})
            assert read == {"data": {"memory": {"content": "kept through an outage"}}}
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)
            raise
    assert process.returncode == 0, log.read_text()


def test_a_killed_neo4j_is_store_unavailable_and_leaves_no_process(
    neo4j_up: OwnNeo4j, data_dir: Path
):
    settings = Settings(
        data_dir=data_dir,
        backend="neo4j",
        neo4j_uri=neo4j_up.uri,
        neo4j_retry_time=1,
        embedder="none",
    )
    gm = GraphMem.open(settings)
    try:
        memory_id = gm.remember({"content": "written before the kill"}).id
        with serve(create_app(gm)) as http:
            assert http.get("/readyz").status_code == 200
            java = neo4j_up.server.process
            os.kill(java.pid, signal.SIGKILL)
            assert java.wait(timeout=30) == -signal.SIGKILL
            assert_unavailable(http, memory_id, neo4j_up.uri)
    finally:
        gm.close()
    # What a test that needed this Neo4j now meets: the line naming its URI, at once.
    with pytest.raises(StoreUnavailableError) as refused:
        Neo4jStore.connect(settings)
    assert refused.value.message.startswith(
        f"cannot reach Neo4j at {neo4j_up.uri} (GRAPHMEM_NEO4J_URI): "
    )
    neo4j_up.stop()  # asserts no process runs on its home any more
