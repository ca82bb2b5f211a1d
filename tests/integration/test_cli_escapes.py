"""Control characters: refused in a memory's content and rationale, and printed
escaped (never raw) by every command that prints stored text.

A memory stored before the rule, a failure's error output (a tool's colours), a
relation's rationale or a key's name may still hold them; printed raw, an ANSI
sequence clears, recolours or retitles the terminal of whoever reads it.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from click.testing import Result

from graphmem.api import GraphMem
from graphmem.cli.server_first import ADDRESS_FILE
from graphmem.domain.errors import InvalidInputError
from graphmem.settings import Settings
from tests.conftest import cypher
from tests.integration.conftest import run_cli
from tests.integration.test_cli import MEMORY_ID, free_port

# A surface suite (the command line), on the embedded FalkorDB it starts itself.
pytestmark = pytest.mark.backends("falkordb")

HOSTILE = "evil \x1b[2J\x1b[31mred\x1b]0;pwned\x07 bell\x07 cr\rback c1\x9b31m del\x7f end"
"""Clear screen, colour, window title, bell, carriage return, a C1 CSI and DEL."""
RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""A control character a terminal would act on (tab and newline are text)."""
VISIBLE = ["\\x1b[2J\\x1b[31mred\\x1b]0;pwned", "\\u009b31m", "del\\u007f"]
"""How the hostile text reads on every command's output."""
ANSI_ERROR = "\x1b[31mModuleNotFoundError\x1b[0m: No module named 'requests'\x07"


def opened(data_dir: Path) -> GraphMem:
    return GraphMem.open(Settings(data_dir=data_dir, embedder="none"))


def escaped(result: Result, *expected: str) -> str:
    """The command's whole output (stdout and stderr), checked to hold no raw
    control character and each expected escape."""
    assert result.exit_code == 0, result.output
    assert not RAW.search(result.output), repr(result.output)
    for text in expected:
        assert text in result.output, (text, result.output)
    return result.output


def plant(gm: GraphMem, memory_id: str, content: str) -> None:
    """Store ``content`` as it would be from before the rule: written under the API."""
    cypher(
        gm.store, "MATCH (m:Memory {id: $id}) SET m.content = $c", {"id": memory_id, "c": content}
    )


@pytest.fixture
def stored(data_dir: Path) -> dict[str, str]:
    """A memory and a candidate holding control characters, a relation and a key
    whose text has them, and a failure reported with a tool's coloured output."""
    with opened(data_dir) as gm:
        memory = gm.remember({"content": "evil placeholder one"}).id
        candidate = gm.remember({"content": "evil placeholder two", "source": "auto_extracted"}).id
        plant(gm, memory, HOSTILE)
        plant(gm, candidate, HOSTILE + " candidate")
        gm.relate(memory, candidate, "RELATED_TO", rationale="because")
        cypher(
            gm.store,
            "MATCH (:Memory {id: $a})-[r:RELATED_TO]->(:Memory {id: $b}) SET r.rationale = $r",
            {"a": memory, "b": candidate, "r": "because \x1b[5mblink\x1b[0m"},
        )
        gm.keys.create("ci \x1b]0;key-title\x07", ["default"], "read")
        failure = gm.record_failure(
            {"error": ANSI_ERROR, "tool": "Bash", "command": "pytest \x1b[1m-x"}
        )
        assert failure.lesson_id is not None
    return {"memory": memory, "candidate": candidate, "lesson": failure.lesson_id}


def test_remember_refuses_control_characters_naming_the_field(data_dir: Path) -> None:
    refused = run_cli(data_dir, "remember", "clear \x1b[2J the screen")
    assert refused.exit_code == 1
    assert "error [INVALID_INPUT]: content:" in refused.output
    assert "control characters other than tab, newline and carriage return" in refused.output
    assert "'\\x1b'" in refused.output and not RAW.search(refused.output)
    assert "no memories match" in run_cli(data_dir, "list").output

    with opened(data_dir) as gm:
        for field, item in (
            ("content", {"content": "title \x1b]0;pwned\x07"}),
            ("content", {"content": "c1 \x9b31m"}),
            ("rationale", {"content": "fine", "rationale": "bell\x07"}),
            ("tags.1", {"content": "fine", "tags": ["ok", "red \x1b[31m"]}),
            ("evidence.0", {"content": "fine", "evidence": ["\x9b31m"]}),
        ):
            with pytest.raises(InvalidInputError) as caught:
                gm.remember(item)
            assert caught.value.field == field
            assert caught.value.message.startswith(f"{field}: ")
        first = gm.remember({"content": "one end of a relation"}).id
        second = gm.remember({"content": "the other end of it"}).id
        for refused_call, field in (
            (lambda: gm.relate(first, second, "RELATED_TO", rationale="\x1b[5m"), "rationale"),
            (lambda: gm.open_session(name="title \x1b]0;x\x07"), "name"),
        ):
            with pytest.raises(InvalidInputError) as caught:
                refused_call()
            assert caught.value.field == field, caught.value
            assert "control characters" in caught.value.message
        assert gm.neighborhood(first).edges == []
        with pytest.raises(InvalidInputError) as caught:
            kept = gm.remember({"content": "kept as it is"})
            gm.update(kept.id, {"content": "now \x1b[2J"})
        assert caught.value.field == "content"
        assert gm.get(kept.id).content == "kept as it is"
        # Tab, newline and carriage return are text.
        text = gm.remember({"content": "a\tb\nc\r\nd", "rationale": "x\ty"})
        assert (text.content, text.rationale) == ("a\tb\nc\r\nd", "x\ty")
        assert {m.id for m in gm.list().items} == {text.id, second, first, kept.id}


def test_every_command_prints_stored_control_characters_escaped(
    data_dir: Path, stored: dict[str, str]
) -> None:
    escaped(run_cli(data_dir, "list"), VISIBLE[0])  # a preview of the content
    shown = escaped(run_cli(data_dir, "show", stored["memory"]), *VISIBLE)
    assert "cr\\rback" in shown and "\\x07 bell\\x07" in shown  # what rich would drop
    assert "because \\x1b[5mblink\\x1b[0m" in shown  # the relation's rationale
    escaped(run_cli(data_dir, "search", "evil", "--mode", "FULLTEXT"), *VISIBLE)
    escaped(run_cli(data_dir, "context", "evil end", "--no-record-access"), *VISIBLE)
    escaped(run_cli(data_dir, "review", "--list"), *VISIBLE)
    escaped(
        run_cli(data_dir, "failures"),
        "\\x1b[31mModuleNotFoundError\\x1b[0m",
        "pytest \\x1b[1m-x",
        stored["lesson"],
    )
    escaped(run_cli(data_dir, "keys", "list"), "ci \\x1b]0;key-title\\x07")


def test_a_lesson_learned_from_coloured_output_reads_as_words(
    data_dir: Path, stored: dict[str, str]
) -> None:
    with opened(data_dir) as gm:
        lesson = gm.get(stored["lesson"])
    assert lesson.content == (
        "Failure seen: running pytest -x (Bash) failed with: "
        "ModuleNotFoundError: No module named 'requests'"
    )


def test_json_output_stays_exact_json(data_dir: Path, stored: dict[str, str]) -> None:
    found = run_cli(data_dir, "search", "evil", "--mode", "FULLTEXT", "--json")
    escaped(found)
    contents = {h["memory"]["content"] for h in json.loads(found.stdout)["hits"]}
    assert HOSTILE in contents
    capsules = run_cli(data_dir, "failures", "--json")
    escaped(capsules)
    assert [c["error"] for c in json.loads(capsules.stdout)] == [ANSI_ERROR]


def test_imports_keep_or_refuse_control_characters_by_format(data_dir: Path) -> None:
    # A graphmem file moves what a store holds, as it is (lossless).
    with opened(data_dir) as gm:
        memory = gm.remember({"content": "evil placeholder"}, project_id="old").id
        plant(gm, memory, HOSTILE)
    dump = data_dir / "old.jsonl"
    assert run_cli(data_dir, "export", str(dump), "--project", "old").exit_code == 0
    moved = run_cli(data_dir, "import", str(dump), "--project", "old")
    assert moved.exit_code == 0, moved.output
    escaped(run_cli(data_dir, "show", memory, "--project", "old"), *VISIBLE)

    # A Sky file brings new memories: held to the rule, each bad line named.
    sky = data_dir / "short_term.jsonl"
    records = [{"ts": 1_700_000_000, "content": "fine"}, {"ts": 1_700_000_001, "content": HOSTILE}]
    sky.write_text("".join(json.dumps(r) + "\n" for r in records))
    refused = run_cli(data_dir, "import", str(sky), "--format", "sky", "--project", "sky")
    assert refused.exit_code == 1
    assert "line 2: content:" in refused.output
    assert "control characters other than tab, newline and carriage return" in refused.output
    assert not RAW.search(refused.output)
    assert "no project named 'sky'" in run_cli(data_dir, "list", "--project", "sky").output


@pytest.fixture
def server(data_dir: Path, stored: dict[str, str]) -> Iterator[str]:
    """``graphmem serve`` on the data directory (no embedding model: full text)."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    env |= {
        "GRAPHMEM_DATA_DIR": str(data_dir),
        "GRAPHMEM_EMBEDDER": "none",
        "GRAPHMEM_SCHEDULER": "false",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "graphmem", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while not (data_dir / ADDRESS_FILE).exists() and time.monotonic() < deadline:
            assert process.poll() is None, process.communicate()
            time.sleep(0.05)
        assert (data_dir / ADDRESS_FILE).exists()
        yield url
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            raise


def test_through_the_server_too(data_dir: Path, stored: dict[str, str], server: str) -> None:
    escaped(run_cli(data_dir, "search", "evil", "--mode", "FULLTEXT"), *VISIBLE)
    escaped(run_cli(data_dir, "context", "evil end", "--no-record-access"), *VISIBLE)
    metrics = httpx.get(f"{server}/metrics").text
    assert 'operation="CliSearch"' in metrics and 'operation="CliContext"' in metrics

    refused = run_cli(data_dir, "remember", "clear \x1b[2J the screen")
    assert refused.exit_code == 1 and "content:" in refused.output
    answer = httpx.post(
        f"{server}/graphql",
        json={
            "query": "mutation($i: MemoryInput!) { remember(input: $i) { memory { id } } }",
            "variables": {"i": {"content": "ok", "rationale": "title \x1b]0;pwned\x07"}},
        },
    ).json()
    (error,) = answer["errors"]
    assert error["extensions"]["code"] == "INVALID_INPUT"
    assert error["message"].startswith("input.rationale: ")
    written = run_cli(data_dir, "remember", "tab\tand newline\nare text")
    assert written.exit_code == 0 and MEMORY_ID.search(written.stdout)
