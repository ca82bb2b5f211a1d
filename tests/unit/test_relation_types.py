"""``RelationType`` is the one list of relation types: every Cypher statement,
style, schema and palette that has to name them literally names the same set.

Cypher cannot take a relationship type as a parameter, so some statements
spell the types out (a ``[:A|B]`` alternation, one write per type); this
test reads them, and the surfaces that list the types, and compares.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from graphmem.domain.dependencies import CARRIERS
from graphmem.domain.kinds import RelationType
from graphmem.domain.retrieval.search import TRAVERSED
from graphmem.mcp.server import create_server
from graphmem.store.statements import CYPHER_DIR, Statements

ROOT = Path(__file__).resolve().parents[2]
ALL = {t.value for t in RelationType}
STRUCTURAL = {
    "IN_SESSION",
    "IN_PROJECT",
    "FOR_SESSION",
    "PROMOTED",
    "CHANGED",
    "MOVED",
    "IN_CONTEXT",
    "TAUGHT",
}
"""Relationships graphmem's own bookkeeping draws (to sessions, projects, log
entries, and from failure capsules), never between two memories: not relation
types."""
SUBSETS = {"expand_relations": {t.value for t in TRAVERSED}}
"""Statements that deliberately walk fewer types than all, and which."""
BROWSER_SUBSETS = {"review_marks": {t.value for t in CARRIERS}}
"""Saved Browser queries that deliberately walk fewer types than all: the path
from a review mark's cause follows the relations a dependency travels along."""
PATTERN = re.compile(r"\[\s*\w*\s*:\s*(\w+(?:\s*\|\s*:?\s*\w+)*)")
CYPHER_FILES = sorted(CYPHER_DIR.rglob("*.cypher"))


def named_types(text: str) -> list[set[str]]:
    """The relationship types of each ``[var:TYPE|TYPE*..]`` pattern of a statement."""
    code = re.sub(r"//[^\n]*", "", text)
    return [
        {t.strip().lstrip(":").strip() for t in match.split("|")} for match in PATTERN.findall(code)
    ]


def test_the_parser_reads_alternations_and_single_types():
    text = "MATCH (a)-[:CONSTRAINS|ENABLES*1..3]-(b)<-[r:IN_SESSION]-(c) // [:NOT_THIS]"
    assert named_types(text) == [{"CONSTRAINS", "ENABLES"}, {"IN_SESSION"}]


@pytest.mark.parametrize("path", CYPHER_FILES, ids=lambda p: str(p.relative_to(CYPHER_DIR)))
def test_cypher_names_only_known_relationship_types(path: Path):
    for types in named_types(path.read_text()):
        assert types <= ALL | STRUCTURAL, f"{path.name}: {sorted(types - ALL - STRUCTURAL)}"


@pytest.mark.parametrize("path", CYPHER_FILES, ids=lambda p: str(p.relative_to(CYPHER_DIR)))
def test_an_alternation_of_relation_types_lists_them_all(path: Path):
    subsets = BROWSER_SUBSETS if path.parent.name == "browser" else SUBSETS
    wanted = subsets.get(path.stem, ALL)
    for types in named_types(path.read_text()):
        if len(types) > 1 and types & ALL:
            assert types == wanted, f"{path.name} lists {sorted(types)}, not {sorted(wanted)}"


def test_the_walked_subsets_are_found():
    """A subset statement that stopped naming its types would pass unnoticed."""
    for name, wanted in SUBSETS.items():
        assert wanted in named_types(Statements("falkordb")[name])
    for name, wanted in BROWSER_SUBSETS.items():
        assert wanted in named_types((CYPHER_DIR / "browser" / f"{name}.cypher").read_text())


def test_each_relation_type_has_its_write_statement():
    relate = {p.stem for p in CYPHER_DIR.glob("relate_*.cypher")}
    assert relate == {t.statement for t in RelationType}
    for kind in RelationType:
        for dialect in ("falkordb", "neo4j"):
            merged = re.findall(
                r"MERGE \(a\)-\[r:(\w+)\]->\(b\)", Statements(dialect)[kind.statement]
            )
            assert merged == [kind.value], f"{kind.statement} ({dialect}) writes {merged}"


def test_an_import_creates_every_relation_type():
    text = Statements("falkordb")["import_relations"]
    assert set(re.findall(r"row\.type = '(\w+)'", text)) == ALL
    assert set(re.findall(r"CREATE \(a\)-\[r:(\w+)\]->\(b\)", text)) == ALL


def test_the_graphql_schema_lists_them():
    schema = (ROOT / "schema.graphql").read_text()
    body = re.search(r"enum RelationType \{([^}]*)\}", schema)
    assert body is not None
    assert set(body.group(1).split()) == ALL


def test_the_explorer_palette_colours_them():
    palette = (ROOT / "tools" / "explorer" / "src" / "palette.js").read_text()
    body = re.search(r"RELATION_COLOURS = \{([^}]*)\}", palette)
    assert body is not None
    assert set(re.findall(r"^\s*(\w+):", body.group(1), re.M)) == ALL


def test_the_browser_style_styles_them():
    style = (CYPHER_DIR / "browser" / "graphmem.grass").read_text()
    assert set(re.findall(r"^relationship\.(\w+)\s*\{", style, re.M)) - STRUCTURAL == ALL


def test_the_cypher_linter_declares_them():
    schema = json.loads((ROOT / "tools" / "cypher-lint" / "graph-schema.json").read_text())
    assert set(schema["relationshipTypes"]) == ALL | STRUCTURAL


def test_the_mcp_tools_offer_them():
    """The tool list is built from the tools' declarations alone: the GraphMem a
    tool calls is reached only when it is called, so none stands behind this one."""
    tools = {tool.name: tool for tool in asyncio.run(create_server(None).list_tools())}
    for name in ("relate", "search"):
        schema = json.dumps(tools[name].input_schema)
        offered = re.search(r'"RelationType": \{[^{}]*"enum": \[([^\]]*)\]', schema)
        assert offered is not None, f"{name} takes no RelationType"
        assert set(json.loads(f"[{offered.group(1)}]")) == ALL
