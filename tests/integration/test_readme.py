"""The code blocks of the README and of the docs pages, run for real: a page that
drifts from the program fails.

Each fenced block is taken by its language: GraphQL operations are sent to a real
server (subscriptions are validated against the schema), the README's Python
examples run on an embedded store and against a server, `curl` lines are sent to a
real server, every `graphmem …` command line names a command that exists (its
``--help`` exits 0), every ``python -m …`` names a module that exists, and JSON
blocks parse. The README's Neo4j line serves the test Neo4j as it stands (the
one ``make neo4j`` starts, but for its port and password). The README links
every docs page, and every link between the pages leads to a file that exists.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from graphql import parse, validate
from typer.testing import CliRunner

from graphmem.cli import app
from graphmem.graphql.schema import build_schema
from graphmem.settings import Settings
from tests.integration.conftest import GraphQLClient
from tests.neo4j_server import TestNeo4j

# A surface suite: what it checks is the surface, the same on every backend; the
# store suites beneath it run on Neo4j as well (tests/conftest.py).
pytestmark = pytest.mark.backends("falkordb")

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
"""The README and the docs pages it sends a reader to: their blocks are checked alike."""
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
LINK = re.compile(r"\]\(([^)#\s]+\.md)(#[^)]*)?\)")


@dataclass(frozen=True)
class Block:
    language: str
    text: str
    line: int
    page: str

    def __str__(self) -> str:
        return f"{self.page}:{self.line} ({self.language or 'plain'})"


def blocks(language: str, pages: list[Path] = PAGES) -> list[Block]:
    found = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        name = str(page.relative_to(ROOT))
        for match in FENCE.finditer(text):
            if match.group(1) == language:
                line = text.count("\n", 0, match.start()) + 1
                found.append(Block(language, match.group(2), line, name))
    return found


def shell_lines() -> list[str]:
    """Every command line of the shell blocks, comments and continuations folded."""
    lines: list[str] = []
    for block in blocks("sh"):
        pending = ""
        for raw in block.text.splitlines():
            line = raw.split("  #")[0].split(" # ")[0].rstrip()
            if line.endswith("\\"):
                pending += line[:-1] + " "
                continue
            line = (pending + line).strip()
            pending = ""
            if line and not line.startswith("#"):
                lines.extend(part.strip() for part in line.split(";") if part.strip())
    return lines


def graphmem_commands() -> list[tuple[str, ...]]:
    """The command path of each ``graphmem …`` line: the words before the first
    argument, option or placeholder."""
    commands: set[tuple[str, ...]] = set()
    for line in shell_lines():
        if not line.startswith("graphmem "):
            continue
        words: list[str] = []
        for word in line.split()[1:]:
            if not re.fullmatch(r"[a-z][a-z-]*", word) or len(words) == 2:
                break
            words.append(word)
        commands.add(tuple(words))
    return sorted(commands)


def test_the_readme_has_the_two_set_up_commands() -> None:
    (setup, *_) = blocks("sh", [README])
    assert [line.split("#")[0].strip() for line in setup.text.splitlines()] == [
        "make serve",
        "make test",
    ]


def test_the_readme_puts_graphmem_on_path_before_calling_it_bare() -> None:
    # `make serve` installs graphmem into .venv/bin only; a bare `graphmem`
    # before the line that puts it on PATH is "command not found".
    lines = [line for block in blocks("sh", [README]) for line in block.text.splitlines()]
    first = next(i for i, line in enumerate(lines) if line.startswith("graphmem "))
    assert 'export PATH="$PWD/.venv/bin:$PATH"' in lines[:first]


@pytest.mark.parametrize("command", graphmem_commands(), ids=" ".join)
def test_every_graphmem_command_in_the_pages_exists(command: tuple[str, ...]) -> None:
    runner = CliRunner()
    for depth in range(len(command), 0, -1):
        # The words after a command may be its arguments (`graphmem show ID`).
        result = runner.invoke(app, [*command[:depth], "--help"])
        if result.exit_code == 0:
            assert "usage" in result.output.lower(), result.output
            return
    pytest.fail(f"`graphmem {' '.join(command)} --help` failed: {result.output[-500:]}")


def test_every_python_module_the_pages_run_exists() -> None:
    text = "\n".join(page.read_text(encoding="utf-8") for page in PAGES)
    modules = set(re.findall(r"python -m ([\w.]+)", text))
    assert modules
    missing = [m for m in sorted(modules) if importlib.util.find_spec(m) is None]
    assert missing == []


@pytest.mark.parametrize("block", blocks("json"), ids=str)
def test_json_blocks_parse(block: Block) -> None:
    json.loads(block.text)


def operations() -> list[Block]:
    return [b for b in blocks("graphql") if not b.text.lstrip().startswith("subscription")]


@pytest.mark.parametrize("block", operations(), ids=str)
def test_graphql_examples_run_without_errors(block: Block, gql: GraphQLClient) -> None:
    gql.data(block.text)


@pytest.mark.parametrize("block", [b for b in blocks("graphql") if b not in operations()], ids=str)
def test_subscription_examples_are_valid(block: Block) -> None:
    schema = build_schema(Settings.model_construct())._schema
    assert validate(schema, parse(block.text)) == []


def test_curl_examples_get_data(gql: GraphQLClient) -> None:
    base = str(gql.http.base_url).rstrip("/")
    curls = [line for line in shell_lines() if line.startswith("curl ")]
    ran = 0
    for line in curls:
        if "127.0.0.1:8000" not in line:
            continue  # examples for a remote host with a key
        command = shlex.split(line.replace("http://127.0.0.1:8000", base))
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        body = json.loads(done.stdout)
        assert "errors" not in body and body["data"], body
        ran += 1
    assert ran >= 1


def test_the_python_example_runs() -> None:
    (block,) = [b for b in blocks("python", [README]) if "GraphMem.open" in b.text]
    with tempfile.TemporaryDirectory(dir="/tmp", prefix="gmrd-") as data_dir:
        code = re.sub(r'data_dir="[^"]+"', f'data_dir="{data_dir}"', block.text)
        env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
        env["GRAPHMEM_EMBEDDER"] = "none"
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env
        )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Add retries to the HTTP client" in done.stdout


def test_the_client_example_runs_against_a_server(gql: GraphQLClient) -> None:
    (block,) = [b for b in blocks("python", [README]) if "Client(" in b.text]
    code = block.text.replace("http://127.0.0.1:8000", str(gql.http.base_url))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Staging deploys need a green build" in done.stdout
    assert done.stdout.splitlines()[-1] == "NOT_FOUND"


def readme_neo4j_line() -> list[str]:
    """The words of the README's line that serves graphmem on ``make neo4j``'s Neo4j."""
    (line,) = [
        line
        for block in blocks("sh", [README])
        for line in block.text.splitlines()
        if line.startswith("GRAPHMEM_BACKEND=neo4j ") and line.endswith(" serve")
    ]
    return shlex.split(line)


def test_the_readmes_neo4j_line_serves_the_test_neo4j(neo4j_server: TestNeo4j, data_dir: Path):
    """Run as written in the virtualenv the tests run in (``make serve``'s: it has
    the driver), but for the test Neo4j's port and password and a free port: the
    banner names the store, and no notice of a schema statement with nothing to
    do comes before it."""
    words = readme_neo4j_line()
    settings = dict(word.split("=", 1) for word in words if "=" in word)
    command = [word for word in words if "=" not in word]
    assert settings == {"GRAPHMEM_BACKEND": "neo4j", "GRAPHMEM_NEO4J_URI": "bolt://127.0.0.1:7687"}
    assert command == [".venv/bin/graphmem", "serve"]
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    env.update(
        settings,
        GRAPHMEM_NEO4J_URI=neo4j_server.bolt_uri,
        GRAPHMEM_NEO4J_PASSWORD=neo4j_server.password,
        GRAPHMEM_DATA_DIR=str(data_dir),
        GRAPHMEM_PORT=str(port),
        GRAPHMEM_EMBEDDER="none",
        GRAPHMEM_SCHEDULER="false",
        GRAPHMEM_LOG_FORMAT="text",
    )
    graphmem = str(Path(sys.executable).parent / "graphmem")
    server = subprocess.Popen([graphmem, *command[1:]], env=env, stderr=subprocess.PIPE, text=True)
    try:
        before = _lines_until(server, "graphmem: Neo4j at ")
        assert before[-1] == f"graphmem: Neo4j at {neo4j_server.bolt_uri}, database neo4j"
        assert [line for line in before if "has no effect" in line] == []
        # The banner comes as the store is warm, an instant before the port listens.
        body = _answered(f"http://127.0.0.1:{port}/graphql", {"query": "{ projects }"})
        assert "errors" not in body and isinstance(body["data"]["projects"], list), body
    finally:
        server.send_signal(signal.SIGINT)
        server.communicate(timeout=120)


def _answered(url: str, query: dict[str, str]) -> dict[str, Any]:
    """The answer of the server at ``url`` to ``query``, once it accepts connections."""
    deadline = time.monotonic() + 120
    while True:
        try:
            return httpx.post(url, json=query, timeout=60).json()  # type: ignore[no-any-return]
        except httpx.ConnectError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _lines_until(process: subprocess.Popen[str], start: str) -> list[str]:
    """The lines ``process`` writes to stderr up to the first that starts with
    ``start`` (a busy machine is allowed two minutes)."""
    assert process.stderr is not None
    lines: list[str] = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        if not line:
            pytest.fail("graphmem serve ended before its banner:\n" + "\n".join(lines[-20:]))
        lines.append(line.rstrip("\n"))
        if line.startswith(start):
            return lines
    pytest.fail("no banner within two minutes:\n" + "\n".join(lines[-20:]))


def test_the_readme_blocks_are_found() -> None:
    """Guards the parsing above: a README rewrite must not make these tests vacuous."""
    assert operations() and blocks("python", [README]) and graphmem_commands()
    pages = {block.page for block in operations() + blocks("sh")}
    assert {"README.md", "docs/graphql.md", "docs/cli.md", "docs/transfer.md"} <= pages


def test_the_readme_links_every_docs_page() -> None:
    linked = {target for target, _ in LINK.findall(README.read_text(encoding="utf-8"))}
    assert {f"docs/{page.name}" for page in PAGES[1:]} <= linked


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_link_between_the_pages_leads_to_a_page(page: Path) -> None:
    targets = {target for target, _ in LINK.findall(page.read_text(encoding="utf-8"))}
    missing = [t for t in sorted(targets) if "://" not in t and not (page.parent / t).is_file()]
    assert missing == []
