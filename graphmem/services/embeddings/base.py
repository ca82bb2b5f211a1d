"""What retrieval needs from an embedder, and the text a memory's vector stands for."""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Protocol

from graphmem.domain.errors import GraphMemError

DIMENSION = 384
"""The output size of all-MiniLM-L6-v2 (and of bge-small-en-v1.5); the vector
indexes are created for it."""

Vector = array
"""A float32 unit vector (``array('f')``): compact, and the FalkorDB adapter
encodes it at float32 precision, which is all the vector index stores."""


class Embedder(Protocol):
    name: str
    dimension: int

    def embed(self, texts: Sequence[str]) -> list[Vector]:
        """One unit vector per text, in order; one call embeds a whole batch."""
        ...

    def warm(self) -> None:
        """Load the model and embed once, blocking: afterwards ``ready`` is true."""
        ...

    def ready(self) -> bool:
        """Whether the model is loaded and has embedded once; never loads anything
        (readiness probes ask this)."""
        ...


class EmbedderUnavailableError(GraphMemError):
    """The embedding model cannot be loaded (its runtime is not installed)."""

    code = "EMBEDDER_UNAVAILABLE"


def memory_text(content: str, rationale: str | None) -> str:
    """What a memory's vector stands for: its content, then why it holds.

    The same two fields make up the full-text index, so both retrievers see
    the same text.
    """
    return f"{content}\n{rationale}" if rationale else content
