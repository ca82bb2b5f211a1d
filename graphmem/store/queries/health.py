"""The server's own statements: the readiness probe, and the warm-up's write
that plans the retrieval count on no memory at all."""

from __future__ import annotations

from graphmem.store import Store
from graphmem.store.queries import retrieval


def ping(store: Store) -> None:
    """Return when the database answers a statement; raise as the store does
    (``StoreUnavailableError``) when it does not."""
    store.read("ping")


def count_no_retrieval(store: Store, project_id: str, now: float) -> None:
    """Run the retrieval count's write (``record_retrievals``) over no memory:
    the database plans it and nothing is written."""
    retrieval.record_retrievals(store, {"ids": [], "project_id": project_id, "now": now})
