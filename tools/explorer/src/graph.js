// The neighbourhood view: one cytoscape graph that neighbourhoods are merged
// into, so expanding a node keeps everything already on screen where it is.

import cytoscape from "cytoscape";
import { RELATION_COLOURS, TIER_COLOURS } from "./palette.js";

const LABEL_LENGTH = 50;
/** Label sizes in screen pixels, whatever the zoom (down to MIN_LABEL_ZOOM). */
const NODE_FONT_PX = 13;
const EDGE_FONT_PX = 11;
const LABEL_WIDTH_PX = 160;
const MIN_LABEL_ZOOM = 0.35;
/** Node diameters: the least and the most important memory on screen. */
const SMALLEST = 28;
const LARGEST = 90;
/** Importances closer together than this are not stretched to the full range. */
const MIN_SPREAD = 0.2;

function shorten(text, length = LABEL_LENGTH) {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}

/**
 * Each node's diameter from its importance, relative to the others on
 * screen: importances cluster (most sit between 0.3 and 0.6), so a scale
 * fixed to [0, 1] draws them all alike. A spread under MIN_SPREAD is not
 * stretched, so near-equal memories stay near-equal in size.
 */
export function nodeSizes(importances) {
  const values = [...importances.values()];
  if (!values.length) return new Map();
  const low = Math.min(...values);
  const spread = Math.max(Math.max(...values) - low, MIN_SPREAD);
  return new Map(
    [...importances].map(([id, value]) => [id, Math.round(SMALLEST + ((value - low) / spread) * (LARGEST - SMALLEST))]),
  );
}

function style(px) {
  const rules = [
    {
      selector: "node",
      style: {
        "background-color": "#A5ABB6",
        "border-color": "#4B5563",
        "border-width": 1,
        width: "data(size)",
        height: "data(size)",
        label: "data(label)",
        "font-size": () => px(NODE_FONT_PX),
        color: "#1F2933",
        "text-valign": "bottom",
        "text-halign": "center",
        "text-margin-y": () => px(4),
        "text-wrap": "wrap",
        "text-max-width": () => px(LABEL_WIDTH_PX),
        "text-background-color": "#FFFFFF",
        "text-background-opacity": 0.8,
        "text-background-padding": () => px(2),
      },
    },
    ...Object.entries(TIER_COLOURS).map(([tier, colour]) => ({
      selector: `node[tier = "${tier}"]`,
      style: { "background-color": colour },
    })),
    { selector: "node.candidate", style: { "border-style": "dashed", "border-width": 3, opacity: 0.8 } },
    { selector: "node.expanded", style: { "border-width": 3, "border-color": "#111827" } },
    { selector: "node.listed", style: { "border-width": 3, "border-color": "#111827" } },
    { selector: "node.center", style: { "border-width": 5, "border-color": "#111827", "font-weight": "bold" } },
    { selector: "node:selected", style: { "overlay-color": "#FACC15", "overlay-opacity": 0.35 } },
    { selector: ".hidden", style: { display: "none" } },
    {
      selector: "edge",
      style: {
        width: "mapData(weight, 0, 1, 1.5, 4)",
        "curve-style": "bezier",
        "target-arrow-shape": "triangle",
        label: "data(type)",
        "font-size": () => px(EDGE_FONT_PX),
        // Horizontal, whatever the edge's angle: rotated text is hard to read.
        "text-rotation": "none",
        "text-background-color": "#FFFFFF",
        "text-background-opacity": 0.9,
        "text-background-padding": () => px(2),
      },
    },
    ...Object.entries(RELATION_COLOURS).map(([type, colour]) => ({
      selector: `edge[type = "${type}"]`,
      style: { "line-color": colour, "target-arrow-color": colour, color: colour },
    })),
    { selector: 'edge[type = "SUPERSEDES"]', style: { "line-style": "dashed" } },
  ];
  return rules;
}

function nodeElement(memory) {
  return {
    group: "nodes",
    data: { ...memory, label: shorten(memory.content), size: SMALLEST },
    classes: memory.status === "CANDIDATE" ? ["candidate"] : [],
  };
}

function edgeElement(relation) {
  return {
    group: "edges",
    data: {
      id: `${relation.fromId}-${relation.type}-${relation.toId}`,
      source: relation.fromId,
      target: relation.toId,
      type: relation.type,
      weight: relation.weight,
      rationale: relation.rationale,
    },
  };
}

export class GraphView {
  /**
   * @param {HTMLElement} container
   * @param {{onSelect: (memory: object|null) => void, onExpand: (id: string) => void}} handlers
   */
  constructor(container, { onSelect, onExpand }) {
    this.container = container;
    this.showCandidates = true;
    this.truncated = false;
    // Labels keep their size on screen as the view zooms (model units = px / zoom).
    const px = (size) => size / Math.max(this.cy?.zoom() ?? 1, MIN_LABEL_ZOOM);
    this.cy = cytoscape({
      container,
      style: style(px),
      minZoom: 0.2,
      maxZoom: 3,
      wheelSensitivity: 0.3,
    });
    let pending = false;
    this.cy.on("zoom", () => {
      if (pending) return;
      pending = true;
      requestAnimationFrame(() => {
        pending = false;
        this.cy.style().update();
      });
    });
    this.cy.on("tap", "node", (event) => {
      const node = event.target;
      onSelect(node.data());
      if (!node.hasClass("expanded")) onExpand(node.id());
    });
    this.cy.on("tap", (event) => {
      if (event.target === this.cy) onSelect(null);
    });
    this.setState("empty");
  }

  setState(state) {
    this.container.dataset.state = state;
  }

  /** Replace the view with one neighbourhood, centred on its memory. */
  show(hood) {
    this.showMany([hood], "center");
  }

  /** Replace the view with several neighbourhoods, each centre marked with `mark`. */
  showMany(hoods, mark = "listed") {
    this.cy.elements().remove();
    this.truncated = false;
    for (const hood of hoods) this.add(hood);
    this.cy.batch(() => {
      for (const hood of hoods) this.cy.getElementById(hood.centerId).addClass(mark);
    });
    // Nothing on screen to keep in place: a fresh layout spreads the nodes best.
    this.settle(true);
  }

  /** Add a neighbourhood to the view, keeping what is already there. */
  merge(hood) {
    this.add(hood);
    this.settle();
  }

  add(hood) {
    const cy = this.cy;
    const centre = cy.getElementById(hood.centerId);
    const origin = centre.nonempty() ? centre.position() : { x: 0, y: 0 };
    const fresh = hood.nodes.filter((memory) => cy.getElementById(memory.id).empty());
    const step = (2 * Math.PI) / Math.max(fresh.length, 1);
    cy.batch(() => {
      fresh.forEach((memory, index) => {
        const node = cy.add(nodeElement(memory));
        // New nodes start in a ring around the one they were reached from.
        node.position({
          x: origin.x + 120 * Math.cos(index * step),
          y: origin.y + 120 * Math.sin(index * step),
        });
      });
      for (const memory of hood.nodes) {
        const { id, ...fields } = memory;
        const node = cy.getElementById(id);
        node.data({ ...fields, label: shorten(memory.content) });
        node.toggleClass("candidate", memory.status === "CANDIDATE");
      }
      for (const relation of hood.edges) {
        const element = edgeElement(relation);
        if (cy.getElementById(element.data.id).empty()) cy.add(element);
      }
      cy.getElementById(hood.centerId).addClass("expanded");
    });
    this.truncated ||= hood.truncated;
  }

  /** Sizes, the candidate filter and the layout, after nodes came or went. */
  settle(fresh = false) {
    const sizes = nodeSizes(new Map(this.cy.nodes().map((node) => [node.id(), node.data("importance")])));
    this.cy.batch(() => {
      for (const [id, size] of sizes) this.cy.getElementById(id).data("size", size);
    });
    this.applyCandidateFilter();
    this.layout(fresh);
  }

  clear() {
    this.cy.elements().remove();
    this.truncated = false;
    this.updateCounts();
  }

  setShowCandidates(show) {
    this.showCandidates = show;
    this.applyCandidateFilter();
  }

  applyCandidateFilter() {
    this.cy.batch(() => {
      this.cy.nodes().forEach((node) => {
        node.toggleClass("hidden", !this.showCandidates && node.hasClass("candidate"));
      });
    });
    this.updateCounts();
  }

  /** What is on screen: every node not hidden and the edges between them. */
  shown() {
    const nodes = this.cy.nodes().not(".hidden");
    return nodes.union(nodes.edgesWith(nodes));
  }

  layout(fresh = false) {
    if (this.cy.nodes().empty()) return;
    // Lay out with labels at their nominal size: at the last view's zoom they
    // would be scaled, and a spread-out layout would zoom out further still.
    this.cy.zoom(1);
    this.cy.style().update();
    const layout = this.shown().layout({
      name: "cose",
      animate: false,
      randomize: fresh,
      fit: true,
      padding: 50,
      nodeDimensionsIncludeLabels: true,
      idealEdgeLength: () => 120,
      nodeRepulsion: () => 20000,
      nodeOverlap: 40,
      componentSpacing: 80,
    });
    layout.run();
    this.cy.style().update();
  }

  fit() {
    this.cy.fit(this.shown(), 50);
  }

  /** Counts on the container, for people reading the summary and for tests. */
  updateCounts() {
    const shown = this.shown();
    const nodes = shown.nodes().length;
    const edges = shown.edges().length;
    const hidden = this.cy.nodes(".hidden").length;
    this.container.dataset.nodeCount = String(nodes);
    this.container.dataset.edgeCount = String(edges);
    this.container.dataset.hiddenCount = String(hidden);
    return { nodes, edges, hidden, truncated: this.truncated };
  }
}
