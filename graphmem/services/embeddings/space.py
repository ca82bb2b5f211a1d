"""One vector space per store: the model that embedded a store's memories is
the one that searches them.

Two models of the same dimension give vectors that fit the same index and
mean nothing to each other, so a store opened with another model would
answer every VECTOR and HYBRID query wrongly without a word. The store
records the model's name on its ``GraphmemSchema`` node; a store whose
vectors predate the record was written by MiniLM, the only model there was.
"""

from __future__ import annotations

from graphmem.domain.errors import ConflictError
from graphmem.services.embeddings.bge_runtime import BgeSmallEmbedder
from graphmem.services.embeddings.model import MODEL_NAME
from graphmem.settings import env_name
from graphmem.store import Store
from graphmem.store.queries import embeddings

UNRECORDED = MODEL_NAME
"""The model of a store that holds vectors but no record of who wrote them."""

SETTINGS = {MODEL_NAME: "minilm", BgeSmallEmbedder.name: "bge-small"}
"""The GRAPHMEM_EMBEDDER value that embeds with each model."""


def claim(store: Store, model: str) -> None:
    """Record ``model`` as the store's, or refuse when its vectors are another's."""
    found = embeddings.space(store)
    if found.model == model:
        return
    # A store with no vector yet is anyone's: its first model claims it.
    held = (found.model or UNRECORDED) if found.embedded else None
    if held is not None and held != model:
        raise ConflictError(
            f"embedder: this store's vectors are {held}'s and the embedder set is "
            f"{model}: searching one model's vectors with another's finds nothing "
            f"it should; set {env_name('embedder')}={SETTINGS.get(held, '<its model>')}, "
            "or give this embedder a store of its own",
            field="embedder",
        )
    embeddings.claim(store, model)
