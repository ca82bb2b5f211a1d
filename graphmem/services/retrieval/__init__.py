"""Retrieval against the store: ``plans`` makes search and knowledgeContext
plans of one ``pipeline``, which runs the ``retrievers`` (vector, full text
with its query builder ``fulltext``, recent turns, feedback) over the
``candidates`` and walks the relations (``neighbourhood``); ``backfill``
embeds what has no vector yet; ``service`` is the ``Retrieval`` the rest of
graphmem calls, configured by ``config``. The requests, results and formulas
are the domain's (``graphmem.domain.retrieval``).
"""
