// The relation types a dependency travels along (graphmem.domain.dependencies.CARRIERS),
// as a pattern's alternation. tests/unit/test_cypher_fragments.py keeps it
// equal to CARRIERS.
ENABLES|CONSTRAINS
