"""One vector space per store (``graphmem.services.embeddings.space``): the
model that wrote a store's vectors is the one a later open must use."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem.api import GraphMem
from graphmem.domain.errors import ConflictError
from graphmem.services.embeddings import space
from graphmem.services.embeddings.model import MODEL_NAME
from graphmem.settings import Settings
from graphmem.store import Store
from tests.conftest import cypher

OTHER = "bge-small-en-v1.5"


def recorded(store: Store) -> list[list[object]]:
    return cypher(store, "MATCH (v:GraphmemSchema {id: 'graphmem'}) RETURN v.embedding_model")


def test_a_store_with_no_vector_is_claimed_by_its_first_model_and_can_change(store: Store):
    space.claim(store, OTHER)
    assert recorded(store) == [[OTHER]]
    # Nothing is embedded yet: another model may take the store over.
    space.claim(store, MODEL_NAME)
    assert recorded(store) == [[MODEL_NAME]]


def test_vectors_of_one_model_refuse_another(store: Store, egm: GraphMem):
    space.claim(store, MODEL_NAME)
    egm.remember({"content": "deploys run from the release branch"})
    with pytest.raises(ConflictError) as refused:
        space.claim(store, OTHER)
    assert refused.value.field == "embedder"
    assert MODEL_NAME in refused.value.message and OTHER in refused.value.message
    assert recorded(store) == [[MODEL_NAME]]
    space.claim(store, MODEL_NAME)


def test_vectors_written_before_the_record_are_minilms(store: Store, egm: GraphMem):
    egm.remember({"content": "the cache lives in /var/cache/app"})
    assert recorded(store) in ([], [[None]])
    with pytest.raises(ConflictError, match=MODEL_NAME):
        space.claim(store, OTHER)
    space.claim(store, MODEL_NAME)
    assert recorded(store) == [[MODEL_NAME]]


@pytest.mark.backends("falkordb")
def test_opening_a_store_with_another_models_vectors_is_refused(data_dir: Path):
    settings = Settings(data_dir=data_dir, embedder="minilm")
    with GraphMem.open(settings) as gm:
        gm.remember({"content": "reviews need two approvals"})
        assert recorded(gm.store) == [[MODEL_NAME]]
        cypher(gm.store, "MATCH (v:GraphmemSchema) SET v.embedding_model = $m", {"m": OTHER})
    with pytest.raises(ConflictError, match="GRAPHMEM_EMBEDDER=bge-small"):
        GraphMem.open(settings)
    # The refusal wrote nothing: the store still names the model of its vectors.
    with GraphMem.open(Settings(data_dir=data_dir, embedder="none")) as gm:
        assert recorded(gm.store) == [[OTHER]]
        assert [m.content for m in gm.list().items] == ["reviews need two approvals"]
