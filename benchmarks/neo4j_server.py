"""A Neo4j for the benchmarks (and the tests): Neo4j Community 5.26 with its
Browser, started by ``tools/neo4j/run`` on 127.0.0.1 with a generated password,
or a server the caller names by URI.

Its standard input is a pipe the launcher watches: however this process ends,
the server sees the pipe close and exits, so no Neo4j outlives its run.

Community has one user database, so a benchmark that measures several data
sets apart empties it between them (``empty``): the data in batches, then
every index and constraint, so the full-text index starts afresh too (Lucene
counts deleted documents in its statistics until it merges them away).
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from graphmem.settings import Settings
from graphmem.store import await_indexes

if TYPE_CHECKING:
    from graphmem.store.neo4j import Neo4jStore

ROOT = Path(__file__).resolve().parent.parent
RUN = ROOT / "tools" / "neo4j" / "run"
START_TIMEOUT = 600.0
"""Seconds to wait for ``ready``: the first start on a machine builds the launcher
and fetches Neo4j's jars into Maven's cache."""

INSTALL = "the Neo4j tests need Java 17 and Maven (apt-get install openjdk-17-jdk-headless maven)"

BackendOption = Annotated[
    str,
    typer.Option(
        help="falkordb, neo4j or both. Without --neo4j-uri, Neo4j is a test Neo4j this "
        "run starts (Java 17 and Maven); with both, a missing Java or Maven skips it."
    ),
]
Neo4jUriOption = Annotated[
    str | None,
    typer.Option(
        help="Measure the Neo4j at this URI instead of starting one. Its database is "
        "emptied, indexes included: give a throwaway one."
    ),
]
Neo4jUserOption = Annotated[str, typer.Option(help="User for --neo4j-uri.")]
Neo4jPasswordOption = Annotated[
    str | None,
    typer.Option(envvar="GRAPHMEM_NEO4J_PASSWORD", help="Password for --neo4j-uri."),
]
"""The command-line options every benchmark that measures both backends takes."""

DELETE_BATCH = 10_000
"""Nodes deleted per inner transaction when emptying the database."""


def missing_tools() -> str | None:
    """Why the test Neo4j cannot start here, or None."""
    if shutil.which("java") is None or shutil.which("mvn") is None:
        return INSTALL
    return None


@dataclass
class TestNeo4j:
    """A running test Neo4j and how to reach it."""

    __test__ = False  # not a test class, whatever pytest collects it from

    home: Path
    process: subprocess.Popen[str]
    bolt_uri: str
    browser_url: str
    user: str = "neo4j"
    password: str = ""
    output: list[str] = field(default_factory=list)

    @property
    def http_url(self) -> str:
        return self.browser_url.removesuffix("/browser/")

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        """Stop the server cleanly (closing its input ends it; SIGTERM if it lingers)."""
        if self.process.poll() is None:
            try:
                if self.process.stdin:
                    self.process.stdin.close()
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.terminate()
                try:
                    self.process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()


def start(
    home: Path,
    *,
    heap: str = "1g",
    pagecache: str | None = None,
    bolt_port: int | None = None,
    http_port: int | None = None,
    auth: bool = True,
    settings: Sequence[str] = (),
    jvm: Sequence[str] = (),
) -> TestNeo4j:
    """Start a test Neo4j in ``home`` and wait until it answers on Bolt.

    ``heap`` sets the JVM's heap (``NEO4J_HEAP``), ``pagecache`` Neo4j's page
    cache (the launcher's default, 512m, when None). ``bolt_port`` and
    ``http_port`` (default: free ones) start a server again where its clients
    expect it, on the same ``home``. ``auth=False`` starts it without
    authentication (any credentials pass), which a restart that keeps its
    clients' credentials needs. ``settings`` are further Neo4j settings,
    ``KEY=VALUE`` each; ``jvm``, when given, replaces the JVM's JIT and GC
    options (``NEO4J_JVM_OPTS``; G1 and the full JIT otherwise, as Neo4j ships)."""
    home.mkdir(parents=True, exist_ok=True)
    password = secrets.token_urlsafe(16) if auth else ""
    command = [str(RUN), "--home", str(home), "--exit-on-eof"]
    if auth:
        command += ["--password", password]
    if pagecache:
        command += ["--pagecache", pagecache]
    if bolt_port is not None:
        command += ["--bolt-port", str(bolt_port)]
    if http_port is not None:
        command += ["--http-port", str(http_port)]
    for setting in settings:
        command += ["--conf", setting]
    process = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={
            **os.environ,
            "NEO4J_HEAP": heap,
            **({"NEO4J_JVM_OPTS": " ".join(jvm)} if jvm else {}),
        },
    )
    output: list[str] = []
    ready = threading.Event()

    def pump() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            output.append(line.rstrip("\n"))
            if line.strip() == "ready":
                ready.set()
        ready.set()

    threading.Thread(target=pump, name="neo4j-output", daemon=True).start()
    deadline = time.monotonic() + START_TIMEOUT
    while not ready.wait(0.2):
        if time.monotonic() > deadline:
            break
    bolt = next((line for line in output if re.fullmatch(r"bolt://127\.0\.0\.1:\d+", line)), None)
    browser = next((line for line in output if line.endswith("/browser/")), None)
    if process.poll() is not None or bolt is None or browser is None:
        process.kill()
        process.wait()
        tail = "\n".join(output[-30:])
        raise RuntimeError(f"the test Neo4j did not start (see {home}/logs):\n{tail}")
    return TestNeo4j(home, process, bolt, browser, password=password, output=output)


def empty(driver: object, database: str | None = None) -> None:
    """Delete every node and relationship, then every index and constraint.

    ``driver`` is a ``neo4j.Driver``. The delete runs in batches of inner
    transactions (``CALL { ... } IN TRANSACTIONS``), which need an auto-commit
    session: one transaction holding a large graph's deletions would need a heap
    the size of the graph."""
    with driver.session(database=database) as session:  # type: ignore[attr-defined]
        session.run(
            f"MATCH (n) CALL (n) {{ DETACH DELETE n }} IN TRANSACTIONS OF {DELETE_BATCH} ROWS"
        ).consume()
        for (name,) in session.run("SHOW CONSTRAINTS YIELD name RETURN name").values():
            session.run(f"DROP CONSTRAINT `{name}` IF EXISTS").consume()
        # Token lookup indexes are Neo4j's own (every label and relationship type).
        for (name,) in session.run(
            "SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' RETURN name"
        ).values():
            session.run(f"DROP INDEX `{name}` IF EXISTS").consume()


class Neo4jGraph:
    """Raw statements on the database, beside graphmem's store: what the bulk
    loads and the latency floor send (parameters as Bolt parameters; an
    embedding as ``array('f')`` becomes a list of floats, as the store sends it).
    Each call is one managed transaction, as the store runs its statements."""

    def __init__(self, driver: Any, database: str | None = None) -> None:
        self.driver = driver
        self.database = database

    def write(self, statement: str, params: Mapping[str, Any] | None = None) -> list[list[Any]]:
        with self.driver.session(database=self.database) as session:
            return session.execute_write(_values, statement, _bolt(params))  # type: ignore[no-any-return]

    def read(self, statement: str, params: Mapping[str, Any] | None = None) -> list[list[Any]]:
        with self.driver.session(database=self.database) as session:
            return session.execute_read(_values, statement, _bolt(params))  # type: ignore[no-any-return]

    def run(self, statement: str) -> None:
        """An auto-commit statement: schema changes, ``CALL { } IN TRANSACTIONS``."""
        with self.driver.session(database=self.database) as session:
            session.run(statement).consume()

    def build_index(self, ddl: str, timeout: float = 3_600.0) -> None:
        """Create an index over the data already loaded (``ddl``: graphmem's own
        schema statement) and return once Neo4j has populated it."""
        self.run(ddl)
        self.run(f"CALL db.awaitIndexes({int(timeout)})")


def _values(tx: Any, statement: str, params: dict[str, Any]) -> list[list[Any]]:
    return tx.run(statement, params).values()  # type: ignore[no-any-return]


def _bolt(params: Mapping[str, Any] | None) -> dict[str, Any]:
    from graphmem.store.neo4j import _parameters

    return _parameters(params) if params else {}


class Neo4jTarget:
    """The Neo4j a benchmark measures: one it starts (``start``: under /tmp,
    removed afterwards) or the server at ``uri``, whose database it empties.

    ``fresh()`` empties the database and returns graphmem's store on it with its
    schema set up (``vector_index=False`` leaves the vector index out, for a
    bulk load that builds it once its vectors are in) and the raw side."""

    name = "neo4j"

    def __init__(
        self,
        uri: str | None = None,
        *,
        user: str = "neo4j",
        password: str | None = None,
        database: str | None = "neo4j",
        heap: str = "1g",
        pagecache: str | None = None,
        log: Callable[[str], None] | None = None,
    ) -> None:
        from neo4j import GraphDatabase

        from graphmem.store.neo4j import Neo4jStore

        self.server: TestNeo4j | None = None
        self.home: Path | None = None
        if uri is None:
            self.home = Path(tempfile.mkdtemp(dir="/tmp", prefix="gmneo4j-"))
            if log:
                log(f"starting a Neo4j (heap {heap}, page cache {pagecache or '512m'})")
            try:
                self.server = start(self.home, heap=heap, pagecache=pagecache)
            except BaseException:
                shutil.rmtree(self.home, ignore_errors=True)
                raise
            uri, user, password = self.server.bolt_uri, self.server.user, self.server.password
        self.uri = uri
        self.database = database
        auth = (user, password) if password is not None else None
        self.driver = GraphDatabase.driver(
            uri, auth=auth, notifications_disabled_categories=["UNRECOGNIZED", "DEPRECATION"]
        )
        self.settings = Settings(
            backend="neo4j",
            neo4j_uri=uri,
            neo4j_user=user,
            neo4j_password=password,
            neo4j_database=database,
        )
        self.store = Neo4jStore.connect(self.settings)
        self.raw = Neo4jGraph(self.driver, database)

    def fresh(self, *, vector_index: bool = True) -> tuple[Neo4jStore, Neo4jGraph]:
        empty(self.driver, self.database)
        if vector_index:
            self.store.setup_schema()
        else:
            for ddl in self.store.statements.script("schema"):
                if "VECTOR INDEX" not in ddl:
                    self.raw.run(ddl)
            await_indexes(self.store)
        return self.store, self.raw

    def memory_mb(self) -> float | None:
        """The server process's resident memory (heap, page cache as far as it is
        touched, Lucene's mapped indexes), when this target started the server."""
        if self.server is None:
            return None
        try:
            status = Path(f"/proc/{self.server.process.pid}/status").read_text()
        except OSError:
            return None
        kb = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))
        return kb / 1e3

    def disk_mb(self) -> dict[str, float] | None:
        """The server's files on disk in MB, when this target started it: ``store``
        (the database's store files, which the page cache caches, and its index
        files) and ``transactions`` (the log not yet checkpointed and pruned)."""
        if self.home is None:
            return None
        return {
            part: _size(self.home / "data" / folder) / 1e6
            for part, folder in (("store", "databases"), ("transactions", "transactions"))
        }

    def close(self) -> None:
        try:
            self.store.close()
            self.driver.close()
        finally:
            if self.server is not None:
                self.server.stop()
            if self.home is not None:
                shutil.rmtree(self.home, ignore_errors=True)


def _size(folder: Path) -> int:
    total = 0
    for path in folder.rglob("*"):
        try:
            if path.is_file():
                total += path.stat().st_size
        except OSError:  # a log file rotated away while it was counted
            continue
    return total
