// Whether a memory still holds. A superseded memory was replaced by a newer
// one (supersededBy); an expired one stopped holding at its validTo, which
// has passed, with nothing replacing it. Either stays readable in the graph,
// marked, because it explains how the project got where it is.

/** "superseded", "expired" or "" (it holds now). */
export function standing(memory, now = Date.now()) {
  if (memory.supersededBy) return "superseded";
  if (memory.validTo && Date.parse(memory.validTo) <= now) return "expired";
  return "";
}

/**
 * Whether a memory is marked as needing review: something it rests on (by
 * ENABLES or CONSTRAINS) stopped being current. Unlike standing, it says
 * nothing against the memory itself, which still holds until someone looks.
 */
export function needsReview(memory) {
  return Boolean(memory.reviewChange);
}
