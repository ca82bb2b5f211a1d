"""The evaluator's advice can be followed: an update is not reported as a
duplicate, and every ``graphmem ...`` command it names exists, with the
options it names."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest
import typer.main

import graphmem.services.evaluator
from graphmem.api import GraphMem
from graphmem.cli import app as cli_app
from graphmem.domain.kinds import RelationType

pytestmark = pytest.mark.backends("falkordb")

EVALUATOR = Path(graphmem.services.evaluator.__file__).parent
COMMAND = re.compile(
    # Where advice names a command: "(graphmem ...", "run graphmem ...", "<code>graphmem".
    r"(?:^|[(`]|<code>|\brun |\bor |: )graphmem ([a-z][a-z-]*(?: [a-z][a-z-]*)?)"
    r"((?: +(?:--[a-z-]+|[A-Z]+|\{|[a-z0-9]+))*)"
)


def advice_texts() -> list[str]:
    """Every string literal (f-strings included) of the evaluator package."""
    texts = []
    for path in sorted(EVALUATOR.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                texts.append(node.value)
            elif isinstance(node, ast.JoinedStr):
                texts.append(
                    "".join(
                        part.value if isinstance(part, ast.Constant) else "{"
                        for part in node.values
                    )
                )
    return texts


def advised_commands() -> list[tuple[list[str], list[str]]]:
    """Each ``graphmem X [Y] --option`` the evaluator can print: its words and options."""
    found = []
    for text in advice_texts():
        for match in COMMAND.finditer(text):
            words = match[1].split()
            options = re.findall(r"--[a-z-]+", match[2])
            found.append((words, options))
    return found


def resolve(words: list[str]) -> Any:
    """The CLI command the words name; the words past a command are its arguments."""
    command: Any = typer.main.get_command(cli_app)
    context = typer.Context(command)
    for word in words:
        if not hasattr(command, "get_command"):  # a command, not a group
            break
        sub = command.get_command(context, word)
        assert sub is not None, f"graphmem {' '.join(words)}: no command {word!r}"
        command = sub
    assert not hasattr(command, "get_command"), f"graphmem {' '.join(words)} is a group"
    return command


def test_every_command_the_evaluator_advises_exists() -> None:
    commands = advised_commands()
    named = {words[0] for words, _ in commands}
    # The parse finds the advice that prompted this test, and the rest.
    assert {"consolidate", "evaluate", "promote", "archive"} <= named, named
    for words, options in commands:
        command = resolve(words)
        known = {opt for param in command.params for opt in param.opts}
        for option in options:
            assert option in known, f"graphmem {' '.join(words)} has no {option}"


def test_an_update_is_no_near_duplicate(egm: GraphMem) -> None:
    """A pool size of 40 superseding one of 20 is one current memory and its
    history, with real embeddings and the real store."""
    old = egm.remember({"content": "The connection pool size is 20.", "memory_type": "fact"})
    new = egm.remember({"content": "The connection pool size is 40.", "memory_type": "fact"})
    if egm.get(old.id).superseded_by != new.id:
        egm.supersede(old.id, new.id)
    (relations,) = egm.relations([new.id])
    assert any(
        r.type is RelationType.SUPERSEDES and (r.from_id, r.to_id) == (new.id, old.id)
        for r in relations
    )

    report = egm.evaluate()

    assert [f for f in report.findings if f.code == "NEAR_DUPLICATE"] == []
    assert not any("graphmem merge" in f.fix for f in report.findings)
