"""What a server does once before its first request."""

from __future__ import annotations

import gc

import pytest

from graphmem.api import GraphMem

# A surface suite: what it checks is the surface, the same on every backend; the
# store suites beneath it run on Neo4j as well (tests/conftest.py).
pytestmark = pytest.mark.backends("falkordb")


def test_warm_loads_the_model_and_exempts_the_start_up_heap_from_collection(egm: GraphMem):
    gc.unfreeze()
    try:
        egm.warm()
        assert egm.embedder is not None and egm.embedder.ready()
        frozen = gc.get_freeze_count()
        # What start-up built (imports, the model's runtime) is out of every later pass.
        assert frozen > 10_000
        assert sum(len(gc.get_objects(generation)) for generation in range(3)) < frozen
    finally:
        gc.unfreeze()
