"""The store's vector space: which embedding model wrote its vectors, kept on
its ``GraphmemSchema`` node."""

from __future__ import annotations

from dataclasses import dataclass

from graphmem.store import Store
from graphmem.store.queries import records


@dataclass(frozen=True, slots=True)
class Space:
    model: str | None
    """The model that claimed the store; ``None``: none has (or the store's
    vectors predate the record)."""
    embedded: bool
    """Whether any memory has a vector."""


def space(store: Store) -> Space:
    """Whose vectors the store holds, as ``Space`` says."""
    (found,) = records(Space, store.read("embedding_space", {}))
    return found


def claim(store: Store, model: str) -> None:
    """Record ``model`` as the one whose vectors the store holds from now on."""
    store.write("set_embedding_space", {"model": model})
