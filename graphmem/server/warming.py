"""The store's half of a server's warm-up: the statements a request runs, run
once before the server listens, as the embedding model is.

A Neo4j plans a statement the first time it sees its text (and again after a
restart), and the driver opens its connections on first use: a fresh server's
first knowledgeContext on Neo4j took seconds where its tenth took a tenth of
one, longer than the prompt hook waits. So the server asks for a knowledge
context and searches once in its default project, in the words of its newest
memory, which plans the index queries and the reads that follow a hit (and
imports what the retrieval path imports), and runs the retrieval count's
write on no memory at all. Nothing is written: the knowledge context records
no retrieval and is not put on record as a delivery, and the write matches
no memory. ``python -m
benchmarks.neo4j_warm`` measures the first request against the tenth with
and without it.
"""

from __future__ import annotations

import logging

from graphmem.api import GraphMem
from graphmem.domain.clock import stored_now
from graphmem.domain.retrieval import ContextRequest
from graphmem.store.queries import health

log = logging.getLogger(__name__)

HINT = "what to know before starting work on this project"
"""The hint of a project with no memory yet."""

HINT_CHARS = 200
"""How much of a memory's content the warm-up asks with (a hint holds 1000 at most)."""


def warm_store(gm: GraphMem) -> None:
    """Run the retrieval's reads and the retrieval count's write once, writing
    nothing. A failure is logged and left for the first request to report: a
    warm-up never keeps a server from starting."""
    try:
        hint = _hint(gm)
        request = ContextRequest(context_hint=hint)
        gm.answer_context(request, project_id=gm.default_project, record_access=False)
        gm.search(hint)
        health.count_no_retrieval(gm.store, gm.default_project, stored_now(gm.clock))
    except Exception:
        log.warning("the store warm-up failed; the first requests may be slow", exc_info=True)


def _hint(gm: GraphMem) -> str:
    """The newest memory's words: a hint that finds something, by its vector and
    by its words, runs the statements that follow a hit too (the gathering of
    candidates, their relations, the scoring reads), which a hint that finds
    nothing leaves unplanned."""
    page = gm.list(first=1)
    content = page.items[0].content[:HINT_CHARS] if page.items else ""
    return content if len(content.strip()) >= 3 else HINT
