"""Embeddings: the packaged model, how memories get their vectors, the backfill,
and the ``none`` mode, against each real backend."""

from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys
from array import array
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.domain.errors import InvalidInputError
from graphmem.services.embeddings import (
    DIMENSION,
    MiniLMEmbedder,
    TorchMiniLMEmbedder,
    Vector,
    embedder_named,
)
from graphmem.services.embeddings.cache import VectorCache
from graphmem.services.embeddings.onnx_runtime import INT8, MODEL_DIR
from graphmem.settings import Settings
from graphmem.store import Store
from graphmem.store.falkordb import FalkorStore, params_header
from tests.conftest import cypher


class CountingEmbedder:
    """The real embedder, counting its calls."""

    name = "counting"
    dimension = DIMENSION

    def __init__(self, inner: MiniLMEmbedder) -> None:
        self.inner = inner
        self.calls: list[int] = []

    def embed(self, texts: Sequence[str]) -> list[Vector]:
        self.calls.append(len(texts))
        return self.inner.embed(texts)

    def warm(self) -> None:
        self.inner.warm()

    def ready(self) -> bool:
        return self.inner.ready()


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def stored_vector(store: Store, memory_id: str) -> tuple[str | None, list[float] | None]:
    """A memory's vector as the database holds it: its type and its values."""
    type_of = "typeof" if isinstance(store, FalkorStore) else "valueType"
    ((kind, vector),) = cypher(
        store,
        f"MATCH (m:Memory {{id: $id}}) RETURN {type_of}(m.embedding), m.embedding",
        {"id": memory_id},
    )
    return kind if vector is not None else None, vector


def native(store: Store) -> str:
    """The type each backend's vector index reads: FalkorDB's own float32
    vector; on Neo4j 5, a list of floats."""
    return "Vectorf32" if isinstance(store, FalkorStore) else "LIST<FLOAT NOT NULL> NOT NULL"


def test_the_packaged_model_gives_384_dimension_unit_vectors(embedder: MiniLMEmbedder):
    vectors = embedder.embed(["Kafka retries are capped at three", "the cat sat on the mat"])
    assert len(vectors) == 2
    for vector in vectors:
        assert isinstance(vector, array) and vector.typecode == "f"
        assert len(vector) == DIMENSION
        assert math.sqrt(cosine(vector, vector)) == pytest.approx(1.0, abs=1e-5)


def test_a_batch_embeds_each_text_as_it_would_alone(embedder: MiniLMEmbedder):
    texts = ["deploys happen on Tuesdays", "the billing service uses Kafka"]
    batch = embedder.embed(texts)
    for text, vector in zip(texts, batch, strict=True):
        (alone,) = embedder.embed([text])
        assert cosine(vector, alone) == pytest.approx(1.0, abs=1e-5)
    assert embedder.embed([]) == []


def test_paraphrases_are_closer_than_unrelated_sentences(embedder: MiniLMEmbedder):
    a, b, c = embedder.embed(
        ["Invoices are generated at midnight", "Bills get produced at 12am", "The cat is asleep"]
    )
    assert cosine(a, b) > 0.4 > cosine(a, c)


def test_the_setting_chooses_the_embedder(monkeypatch: pytest.MonkeyPatch):
    assert Settings().embedding.model == "minilm"
    monkeypatch.setenv("GRAPHMEM_EMBEDDER", "none")
    assert Settings().embedding.model == "none"
    assert embedder_named("none") is None
    assert isinstance(embedder_named("minilm"), MiniLMEmbedder)
    assert isinstance(embedder_named("minilm-torch"), TorchMiniLMEmbedder)
    with pytest.raises(ValueError):
        embedder_named("word2vec")


def test_a_batch_write_embeds_with_one_call_and_stores_native_vectors(
    store: Store, clock: ManualClock, embedder: MiniLMEmbedder
):
    counting = CountingEmbedder(embedder)
    gm = GraphMem(store, clock=clock, embedder=counting)
    ids = gm.remember_many(
        [
            {"content": "deploys happen on Tuesdays"},
            {"content": "the billing service uses Kafka", "rationale": "ordering matters"},
            {"content": "deploys happen on Tuesdays"},  # a duplicate: merged, not embedded
        ]
    )
    assert counting.calls == [2]
    kind, vector = stored_vector(store, ids[1])
    assert kind == native(store)
    (expected,) = embedder.embed(["the billing service uses Kafka\nordering matters"])
    assert vector == pytest.approx(list(expected), abs=1e-6)


def test_changing_the_content_re_embeds_the_memory(
    store: Store, clock: ManualClock, embedder: MiniLMEmbedder
):
    counting = CountingEmbedder(embedder)
    gm = GraphMem(store, clock=clock, embedder=counting)
    memory = gm.remember({"content": "deploys happen on Tuesdays"})
    gm.update(memory.id, {"confidence": 0.9})
    assert counting.calls == [1]  # no text changed, no new vector
    gm.update(memory.id, {"content": "invoices are emailed on the first of the month"})
    assert counting.calls == [1, 1]
    _, vector = stored_vector(store, memory.id)
    (expected,) = embedder.embed(["invoices are emailed on the first of the month"])
    assert vector == pytest.approx(list(expected), abs=1e-6)
    hits = gm.search("when are bills sent out", mode="VECTOR", limit=1).hits
    assert hits[0].memory.id == memory.id


def test_without_embeddings_nothing_is_embedded_and_an_edit_drops_a_stale_vector(
    store: Store, clock: ManualClock, embedder: MiniLMEmbedder
):
    with_vectors = GraphMem(store, clock=clock, embedder=embedder)
    memory = with_vectors.remember({"content": "deploys happen on Tuesdays"})
    assert stored_vector(store, memory.id)[0] == native(store)
    plain = GraphMem(store, clock=clock)
    fresh = plain.remember({"content": "the billing service uses Kafka"})
    assert stored_vector(store, fresh.id) == (None, None)
    plain.update(memory.id, {"content": "deploys happen on Thursdays"})
    assert stored_vector(store, memory.id) == (None, None)


def test_backfill_embeds_what_has_no_vector_in_batches_with_progress(
    store: Store,
    clock: ManualClock,
    embedder: MiniLMEmbedder,
):
    plain = GraphMem(store, clock=clock)
    ids = plain.remember_many([{"content": f"service {n} exposes /metrics"} for n in range(5)])
    other = plain.remember({"content": "other project memory"}, project_id="other")
    with pytest.raises(InvalidInputError):
        plain.backfill_embeddings()

    counting = CountingEmbedder(embedder)
    gm = GraphMem(store, clock=clock, embedder=counting)
    reported: list[tuple[int, int]] = []
    result = gm.backfill_embeddings(
        batch_size=2, progress=lambda done, goal: reported.append((done, goal))
    )
    assert (result.embedded, result.remaining) == (5, 0)
    assert counting.calls == [2, 2, 1]
    assert reported == [(0, 5), (2, 5), (4, 5), (5, 5)]
    assert all(stored_vector(store, i)[0] == native(store) for i in ids)
    assert stored_vector(store, other.id) == (None, None)  # another project's

    again = gm.backfill_embeddings(all_projects=True)
    assert (again.embedded, again.remaining) == (1, 0)
    assert gm.search("metrics endpoint of a service", mode="VECTOR").hits


def test_vectors_travel_at_float32_precision_and_reject_nan():
    vector = array("f", [0.1, -2.5e-7, 1.0])
    header = params_header({"v": vector})
    values = [float(x) for x in header.split("=", 1)[1].strip(" []").split(",")]
    assert array("f", values) == vector  # float32 round-trips exactly
    with pytest.raises(ValueError):
        params_header({"v": array("f", [float("nan")])})
    with pytest.raises(TypeError):
        params_header({"v": array("d", [0.5])})


ROOT = Path(__file__).resolve().parents[2]


REFERENCE = ROOT / "tests" / "data" / "minilm_torch_reference.json"
SENTENCES = [r["text"] for r in json.loads(REFERENCE.read_text(encoding="utf-8"))["sentences"]]
"""The sentences tools/reference_vectors.py embedded on torch: short and long, a single
word, punctuation, other scripts."""


@pytest.fixture
def torch_extra() -> None:
    """The torch extra, which no test install brings (the build machines have no CPU
    build of torch at hand): the checks that need it are for maintainers."""
    if importlib.util.find_spec("sentence_transformers") is None:
        pytest.skip("needs the torch extra (torch's CPU build, then pip install -e '.[torch]')")


def test_the_onnx_vectors_match_the_torch_reference_vectors(embedder: MiniLMEmbedder):
    """The shipped int8 export stays in the torch model's space, so a store written by
    one embedder is searched by the other. The reference is the fp32 model on torch,
    computed once by tools/reference_vectors.py and committed."""
    records = json.loads(REFERENCE.read_text(encoding="utf-8"))["sentences"]
    assert len(records) >= 8
    onnx = embedder.embed([r["text"] for r in records])
    similarities = [cosine(a, r["vector"]) for a, r in zip(onnx, records, strict=True)]
    assert sum(similarities) / len(similarities) >= 0.99
    assert min(similarities) >= 0.97
    # The reference is the model's own space, not a copy of the ONNX output.
    assert max(similarities) < 1.0 - 1e-6


def test_the_shipped_model_carries_its_licence_and_tokenizer():
    assert INT8.is_file()
    assert (MODEL_DIR / "tokenizer.json").is_file()
    assert "Apache License" in (MODEL_DIR / "LICENSE").read_text()
    assert "tools/export_onnx.py" in (MODEL_DIR / "NOTICE").read_text()


def test_the_default_embedder_runs_without_importing_torch():
    script = (
        "import sys\n"
        "from graphmem.services.embeddings import embedder_named\n"
        "e = embedder_named('minilm')\n"
        "assert len(e.embed(['hello'])[0]) == 384\n"
        "print('torch' in sys.modules, 'sentence_transformers' in sys.modules)\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["False", "False"]


def test_warm_loads_the_model_and_then_it_is_ready():
    # Three threads: a runtime of its own, which no other test has warmed.
    fresh = MiniLMEmbedder(threads=3)
    assert not fresh.ready()
    fresh.warm()
    assert fresh.ready()
    assert MiniLMEmbedder(threads=3).ready()  # the process shares the loaded model


def test_concurrent_calls_each_get_their_own_texts_vectors(embedder: MiniLMEmbedder):
    alone = {text: embedder.embed([text])[0] for text in SENTENCES}
    embedder.cache.clear()
    with ThreadPoolExecutor(8) as pool:
        together = list(pool.map(lambda t: embedder.embed([t])[0], SENTENCES))
    for text, vector in zip(SENTENCES, together, strict=True):
        assert cosine(vector, alone[text]) == pytest.approx(1.0, abs=1e-5)


def test_a_repeated_text_is_served_from_the_cache(embedder: MiniLMEmbedder):
    text = "a hook sends the same prompt prefix on every turn"
    (first,) = embedder.embed([text])
    hits = embedder.cache.hits
    (again,) = embedder.embed([text])
    assert embedder.cache.hits == hits + 1
    assert again == first
    assert again is not first  # callers get their own copy


@pytest.mark.slow
@pytest.mark.usefixtures("torch_extra")
def test_the_export_script_reproduces_the_shipped_model(tmp_path: Path):
    """tools/export_onnx.py, run again from the packaged torch weights, gives a model
    whose vectors are the shipped model's."""
    run = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "export_onnx.py"), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "tokenizer.json").read_bytes() == (MODEL_DIR / "tokenizer.json").read_bytes()
    again = MiniLMEmbedder(model=tmp_path / INT8.name, threads=1)
    again.cache = VectorCache(max_bytes=0)
    shipped = MiniLMEmbedder(threads=1)
    shipped.cache = VectorCache(max_bytes=0)
    for a, b in zip(again.embed(SENTENCES), shipped.embed(SENTENCES), strict=True):
        assert cosine(a, b) == pytest.approx(1.0, abs=1e-4)
