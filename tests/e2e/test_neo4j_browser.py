"""Neo4j Browser on graphmem's graph, the way docs/neo4j.md tells a person to
use it: headless Chromium opens the Browser the test Neo4j serves, connects,
takes graphmem's style and saved queries by dropping the files on its window,
and runs each saved query on a graph graphmem wrote through its Python API.
What Browser drew is read back from its SVG: each node's caption and fill,
each relationship's colour, and the datetimes in the table view."""

from __future__ import annotations

import base64
import io
import re
import zipfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Locator, Page, Route

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.domain.retention import RetentionRules
from graphmem.store import Store
from graphmem.store.statements import CYPHER_DIR
from tests import neo4j_server as test_neo4j
from tests.e2e.conftest import ARTIFACTS, headless_chromium, is_local

pytestmark = pytest.mark.backends("neo4j")

STYLE = CYPHER_DIR / "browser" / "graphmem.grass"
SAVED = sorted((CYPHER_DIR / "browser").glob("*.cypher"))
FOLDER = "graphmem"
SESSION = "design-review"
SCREENSHOTS = ARTIFACTS / "neo4j-browser"
TIMEOUT_MS = 15_000
WRITE_TIMEOUT_S = 120


def grass_rules(text: str) -> dict[str, dict[str, str]]:
    """``selector { key: value; ... }`` as Browser reads it (quotes dropped)."""
    rules = {}
    for selector, body in re.findall(r"([\w.]+)\s*\{([^}]*(?:'[^']*'[^}]*)*)\}", text):
        pairs = (d.split(":", 1) for d in body.split(";") if ":" in d)
        rules[selector] = {k.strip(): v.strip().strip("'") for k, v in pairs}
    return rules


RULES = grass_rules(STYLE.read_text())


def title(path: Path) -> str:
    """The name Browser gives a favourite: its first line, less the ``//``."""
    return path.read_text().splitlines()[0].removeprefix("//").strip()


@dataclass
class Graph:
    """Ids and texts of the memories graphmem wrote for the test."""

    sqlite: str
    falkor_everywhere: str
    neo4j: str
    transactions: str
    followers: str
    falkor_default: str
    risk: str
    hunch: str
    candidate: str
    contents: dict[str, str]
    promoted: list[str]


def write_graph(gm: GraphMem, clock: ManualClock) -> Graph:
    """A design review: two superseded storage decisions, a rule constraining
    the current one, which enables another memory; a related fact; a risk;
    another agent's private hunch; a candidate seen twice (a staging event);
    the current decision read once; then a manual promotion run (a run and
    its events)."""
    gm.open_session(SESSION, name="Storage design review")
    written = {
        "sqlite": ("Keep the graph in SQLite", "decision", {}),
        "falkor_everywhere": ("Use FalkorDB everywhere", "decision", {}),
        "neo4j": ("Run Neo4j in production", "architectural_decision", {}),
        "transactions": ("Write in managed transactions", "coding_standard", {}),
        "followers": ("Reads go to cluster followers", "discovery", {}),
        "falkor_default": ("FalkorDB stays the embedded default", "fact", {}),
        "risk": ("Token expiry breaks the nightly job", "risk", {}),
        "hunch": (
            "The pool may be too small",
            "hypothesis",
            {"agent_id": "alice", "visibility": "private"},
        ),
        "candidate": ("Warm caches hide slow queries", "discovery", {"source": "auto_extracted"}),
    }
    clock.advance(60)
    ids = gm.remember_many(
        [
            {
                "content": content,
                "memory_type": memory_type,
                "confidence": 0.9,
                "session_id": SESSION,
                **fields,
            }
            for content, memory_type, fields in written.values()
        ]
    )
    memory = dict(zip(written, ids, strict=True))
    clock.advance(60)
    repeat = gm.remember(
        {"content": written["candidate"][0], "source": "auto_extracted", "session_id": SESSION}
    )
    assert repeat.id == memory["candidate"]
    gm.supersede(memory["sqlite"], memory["falkor_everywhere"], rationale="no graph queries")
    gm.supersede(memory["falkor_everywhere"], memory["neo4j"], rationale="needs a cluster")
    gm.relate(memory["transactions"], memory["neo4j"], "CONSTRAINS", rationale="every statement")
    gm.relate(memory["neo4j"], memory["followers"], "ENABLES")
    gm.relate(memory["falkor_default"], memory["neo4j"], "RELATED_TO")
    gm.relate(memory["hunch"], memory["neo4j"], "RELATED_TO")
    gm.record_access(memory["neo4j"])
    clock.advance(60)
    promoted = gm.run_promotion(SESSION).promoted
    assert memory["neo4j"] in promoted
    contents = {memory[key]: content for key, (content, _, _) in written.items()}
    return Graph(**memory, contents=contents, promoted=promoted)


@pytest.fixture(scope="module")
def chromium_for_browser() -> Iterator[Browser]:
    """Chromium for Neo4j Browser, which needs no page of graphmem's built."""
    with headless_chromium() as browser:
        yield browser


@pytest.fixture
def browser_page(
    chromium_for_browser: Browser, neo4j_server: test_neo4j.TestNeo4j
) -> Iterator[Page]:
    """A fresh context for the Browser; every request not for 127.0.0.1 is
    aborted (Browser would otherwise reach out to the internet)."""
    context = chromium_for_browser.new_context(viewport={"width": 1600, "height": 1000})
    context.set_default_timeout(TIMEOUT_MS)

    def route(route: Route) -> None:
        if is_local(route.request.url):
            route.continue_()
        else:
            route.abort()

    context.route("**/*", route)
    page = context.new_page()
    try:
        yield page
    finally:
        context.close()


def shoot(page: Page, name: str, target: Locator | None = None) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / name
    (target or page).screenshot(path=str(path))
    return path


def drop(page: Page, name: str, data: bytes) -> None:
    """A file dropped on Browser's window, as a person drags one from their desktop."""
    page.evaluate(
        """([name, encoded]) => {
            const bytes = Uint8Array.from(atob(encoded), c => c.charCodeAt(0));
            const transfer = new DataTransfer();
            transfer.items.add(new File([bytes], name));
            const target = document.querySelector('.filedrop');
            for (const type of ['dragenter', 'dragover', 'drop']) {
                target.dispatchEvent(new DragEvent(type,
                    {dataTransfer: transfer, bubbles: true, cancelable: true}));
            }
        }""",
        [name, base64.b64encode(data).decode()],
    )


def open_browser(page: Page, server: test_neo4j.TestNeo4j) -> None:
    """Start loading Browser; ``connect`` waits for it (meanwhile the test writes)."""
    page.goto(server.browser_url, wait_until="commit", timeout=30_000)


def connect(page: Page, server: test_neo4j.TestNeo4j) -> None:
    """Log in on Browser's connect form with the test Neo4j's generated password."""
    page.get_by_test_id("boltaddress").fill(server.bolt_uri, timeout=30_000)
    page.get_by_test_id("username").fill(server.user)
    page.get_by_test_id("password").fill(server.password)
    page.get_by_test_id("connect").click()
    page.get_by_text("You are connected as user").wait_for(timeout=30_000)


def new_frame(page: Page, run: Callable[[], None], command: str) -> Locator:
    """Run something and wait for the frame it adds on top of the stream."""
    latest = page.get_by_test_id("frame").first.element_handle()
    run()
    page.wait_for_function(
        "latest => document.querySelector('[data-testid=frame]') !== latest", arg=latest
    )
    frame = page.get_by_test_id("frame").first
    frame.get_by_test_id("frameCommand").filter(has_text=command).wait_for()
    return frame


def run_command(page: Page, command: str) -> Locator:
    """Type a command into the editor and run it; its frame."""

    def run() -> None:
        page.get_by_test_id("activeEditor").click()
        page.keyboard.insert_text(command)
        page.get_by_test_id("editor-Run").click()

    return new_frame(page, run, command.split()[0])


def run_favourite(page: Page, name: str) -> Locator:
    """Run a saved query from the Favorites drawer; the frame it opened,
    with its graph drawn."""
    item = page.get_by_test_id("savedScriptListItem").filter(
        has=page.get_by_test_id(f"scriptTitle-{name}")
    )

    def run() -> None:
        item.hover()
        item.get_by_test_id("savedScriptsButton-Run").click()

    frame = new_frame(page, run, name)
    # Browser opens a result in the view last chosen: the graph, unless a table was.
    frame.get_by_test_id("cypherFrameSidebarVisualization").click()
    frame.locator("svg.neod3viz g.node").first.wait_for()
    settle(frame)
    return frame


def settle(frame: Locator) -> None:
    """Wait until the force layout stops moving the nodes (bounded)."""
    previous = None
    for _ in range(40):
        positions = frame.locator("svg.neod3viz g.node").evaluate_all(
            "gs => gs.map(g => g.getAttribute('transform'))"
        )
        if positions == previous:
            return
        previous = positions
        frame.page.wait_for_timeout(250)


@dataclass
class Drawn:
    """What Browser drew in a frame: per node its labels, properties (the ones
    Browser keeps for it), caption lines and fill; per relationship its type,
    fill, caption and ends."""

    nodes: list[dict[str, Any]]
    relationships: list[dict[str, Any]]

    def memories(self) -> dict[str, dict[str, Any]]:
        return {n["properties"]["id"]: n for n in self.nodes if "Memory" in n["labels"]}

    def labelled(self, label: str) -> list[dict[str, Any]]:
        return [n for n in self.nodes if label in n["labels"]]

    def of_type(self, type_: str) -> list[dict[str, Any]]:
        return [r for r in self.relationships if r["type"] == type_]


def drawn(frame: Locator) -> Drawn:
    svg = frame.locator("svg.neod3viz")
    nodes = svg.locator("g.node").evaluate_all(
        """gs => gs.map(g => ({
            labels: g.__data__.labels,
            properties: g.__data__.propertyMap,
            caption: [...g.querySelectorAll('text.caption')].map(t => t.textContent),
            fill: g.querySelector('circle.b-outline').getAttribute('fill'),
            radius: Number(g.querySelector('circle.b-outline').getAttribute('r')),
            id: g.__data__.id,
        }))"""
    )
    relationships = svg.locator("g.relationship").evaluate_all(
        """gs => {
        // A straight arrow is drawn along x, its shaft between y = -w/2 and
        // w/2 and its head wider: the least |y| is half the shaft's width. (A
        // curved one, drawn when two nodes share several relationships, is not
        // measured.)
        const shaftWidth = d => {
            if (!d || /[aA]/.test(d)) return null;
            const numbers = d.match(/-?[\\d.]+(?:e-?\\d+)?/g).map(Number);
            const ys = numbers.filter((_, i) => i % 2 === 1).map(Math.abs).filter(y => y > 0);
            return ys.length ? 2 * Math.min(...ys) : null;
        };
        return gs.map(g => ({
            type: g.__data__.type,
            fill: g.querySelector('path.b-outline').getAttribute('fill'),
            shaft: shaftWidth(g.querySelector('path.b-outline').getAttribute('d')),
            caption: g.querySelector('text').textContent,
            source: g.__data__.source.id,
            target: g.__data__.target.id,
        }));
        }"""
    )
    return Drawn(nodes, relationships)


def caption(node: dict[str, Any]) -> str:
    return " ".join(line.strip() for line in node["caption"] if line.strip())


def shows(node: dict[str, Any], text: str) -> bool:
    """The node is captioned with ``text``: all of it, or as much as fits in
    its circle (Browser cuts the rest off with an ellipsis)."""
    shown = caption(node)
    if shown == text:
        return True
    cut = shown.removesuffix("\u2026").rstrip()
    return shown.endswith("\u2026") and len(cut) >= min(len(text), 6) and text.startswith(cut)


def assert_styled(picture: Drawn) -> None:
    """Every node and relationship is drawn with graphmem's colour for it (a
    label graphmem's style missed would get one of Browser's defaults)."""
    for node in picture.nodes:
        (label,) = node["labels"]
        assert node["fill"].lower() == RULES[f"node.{label}"]["color"].lower(), node
        assert node["radius"] * 2 == float(RULES[f"node.{label}"]["diameter"].removesuffix("px"))
    for rel in picture.relationships:
        rule = RULES[f"relationship.{rel['type']}"]
        assert rel["fill"].lower() == rule["color"].lower(), rel
        if rel["shaft"] is not None:
            assert rel["shaft"] == pytest.approx(float(rule["shaft-width"].removesuffix("px"))), rel


def assert_memories_show_content(picture: Drawn, graph: Graph) -> None:
    memories = picture.memories()
    assert memories
    for memory_id, node in memories.items():
        assert shows(node, graph.contents[memory_id]), node


def load_style_and_favourites(page: Page) -> None:
    """graphmem's style and saved queries, each dropped on Browser's window as a file."""
    # The style: graphmem.grass dropped on the window, shown back by :style.
    style = new_frame(page, lambda: drop(page, STYLE.name, STYLE.read_bytes()), ":style")
    shown = style.get_by_test_id("frameContents").inner_text()
    for selector in RULES:
        assert f"{selector} {{" in shown, selector
    assert 'caption: "{content}"' in shown

    # The saved queries: a zip of the folder dropped on the window, each then a
    # favourite named by its first comment.
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as zipped:
        for path in SAVED:
            zipped.writestr(f"{FOLDER}/{path.name}", path.read_text())
    drop(page, "graphmem-browser.zip", archive.getvalue())
    page.locator("button[name=Favorites]").click()
    page.get_by_test_id(f"savedScriptsFolder-{FOLDER}").click()
    for path in SAVED:
        page.get_by_test_id(f"scriptTitle-{title(path)}").wait_for()
    shoot(page, "favorites.png")


@pytest.mark.slow
def test_saved_queries_draw_graphmem_graph(
    store: Store, clock: ManualClock, neo4j_server: test_neo4j.TestNeo4j, browser_page: Page
):
    page = browser_page
    # A candidate seen twice still awaits review (the default activates it).
    gm = GraphMem(store, clock=clock, rules=RetentionRules(recurrence_threshold=3))
    # graphmem writes the graph while Browser loads and takes the style and the
    # favourites, none of which reads it.
    with ThreadPoolExecutor(max_workers=1) as writer:
        written = writer.submit(write_graph, gm, clock)
        open_browser(page, neo4j_server)
        connect(page, neo4j_server)
        load_style_and_favourites(page)
        graph = written.result(timeout=WRITE_TIMEOUT_S)

    params = (
        f":params {{project_id: 'default', session_id: '{SESSION}', "
        f"id: '{graph.neo4j}', viewer: null}}"
    )
    run_command(page, params)
    titles = {path.stem: title(path) for path in SAVED}

    # The top memories: captioned by content, every kind of relation in a
    # colour of its own, and the times in the table as datetimes.
    frame = run_favourite(page, titles["top_memories"])
    top = drawn(frame)
    assert_styled(top)
    assert_memories_show_content(top, graph)
    assert graph.hunch in top.memories(), "viewer null shows every memory"
    colours = {}
    for type_ in ("CONSTRAINS", "ENABLES", "SUPERSEDES", "RELATED_TO"):
        (first, *_) = top.of_type(type_)
        assert first["caption"] == type_
        colours[type_] = first["fill"].lower()
    assert len(set(colours.values())) == 4, colours
    (supersedes, *_), (related, *_) = top.of_type("SUPERSEDES"), top.of_type("RELATED_TO")
    assert supersedes["shaft"] >= related["shaft"] + 3, (supersedes, related)
    shoot(page, "top-memories.png", frame)
    frame.get_by_test_id("cypherFrameSidebarTable").click()
    table = frame.get_by_test_id("frameContents").inner_text()
    assert re.search(r"\b2027-01-15T08:\d\d:\d\dZ\b", table), table[:2000]

    # The supersede chain, newest first: two SUPERSEDES, three memories.
    frame = run_favourite(page, titles["supersede_chains"])
    chains = drawn(frame)
    assert_styled(chains)
    assert_memories_show_content(chains, graph)
    assert set(chains.memories()) == {graph.neo4j, graph.falkor_everywhere, graph.sqlite}
    assert len(chains.of_type("SUPERSEDES")) == 2

    # The constraints on the memory the current decision enables.
    run_command(page, f":param id => '{graph.followers}'")
    frame = run_favourite(page, titles["memory_constraints"])
    constraints = drawn(frame)
    assert_styled(constraints)
    assert set(constraints.memories()) == {graph.transactions, graph.neo4j, graph.followers}
    assert {r["type"] for r in constraints.relationships} >= {"CONSTRAINS", "ENABLES"}

    # The neighbourhood of the current decision, as an administrator (viewer
    # null): alice's private hunch is there.
    run_command(page, f":param id => '{graph.neo4j}'")
    frame = run_favourite(page, titles["memory_neighbourhood"])
    around = drawn(frame)
    assert_styled(around)
    assert_memories_show_content(around, graph)
    assert graph.hunch in around.memories()
    assert {graph.followers, graph.transactions, graph.falkor_default} <= set(around.memories())
    shoot(page, "neighbourhood.png", frame)

    # The session's promotion history: the session, the run and its events
    # labelled, the moved memories captioned.
    frame = run_favourite(page, titles["session_promotion_history"])
    history = drawn(frame)
    assert_styled(history)
    assert_memories_show_content(history, graph)
    (session,) = history.labelled("Session")
    assert shows(session, SESSION), session
    (run,) = history.labelled("PromotionRun")
    assert shows(run, "manual run"), run
    events = history.labelled("PromotionEvent")
    assert len(events) == len(graph.promoted)
    for event in events:
        moved = f"{event['properties']['from_tier']} > {event['properties']['to_tier']}"
        assert shows(event, moved), event
    assert set(history.memories()) == set(graph.promoted)
    assert len(history.of_type("PROMOTED")) == len(graph.promoted)
    shoot(page, "promotion-history.png", frame)

    # The review queue: the candidate and the staging event that merged its
    # repeat into it.
    frame = run_favourite(page, titles["review_candidates"])
    review = drawn(frame)
    assert_styled(review)
    assert_memories_show_content(review, graph)
    assert set(review.memories()) == {graph.candidate}
    (staged,) = review.labelled("StagingEvent")
    assert shows(staged, "merged"), staged
    assert len(review.of_type("CHANGED")) == 1
    shoot(page, "review-candidates.png", frame)

    # The neighbourhood again, as another agent: alice's private hunch is gone.
    run_command(page, ":param viewer => 'bob'")
    frame = run_favourite(page, titles["memory_neighbourhood"])
    as_bob = drawn(frame)
    assert_styled(as_bob)
    assert graph.hunch not in as_bob.memories()
    assert set(as_bob.memories()) == set(around.memories()) - {graph.hunch}

    # A server on loopback asks nothing of its user: after every frame above,
    # Browser has shown no offer to collect product usage.
    assert page.get_by_text("help make Neo4j Browser better").count() == 0


def test_a_memory_needing_review_is_drawn_apart_with_the_path_to_its_cause(
    gm: GraphMem, store: Store, neo4j_server: test_neo4j.TestNeo4j, browser_page: Page
):
    """The release train ENABLES the Friday deploys, which CONSTRAIN the
    release notes; the train is superseded, so both need review. The saved
    query draws them in :NeedsReview's colour, the train in :Memory's, and the
    relations from the train to each."""
    page = browser_page
    open_browser(page, neo4j_server)
    train = gm.remember({"content": "The release train leaves on Thursdays"}).id
    deploys = gm.remember({"content": "We deploy on Fridays after the train"}).id
    notes = gm.remember({"content": "Release notes go out on Friday mornings"}).id
    unrelated = gm.remember({"content": "Feature flags let a bad release roll back"}).id
    gm.relate(train, deploys, "ENABLES")
    gm.relate(deploys, notes, "CONSTRAINS")
    moved = gm.remember({"content": "The release train leaves on Wednesdays"}).id
    gm.supersede(train, moved)
    assert {m.id for m in gm.needs_review().items} == {deploys, notes}
    connect(page, neo4j_server)
    load_style_and_favourites(page)
    run_command(page, ":params {project_id: 'default', viewer: null}")

    frame = run_favourite(page, title(CYPHER_DIR / "browser" / "review_marks.cypher"))
    picture = drawn(frame)
    memories = picture.memories()
    assert set(memories) == {train, deploys, notes}, memories
    assert unrelated not in memories and moved not in memories
    marked, memory = RULES["node.NeedsReview"], RULES["node.Memory"]
    for memory_id in (deploys, notes):
        node = memories[memory_id]
        assert sorted(node["labels"]) == ["Memory", "NeedsReview"], node
        assert node["fill"].lower() == marked["color"].lower(), node
        assert shows(node, gm.get(memory_id).content), node
    assert memories[train]["labels"] == ["Memory"]
    assert memories[train]["fill"].lower() == memory["color"].lower()
    assert {(r["type"], r["source"], r["target"]) for r in picture.relationships} == {
        ("ENABLES", memories[train]["id"], memories[deploys]["id"]),
        ("CONSTRAINS", memories[deploys]["id"], memories[notes]["id"]),
    }
    shoot(page, "needs-review.png", frame)

    # Confirming a mark takes the label, and the memory, out of the query's answer.
    gm.confirm(notes, "the notes still go out on Fridays")
    frame = run_favourite(page, title(CYPHER_DIR / "browser" / "review_marks.cypher"))
    assert set(drawn(frame).memories()) == {train, deploys}
