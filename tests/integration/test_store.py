"""The FalkorDB adapter: parameters reach the database verbatim."""

from __future__ import annotations

import pytest

from graphmem.api import GraphMem
from graphmem.store.falkordb import FalkorStore, params_header

HOSTILE = [
    'quote " inside',
    "single ' quote",
    "back\\slash and trailing \\",
    "`}) MATCH (n) DETACH DELETE n //",
    "CYPHER x=1 RETURN 1",
    "new\nline\ttab\rreturn",
    "unicode é 漢字 😀",
    "$rows",
    '\\"',
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_strings_round_trip_and_change_nothing_else(gm: GraphMem, store: FalkorStore, text):
    bystander = gm.remember({"content": "bystander"})
    memory = gm.remember({"content": text, "tags": [text[:60]], "rationale": text})
    stored = gm.get(memory.id)
    assert (stored.content, stored.rationale, stored.tags) == (
        text.strip(),
        text,
        [text[:60].strip()],
    )
    assert gm.get(bystander.id).content == "bystander"
    assert len(gm.list(first=10).items) == 2


def test_value_types_round_trip(store: FalkorStore):
    values = {
        "i": 42,
        "f": 0.1,
        "tiny": 1.5e-300,
        "t": True,
        "n": None,
        "l": [1, "a", 2.5],
        "m": {"k": "v"},
    }
    header = params_header(values)
    row = store._graph.query(header + "RETURN $i, $f, $tiny, $t, $n, $l, $m").result_set[0]
    assert row == [42, 0.1, 1.5e-300, True, None, [1, "a", 2.5], {"k": "v"}]


def test_non_finite_numbers_are_refused():
    with pytest.raises(ValueError, match="NaN"):
        params_header({"x": float("nan")})
    with pytest.raises(TypeError):
        params_header({"x": object()})
