"""The Neo4j Browser style and saved queries agree with each other and with
the graph (tools/cypher-lint checks the queries' Cypher itself)."""

from __future__ import annotations

import re

from graphmem.models import RelationType, Tier
from graphmem.statements import CYPHER_DIR

BROWSER = CYPHER_DIR / "browser"
LABELLING = BROWSER / "00_display_labels.cypher"
SAVED = {
    "memory_neighbourhood",
    "supersede_chains",
    "memory_constraints",
    "session_promotion_history",
    "top_memories",
    "review_candidates",
}


def grass() -> dict[str, dict[str, str]]:
    """Parsed the way Browser reads a .grass file: ``selector { key: value; ... }``,
    braces inside single quotes being part of a value."""
    rules: dict[str, dict[str, str]] = {}
    selector, body, quoted, inside = "", "", False, False
    for char in (BROWSER / "graphmem.grass").read_text():
        if char == "'":
            quoted = not quoted
        elif char == "{" and not quoted:
            inside = True
        elif char == "}" and not quoted:
            rules[selector.strip()] = dict(
                (key.strip(), value.strip())
                for key, value in (d.split(":", 1) for d in body.split(";") if ":" in d)
            )
            selector, body, inside = "", "", False
        elif inside:
            body += char
        else:
            selector += char
    return rules


def set_labels() -> set[str]:
    return set(re.findall(r"SET m:(\w+)", LABELLING.read_text()))


def pixels(value: str) -> int:
    return int(value.removesuffix("px"))


def test_every_tier_has_a_colour_of_its_own():
    rules = grass()
    colours = [rules[f"node.Memory.{tier.value.capitalize()}"]["color"] for tier in Tier]
    assert len(set(colours)) == len(Tier)


def test_importance_bands_grow():
    rules = grass()
    sizes = [
        pixels(rules[f"node.Memory.Importance{band}"]["diameter"])
        for band in ("Low", "Mid", "High", "Top")
    ]
    assert sizes == sorted(sizes) and len(set(sizes)) == 4


def test_memories_show_their_content():
    assert grass()["node.Memory"]["caption"] == "{content}"


def test_the_labelling_query_sets_exactly_the_styled_labels():
    styled = {selector.split(".")[2] for selector in grass() if selector.startswith("node.Memory.")}
    assert set_labels() == styled
    assert {tier.value.capitalize() for tier in Tier} <= set_labels()
    removed = set(
        re.findall(r":(\w+)", " ".join(re.findall(r"REMOVE m(\S+)", LABELLING.read_text())))
    )
    assert removed == set_labels(), "a label the query sets must also be cleared when it re-runs"


def test_relations_between_memories_are_styled():
    rules = grass()
    assert {f"relationship.{t.value}" for t in RelationType} <= set(rules)


def test_saved_queries_are_there_and_named():
    files = {path.stem: path.read_text() for path in BROWSER.glob("*.cypher")}
    assert set(files) >= SAVED
    for name, text in files.items():
        assert text.startswith("// graphmem: "), (
            f"{name}: Browser names a favourite by its first comment"
        )
