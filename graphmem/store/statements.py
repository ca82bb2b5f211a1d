"""Named Cypher statements, loaded from the ``cypher/`` folder.

Keeping every statement in a file of its own makes the full set reviewable,
lintable with each backend's own tools, and impossible to build from user text.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from graphmem.domain.errors import GraphMemError

_PACKAGED = Path(__file__).resolve().parents[1] / "cypher"
_SOURCE_TREE = Path(__file__).resolve().parents[2] / "cypher"
CYPHER_DIR = _PACKAGED if _PACKAGED.is_dir() else _SOURCE_TREE
DIALECTS = ("falkordb", "neo4j")
_LOCK_LINE = re.compile(
    r"^(?:SET|REMOVE) \w+\._lock(?: = true)?(?:, \w+\._lock(?: = true)?)*\n", re.M
)
"""A guarded write's lock (cypher/README.md): ``SET n._lock = true`` or ``REMOVE n._lock``."""
_INCLUDE = re.compile(r"\{\{(\w+)(?:\((\$?[\w.]+(?:, \$?[\w.]+)*)\))?\}\}")
"""A fragment included by a statement (cypher/README.md): ``{{name}}``, ``{{name(var)}}``
or ``{{name(var, $param)}}``; a variable may name a property (``row.embedding``)."""
_SLOT = re.compile(r"@(\d?)")
"""Where a fragment puts a variable: ``@`` for its only one, ``@1``, ``@2`` for several."""
FRAGMENTS = "fragments"


class Statements:
    """The statements of one dialect: a dialect file wins over the shared one,
    for statements and fragments alike.

    A guarded write locks the nodes it re-checks, which Neo4j needs and FalkorDB,
    running one write at a time, does not; FalkorDB 4.16 also re-inserts a
    memory's vector into its index on every property write, so the two lock
    writes cost more than the write they guard. FalkorDB's statements come
    without their lock lines (``locks`` False) unless asked for them."""

    def __init__(self, dialect: str, root: Path = CYPHER_DIR, *, locks: bool | None = None) -> None:
        if dialect not in DIALECTS:
            raise ValueError(f"unknown dialect {dialect!r}")
        self.dialect = dialect
        self.root = root
        self.locks = dialect != "falkordb" if locks is None else locks

    def __getitem__(self, name: str) -> str:
        text = _load(self.root, self.dialect, name)
        return text if self.locks else _unlocked(name, text)

    def script(self, name: str) -> list[str]:
        """A multi-statement file (schema DDL), split on lines holding a lone ``;``."""
        parts = [p.strip() for p in self[name].split("\n;\n")]
        return [p for p in parts if p]

    def names(self) -> set[str]:
        shared = {p.stem for p in self.root.glob("*.cypher")}
        own = {p.stem for p in (self.root / self.dialect).glob("*.cypher")}
        return shared | own


@cache
def _load(root: Path, dialect: str, name: str) -> str:
    for candidate in (root / dialect / f"{name}.cypher", root / f"{name}.cypher"):
        if candidate.is_file():
            text = _included(root, dialect, name, candidate.read_text(encoding="utf-8"))
            return _without_comments(text)
    raise GraphMemError(f"no Cypher statement named {name!r} for {dialect}")


def _included(root: Path, dialect: str, name: str, text: str) -> str:
    """A list several statements need word for word (a memory's fields, the
    relation types) is written once, in ``fragments/``, and put in where a
    statement names it: adding a field then changes one file, and no statement
    can fall behind. What the backends spell apart (a vector's type) is a
    fragment of the same name in ``fragments/falkordb/`` and ``fragments/neo4j/``,
    so the statement around it is one file for both. A fragment goes in on one
    line, so the statement's lines keep their numbers; ``@`` in it stands for
    the variable the statement gives (``@1``, ``@2`` for several)."""

    def include(match: re.Match[str]) -> str:
        fragment = match.group(1)
        variables = match.group(2).split(", ") if match.group(2) else []
        body = _fragment(root, dialect, name, fragment)
        wanted = _arity(body)
        if len(variables) != wanted:
            raise GraphMemError(f"{name}: fragment {fragment!r} takes {_variables(wanted)}")
        return _SLOT.sub(lambda slot: variables[int(slot.group(1) or 1) - 1], body)

    expanded = _INCLUDE.sub(include, text)
    if "{{" in expanded:
        raise GraphMemError(f"{name}: a fragment include was not recognised")
    return expanded


def _fragment(root: Path, dialect: str, name: str, fragment: str) -> str:
    """A fragment's text without its comment lines, on one line: the dialect's
    own if it has one, else the shared one."""
    for folder in (root / FRAGMENTS / dialect, root / FRAGMENTS):
        path = folder / f"{fragment}.cypher"
        if path.is_file():
            return " ".join(_without_comments(path.read_text(encoding="utf-8")).splitlines())
    raise GraphMemError(f"{name}: no Cypher fragment named {fragment!r} for {dialect}")


def _arity(body: str) -> int:
    """How many variables a fragment takes: the highest slot it writes."""
    return max((int(slot or 1) for slot in _SLOT.findall(body)), default=0)


def _variables(count: int) -> str:
    """A refused include says how many variables the fragment wants, in words."""
    return {0: "no variable", 1: "a variable"}.get(count, f"{count} variables")


@cache
def _unlocked(name: str, text: str) -> str:
    unlocked = _LOCK_LINE.sub("", text)
    if "._lock" in unlocked:
        raise GraphMemError(f"{name}: a lock line was not recognised")
    return unlocked


def _without_comments(text: str) -> str:
    """Comment lines and indentation are for the people reading the files; the
    database is sent the statement alone (a shorter message, and one less thing
    for a server's query parser to get wrong). No statement holds a string
    literal that spans lines, so no text in quotes loses its spaces."""
    lines = (line.strip() for line in text.splitlines())
    return "\n".join(line for line in lines if line and not line.startswith("//"))
