// Search hits with their explanations: which retrievers found each memory,
// the relations that brought it in, and its score factor by factor.

import { el, lower, number, shorten } from "./dom.js";
import { TIER_COLOURS } from "./palette.js";
import { needsReview, standing } from "./validity.js";

/** The longest text of a memory named in a line about another. */
const LINK_LENGTH = 60;

export function tierBadge(tier) {
  return el("span", { className: "badge", style: { background: TIER_COLOURS[tier] ?? "#A5ABB6" } }, lower(tier));
}

const RETRIEVER_NAMES = { FULLTEXT: "full text", VECTOR: "vector" };

export function retrieverName(retriever) {
  return RETRIEVER_NAMES[retriever] ?? lower(retriever);
}

function retrieversLine(explanation) {
  if (!explanation.retrievers.length) return null;
  const parts = explanation.retrievers.map(
    (hit) => `${retrieverName(hit.retriever)} #${hit.rank} (${number(hit.score)})`,
  );
  return el("p", { className: "found-by" }, `found by ${parts.join(", ")}`);
}

function pathLine(explanation, contentOf) {
  const path = explanation.path;
  if (!path) return null;
  const steps = path.steps.map((step) => step.type);
  return el(
    "p",
    { className: "path" },
    `reached from “${contentOf(path.seedId)}” via ${steps.join(" → ")} (×${number(path.factor, 2)})`,
  );
}

function componentsTable(components) {
  return el(
    "table",
    { className: "components" },
    el("thead", {}, el("tr", {}, el("th", {}, "factor"), el("th", {}, "value"), el("th", {}, "weight"), el("th", {}, "contribution"))),
    el(
      "tbody",
      {},
      components.map((c) =>
        el(
          "tr",
          {},
          el("td", {}, c.name),
          el("td", {}, number(c.value)),
          el("td", {}, number(c.weight)),
          el(
            "td",
            {},
            el("span", { className: "bar", style: { width: `${Math.round(Math.min(c.contribution, 1) * 100)}px` } }),
            number(c.contribution),
          ),
        ),
      ),
    ),
  );
}

/** A time in UTC to the minute: "2026-11-24 13:05 UTC". */
function utc(time) {
  return `${time.slice(0, 16).replace("T", " ")} UTC`;
}

/** When a memory was written: "written 2026-11-24 13:05 UTC". */
function written(createdAt) {
  return createdAt ? `written ${utc(createdAt)}` : "";
}

/** A memory's status, and whether it stopped holding: "active · superseded". */
function statusText(memory) {
  const marks = [standing(memory), needsReview(memory) ? "needs review" : ""].filter(Boolean);
  return [lower(memory.status), ...marks].join(" · ");
}

function itemClass(memory) {
  const marks = [
    memory.status === "CANDIDATE" ? "candidate" : null,
    standing(memory) || null,
    needsReview(memory) ? "review" : null,
  ];
  return ["hit", ...marks.filter(Boolean)].join(" ");
}

function hitItem(hit, contentOf, linkTo) {
  const { memory, explanation } = hit;
  return el(
    "li",
    { className: itemClass(memory), dataset: { id: memory.id, status: memory.status } },
    el("a", { className: "open", href: linkTo(memory.id) }, memory.content),
    el(
      "p",
      { className: "meta" },
      tierBadge(memory.tier),
      ` ${statusText(memory)} · score ${number(hit.score)} · importance ${number(memory.importance, 2)}`,
      memory.memoryType ? ` · ${lower(memory.memoryType)}` : "",
    ),
    retrieversLine(explanation),
    pathLine(explanation, contentOf),
    explanation.replaces.length
      ? el("p", { className: "replaces" }, `stands in for ${explanation.replaces.length} superseded memor${explanation.replaces.length === 1 ? "y" : "ies"}`)
      : null,
    explanation.notes.map((note) => el("p", { className: "note" }, note)),
    el("details", { className: "why" }, el("summary", {}, "why this score"), componentsTable(explanation.components)),
  );
}

export function renderResults(list, result, linkTo) {
  const contents = new Map(result.hits.map((hit) => [hit.memory.id, hit.memory.content]));
  const contentOf = (id) => {
    return shorten(contents.get(id) ?? id, LINK_LENGTH);
  };
  list.replaceChildren(...result.hits.map((hit) => hitItem(hit, contentOf, linkTo)));
}

function memoryItem(memory, linkTo) {
  return el(
    "li",
    { className: itemClass(memory), dataset: { id: memory.id, status: memory.status } },
    el("a", { className: "open", href: linkTo(memory.id) }, memory.content),
    el(
      "p",
      { className: "meta" },
      tierBadge(memory.tier),
      ` ${statusText(memory)} · importance ${number(memory.importance, 2)}`,
      memory.memoryType ? ` · ${lower(memory.memoryType)}` : "",
      memory.pinned ? " · pinned" : "",
      ` · ${written(memory.createdAt)}`,
    ),
  );
}

/** The first screen: the project's most important and most recent memories. */
export function renderOverview(panel, { important, recent }, linkTo) {
  const section = (id, title, memories) =>
    el(
      "section",
      { id, className: "overview-list" },
      el("h2", {}, title),
      el("ol", {}, memories.map((memory) => memoryItem(memory, linkTo))),
    );
  panel.replaceChildren(
    section("important", "Most important", important),
    section("recent", "Most recent", recent),
  );
}

const STANDING_TEXT = {
  superseded: "Superseded: a newer memory replaced it.",
  expired: "Expired: its validity has ended.",
};

function relationItem(relation, linkTo) {
  const other = shorten(relation.content, LINK_LENGTH);
  return el(
    "li",
    { dataset: { type: relation.type } },
    relation.outgoing ? `${relation.type} → ` : `← ${relation.type} `,
    el("a", { href: linkTo(relation.id) }, other),
  );
}

/** A link to a memory, named by its words when they are on screen, else by its id. */
function memoryLink(id, linkTo, contentOf) {
  const content = contentOf(id);
  return el("a", { href: linkTo(id), dataset: { id } }, content ? `“${shorten(content, LINK_LENGTH)}”` : id);
}

/**
 * Why a memory needs review, and the way to its cause: a link to the memory
 * that changed (and to the one that changed it), and either a note that the
 * graph shows the path or a button to bring the cause into the graph.
 */
function reviewSection(memory, linkTo, { trace, contentOf = () => null, onTrace } = {}) {
  if (!needsReview(memory)) return null;
  const cause = memory.reviewCause;
  let where = null;
  if (cause && trace?.path.length) where = "The path from it is highlighted in the graph.";
  else if (cause && trace?.cause) where = "It is outlined in the graph.";
  else if (cause && onTrace) where = el("button", { type: "button", className: "trace", onclick: onTrace }, "Show the path to the cause");
  return el(
    "div",
    { className: "review" },
    el("p", { className: "review-reason" }, `Needs review: ${memory.reviewReason}`),
    cause
      ? el(
          "p",
          { className: "review-cause" },
          "Cause: ",
          memoryLink(cause, linkTo, contentOf),
          ` (${lower(memory.reviewChange)})`,
          memory.reviewBy ? [", by ", memoryLink(memory.reviewBy, linkTo, contentOf)] : null,
        )
      : null,
    where ? el("p", { className: "review-trace" }, where) : null,
  );
}

/**
 * The memory a node stands for; `relations` are its edges on screen (the
 * graph draws their types only under the pointer, so they are listed here).
 * `review` says what the graph shows of a review mark's cause (`trace`), the
 * words of memories on screen (`contentOf`), and how to bring the cause in
 * (`onTrace`); `onClose` runs when the panel's close button is pressed.
 */
export function renderDetails(panel, memory, linkTo, relations = [], review = {}) {
  if (!memory) {
    panel.hidden = true;
    delete panel.dataset.id;
    panel.replaceChildren();
    return;
  }
  panel.hidden = false;
  panel.dataset.id = memory.id;
  const mark = standing(memory);
  const parts = [
    el(
      "button",
      {
        type: "button",
        className: "close",
        "aria-label": "Close",
        onclick: () => {
          renderDetails(panel, null);
          review.onClose?.();
        },
      },
      "×",
    ),
    el("p", { className: "content" }, memory.content),
    mark ? el("p", { className: `standing ${mark}` }, STANDING_TEXT[mark]) : null,
    reviewSection(memory, linkTo, review),
    el(
      "dl",
      {},
      [
        ["id", memory.id],
        ["tier", lower(memory.tier)],
        ["status", lower(memory.status)],
        ["type", lower(memory.memoryType) || "—"],
        ["importance", number(memory.importance, 2)],
        ["confidence", number(memory.confidence, 2)],
        ["pinned", memory.pinned ? "yes" : "no"],
        ["tags", memory.tags?.length ? memory.tags.join(", ") : "—"],
        ["written", written(memory.createdAt).replace("written ", "") || "—"],
        ["valid until", memory.validTo ? utc(memory.validTo) : "—"],
        [
          "superseded by",
          memory.supersededBy ? el("a", { href: linkTo(memory.supersededBy) }, memory.supersededBy) : null,
        ],
      ]
        .filter(([, value]) => value !== null)
        .flatMap(([name, value]) => [el("dt", {}, name), el("dd", {}, value)]),
    ),
    relations.length
      ? el("ul", { className: "relations" }, relations.map((relation) => relationItem(relation, linkTo)))
      : null,
    // A link: the memory's own URL, to centre on, copy or open in a new tab.
    el("a", { className: "centre", href: linkTo(memory.id) }, "Centre on this memory"),
  ];
  panel.replaceChildren(...parts.filter(Boolean));
}
