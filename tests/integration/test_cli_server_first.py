"""``search``, ``context``, ``remember`` and the other server-first commands go through
the running server of their data directory when there is one, and open the store
themselves when there is none; through a server, none loads the server's modules."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner, Result

from graphmem.cli import app
from graphmem.cli.server_first import ADDRESS_FILE
from graphmem.graphql.app import create_app_from_settings
from graphmem.server import discovery
from graphmem.services.embeddings import MiniLMEmbedder
from graphmem.settings import Settings
from graphmem.store.embedded import AOF_DIR
from tests.integration.conftest import serve
from tests.integration.test_cli import MEMORY_ID, free_port
from tests.unit.test_import_contract import loaded_by, server_side


def env_for(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    return {**env, "GRAPHMEM_DATA_DIR": str(data_dir), "GRAPHMEM_SCHEDULER": "false"}


def cli(data_dir: Path, *args: str) -> Result:
    unset: dict[str, str | None] = {k: None for k in os.environ if k.startswith("GRAPHMEM_")}
    result = CliRunner().invoke(app, list(args), env={**unset, **env_for(data_dir)})
    assert result.exit_code == 0, result.output
    return result


def operations(url: str) -> dict[str, float]:
    """The server's count of each GraphQL operation, from its metrics."""
    counts: dict[str, float] = {}
    for line in httpx.get(f"{url}/metrics").text.splitlines():
        if line.startswith("graphmem_graphql_operations_total{"):
            name = line.split('operation="', 1)[1].split('"', 1)[0]
            counts[name] = counts.get(name, 0.0) + float(line.rsplit(" ", 1)[1])
    return counts


@dataclass
class Served:
    url: str
    first_readiness: httpx.Response
    """The server's first answer to ``/readyz``, polled from its start."""


@pytest.fixture
def served(data_dir: Path) -> Iterator[Served]:
    """``graphmem serve`` on the data directory, with embeddings on."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "graphmem", "serve", "--port", str(port)],
        env=env_for(data_dir),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    first: httpx.Response | None = None
    try:
        # A start loads the embedding model: on a busy machine that takes a while.
        deadline = time.monotonic() + 120
        while first is None and time.monotonic() < deadline and process.poll() is None:
            try:
                first = httpx.get(f"{url}/readyz", timeout=5)
            except httpx.HTTPError:
                time.sleep(0.05)
        assert process.poll() is None, process.communicate()
        assert first is not None
        yield Served(url, first)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            raise
    assert not (data_dir / ADDRESS_FILE).exists()


@pytest.fixture
def server(served: Served) -> str:
    return served.url


def test_serve_is_ready_from_its_first_answer(served: Served) -> None:
    # The model loads and embeds once before the port accepts: no answer says "loading".
    assert served.first_readiness.status_code == 200
    assert served.first_readiness.json()["checks"] == {"store": "ok", "embedder": "ok"}


def test_the_commands_use_the_running_server_and_say_the_same_as_without_it(
    data_dir: Path, server: str
) -> None:
    address = json.loads((data_dir / ADDRESS_FILE).read_text())
    assert address["url"] == f"{server}/graphql"

    written = cli(data_dir, "remember", "the billing service retries webhooks", "--type", "fact")
    (memory_id,) = MEMORY_ID.findall(written.stdout)
    cli(data_dir, "remember", "the nightly export runs at two", "--tag", "ops")
    merged = cli(data_dir, "remember", "the billing service retries webhooks")
    assert "Already known (exact match)" in merged.stdout
    # The server's judgement of a near match comes back whole.
    warm = cli(data_dir, "remember", "the search cache warms up in two minutes")
    moved = cli(data_dir, "remember", "the search cache warms up in three minutes")
    assert "supersedes an older value" in moved.stdout
    assert MEMORY_ID.findall(moved.stdout)[1] == MEMORY_ID.findall(warm.stdout)[0]
    assert "number differs: 2 -> 3" in moved.stdout

    searched = json.loads(cli(data_dir, "search", "webhook retries", "--json").stdout)
    assert searched["hits"][0]["memory"]["id"] == memory_id
    assert searched["hits"][0]["memory"]["memory_type"] == "fact"
    assert searched["hits"][0]["memory"]["occurrence_count"] == 2
    assert {r["retriever"] for r in searched["hits"][0]["explanation"]["retrievers"]} == {
        "vector",
        "fulltext",
        "feedback",  # a short query, expanded by the words of its best hits
    }
    context = json.loads(
        cli(data_dir, "context", "webhook retries", "--no-record-access", "--json").stdout
    )
    assert context["items"][0]["memory"]["id"] == memory_id
    assert set(context["weights"]) >= {"recency", "confidence"}
    shown = cli(data_dir, "search", "webhook retries")
    assert "found by: " in shown.stdout
    # Filters and enums travel as the server spells them.
    filtered = cli(
        data_dir, "search", "schedules", "--tag", "ops", "--tier", "working",
        "--min-relevance", "0", "--json",
    ).stdout  # fmt: skip
    assert [h["memory"]["content"] for h in json.loads(filtered)["hits"]] == [
        "the nightly export runs at two"
    ]
    typed = cli(data_dir, "context", "webhook retries", "--type", "decision", "--json").stdout
    assert json.loads(typed)["items"] == []

    counts = operations(server)
    assert counts.get("CliRemember") == 5
    assert counts.get("CliSearch") == 3
    assert counts.get("CliContext") == 2

    # The same question answered by the server and by the store opened locally.
    served = {k: v for k, v in searched["hits"][0]["memory"].items() if k != "last_accessed_at"}
    os.kill(address["pid"], signal.SIGTERM)
    deadline = time.monotonic() + 120
    while (data_dir / ADDRESS_FILE).exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    # Gone, so the search below is the store's own answer, not the server's again.
    assert not (data_dir / ADDRESS_FILE).exists()
    local = json.loads(cli(data_dir, "search", "webhook retries", "--json").stdout)
    assert {k: v for k, v in local["hits"][0]["memory"].items() if k != "last_accessed_at"} == (
        served
    )


RECORD_FAILURE = """mutation($input: FailureReportInput!) {
  recordFailure(input: $input) { capsule { id lessonId } }
}"""
SERVER_FIRST = {
    "remember": "CliRemember",
    "search": "CliSearch",
    "context": "CliContext",
    "relate": "CliRelate",
    "pin": "CliPin",
    "feedback": "CliFeedback",
    "forget": "CliForget",
    "list": "CliList",
    "show": "CliShow",
}
"""Each server-first command and the GraphQL operation it sends."""


def fresh_run(args: list[str], data_dir: Path, tmp_path: Path) -> tuple[list[str], str]:
    """The modules a new ``graphmem ARGS`` process holds when it exits, and what it printed."""
    out = tmp_path / "out.txt"
    modules = loaded_by(
        "import contextlib\n"
        "from graphmem.entry import main\n"
        f"sys.argv = ['graphmem', *{args!r}]\n"
        f"with open({str(out)!r}, 'w') as out, contextlib.redirect_stdout(out):\n"
        "    main()",
        tmp_path,
        env_for(data_dir),
    )
    return modules, out.read_text()


@pytest.mark.slow
def test_each_server_first_command_loads_none_of_the_server(
    data_dir: Path, server: str, tmp_path: Path
) -> None:
    (cache,) = MEMORY_ID.findall(
        cli(data_dir, "remember", "the build cache is in /var/cache").stdout
    )
    (deploy,) = MEMORY_ID.findall(cli(data_dir, "remember", "deploys read the build cache").stdout)
    (gone,) = MEMORY_ID.findall(cli(data_dir, "remember", "the old cache was in /tmp").stdout)
    commands = {
        "remember": (["remember", "the nightly export runs at two"], "Remembered"),
        "search": (["search", "build cache"], "/var/cache"),
        "context": (["context", "where is the build cache?"], "/var/cache"),
        "relate": (["relate", deploy, cache, "--type", "ENABLES"], f"ENABLES {deploy} -> {cache}"),
        "pin": (["pin", cache], f"pinned {cache}"),
        "feedback": (["feedback", cache, "1"], "feedback sum 1"),
        "forget": (["forget", gone], f"forgot {gone}"),
        "list": (["list"], "the nightly export runs at two"),
        "show": (["show", cache], "ENABLES"),
    }
    assert set(commands) == set(SERVER_FIRST)
    before = operations(server)
    loaded, printed = {}, {}
    for name, (args, expected) in commands.items():
        modules, output = fresh_run(args, data_dir, tmp_path)
        loaded[name] = server_side(modules)
        printed[name] = expected in " ".join(output.split())
    assert loaded == {name: [] for name in commands}
    assert printed == {name: True for name in commands}
    after = operations(server)
    sent = {name: after.get(op, 0) > before.get(op, 0) for name, op in SERVER_FIRST.items()}
    assert sent == {name: True for name in commands}


REJECT = 'mutation($id: ID!) { rejectCandidate(id: $id, reason: "wrong") { id tier } }'


def test_archived_memories_and_failure_lessons_come_through_the_server(
    data_dir: Path, server: str
) -> None:
    def graphql(query: str, variables: dict[str, object]) -> dict[str, object]:
        body = httpx.post(f"{server}/graphql", json={"query": query, "variables": variables})
        assert "errors" not in body.json(), body.text
        return body.json()["data"]

    report = {
        "error": "ModuleNotFoundError: No module named 'requests'",
        "attempted": "run the CSV importer",
        "tool": "Bash",
    }
    recorded = graphql(RECORD_FAILURE, {"input": report})
    graphql(RECORD_FAILURE, {"input": report})
    capsule = recorded["recordFailure"]["capsule"]  # type: ignore[index]
    context = json.loads(
        cli(data_dir, "context", "run the CSV importer", "--no-record-access", "--json").stdout
    )
    (item,) = [i for i in context["items"] if i["memory"]["id"] == capsule["lessonId"]]
    assert item["failure"]["id"] == capsule["id"] and item["failure"]["occurrence_count"] == 2

    guess = cli(
        data_dir, "remember", "the importer might need pandas", "--source", "auto_extracted"
    )
    (guess_id,) = MEMORY_ID.findall(guess.stdout)
    graphql(REJECT, {"id": guess_id})
    hint = ("context", "importer pandas", "--no-record-access", "--json")
    hidden = json.loads(cli(data_dir, *hint).stdout)["items"]
    assert guess_id not in [i["memory"]["id"] for i in hidden]
    found = json.loads(cli(data_dir, "search", "importer pandas", "--archived", "--json").stdout)
    (hit,) = [h for h in found["hits"] if h["memory"]["id"] == guess_id]
    assert hit["archived"] is True
    assert operations(server).get("CliContext") == 2


def test_a_left_over_address_of_a_gone_server_is_ignored(data_dir: Path) -> None:
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    (data_dir / ADDRESS_FILE).write_text(
        json.dumps({"pid": int(gone.stdout), "url": f"http://127.0.0.1:{free_port()}/graphql"})
    )
    cli(data_dir, "remember", "deploys happen on Tuesdays")
    found = json.loads(cli(data_dir, "search", "deploy days", "--json").stdout)
    assert found["hits"][0]["memory"]["content"] == "deploys happen on Tuesdays"


def test_an_address_nobody_listens_on_falls_back_to_the_store(data_dir: Path) -> None:
    # A live process (this one) but a port with no server: the connection is refused.
    (data_dir / ADDRESS_FILE).write_text(
        json.dumps({"pid": os.getpid(), "url": f"http://127.0.0.1:{free_port()}/graphql"})
    )
    written = cli(data_dir, "remember", "invoices go out on the first")
    assert MEMORY_ID.findall(written.stdout)


def test_the_service_app_is_ready_only_with_the_model_warm(data_dir: Path) -> None:
    # Five threads: a model runtime of its own, which nothing else has warmed.
    settings = Settings(data_dir=data_dir, scheduler=False, embedder_threads=5)
    assert not MiniLMEmbedder(threads=5).ready()
    app_ = create_app_from_settings(settings)
    with serve(app_) as http:
        assert app_.state.gm.embedder.ready()
        assert http.get("/healthz").status_code == 200


@contextmanager
def advertised(data_dir: Path, port: int) -> Iterator[None]:
    """The data directory claimed by this process, its ``serve.json`` naming ``port``:
    as a live ``graphmem serve`` leaves it, whatever answers on that port."""
    store = discovery.store_of(Settings(data_dir=data_dir))
    with (
        discovery.claimed(data_dir, "127.0.0.1", 0, backend="falkordb", store=store) as claim,
        claim.advertised("127.0.0.1", port),
    ):
        yield


def test_a_claimed_address_nobody_answers_on_falls_back_to_the_store(data_dir: Path) -> None:
    with advertised(data_dir, free_port()):
        written = cli(data_dir, "remember", "invoices go out on the first")
        (memory_id,) = MEMORY_ID.findall(written.stdout)
        assert "invoices go out on the first" in cli(data_dir, "list").stdout
        assert "Importance now" in cli(data_dir, "show", memory_id).stdout


class _Other(BaseHTTPRequestHandler):
    """Another program on the port ``serve.json`` names: it answers every POST
    with its own page."""

    answer: tuple[int, str, bytes] = (200, "text/html", b"")

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        status, kind, body = self.answer
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


OTHER_ANSWERS = {
    "a web page": (
        (200, "text/html", b"<html>Welcome to nginx</html>"),
        "HTTP_200",
        "not a GraphQL answer",
    ),
    "not found": (
        (404, "text/html", b"<html>Not Found</html>"),
        "HTTP_404",
        "not a GraphQL answer",
    ),
    "other JSON": ((200, "application/json", b'{"hello": "world"}'), "HTTP_200", "no data"),
}


@pytest.mark.parametrize("answer", OTHER_ANSWERS, ids=list(OTHER_ANSWERS))
def test_a_server_that_is_not_graphmem_is_one_line_and_exit_1(answer: str, data_dir: Path) -> None:
    reply, code, why = OTHER_ANSWERS[answer]
    handler = type("Other", (_Other,), {"answer": reply})
    other = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    port = other.server_address[1]
    url = f"http://127.0.0.1:{port}/graphql"
    unset: dict[str, str | None] = {k: None for k in os.environ if k.startswith("GRAPHMEM_")}
    try:
        with advertised(data_dir, port):
            said = {}
            for command in (["remember", "x"], ["search", "x"], ["list"], ["show", "m1"],
                            ["forget", "m1"]):  # fmt: skip
                done = CliRunner().invoke(app, command, env={**unset, **env_for(data_dir)})
                said[command[0]] = (done.exit_code, done.stdout, done.stderr)
    finally:
        other.shutdown()
        other.server_close()
    line = f"error [{code}]: HTTP {reply[0]} from {url}: {why}\n"
    assert said == {name: (1, "", line) for name in said}
    # Nothing was written behind the other program's back.
    assert not (data_dir / AOF_DIR).exists()
