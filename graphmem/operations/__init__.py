"""The catalogue: every operation of graphmem declared once.

Each operation is a function in its area's module (memories, sessions,
review, ...) with ``GraphMem``'s signature, declared with its role and the
GraphQL fields that run it (``graphmem.operations.entry``). From that one
declaration:

- ``Client`` and ``AsyncClient`` have it as a method, since both are
  ``Operations`` (``graphmem.operations.catalogue``);
- ``GraphMem`` takes its signature and docstring for each method that only
  hands the call to one service (``graphmem.api.served``);
- GraphQL guards each root field with its entry's role and project rules
  (``graphmem.graphql.tenancy``), and a root field no entry claims is an error;
- the MCP tools resolve the project and call ``GraphMem`` through it
  (``graphmem.mcp.tool``).

The policies every surface applies to an entry are in
``graphmem.operations.access``. This package loads the models only, never
the server, so the clients stay light; importing it loads nothing, so a
caller that sends one request of its own (the prompt hook) pays for the
request, not for every area's models.
"""
