// The page's only way to the server: GraphQL over POST to the same origin,
// with the API key from sessionStorage (never localStorage, so a key does
// not outlive the browser tab) as a bearer token when one is set.

const KEY_STORAGE = "graphmem.explorer.apiKey";

export function storedKey() {
  return sessionStorage.getItem(KEY_STORAGE) ?? "";
}

export function storeKey(key) {
  if (key) sessionStorage.setItem(KEY_STORAGE, key);
  else sessionStorage.removeItem(KEY_STORAGE);
}

export class RequestError extends Error {}

// The review fields say why a memory needs review and which memory's change caused it.
const MEMORY_FIELDS = `id content tier status importance memoryType confidence pinned tags createdAt validTo supersededBy
  reviewChange reviewCause reviewBy reviewPath reviewReason reviewMarkedAt`;

const SEARCH = `
query ExploreSearch($query: String!, $mode: SearchMode!, $limit: Int!, $projectId: ID) {
  search(query: $query, mode: $mode, limit: $limit, projectId: $projectId) {
    mode retrievers notes tookMs
    hits {
      score
      memory { ${MEMORY_FIELDS} }
      explanation {
        components { name value weight contribution }
        retrievers { retriever rank score }
        path { seedId factor steps { type fromId toId } }
        replaces
        notes
      }
    }
  }
}`;

const NEIGHBORHOOD = `
query ExploreNeighborhood($id: ID!, $depth: Int!, $projectId: ID) {
  neighborhood(id: $id, depth: $depth, projectId: $projectId) {
    centerId depth truncated
    nodes { ${MEMORY_FIELDS} }
    edges { type fromId toId rationale weight }
  }
}`;

const MEMORIES = `
query ExploreMemories($first: Int!, $after: String, $projectId: ID) {
  memories(first: $first, after: $after, projectId: $projectId) {
    edges { node { ${MEMORY_FIELDS} } }
    pageInfo { hasNextPage endCursor }
  }
}`;

const PROJECTS = `query ExploreProjects { projects }`;

async function graphql(query, variables) {
  const headers = { "Content-Type": "application/json", Accept: "application/json" };
  const key = storedKey();
  if (key) headers.Authorization = `Bearer ${key}`;
  let response;
  try {
    response = await fetch("/graphql", {
      method: "POST",
      headers,
      body: JSON.stringify({ query, variables }),
      credentials: "omit",
    });
  } catch (error) {
    throw new RequestError(`the server did not answer: ${error.message}`);
  }
  let body;
  try {
    body = await response.json();
  } catch {
    throw new RequestError(`the server answered ${response.status} without JSON`);
  }
  if (response.status === 401) {
    const reason = body.errors?.[0]?.message ?? "unauthenticated";
    throw new RequestError(
      key ? `the API key was refused: ${reason}` : "this server needs an API key: enter one above",
    );
  }
  if (body.errors?.length) {
    const [first] = body.errors;
    const code = first.extensions?.code;
    throw new RequestError(code ? `${code}: ${first.message}` : first.message);
  }
  if (!response.ok) throw new RequestError(`the server answered ${response.status}`);
  return body.data;
}

export async function search({ query, mode, limit, projectId }) {
  const data = await graphql(SEARCH, { query, mode, limit, projectId: projectId || null });
  return data.search;
}

export async function neighborhood({ id, depth, projectId }) {
  const data = await graphql(NEIGHBORHOOD, { id, depth, projectId: projectId || null });
  return data.neighborhood;
}

/**
 * The newest memories, up to `scan` of them (pages of `page`), newest first;
 * `more` says the project holds more than were read.
 */
export async function recentMemories({ scan, page, projectId }) {
  const memories = [];
  let after = null;
  for (;;) {
    const first = Math.min(page, scan - memories.length);
    const data = await graphql(MEMORIES, { first, after, projectId: projectId || null });
    const { edges, pageInfo } = data.memories;
    memories.push(...edges.map((edge) => edge.node));
    if (!pageInfo.hasNextPage) return { memories, more: false };
    if (memories.length >= scan) return { memories, more: true };
    after = pageInfo.endCursor;
  }
}

/** The projects the API key may read that hold anything, sorted. */
export async function projects() {
  const data = await graphql(PROJECTS, {});
  return data.projects;
}
