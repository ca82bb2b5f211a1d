// The neighbourhood view: one cytoscape graph that neighbourhoods are merged
// into, so expanding a node keeps everything already on screen where it is.

import cytoscape from "cytoscape";
import { shorten } from "./dom.js";
import { RELATION_COLOURS, TIER_COLOURS } from "./palette.js";
import { needsReview, standing } from "./validity.js";

const LABEL_LENGTH = 50;
/** Label sizes in screen pixels, whatever the zoom (down to MIN_LABEL_ZOOM). */
const NODE_FONT_PX = 13;
const EDGE_FONT_PX = 11;
const LABEL_WIDTH_PX = 160;
const MIN_LABEL_ZOOM = 0.35;
/**
 * Node diameters: linear in importance, from SMALLEST at 0 to LARGEST at 1.
 * The floor keeps the least important memory a target you can click, and a
 * fixed scale keeps a memory the same size in every view, so close
 * importances (0.55 and 0.62) draw close sizes.
 */
const SMALLEST = 24;
const LARGEST = 80;
/** Screen pixels kept free between one node (with its caption) and the next. */
const GAP_PX = 8;
/** Rounds of pushing overlapping nodes apart, and of fitting the result. */
const SEPARATE_ROUNDS = 60;
const FIT_ROUNDS = 4;
const PADDING = 40;

/**
 * The caption: the memory's words, and on a line of its own whether it
 * stopped holding or needs review (so the mark reads without the colours).
 */
function caption(memory) {
  const marks = [standing(memory), needsReview(memory) ? "needs review" : ""].filter(Boolean);
  const words = shorten(memory.content, LABEL_LENGTH);
  return marks.length ? `${words}\n(${marks.join(", ")})` : words;
}

/** The classes that say what a memory is, rather than how the view shows it. */
const MARKS = ["candidate", "superseded", "expired", "review"];

function classesOf(memory) {
  const mark = standing(memory);
  return [
    memory.status === "CANDIDATE" ? "candidate" : null,
    mark || null,
    needsReview(memory) ? "review" : null,
  ].filter(Boolean);
}

/** The colour of a review mark: a magenta ring, unlike any tier, relation or border colour. */
export const REVIEW_COLOUR = "#C026D3";

/** Whether two boxes (x1, y1, x2, y2) overlap by more than nothing once `gap` apart. */
function overlap(a, b, gap) {
  const dx = Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1) + gap;
  const dy = Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1) + gap;
  return dx > 0 && dy > 0 ? { dx, dy } : null;
}

function style(px) {
  const rules = [
    {
      selector: "node",
      style: {
        "background-color": "#A5ABB6",
        "border-color": "#4B5563",
        "border-width": 1,
        width: `mapData(importance, 0, 1, ${SMALLEST}, ${LARGEST})`,
        height: `mapData(importance, 0, 1, ${SMALLEST}, ${LARGEST})`,
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
    // After the rules above: a listed or expanded memory shows its mark all the same.
    // Replaced by a newer memory: faded, so what holds now stands out.
    {
      selector: "node.superseded",
      style: {
        "background-opacity": 0.3,
        "border-style": "dotted",
        "border-width": 3,
        "border-color": "#7B8794",
        color: "#7B8794",
      },
    },
    // Past its validTo: a red double ring.
    {
      selector: "node.expired",
      style: { "border-style": "double", "border-width": 5, "border-color": "#B42318", color: "#7B1C14" },
    },
    // Needs review: a magenta ring outside the border, so it adds to whatever
    // the border says (centre, candidate, superseded) instead of replacing it.
    {
      selector: "node.review",
      style: {
        "outline-color": REVIEW_COLOUR,
        "outline-width": 5,
        "outline-offset": 2,
        "outline-opacity": 1,
      },
    },
    // The cause of the selected memory's mark, and the relations leading from it.
    {
      selector: "node.review-cause",
      style: { "outline-color": REVIEW_COLOUR, "outline-width": 4, "outline-offset": 2, "outline-style": "dashed" },
    },
    { selector: "node:selected", style: { "overlay-color": "#FACC15", "overlay-opacity": 0.35 } },
    { selector: ".hidden", style: { display: "none" } },
    {
      selector: "edge",
      style: {
        width: "mapData(weight, 0, 1, 1.5, 4)",
        "curve-style": "bezier",
        "target-arrow-shape": "triangle",
        // The colour (legend) says the type; the word appears while the
        // pointer is on the edge or one of its ends, so it never sits on a
        // caption for good.
        label: "",
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
    { selector: "edge.labelled", style: { label: "data(type)", "z-index": 10 } },
    {
      selector: "edge.review-path",
      style: {
        label: "data(type)",
        "underlay-color": REVIEW_COLOUR,
        "underlay-opacity": 0.6,
        "underlay-padding": 4,
        "z-index": 9,
      },
    },
  ];
  return rules;
}

function nodeElement(memory) {
  return { group: "nodes", data: { ...memory, label: caption(memory) }, classes: classesOf(memory) };
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
        this.restyle();
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
    this.cy.on("mouseover", "node, edge", (event) => {
      const target = event.target;
      (target.isNode() ? target.connectedEdges() : target).addClass("labelled");
    });
    const unlabel = () => this.cy.edges().removeClass("labelled");
    this.cy.on("mouseout", "node, edge", unlabel);
    container.addEventListener("mouseleave", unlabel);
    // The graph takes the space beside the details panel: when that opens
    // or closes, whatever no longer fits is fitted again.
    new ResizeObserver(() => {
      this.cy.resize();
      if (!this.fits()) this.fit();
    }).observe(container);
    this.setState("empty");
  }

  setState(state) {
    this.container.dataset.state = state;
  }

  /**
   * Apply the sizes that depend on the zoom, and measure every element with
   * them at once. A style update alone leaves each caption's measured size
   * for the next frame, while the next bounds read caches the caption's box
   * from its previous size; cytoscape draws a caption into that box, so a
   * caption grown since lost its first and last letters.
   */
  restyle() {
    this.cy.style().update();
    this.cy.elements().boundingBox({ useCache: false });
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
        node.data({ ...fields, label: caption(memory) });
        const marks = classesOf(memory);
        for (const mark of MARKS) node.toggleClass(mark, marks.includes(mark));
      }
      for (const relation of hood.edges) {
        const element = edgeElement(relation);
        if (cy.getElementById(element.data.id).empty()) cy.add(element);
      }
      cy.getElementById(hood.centerId).addClass("expanded");
    });
    this.truncated ||= hood.truncated;
  }

  /** The candidate filter and the layout, after nodes came or went. */
  settle(fresh = false) {
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
    this.restyle();
    const layout = this.shown().layout({
      name: "cose",
      animate: false,
      randomize: fresh,
      fit: false,
      nodeDimensionsIncludeLabels: true,
      idealEdgeLength: () => 120,
      nodeRepulsion: () => 20000,
      nodeOverlap: 40,
      componentSpacing: 80,
    });
    layout.run();
    this.fit();
  }

  /**
   * Fit the view, then push apart what overlaps at the zoom it ended on:
   * captions keep their size on screen, so zooming out grows them against the
   * graph, and a layout that left room at one zoom may not at the next.
   */
  fit() {
    for (let round = 0; round < FIT_ROUNDS; round++) {
      this.cy.fit(this.shown(), PADDING);
      this.restyle();
      if (!this.separate()) return;
    }
    this.cy.fit(this.shown(), PADDING);
    this.restyle();
  }

  /** Whether every node shown is inside the view. */
  fits() {
    if (this.shown().nodes().empty()) return true;
    const box = this.shown().nodes().renderedBoundingBox({ includeLabels: true });
    return box.x1 >= 0 && box.y1 >= 0 && box.x2 <= this.cy.width() && box.y2 <= this.cy.height();
  }

  /**
   * Move nodes apart until no node or caption overlaps another, each pair
   * along the axis it overlaps least on; true if anything moved.
   */
  separate() {
    const nodes = this.shown().nodes().toArray();
    const gap = GAP_PX / this.cy.zoom();
    let moved = false;
    for (let round = 0; round < SEPARATE_ROUNDS; round++) {
      const boxes = nodes.map((node) => node.boundingBox({ includeLabels: true, includeOverlays: false }));
      let clear = true;
      for (let i = 0; i < nodes.length; i++) {
        for (let j = i + 1; j < nodes.length; j++) {
          const hit = overlap(boxes[i], boxes[j], gap);
          if (!hit) continue;
          clear = false;
          const [a, b] = [nodes[i].position(), nodes[j].position()];
          const shift = (delta, from, to) => ((to >= from ? 1 : -1) * delta) / 2;
          const move =
            hit.dx < hit.dy ? { x: shift(hit.dx, a.x, b.x), y: 0 } : { x: 0, y: shift(hit.dy, a.y, b.y) };
          nodes[i].position({ x: a.x - move.x, y: a.y - move.y });
          nodes[j].position({ x: b.x + move.x, y: b.y + move.y });
          for (const [k, node] of [[i, nodes[i]], [j, nodes[j]]]) {
            boxes[k] = node.boundingBox({ includeLabels: true, includeOverlays: false });
          }
        }
      }
      if (clear) return moved;
      moved = true;
    }
    return moved;
  }

  /**
   * Mark the cause of a memory's review mark, and the relations from it to
   * the memory (the types of reviewPath, in order), where they are on screen;
   * any earlier trace goes. What was found: whether the cause is shown, and
   * the path's edge ids (empty when the path is not all on screen).
   */
  traceCause(memory) {
    const cy = this.cy;
    cy.elements(".review-cause, .review-path").removeClass("review-cause review-path");
    const cause = memory?.reviewCause ? cy.getElementById(memory.reviewCause) : cy.collection();
    if (cause.empty()) return { cause: false, path: [] };
    cause.addClass("review-cause");
    const path = this.dependencyPath(cause, memory.id, memory.reviewPath ?? []);
    for (const id of path) cy.getElementById(id).addClass("review-path");
    return { cause: true, path };
  }

  /** Edge ids from `from` to the node `to`, one edge of each type in `types` in turn; [] if none. */
  dependencyPath(from, to, types) {
    if (!types.length) return [];
    const [type, ...rest] = types;
    for (const edge of from.outgoers(`edge[type = "${type}"]`).toArray()) {
      const next = edge.target();
      if (!rest.length) {
        if (next.id() === to) return [edge.id()];
        continue;
      }
      const tail = this.dependencyPath(next, to, rest);
      if (tail.length) return [edge.id(), ...tail];
    }
    return [];
  }

  /** The memory a node stands for, as last read. */
  memory(id) {
    return this.cy.getElementById(id).data();
  }

  /** Each relation of a memory on screen: its type, which way it points, and the memory at its other end. */
  relationsOf(id) {
    return this.cy
      .getElementById(id)
      .connectedEdges()
      .map((edge) => {
        const outgoing = edge.source().id() === id;
        const other = outgoing ? edge.target() : edge.source();
        return { type: edge.data("type"), outgoing, id: other.id(), content: other.data("content") };
      });
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
