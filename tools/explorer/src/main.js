// Wires the page together: settings, the URL, the overview, search and the graph view.
//
// The URL's hash says what the page shows (state.js); every change of view
// goes through it, so links, back and forward, and reloading all work. With
// nothing in the hash the page shows the project's overview: its most
// important and most recent memories, and the neighbourhoods of the most
// important ones.

import "./style.css";
import { RequestError, neighborhood, projects, recentMemories, search, storeKey, storedKey } from "./api.js";
import { el, lower } from "./dom.js";
import { GraphView, REVIEW_COLOUR } from "./graph.js";
import { RELATION_COLOURS, TIER_COLOURS } from "./palette.js";
import { renderDetails, renderOverview, renderResults, retrieverName } from "./results.js";
import { readState, stateHash } from "./state.js";

const SEARCH_LIMIT = 20;
/** The overview reads at most this many of the newest memories, a server page at a time. */
const OVERVIEW_SCAN = 400;
const OVERVIEW_PAGE = 200;
/** Memories in each overview list. */
const OVERVIEW_LIST = 8;
/** Listed memories (overview or hits) whose neighbourhoods the graph shows. */
const LISTED_IN_GRAPH = 5;
const PROJECT_STORAGE = "graphmem.explorer.project";

const $ = (id) => document.getElementById(id);

function plural(count, one, many) {
  return `${count} ${count === 1 ? one : many}`;
}

function setStatus(message, isError = false) {
  const status = $("status");
  status.textContent = message;
  status.classList.toggle("error", isError);
}

function explain(error) {
  return error instanceof RequestError ? error.message : `unexpected error: ${error.message}`;
}

function legend() {
  const dot = (colour) => el("span", { className: "swatch dot", style: { background: colour } });
  const mark = (name) => el("span", { dataset: { mark: name } }, el("span", { className: `swatch dot ${name}` }), name);
  const line = (type, colour) =>
    el("span", { className: `swatch line ${type.toLowerCase()}`, style: { borderColor: colour } });
  return [
    ...Object.entries(TIER_COLOURS).map(([tier, colour]) => el("span", {}, dot(colour), lower(tier))),
    mark("candidate"),
    mark("superseded"),
    mark("expired"),
    el(
      "span",
      { dataset: { mark: "review" } },
      el("span", { className: "swatch dot review", style: { outlineColor: REVIEW_COLOUR } }),
      "needs review",
    ),
    el(
      "span",
      { dataset: { mark: "review-path" } },
      el("span", { className: "swatch line review-path", style: { borderColor: REVIEW_COLOUR } }),
      "path to its cause",
    ),
    ...Object.entries(RELATION_COLOURS).map(([type, colour]) => el("span", { dataset: { type } }, line(type, colour), type)),
    el("span", { className: "hint" }, "bigger: more important · point at an edge for its type · click a node to expand it"),
  ];
}

/** A query the project can answer: the first words of its most important memory. */
function exampleQuery(memory) {
  const words = memory?.content.match(/[\p{L}\p{N}]{4,}/gu) ?? [];
  return words.slice(0, 3).join(" ").toLowerCase();
}

function start() {
  const project = $("project");
  const apiKey = $("api-key");
  const details = $("details");
  const results = $("results");
  const overview = $("overview");
  project.value = sessionStorage.getItem(PROJECT_STORAGE) ?? "";
  apiKey.value = storedKey();
  $("legend").replaceChildren(...legend());

  const projectId = () => project.value.trim();
  const depth = () => Number($("depth").value);
  const setProject = (value) => {
    project.value = value;
    if (value) sessionStorage.setItem(PROJECT_STORAGE, value);
    else sessionStorage.removeItem(PROJECT_STORAGE);
  };
  /**
   * Offer the projects the API key may read in the Project box, and return
   * them; null when the server would not say (no key yet, or a refused one:
   * the view's own request says why).
   */
  const listProjects = async () => {
    let names = null;
    try {
      names = await projects();
    } catch {
      // Left to the view's own request to report.
    }
    $("projects").replaceChildren(...(names ?? []).map((name) => el("option", { value: name })));
    return names;
  };
  /**
   * Why the project named shows nothing, when it is because there is no such
   * project (a typo, or one the key may not read): the list is read again, so
   * a project written to since the page loaded counts.
   */
  const missingProject = async () => {
    const named = projectId();
    if (!named) return null;
    const known = await listProjects();
    if (known === null || known.includes(named)) return null;
    return `no project named ${named} (projects: ${known.join(", ") || "none"})`;
  };

  /** The link to a memory, keeping the search it was found by. */
  const linkTo = (id) =>
    stateHash({ ...readState(location.hash), project: projectId(), memory: id, depth: depth() }) || "#";

  const summary = () => {
    const { nodes, edges, hidden, truncated } = view.updateCounts();
    $("graph-summary").textContent =
      `${plural(nodes, "memory", "memories")}, ${plural(edges, "relation", "relations")}` +
      (hidden ? `, ${hidden} hidden (candidates)` : "") +
      (truncated ? " (more in reach than shown)" : "");
  };

  // Which request may still draw: a list or a graph answer arriving after
  // the page moved on is dropped.
  let listRun = 0;
  let graphRun = 0;
  let shown = { list: null, graph: null };
  /** The ids the current list shows first, for the graph of a list view. */
  let listed = Promise.resolve([]);

  const showExample = (memory) => {
    const example = $("example");
    const query = exampleQuery(memory);
    example.hidden = !query;
    if (query) {
      example.replaceChildren(
        "Try a search: ",
        el("a", { href: stateHash({ q: query, project: projectId() }) }, query),
      );
    }
  };

  const showOverview = async (run) => {
    results.hidden = true;
    overview.hidden = false;
    results.replaceChildren();
    setStatus("reading the project's memories…");
    try {
      const { memories, more } = await recentMemories({ scan: OVERVIEW_SCAN, page: OVERVIEW_PAGE, projectId: projectId() });
      const missing = memories.length === 0 ? await missingProject() : null;
      if (run !== listRun) return [];
      if (missing) {
        overview.replaceChildren();
        showExample(null);
        setStatus(missing, true);
        return [];
      }
      const important = [...memories]
        .sort((a, b) => b.importance - a.importance || b.createdAt.localeCompare(a.createdAt))
        .slice(0, OVERVIEW_LIST);
      renderOverview(overview, { important, recent: memories.slice(0, OVERVIEW_LIST) }, linkTo);
      showExample(important[0]);
      const where = projectId() ? `Project ${projectId()}` : "The default project";
      setStatus(
        memories.length === 0
          ? `${where} has no memories yet: write one (graphmem remember "…", or the remember mutation), then reload`
          : more
            ? `${where}: the most important of its ${memories.length} newest memories, and the most recent`
            : `${where} holds ${plural(memories.length, "memory", "memories")}: the most important and the most recent are below`,
      );
      return important.slice(0, LISTED_IN_GRAPH).map((memory) => memory.id);
    } catch (error) {
      if (run === listRun) {
        overview.replaceChildren();
        setStatus(explain(error), true);
      }
      return [];
    }
  };

  const showSearch = async (state, run) => {
    overview.hidden = true;
    results.hidden = false;
    $("example").hidden = true;
    setStatus("searching…");
    results.setAttribute("aria-busy", "true");
    try {
      const result = await search({ query: state.q, mode: state.mode, limit: SEARCH_LIMIT, projectId: projectId() });
      const missing = result.hits.length === 0 ? await missingProject() : null;
      if (run !== listRun) return [];
      renderResults(results, result, linkTo);
      if (missing) {
        setStatus(missing, true);
        return [];
      }
      const notes = result.notes.length ? ` · ${result.notes.join("; ")}` : "";
      setStatus(
        `${plural(result.hits.length, "hit", "hits")} in ${Math.round(result.tookMs)} ms ` +
          `(${result.retrievers.map(retrieverName).join(" + ") || "no retriever"})${notes}`,
      );
      return result.hits.slice(0, LISTED_IN_GRAPH).map((hit) => hit.memory.id);
    } catch (error) {
      if (run === listRun) {
        results.replaceChildren();
        setStatus(explain(error), true);
      }
      return [];
    } finally {
      if (run === listRun) results.removeAttribute("aria-busy");
    }
  };

  /** The graph of a list view: the neighbourhoods of the first memories listed. */
  const showListed = async (ids, run) => {
    if (!ids.length) {
      view.clear();
      summary();
      view.setState("empty");
      return;
    }
    view.setState("loading");
    try {
      const hoods = await Promise.all(ids.map((id) => neighborhood({ id, depth: 1, projectId: projectId() })));
      if (run !== graphRun) return;
      view.showMany(hoods);
      summary();
      view.setState("ready");
    } catch (error) {
      if (run !== graphRun) return;
      setStatus(explain(error), true);
      view.setState("error");
    }
  };

  const showMemory = async (state, run) => {
    view.setState("loading");
    try {
      const hood = await neighborhood({ id: state.memory, depth: state.depth, projectId: projectId() });
      if (run !== graphRun) return;
      view.show(hood);
      const centre = hood.nodes.find((node) => node.id === hood.centerId);
      showDetails(centre);
      summary();
      view.setState("ready");
    } catch (error) {
      if (run !== graphRun) return;
      view.clear();
      showDetails(null);
      setStatus(explain(error), true);
      view.setState("error");
    }
  };

  /** Make the page show what the URL names; `force` re-reads even what is on screen. */
  const apply = async (force = false) => {
    const state = readState(location.hash);
    if (state.project !== null && state.project !== projectId()) setProject(state.project);
    $("query").value = state.q;
    $("mode").value = state.mode;
    $("depth").value = String(state.depth);
    const list = JSON.stringify([projectId(), state.q, state.q && state.mode]);
    const graph = state.memory ? JSON.stringify([projectId(), state.memory, state.depth]) : `listed ${list}`;
    const listChanged = force || list !== shown.list;
    const graphChanged = force || graph !== shown.graph;
    shown = { list, graph };
    if (listChanged) {
      const run = ++listRun;
      listed = state.q ? showSearch(state, run) : showOverview(run);
    }
    if (graphChanged) {
      const run = ++graphRun;
      view.setState("loading");
      if (state.memory) return showMemory(state, run);
      showDetails(null);
      const ids = await listed;
      if (run === graphRun) await showListed(ids, run);
    }
  };

  /** Show a new state as a new history entry (or re-read the same one). */
  const navigate = (state) => {
    const hash = stateHash(state);
    if (hash !== location.hash) history.pushState(null, "", hash || `${location.pathname}${location.search}`);
    apply(true);
  };

  /** Add a memory's neighbourhood (to the chosen depth, or `reach`) to the view. */
  const load = async (id, reach = depth()) => {
    view.setState("loading");
    try {
      view.merge(await neighborhood({ id, depth: reach, projectId: projectId() }));
      // The panel lists the memory's relations on screen, which the expansion
      // added to, and may now reach the cause of its review mark.
      if (details.dataset.id) showDetails(view.memory(details.dataset.id));
      summary();
      view.setState("ready");
    } catch (error) {
      setStatus(explain(error), true);
      view.setState("error");
    }
  };

  /**
   * The details panel for a memory (null closes it), with the cause of its
   * review mark traced in the graph; "show the path" loads the cause's
   * neighbourhood far enough to reach the memory, and traces it again.
   */
  const showDetails = (memory) => {
    const trace = view.traceCause(memory);
    if (!memory) return renderDetails(details, null);
    // The path is reviewPath's length long; the page's depths go up to 3.
    const reach = Math.min(Math.max(depth(), memory.reviewPath?.length ?? 1), 3);
    renderDetails(details, memory, linkTo, view.relationsOf(memory.id), {
      trace,
      contentOf: (id) => view.memory(id)?.content ?? null,
      onTrace: () => load(memory.reviewCause, reach),
      onClose: () => view.traceCause(null),
    });
  };

  const view = new GraphView($("graph"), { onSelect: showDetails, onExpand: load });
  // For scripting the page from the browser console (and for its end-to-end test).
  window.graphmemExplorer = view;

  // Settings apply to what is on screen as soon as they are committed.
  project.addEventListener("change", () => {
    setProject(projectId());
    const hash = stateHash({ ...readState(location.hash), project: projectId() });
    history.replaceState(null, "", hash || `${location.pathname}${location.search}`);
    apply(true);
  });
  apiKey.addEventListener("input", () => storeKey(apiKey.value.trim()));
  // Another key may read other projects.
  apiKey.addEventListener("change", () => {
    listProjects();
    apply(true);
  });
  $("settings").addEventListener("submit", (event) => {
    event.preventDefault();
    apply(true);
  });

  $("show-candidates").addEventListener("change", (event) => {
    const show = event.target.checked;
    view.setShowCandidates(show);
    $("search-panel").classList.toggle("hide-candidates", !show);
    summary();
  });
  $("fit").addEventListener("click", () => view.fit());
  $("depth").addEventListener("change", () => {
    const state = readState(location.hash);
    // A memory's depth is part of its URL; otherwise it is the depth nodes expand to.
    if (state.memory) navigate({ ...state, project: projectId(), depth: depth() });
  });

  $("search").addEventListener("submit", (event) => {
    event.preventDefault();
    const q = $("query").value.trim();
    if (q) navigate({ q, mode: $("mode").value, project: projectId() });
  });

  // Back, forward and followed links; apply skips what is already on screen,
  // so the two events one navigation may fire cost one read.
  window.addEventListener("popstate", () => apply());
  window.addEventListener("hashchange", () => apply());
  listProjects();
  apply();
}

start();
