// The neighbourhood view: one cytoscape graph that neighbourhoods are merged
// into, so expanding a node keeps everything already on screen where it is.

import cytoscape from "cytoscape";
import { RELATION_COLOURS, TIER_COLOURS } from "./palette.js";

const LABEL_LENGTH = 48;

function shorten(text, length = LABEL_LENGTH) {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}

function style() {
  const rules = [
    {
      selector: "node",
      style: {
        "background-color": "#A5ABB6",
        "border-color": "#4B5563",
        "border-width": 1,
        width: "mapData(importance, 0, 1, 22, 70)",
        height: "mapData(importance, 0, 1, 22, 70)",
        label: "data(label)",
        "font-size": 9,
        color: "#1F2933",
        "text-valign": "bottom",
        "text-margin-y": 4,
        "text-wrap": "wrap",
        "text-max-width": 140,
      },
    },
    ...Object.entries(TIER_COLOURS).map(([tier, colour]) => ({
      selector: `node[tier = "${tier}"]`,
      style: { "background-color": colour },
    })),
    { selector: "node.candidate", style: { "border-style": "dashed", "border-width": 3, opacity: 0.8 } },
    { selector: "node.expanded", style: { "border-width": 3, "border-color": "#111827" } },
    { selector: "node.center", style: { "border-width": 5, "border-color": "#111827" } },
    { selector: "node:selected", style: { "overlay-color": "#FACC15", "overlay-opacity": 0.35 } },
    { selector: ".hidden", style: { display: "none" } },
    {
      selector: "edge",
      style: {
        width: "mapData(weight, 0, 1, 1, 3)",
        "curve-style": "bezier",
        "target-arrow-shape": "triangle",
        label: "data(type)",
        "font-size": 8,
        "text-rotation": "autorotate",
        "text-background-color": "#FFFFFF",
        "text-background-opacity": 0.85,
        "text-background-padding": 1,
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
    data: { ...memory, label: shorten(memory.content) },
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
    this.cy = cytoscape({
      container,
      style: style(),
      minZoom: 0.2,
      maxZoom: 3,
      wheelSensitivity: 0.3,
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

  /** Replace the view with one neighbourhood. */
  show(hood) {
    this.cy.elements().remove();
    this.truncated = false;
    this.merge(hood);
    this.cy.getElementById(hood.centerId).addClass("center");
  }

  /** Add a neighbourhood to the view, keeping what is already there. */
  merge(hood) {
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
    this.applyCandidateFilter();
    this.layout();
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

  layout() {
    if (this.cy.nodes().empty()) return;
    const layout = this.shown().layout({
      name: "cose",
      animate: false,
      randomize: false,
      fit: true,
      padding: 40,
      nodeDimensionsIncludeLabels: true,
      idealEdgeLength: () => 110,
    });
    layout.run();
  }

  fit() {
    this.cy.fit(this.shown(), 40);
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
