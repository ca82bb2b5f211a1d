"""The contract suite runs on every backend through the root ``store`` fixture
(``tests/conftest.py``): ``[falkordb]`` on the embedded FalkorDB, ``[neo4j]`` on
the test Neo4j. Every test here is written once and must pass on both."""
