"""Property: every call of the Python API either succeeds and stores exactly
what was sent, or raises InvalidInputError naming the bad field and leaves
the graph as it was. No other exception, valid or not.

Embeddings are off (full text and relations only): the properties are about
validation and storage, not ranking.
"""

from __future__ import annotations

import base64
import json
import math
import unicodedata
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem.api import GraphMem
from graphmem.domain.errors import ConflictError, GraphMemError, InvalidInputError, NotFoundError
from graphmem.domain.kinds import RelationType, Status, SuggestedBy
from graphmem.domain.models import Memory
from tests.fuzz.conftest import FUZZ, Fingerprint
from tests.fuzz.strategies import (
    BAD_IDENTIFIER,
    HOSTILE,
    MEMORY_FIELDS,
    MISSING,
    UPDATE_FIELDS,
    Drawn,
    Field,
    core_text,
    inputs,
)


def rejected(
    call: Callable[[], Any],
    fingerprint: Callable[[], Fingerprint],
    *,
    allowed: tuple[type[GraphMemError], ...] = (InvalidInputError,),
) -> GraphMemError | None:
    """Run ``call``; if it raises, the error must be one of ``allowed``, name its
    field in its message, and the graph must be exactly as before."""
    before = fingerprint()
    try:
        call()
    except allowed as exc:
        assert exc.field, exc
        assert exc.field in exc.message, (exc.field, exc.message)
        assert fingerprint() == before, f"a rejected call wrote: {exc.message}"
        return exc
    return None


def expect_field(exc: GraphMemError, bad: set[str], prefix: str = "") -> None:
    """The error names one of the fields that were bad (``tags.3`` names ``tags``)."""
    name = exc.field.removeprefix(prefix)
    assert name.split(".")[0].split("[")[0] in bad, (exc.field, bad, exc.message)


def same(stored: Any, sent: Any) -> bool:
    """Equal, floats to the 15 significant digits FalkorDB returns them with."""
    if isinstance(sent, float) or isinstance(stored, float):
        return math.isclose(stored, sent, rel_tol=1e-14, abs_tol=1e-300)
    return stored == sent


def assert_stored(memory: Memory, drawn: Drawn) -> None:
    for name, f in drawn.fields.items():
        if f.stored is MISSING or (f.stored is None and name != "rationale"):
            continue
        value = getattr(memory, name)
        if name == "tags":
            value = list(value)
        elif hasattr(value, "value"):
            value = value.value
        if name == "tier" and drawn.fields["suggested_by"].stored == SuggestedBy.AGENT.value:
            continue  # an agent's decision is promoted at once
        assert same(value, f.stored), (name, value, f.stored)


# -- remember_many_detailed ---------------------------------------------------


@FUZZ
@given(batch=st.lists(inputs(MEMORY_FIELDS), min_size=1, max_size=3), dedup=st.booleans())
def test_remember_round_trips_or_rejects_cleanly(gm: GraphMem, graph_fingerprint, batch, dedup):
    items = [drawn.sent() for drawn in batch]
    outcomes: list[Any] = []
    exc = rejected(
        lambda: outcomes.extend(gm.remember_many_detailed(items, dedup=dedup)), graph_fingerprint
    )
    bad = [i for i, drawn in enumerate(batch) if not drawn.ok]
    if exc is not None:
        assert bad, f"valid input refused: {exc.message}"
        if len(batch) == 1:
            expect_field(exc, batch[0].bad)
        else:
            index = int(exc.field.split("]")[0].removeprefix("items["))
            assert index in bad, exc.message
            if exc.field != f"items[{index}]":
                expect_field(exc, batch[index].bad, f"items[{index}].")
        return
    assert not bad, f"accepted invalid fields {[batch[i].bad for i in bad]}"
    assert len(outcomes) == len(batch)
    for drawn, outcome in zip(batch, outcomes, strict=True):
        memory = gm.get(outcome.id)
        if not dedup:
            assert outcome.created
            assert_stored(memory, drawn)
            source = drawn.fields["source"].stored
            if source is not MISSING and drawn.fields["suggested_by"].stored != "agent":
                expected = Status.CANDIDATE if source == "auto_extracted" else Status.ACTIVE
                assert memory.status is expected
        else:
            # Merged or not, nothing sent is lost.
            for name in ("tags", "evidence"):
                stored = drawn.fields[name].stored
                if stored not in (MISSING, None):
                    assert set(stored) <= set(getattr(memory, name)), name


# -- update -------------------------------------------------------------------


@FUZZ
@given(changes=inputs(UPDATE_FIELDS, all_optional=True), id_kind=st.sampled_from("rrrrrx"))
def test_update_round_trips_or_rejects_cleanly(gm: GraphMem, graph_fingerprint, changes, id_kind):
    (target_id,) = gm.remember_many(
        [{"content": "update target", "tags": ["keep"], "rationale": "before"}], dedup=False
    )
    for name, f in list(changes.fields.items()):
        if f.sent is None and name in UPDATE_FIELDS:  # None leaves a field as it is
            changes.fields[name] = Field(None, MISSING, True)
    memory_id = target_id if id_kind == "r" else "no-such-memory"
    sent = changes.sent()
    meaningful = any(v is not None for v in sent.values())
    exc = rejected(
        lambda: gm.update(memory_id, sent),
        graph_fingerprint,
        allowed=(InvalidInputError, NotFoundError),
    )
    if isinstance(exc, NotFoundError):
        assert id_kind == "x" and changes.ok and meaningful, exc.message
        return
    if exc is not None:
        if not meaningful and changes.ok:
            assert exc.field == "changes"
        else:
            assert not changes.ok, f"valid changes refused: {exc.message}"
            expect_field(exc, changes.bad)
        return
    assert changes.ok and meaningful and id_kind == "r", changes.bad
    stored = gm.get(target_id)
    assert_stored(stored, changes)
    if changes.fields["tags"].stored is MISSING:
        assert stored.tags == ["keep"]


# -- relate -------------------------------------------------------------------

_relation_types = [t.value for t in RelationType]


@FUZZ
@given(
    kind=st.one_of(st.sampled_from(_relation_types), st.sampled_from(["", "relates", "ENABLE"])),
    rationale=st.one_of(
        st.none(),
        core_text(200),
        st.just("x" * 4_001),
        st.just("a\x00b"),
        st.just("\ud800"),
        st.just(42),
    ),
    weight=st.one_of(
        st.floats(0, 1),
        st.sampled_from([float("nan"), float("inf"), -0.5, 1.5, 10**400, "0.5", None]),
    ),
    ends=st.sampled_from(["ab", "ba", "aa", "ax", "xb", "nul", "surrogate"]),
)
def test_relate_round_trips_or_rejects_cleanly(
    gm: GraphMem, graph_fingerprint, kind, rationale, weight, ends
):
    a, b = gm.remember_many([{"content": "end a"}, {"content": "end b"}], dedup=False)
    ids = {"a": a, "b": b, "x": "no-such-memory"}
    from_id, to_id = {
        "nul": (a + "\x00", b),
        "surrogate": (a, "\ud800"),
    }.get(ends, (ids.get(ends[0]), ids.get(ends[1])))
    bad = set()
    if kind not in _relation_types:
        bad.add("type")
    if rationale is not None and (
        rationale in (42, "a\x00b", "\ud800")
        or len(rationale) > 4_000
        or any(unicodedata.category(c) == "Cc" and c not in "\t\n\r" for c in rationale)
    ):
        bad.add("rationale")
    if not isinstance(weight, float) or not 0 <= weight <= 1:
        bad.add("weight")
    if ends in ("aa", "nul", "surrogate"):
        bad.add("from_id" if ends == "nul" else "to_id")
    relation: list[Any] = []
    exc = rejected(
        lambda: relation.append(
            gm.relate(from_id, to_id, kind, rationale=rationale, weight=weight)
        ),
        graph_fingerprint,
        allowed=(InvalidInputError, NotFoundError, ConflictError),
    )
    if isinstance(exc, NotFoundError):
        assert not bad and "x" in ends, exc.message
    elif isinstance(exc, ConflictError):
        pytest.fail(f"no cycle was possible: {exc.message}")
    elif exc is not None:
        expect_field(exc, bad)
    else:
        assert not bad and ends in ("ab", "ba"), bad
        (stored,) = [r for r in gm.relations([from_id])[0] if r.to_id == to_id]
        assert (stored.type.value, stored.rationale) == (kind, rationale)
        assert same(stored.weight, weight)


# -- list and review_queue: page sizes and cursors ----------------------------

ODD_FIRST = st.one_of(
    st.integers(-3, 205),
    st.sampled_from([0, 1, 200, 201, 10**30, -(10**30), 2.5, float("nan"), "5", None, True]),
)


def _b64(value: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode()


ODD_CURSOR = st.one_of(
    st.none(),
    st.text(max_size=30),
    st.sampled_from(["!!!", "é", "\x00", "\ud800", "=" * 8, "WzFd", *HOSTILE[:4]]),
    st.recursive(
        st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8)),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
        max_leaves=6,
    ).map(_b64),
    st.sampled_from(
        [
            [1e308, "x"],
            [-1, "\ud800"],
            [0, "a\x00"],
            {"offset": True},
            {"offset": -1},
            {"offset": 2**70},
            {"offset": 1.5},
            {"offset": "3"},
        ]
    ).map(_b64),
)


@FUZZ
@given(
    first=ODD_FIRST,
    after=ODD_CURSOR,
    filter=st.fixed_dictionaries(
        {},
        optional={
            "tier": st.sampled_from(["working", "archived", "nope", 3]),
            "status": st.sampled_from(["candidate", "active", "ACTIVE"]),
            "session_id": st.one_of(st.just("s-1"), BAD_IDENTIFIER),
            "tags": st.one_of(st.lists(core_text(10), max_size=3), st.just([""])),
            "include_archived": st.sampled_from([True, False, "no", None]),
        },
    ),
)
def test_list_pages_or_rejects_cleanly(gm: GraphMem, graph_fingerprint, first, after, filter):
    if not gm.list(first=1).items:
        gm.remember_many([{"content": f"page item {i}", "session_id": "s-1"} for i in range(5)])
    page: list[Any] = []
    exc = rejected(
        lambda: page.append(gm.list(filter, first=first, after=after)), graph_fingerprint
    )
    if exc is not None:
        assert exc.field.split(".")[0] in {"first", "after", *filter}, exc.message
        return
    assert type(first) is int and 1 <= first <= 200
    (result,) = page
    assert len(result.items) <= first


@FUZZ
@given(
    first=ODD_FIRST,
    after=ODD_CURSOR,
    order=st.sampled_from(["oldest", "evidence", "newest", ""]),
    filter=st.fixed_dictionaries(
        {},
        optional={
            "min_occurrences": st.sampled_from([1, 2, 0, -1, 10**30, 1.5, "2"]),
            "older_than_seconds": st.sampled_from([0, 60.0, -1, float("nan"), float("inf")]),
            "memory_type": st.sampled_from(["decision", "nope"]),
            "tags": st.sampled_from([["a"], [""], "a", ["x" * 65]]),
            "session_id": st.one_of(st.just("s-1"), BAD_IDENTIFIER),
        },
    ),
)
def test_review_queue_pages_or_rejects_cleanly(
    gm: GraphMem, graph_fingerprint, first, after, order, filter
):
    if not gm.list(first=1).items:
        gm.remember_many(
            [{"content": f"candidate {i}", "source": "auto_extracted"} for i in range(5)]
        )
    page: list[Any] = []
    exc = rejected(
        lambda: page.append(gm.review_queue(filter, order=order, first=first, after=after)),
        graph_fingerprint,
    )
    if exc is not None:
        assert exc.field.split(".")[0] in {"first", "after", "order", *filter}, exc.message
        return
    assert order in ("oldest", "evidence") and type(first) is int and 1 <= first <= 200
    assert len(page[0].items) <= first


# -- search and knowledge_context ---------------------------------------------

QUERY = st.one_of(
    core_text(200),
    st.sampled_from(["", " ", "*", "-", '"', "AND OR NOT", "a" * 1001, "x\x00y", "\ud800"]),
    st.integers(),
)


@FUZZ
@given(
    query=QUERY,
    mode=st.sampled_from(["HYBRID", "FULLTEXT", "VECTOR", "GRAPH", "hybrid", "SQL"]),
    limit=st.sampled_from([1, 10, 50, 0, -1, 101, 10**30, 2.5]),
    depth=st.sampled_from([0, 1, 3, -1, 99]),
    filters=st.fixed_dictionaries(
        {},
        optional={
            "tags": st.sampled_from([["a"], [""], ["x" * 65]]),
            "min_confidence": st.sampled_from([0.5, -1, 2, float("nan")]),
            "created_after": st.sampled_from([0.0, 1e308, float("inf")]),
            "types": st.sampled_from([["decision"], ["nope"]]),
            "session_id": st.one_of(st.just("s-1"), BAD_IDENTIFIER),
        },
    ),
    relation_types=st.sampled_from([None, ["ENABLES"], ["SUPERSEDES"], ["NOPE"], "ENABLES"]),
)
def test_search_reads_or_rejects_cleanly(
    gm: GraphMem, graph_fingerprint, query, mode, limit, depth, filters, relation_types
):
    if not gm.list(first=1).items:
        for text in HOSTILE:
            gm.remember({"content": text, "tags": ["a"]})
    before = graph_fingerprint()
    result: list[Any] = []
    exc = rejected(
        lambda: result.append(
            gm.search(
                query,
                mode=mode,
                limit=limit,
                depth=depth,
                filters=filters,
                relation_types=relation_types,
            )
        ),
        graph_fingerprint,
    )
    if exc is not None:
        known = {"query", "mode", "limit", "depth", "filters", "relation_types"}
        assert exc.field.split(".")[0] in known, exc.message
        return
    assert graph_fingerprint() == before, "a search wrote to the graph"
    assert len(result[0].hits) <= limit


@FUZZ
@given(
    hint=st.one_of(QUERY, st.just("ab"), st.just("abc")),
    max_results=st.sampled_from([1, 5, 50, 0, 51, 2.5, -1]),
    min_confidence=st.sampled_from([0.0, 0.5, 1.0, -0.1, float("nan"), float("inf")]),
    recency_weight=st.sampled_from([0.0, 0.3, 1.0, 1.1, float("-inf")]),
    include_types=st.sampled_from([None, ["decision"], ["nope"], []]),
    session_id=st.one_of(st.none(), st.just("s-1"), BAD_IDENTIFIER),
)
def test_knowledge_context_reads_or_rejects_cleanly(
    gm: GraphMem,
    graph_fingerprint,
    hint,
    max_results,
    min_confidence,
    recency_weight,
    include_types,
    session_id,
):
    if not gm.list(first=1).items:
        for text in HOSTILE:
            gm.remember({"content": text, "session_id": "s-1"})
    result: list[Any] = []
    exc = rejected(
        lambda: result.append(
            gm.knowledge_context(
                hint,
                max_results=max_results,
                min_confidence=min_confidence,
                recency_weight=recency_weight,
                include_types=include_types,
                session_id=session_id,
            )
        ),
        graph_fingerprint,
    )
    if exc is not None:
        known = {
            "input",  # a hint that is not text is taken for a whole request
            "context_hint",
            "max_results",
            "min_confidence",
            "recency_weight",
            "include_types",
            "session_id",
        }
        assert exc.field.split(".")[0] in known, exc.message
        return
    assert len(result[0].items) <= max_results
