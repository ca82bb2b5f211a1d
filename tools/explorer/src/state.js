// What the page shows is named by the URL's hash: a search (#q=…&mode=…), a
// memory (#memory=…&depth=…), both (a hit opened from a search), or neither
// (the project's overview). So every search and every memory has a link,
// back and forward step through them, and a reload shows the same screen.
// The API key never goes into the URL.

export const MODES = ["HYBRID", "FULLTEXT", "VECTOR", "GRAPH"];
export const DEPTHS = [1, 2, 3];

/** The state a hash names; anything malformed falls back to the default. */
export function readState(hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  const mode = params.get("mode")?.toUpperCase();
  const depth = Number(params.get("depth"));
  const project = params.get("project");
  return {
    q: params.get("q")?.trim() ?? "",
    mode: MODES.includes(mode) ? mode : "HYBRID",
    memory: params.get("memory")?.trim() ?? "",
    depth: DEPTHS.includes(depth) ? depth : 1,
    // null: the URL does not say, so the project field keeps its value.
    project: project === null ? null : project.trim(),
  };
}

/** The hash naming a state, shortest form ("" for the overview). */
export function stateHash({ q, mode, memory, depth, project }) {
  const params = new URLSearchParams();
  if (project) params.set("project", project);
  if (q) {
    params.set("q", q);
    if (mode && mode !== "HYBRID") params.set("mode", mode);
  }
  if (memory) {
    params.set("memory", memory);
    if (depth && depth !== 1) params.set("depth", String(depth));
  }
  const text = params.toString();
  return text ? `#${text}` : "";
}
