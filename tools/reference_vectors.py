"""Write the torch reference vectors the embedder tests compare the ONNX model with.

    pip install -e '.[torch]'        # torch's CPU build first: see pyproject.toml
    python tools/reference_vectors.py   # writes tests/data/minilm_torch_reference.json

The tests run without torch (the build machines have no CPU wheel of it at
hand), so the vectors of the fp32 model on torch, through sentence-transformers,
are computed here once and committed. Run it again only when the sentences or
the packaged weights change; ``python -m benchmarks.embedders`` measures the
quality of the ONNX export against the same model on a whole dev set.
"""

from __future__ import annotations

import json
from pathlib import Path

from graphmem.services.embeddings import TorchMiniLMEmbedder

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "minilm_torch_reference.json"

SENTENCES = [
    "Kafka retries are capped at three after the March outage",
    "the nightly export runs at two in the morning UTC",
    "deploy",
    "Invoices are generated at midnight and emailed on the first of the month",
    "The auth gateway rejects tokens older than fifteen minutes, per the security policy",
    "tabs, not spaces: the Makefile needs them",
    "Je préfère les réunions le matin; 日本語のメモ",
    "why are payments messages lost when the broker restarts?",
    "Ana: Thanks, Ben! Your kind words really mean a lot to me.",
    "Use bucket prod-b for backups, not prod-a",
]


def main() -> None:
    vectors = TorchMiniLMEmbedder(threads=1).embed(SENTENCES)
    records = [
        {"text": text, "vector": [round(float(x), 7) for x in vector]}
        for text, vector in zip(SENTENCES, vectors, strict=True)
    ]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    document = {"model": "all-MiniLM-L6-v2 fp32, torch", "sentences": records}
    OUT.write_text(json.dumps(document) + "\n")
    print(f"wrote {len(records)} vectors to {OUT}")


if __name__ == "__main__":
    main()
