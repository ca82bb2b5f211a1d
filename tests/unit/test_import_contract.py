"""The remote client, the catalogue of operations it sends and the CLI's
server-first commands load the models they exchange, never the server: not
the API, the store, the services or their engines (numpy and the embedding
runtime, networkx, the GraphQL schema, the database drivers). Each check
runs in a fresh interpreter, since this one has loaded everything already."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from graphmem.domain.models import Memory
from graphmem.domain.retrieval import Explanation, Retriever, SearchHit, SearchResult
from graphmem.domain.scoring import ScoreComponent
from graphmem.hooks import fallback
from graphmem.operations.codec import encode
from graphmem.server import discovery
from graphmem.settings import Settings
from graphmem.store import embedded

SERVER_SIDE = (
    "graphmem.api",
    "graphmem.store",
    "graphmem.services.writer",
    "graphmem.services.promotion",
    "graphmem.services.archival",
    "graphmem.services.consolidator",
    "graphmem.services.retrieval.service",
    "graphmem.services.embeddings",
    "graphmem.services.evaluator",
    "graphmem.graphql",
    "numpy",
    "onnxruntime",
    "networkx",
    "scipy",
    "strawberry",
    "redis",
    "falkordb",
    "neo4j",
)
"""Packages and modules the client side must not load (each with its submodules)."""


def server_side(modules: list[str]) -> list[str]:
    return [m for m in modules if any(m == s or m.startswith(f"{s}.") for s in SERVER_SIDE)]


def loaded_by(code: str, tmp_path: Path, env: dict[str, str] | None = None) -> list[str]:
    """The modules a fresh interpreter holds after running ``code`` (which may exit)."""
    found = tmp_path / "modules.json"
    probe = (
        "import json, sys\n"
        "try:\n"
        + "".join(f"    {line}\n" for line in code.splitlines())
        + "except SystemExit as exc:\n"
        "    assert not exc.code, exc.code\n"
        f"open({str(found)!r}, 'w').write(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(found.read_text())


@pytest.mark.parametrize(
    "code",
    [
        "import graphmem.client",
        "import graphmem.operations, graphmem.operations.access",
        "from graphmem.client import AsyncClient, Client, RetryPolicy, ServerError",
        "from graphmem.client import ServerUnreachableError",
        "import graphmem.cli.server_first",
        "import graphmem.cli.retrieval",
        "import graphmem.cli.memories",
        "import graphmem.cli.relations",
        "import graphmem.hooks.inject",
    ],
)
def test_the_client_side_imports_none_of_the_server(code: str, tmp_path: Path) -> None:
    modules = loaded_by(code, tmp_path)
    assert server_side(modules) == []


def test_the_client_classes_still_load_from_the_package(tmp_path: Path) -> None:
    """The package loads its classes on first use; each still comes from it."""
    modules = loaded_by(
        "import graphmem.client as client\n"
        "assert client.Client.__module__ == 'graphmem.client.sync'\n"
        "assert client.AsyncClient.__module__ == 'graphmem.client.aio'\n"
        "assert all(getattr(client, name) for name in client.__all__)",
        tmp_path,
    )
    assert "graphmem.client.aio" in modules and "graphmem.client.sync" in modules


class _Server(ThreadingHTTPServer):
    answer: dict[str, Any]
    asked: list[dict[str, Any]]


class _GraphQL(BaseHTTPRequestHandler):
    """Answers every GraphQL call with the server's canned ``answer``."""

    server: _Server

    def do_POST(self) -> None:
        self.server.asked.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
        body = json.dumps(self.server.answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def served_search(tmp_path: Path) -> Iterator[_Server]:
    """A data directory whose advertised server answers a search with one hit."""
    hit = SearchHit(
        memory=Memory(
            id="m1",
            project_id="default",
            session_id="s",
            content="the build cache lives in /var/cache/build",
            created_at=1_800_000_000.0,
            updated_at=1_800_000_000.0,
        ),
        score=0.5,
        explanation=Explanation(
            components=[ScoreComponent(name="relevance", value=1.0, weight=0.5, contribution=0.5)]
        ),
    )
    result = SearchResult(hits=[hit], mode="hybrid", retrievers=[Retriever.FULLTEXT], took_ms=1.0)
    server = _Server(("127.0.0.1", 0), _GraphQL)
    server.answer = {"data": {"search": encode(result)}}
    server.asked = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with (
            discovery.claimed(
                tmp_path / "data",
                "127.0.0.1",
                0,
                backend="falkordb",
                store=discovery.store_of(Settings(data_dir=tmp_path / "data")),
            ) as claim,
            claim.advertised("127.0.0.1", server.server_address[1]),
        ):
            yield server
    finally:
        server.shutdown()
        server.server_close()


def test_a_search_sent_to_the_server_loads_none_of_it(
    served_search: _Server, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    env["GRAPHMEM_DATA_DIR"] = str(tmp_path / "data")
    out = tmp_path / "out.txt"
    modules = loaded_by(
        "import contextlib\n"
        "from graphmem.entry import main\n"
        "sys.argv = ['graphmem', 'search', 'build cache']\n"
        f"with open({str(out)!r}, 'w') as out, contextlib.redirect_stdout(out):\n"
        "    main()",
        tmp_path,
        env,
    )
    assert len(served_search.asked) == 1
    assert "/var/cache/build" in out.read_text()
    assert server_side(modules) == []


def test_the_hook_names_the_store_files_as_the_store_does() -> None:
    """The hook decides there is nothing to read without importing the store."""
    assert (fallback.SOCKET_NAME, fallback.AOF_DIR) == (embedded.SOCKET_NAME, embedded.AOF_DIR)


def hook_said(tmp_path: Path, env: dict[str, str]) -> tuple[str, list[str]]:
    """What ``graphmem inject`` run on a prompt in a fresh interpreter said on stderr
    (it exits 0 whatever happens), and the modules it loaded."""
    said = tmp_path / "stderr.txt"
    event = json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": "where is it?"})
    modules = loaded_by(
        "import contextlib, io\n"
        "from graphmem.hooks.inject import main\n"
        f"sys.stdin = io.TextIOWrapper(io.BytesIO({event.encode()!r}))\n"
        f"with open({str(said)!r}, 'w') as said, contextlib.redirect_stderr(said):\n"
        "    assert main([]) == 0",
        tmp_path,
        env,
    )
    return said.read_text(), modules


def hook_env(data_dir: Path, **settings: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    return {**env, "GRAPHMEM_DATA_DIR": str(data_dir), **settings}


@pytest.mark.parametrize("made", [True, False], ids=["empty", "missing"])
def test_the_hook_on_a_data_directory_without_a_store_says_so_and_loads_none_of_it(
    made: bool, tmp_path: Path
) -> None:
    data_dir = tmp_path / "data"
    if made:
        data_dir.mkdir()
    # A port nothing listens on: this test's own, bound and never accepting.
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{closed.getsockname()[1]}/graphql"
        said, modules = hook_said(tmp_path, hook_env(data_dir, GRAPHMEM_URL=url))
    assert said == (
        f"graphmem inject: no server is running and there is no graphmem store at {data_dir}\n"
    )
    assert server_side(modules) == []
    assert data_dir.exists() == made


def test_the_hook_passes_over_the_serve_json_of_a_dead_server(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = str(closed.getsockname()[1])
        (data_dir / discovery.ADDRESS_FILE).write_text(
            json.dumps({"pid": int(gone.stdout), "url": f"http://127.0.0.1:{port}/graphql"})
        )
        said, _ = hook_said(tmp_path, hook_env(data_dir, GRAPHMEM_PORT=port))
    assert said == (
        f"graphmem inject: no server is running and there is no graphmem store at {data_dir}\n"
    )


def test_the_hook_given_a_url_that_is_not_graphmem_says_so_in_one_line(
    served_search: _Server, tmp_path: Path
) -> None:
    served_search.answer = {"hello": "world"}
    url = f"http://127.0.0.1:{served_search.server_address[1]}/graphql"
    said, _ = hook_said(tmp_path, hook_env(tmp_path / "elsewhere", GRAPHMEM_URL=url))
    assert said == f"graphmem inject: server error: HTTP 200 from {url}: no data\n"
