"""The domain: what a memory is and the judgments about it (scoring, dedup and
contradiction, validity, retention rules, retrieval formulas), with no I/O."""
