// Every relation type (graphmem.domain.models.RelationType), as a pattern's
// alternation: `[r:{{relation_types}}]`. tests/unit/test_cypher_fragments.py
// keeps it equal to the enum.
CONSTRAINS|ENABLES|SUPERSEDES|RELATED_TO
