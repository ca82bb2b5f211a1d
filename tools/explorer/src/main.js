// Wires the page together: settings, search, results and the graph view.

import "./style.css";
import { RequestError, neighborhood, search, storeKey, storedKey } from "./api.js";
import { el, lower } from "./dom.js";
import { GraphView } from "./graph.js";
import { RELATION_COLOURS, TIER_COLOURS } from "./palette.js";
import { renderDetails, renderResults, retrieverName } from "./results.js";

const SEARCH_LIMIT = 20;
const PROJECT_STORAGE = "graphmem.explorer.project";

const $ = (id) => document.getElementById(id);

function setStatus(message, isError = false) {
  const status = $("status");
  status.textContent = message;
  status.classList.toggle("error", isError);
}

function explain(error) {
  return error instanceof RequestError ? error.message : `unexpected error: ${error.message}`;
}

function legend() {
  const swatch = (colour, shape) => el("span", { className: `swatch ${shape}`, style: { background: colour } });
  return [
    ...Object.entries(TIER_COLOURS).map(([tier, colour]) => el("span", {}, swatch(colour, "dot"), lower(tier))),
    el("span", {}, el("span", { className: "swatch dot candidate" }), "candidate"),
    ...Object.entries(RELATION_COLOURS).map(([type, colour]) => el("span", {}, swatch(colour, "line"), type)),
    el("span", { className: "hint" }, "size: importance · click a node to expand it"),
  ];
}

function start() {
  const project = $("project");
  const apiKey = $("api-key");
  project.value = sessionStorage.getItem(PROJECT_STORAGE) ?? "";
  apiKey.value = storedKey();
  project.addEventListener("input", () => sessionStorage.setItem(PROJECT_STORAGE, project.value.trim()));
  apiKey.addEventListener("input", () => storeKey(apiKey.value.trim()));
  $("settings").addEventListener("submit", (event) => event.preventDefault());
  $("legend").replaceChildren(...legend());

  const graph = $("graph");
  const details = $("details");
  const depth = () => Number($("depth").value);
  const summary = () => {
    const { nodes, edges, hidden, truncated } = view.updateCounts();
    $("graph-summary").textContent =
      `${nodes} memories, ${edges} relations` +
      (hidden ? `, ${hidden} candidates hidden` : "") +
      (truncated ? " (more in reach than shown)" : "");
  };

  const load = async (id, replace) => {
    view.setState("loading");
    try {
      const hood = await neighborhood({ id, depth: depth(), projectId: project.value.trim() });
      if (replace) view.show(hood);
      else view.merge(hood);
      summary();
      view.setState("ready");
    } catch (error) {
      setStatus(explain(error), true);
      view.setState("error");
    }
  };
  const centre = (id) => {
    renderDetails(details, null);
    return load(id, true);
  };

  const view = new GraphView(graph, {
    onSelect: (memory) => renderDetails(details, memory, centre),
    onExpand: (id) => load(id, false),
  });
  // For scripting the page from the browser console (and for its end-to-end test).
  window.graphmemExplorer = view;

  $("show-candidates").addEventListener("change", (event) => {
    const show = event.target.checked;
    view.setShowCandidates(show);
    $("results").classList.toggle("hide-candidates", !show);
    summary();
  });
  $("fit").addEventListener("click", () => view.fit());

  $("search").addEventListener("submit", async (event) => {
    event.preventDefault();
    const query = $("query").value.trim();
    if (!query) return;
    const results = $("results");
    setStatus("searching…");
    results.setAttribute("aria-busy", "true");
    try {
      const result = await search({
        query,
        mode: $("mode").value,
        limit: SEARCH_LIMIT,
        projectId: project.value.trim(),
      });
      renderResults(results, result, centre);
      const notes = result.notes.length ? ` · ${result.notes.join("; ")}` : "";
      setStatus(
        `${result.hits.length} hit${result.hits.length === 1 ? "" : "s"} in ${Math.round(result.tookMs)} ms ` +
          `(${result.retrievers.map(retrieverName).join(" + ") || "no retriever"})${notes}`,
      );
    } catch (error) {
      results.replaceChildren();
      setStatus(explain(error), true);
    } finally {
      results.removeAttribute("aria-busy");
    }
  });
}

start();
