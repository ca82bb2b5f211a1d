"""Keeping the garbage collector's full passes short in a long-running process.

A full collection walks every container object the process holds. After
start-up that is about 95,000 of them (the imports of the GraphQL stack, the
stemmer's tables, the embedding runtime), and one pass over them takes 25-30
ms on this project's reference machine. Requests allocate enough that such a
pass came about once every ten searches and set the 95th percentile of a
search at 100,000 memories (docs/retrieval.md: 50.0 ms in one profiling run,
28.7 ms with the start-up heap frozen).

``settle`` collects once and moves every object then alive into the
collector's permanent generation (``gc.freeze``), so later passes walk only
what requests created. What start-up built lives as long as the process does,
so nothing that could have been freed is kept.
"""

from __future__ import annotations

import gc


def settle() -> None:
    """Collect, then exempt what is alive now from every later collection."""
    gc.collect()
    gc.freeze()
