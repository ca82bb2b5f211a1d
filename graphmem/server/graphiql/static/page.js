// GraphiQL on graphmem's /graphql: the editors' contents live in the URL so a
// query can be linked, and the headers editor is where an API key goes.
(function () {
  const EXAMPLE = `# graphmem: what this project knows.
#
# Where the server requires API keys, open
# "Headers" below and add
#   {"Authorization": "Bearer gmk_..."}
# Run with Ctrl-Enter; the schema is under
# the book icon on the left.

query Memories {
  memories(first: 10, filter: {includeCandidates: true}) {
    edges {
      node {
        id content memoryType tier status importance
        relations { type fromId toId rationale }
      }
    }
    pageInfo { hasNextPage endCursor }
  }
}
`;

  const params = new URLSearchParams(window.location.search);
  const endpoint = window.location.origin + window.location.pathname;

  function remember(name, value) {
    if (value) params.set(name, value);
    else params.delete(name);
    const search = params.toString();
    history.replaceState(null, "", search ? "?" + search : window.location.pathname);
  }

  const fetcher = GraphiQL.createFetcher({
    url: endpoint,
    subscriptionUrl: endpoint.replace(/^http/, "ws"),
  });

  function Page() {
    return React.createElement(GraphiQL, {
      fetcher: fetcher,
      plugins: [GraphiQLPluginExplorer.explorerPlugin()],
      defaultQuery: EXAMPLE,
      query: params.get("q") || undefined,
      variables: params.get("variables") || undefined,
      onEditQuery: (value) => remember("q", value),
      onEditVariables: (value) => remember("variables", value),
      defaultEditorToolsVisibility: true,
      isHeadersEditorEnabled: true,
      shouldPersistHeaders: true,
      inputValueDeprecation: true,
    });
  }

  ReactDOM.createRoot(document.getElementById("graphiql")).render(React.createElement(Page));
})();
