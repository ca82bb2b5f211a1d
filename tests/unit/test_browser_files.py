"""The Neo4j Browser style and saved queries agree with each other and with
the graph (tools/cypher-lint checks the queries' Cypher itself;
tests/e2e/test_neo4j_browser.py runs them in a real Browser)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from graphmem.domain.kinds import RelationType
from graphmem.store.statements import CYPHER_DIR

ROOT = Path(__file__).resolve().parents[2]
BROWSER = CYPHER_DIR / "browser"
SAVED = {
    "memory_neighbourhood",
    "supersede_chains",
    "memory_constraints",
    "session_promotion_history",
    "top_memories",
    "review_candidates",
    "review_marks",
}
STATEMENTS = [p for p in CYPHER_DIR.rglob("*.cypher") if BROWSER not in p.parents]
VISIBLE = re.compile(
    r"\$viewer IS NULL OR coalesce\((\w+)\.visibility, 'shared'\) = 'shared' "
    r"OR \1\.agent_id = \$viewer"
)


def grass() -> dict[str, dict[str, str]]:
    """Parsed the way Browser 5 reads a dropped .grass file (grassUtils.parseGrass):
    quotes are dropped, braces inside them kept, and a declaration whose value
    holds a ``:`` is silently skipped (it splits on every colon)."""
    rules: dict[str, str] = {}
    selector, body, quoted, inside = "", "", False, False
    for char in (BROWSER / "graphmem.grass").read_text():
        if char == "'":
            quoted = not quoted
        elif char == "{" and not quoted and not inside:
            inside = True
        elif char == "}" and not quoted:
            rules[selector.strip()] = body
            selector, body, inside = "", "", False
        elif inside:
            body += char
        elif not char.isspace():
            selector += char
    parsed = {}
    for name, text in rules.items():
        pairs = [d.split(":") for d in text.split(";")]
        parsed[name] = {p[0].strip(): p[1].strip() for p in pairs if len(p) == 2}
    return parsed


def declared_in_file() -> dict[str, list[str]]:
    """Every ``key: value`` written in the file, per selector, before Browser's parsing."""
    text = (BROWSER / "graphmem.grass").read_text()
    return {
        selector: [d.strip() for d in body.split(";") if d.strip()]
        for selector, body in re.findall(r"([\w.]+)\s*\{((?:[^}']|'[^']*')*)\}", text)
    }


def written_labels() -> set[str]:
    """The labels nodes are created with, and those set on a node already there
    (``SET d:NeedsReview`` on a memory marked for review)."""
    text = "\n".join(path.read_text() for path in STATEMENTS)
    created = re.findall(r"(?:CREATE|MERGE)\s*\(\w*:(\w+)", text)
    added = re.findall(r"\bSET\s+\w+:(\w+)", text)
    return set(created) | set(added)


def written_types() -> set[str]:
    text = "\n".join(path.read_text() for path in STATEMENTS)
    return set(re.findall(r"(?:CREATE|MERGE)\s*\([^()]*\)-\[\w*:(\w+)", text))


def rgb(colour: str) -> tuple[int, int, int]:
    value = colour.lstrip("#")
    return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)


def distance(a: str, b: str) -> float:
    return sum((x - y) ** 2 for x, y in zip(rgb(a), rgb(b), strict=True)) ** 0.5


def pixels(value: str) -> int:
    return int(value.removesuffix("px"))


def saved() -> dict[str, str]:
    return {path.stem: path.read_text() for path in BROWSER.glob("*.cypher")}


def header(text: str) -> str:
    """A saved query's leading comment, as one line of words."""
    return " ".join(
        line.removeprefix("//").strip() for line in text.splitlines() if line.startswith("//")
    )


def code(text: str) -> str:
    """A saved query without its comment lines, as one line of words."""
    return " ".join(
        " ".join(line for line in text.splitlines() if not line.startswith("//")).split()
    )


def test_browser_reads_every_declaration():
    """A value with a colon in it (a caption like '{trigger}: {n}') would be
    dropped without a word by Browser: none has one."""
    parsed = grass()
    for selector, declarations in declared_in_file().items():
        assert len(parsed[selector]) == len(declarations), (selector, declarations)


def test_every_label_graphmem_writes_is_styled_and_captioned():
    rules = grass()
    labels = written_labels()
    assert {"Memory", "Session", "Project", "PromotionRun", "PromotionEvent"} <= labels
    for label in labels:
        rule = rules.get(f"node.{label}")
        assert rule is not None, f"graphmem.grass has no style for :{label}"
        assert {"color", "caption", "diameter"} <= set(rule), label


def test_the_style_uses_no_label_graphmem_does_not_write():
    """The style works on the graph as graphmem writes it, so nothing has to
    write to it first (a read-only user can use it all): the one label set for
    display, :NeedsReview, graphmem sets and removes with the review mark."""
    node_rules = {s for s in grass() if s.startswith("node.")}
    assert node_rules == {f"node.{label}" for label in written_labels()}


def test_captions_name_properties_that_exist():
    declared = set(
        json.loads((ROOT / "tools/cypher-lint/graph-schema.json").read_text())["propertyKeys"]
    )
    for selector, rule in grass().items():
        for key in re.findall(r"\{(\w+)\}", rule.get("caption", "")):
            assert key in declared, (selector, key)


def test_memories_show_their_content():
    assert grass()["node.Memory"]["caption"] == "{content}"


def test_each_label_has_a_colour_of_its_own():
    colours = [rule["color"].upper() for s, rule in grass().items() if s.startswith("node.")]
    assert len(colours) == len(set(colours))


def test_every_relationship_type_graphmem_writes_is_styled():
    rules = grass()
    assert {t.value for t in RelationType} <= written_types()
    for type_ in written_types():
        assert f"relationship.{type_}" in rules, type_


def test_relations_between_memories_stand_apart():
    """Each relation type between memories has a colour of its own, far from the
    others and from the grey of the bookkeeping edges; SUPERSEDES and
    RELATED_TO differ in width too."""
    rules = grass()
    relations = {t.value: rules[f"relationship.{t.value}"] for t in RelationType}
    others = {
        s: r
        for s, r in rules.items()
        if s.startswith("relationship.") and s.split(".")[1] not in relations
    }
    for type_, rule in relations.items():
        for other, other_rule in relations.items():
            if other != type_:
                assert distance(rule["color"], other_rule["color"]) > 100, (type_, other)
        for other, other_rule in others.items():
            assert distance(rule["color"], other_rule["color"]) > 60, (type_, other)
        assert distance(rule["color"], rules["relationship"]["color"]) > 60, type_
    supersedes, related = relations["SUPERSEDES"], relations["RELATED_TO"]
    assert pixels(supersedes["shaft-width"]) - pixels(related["shaft-width"]) >= 3


def test_saved_queries_are_there_and_named():
    files = saved()
    assert set(files) == SAVED
    for name, text in files.items():
        assert text.startswith("// graphmem: "), (
            f"{name}: Browser names a favourite by its first comment"
        )


def test_saved_queries_only_read():
    """A read-only user can run every one of them."""
    for name, text in saved().items():
        for word in ("CREATE", "MERGE", "SET", "DELETE", "REMOVE", "FOREACH", "LOAD", "CALL"):
            assert not re.search(rf"\b{word}\b", code(text), re.I), (name, word)


def test_saved_queries_say_which_parameters_to_set():
    for name, text in saved().items():
        for parameter in set(re.findall(r"\$(\w+)", code(text))):
            assert f":param {parameter} =>" in header(text), (name, parameter)


def test_saved_queries_honour_visibility():
    """Each query applies graphmem's visibility rule for $viewer (null: every
    memory, for administrators) and says so in its header; the end-to-end
    test shows another agent's private memory left out of what is drawn."""
    for name, text in saved().items():
        assert "$viewer null shows every memory, for administrators" in header(text), name
        assert VISIBLE.search(code(text)), name


def test_saved_queries_show_times_as_datetimes():
    """graphmem stores times as epoch seconds; what a query returns shows them
    as datetimes, never as the raw float."""
    guarded = re.compile(
        r"CASE WHEN ([\w.]+) IS NULL THEN null ELSE datetime\(\{epochMillis: "
        r"toInteger\(\1 \* 1000\)\}\) END"
    )
    plain = re.compile(r"datetime\(\{epochMillis: toInteger\([\w.]+ \* 1000\)\}\)")
    for name, text in saved().items():
        returned = re.split(r"\bRETURN\b", code(text))[-1]
        returned = re.split(r"\b(?:ORDER BY|LIMIT)\b", returned)[0]
        assert "datetime" in returned, name
        assert not re.search(r"\.(\w+_at|at)\b", plain.sub("", guarded.sub("", returned))), name


def test_a_memory_needing_review_is_drawn_apart():
    """Browser merges the rules of all a node's labels in the file's order, so
    :NeedsReview, after :Memory, wins on a marked memory: its own colour and a
    border of its own, still captioned with the content."""
    rules = grass()
    text = (BROWSER / "graphmem.grass").read_text()
    assert text.index("node.Memory {") < text.index("node.NeedsReview {")
    memory, marked = rules["node.Memory"], rules["node.NeedsReview"]
    assert marked["caption"] == memory["caption"] == "{content}"
    assert distance(marked["color"], memory["color"]) > 150
    assert pixels(marked["border-width"]) > pixels(rules["node"]["border-width"])
    statements = {
        name: (CYPHER_DIR / f"{name}.cypher").read_text()
        for name in ("mark_for_review", "clear_review_marks")
    }
    assert re.search(r"\bSET d:NeedsReview\b", statements["mark_for_review"])
    assert re.search(r"\bREMOVE d:NeedsReview\b", statements["clear_review_marks"])
