"""all-MiniLM-L6-v2 on ONNX Runtime: the default embedder, with no torch.

The model file ships inside the package (``graphmem/embedding_model/``, made
by ``tools/export_onnx.py``), so nothing is downloaded. Its graph already
mean-pools and L2-normalises, as sentence-transformers does for this model,
so its vectors live in the same space as the torch embedder's.

The int8 model quantizes each activation tensor with one scale for the whole
tensor: in a padded batch a text's vector would depend on its neighbours. So
it runs one text per model call, and a batch is spread over a pool of
single-threaded calls, one per core; on small inputs that beats one call
using every core, and a text's vector is the same alone or in any batch.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal

import numpy as np

from graphmem.services.embeddings.base import EmbedderUnavailableError
from graphmem.services.embeddings.model import ModelEmbedder
from graphmem.settings import env_name

MODEL_DIR = Path(__file__).resolve().parents[2] / "embedding_model"
INT8 = MODEL_DIR / "model_int8.onnx"
TOKENIZER = MODEL_DIR / "tokenizer.json"
MAX_TOKENS = 256
"""The model's max_seq_length (sentence-transformers truncates there too)."""

Pooling = Literal["model", "cls", "mean"]

FP32_TEXTS_PER_RUN = 16
"""An unquantized model pads batches with masked tokens, which change no vector."""


class OnnxRuntime:
    """One ONNX Runtime session, its tokenizer, and a pool of one worker per core.

    ``pooling`` says how a text's vector comes out of the model: ``model`` when
    the graph already pools and normalises (the MiniLM export), ``cls`` when it
    returns token states and the first token's, L2-normalised, is the vector
    (how BGE models are trained to be read), ``mean`` when the mean of the
    unmasked tokens' states is (E5 models).
    """

    def __init__(
        self,
        model: Path,
        *,
        workers: int,
        texts_per_run: int,
        tokenizer: Path = TOKENIZER,
        pooling: Pooling = "model",
        max_tokens: int = MAX_TOKENS,
    ) -> None:
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise EmbedderUnavailableError(
                "onnxruntime and tokenizers are not installed: pip install graphmem, "
                f"or set {env_name('embedder')}=none to run without embeddings"
            ) from exc
        if not model.is_file():
            raise EmbedderUnavailableError(f"the embedding model is missing: {model}")
        options = onnxruntime.SessionOptions()
        # Parallelism comes from the pool: each call keeps to one core.
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.session: Any = onnxruntime.InferenceSession(
            str(model), options, providers=["CPUExecutionProvider"]
        )
        self.token_types = any(i.name == "token_type_ids" for i in self.session.get_inputs())
        self.pooling = pooling
        self.tokenizer: Any = Tokenizer.from_file(str(tokenizer))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_tokens)
        self.texts_per_run = texts_per_run
        self.pool = ThreadPoolExecutor(workers, thread_name_prefix="graphmem-embed")

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        # Similar lengths side by side waste the least padding.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        runs = [
            [texts[i] for i in order[start : start + self.texts_per_run]]
            for start in range(0, len(order), self.texts_per_run)
        ]
        if len(runs) == 1:
            sorted_rows = self._run(runs[0])
        else:
            sorted_rows = np.vstack(list(self.pool.map(self._run, runs)))
        rows = np.empty_like(sorted_rows)
        rows[order] = sorted_rows
        return rows

    def _run(self, texts: list[str]) -> np.ndarray:
        encoded = [self.tokenizer.encode(text) for text in texts]
        width = max(len(e.ids) for e in encoded)
        ids = np.zeros((len(texts), width), dtype=np.int64)
        mask = np.zeros((len(texts), width), dtype=np.int64)
        for row, encoding in enumerate(encoded):
            ids[row, : len(encoding.ids)] = encoding.ids
            mask[row, : len(encoding.ids)] = 1
        inputs = {"input_ids": ids, "attention_mask": mask}
        if self.token_types:
            inputs["token_type_ids"] = np.zeros_like(ids)
        # The first output is the pooled vector or the token states; exports may add more.
        vectors = np.asarray(self.session.run(None, inputs)[0], dtype=np.float32)
        if self.pooling == "model":
            return vectors
        if self.pooling == "cls":
            pooled = vectors[:, 0, :]
        else:
            weights = mask[:, :, None].astype(np.float32)
            pooled = (vectors * weights).sum(axis=1) / weights.sum(axis=1).clip(min=1.0)
        return pooled / np.linalg.norm(pooled, axis=1, keepdims=True).clip(min=1e-12)


class MiniLMEmbedder(ModelEmbedder):
    """all-MiniLM-L6-v2, int8, on ONNX Runtime (the default).

    ``model`` may name another export of the same graph (the fp32 one that
    ``tools/export_onnx.py --fp32`` writes), for comparison.
    """

    def __init__(self, *, threads: int | None = None, model: Path | None = None) -> None:
        super().__init__(threads=threads)
        self.model = model or INT8
        self.quantized = "int8" in self.model.name

    @property
    def cache_key(self) -> str:
        return f"{self.name}/onnx/{self.model.name}"

    @property
    def key(self) -> str:
        return f"{self.cache_key}@{self.model.parent}/{self.threads}"

    def _load(self) -> OnnxRuntime:
        per_run = 1 if self.quantized else FP32_TEXTS_PER_RUN
        return OnnxRuntime(self.model, workers=self.threads, texts_per_run=per_run)
