"""The :NeedsReview label, on both backends: a memory carries it exactly while
it is marked for review (Neo4j Browser styles nodes by label only, so the
label is how graphmem.grass draws a marked memory apart). Marking sets it;
confirming, and undoing the change that marked, take it away."""

from __future__ import annotations

from graphmem import GraphMem
from graphmem.domain.kinds import RelationType
from graphmem.store import Store
from tests.conftest import cypher
from tests.integration.test_review_marks import _archive, _supersede, chain, marked, write


def labelled(store: Store, ids: dict[str, str]) -> set[str]:
    """The names in ``ids`` of the memories that carry :NeedsReview."""
    rows = cypher(store, "MATCH (m:Memory:NeedsReview) RETURN m.id")
    found = {row[0] for row in rows}
    return {name for name, memory_id in ids.items() if memory_id in found}


def test_the_label_is_set_with_a_mark_and_goes_with_it(gm: GraphMem, store: Store):
    ids = chain(gm, write(gm, "The release train leaves on Thursdays."))
    assert labelled(store, ids) == set()
    new = _supersede(gm, ids["base"])
    assert labelled(store, ids) == marked(gm, ids) == {"d1", "d2"}
    # A node with both labels is still every bit a memory.
    assert cypher(store, "MATCH (m:NeedsReview) RETURN labels(m)") == [
        [["Memory", "NeedsReview"]],
        [["Memory", "NeedsReview"]],
    ]

    gm.confirm(ids["d1"], "we still deploy on Fridays")
    assert labelled(store, ids) == marked(gm, ids) == {"d2"}

    gm.unrelate(new, ids["base"], RelationType.SUPERSEDES, reason="wrong", removed_by="tester")
    assert labelled(store, ids) == marked(gm, ids) == set()

    # A newer change marks again; restoring what it archived clears it again.
    _archive(gm, ids["base"])
    assert labelled(store, ids) == {"d1", "d2"}
    gm.restore(ids["base"])
    assert labelled(store, ids) == set()
