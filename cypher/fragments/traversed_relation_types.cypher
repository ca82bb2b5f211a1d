// The relation types a search expands along (graphmem.domain.retrieval.search.TRAVERSED),
// as a pattern's alternation. tests/unit/test_cypher_fragments.py keeps it
// equal to TRAVERSED.
ENABLES|CONSTRAINS|RELATED_TO
