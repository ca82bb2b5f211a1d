"""The knowledge context as a prompt block: the one renderer GraphQL, MCP, the
prompt hook and the Python API share, within its token budget."""

from __future__ import annotations

import pytest

from graphmem.domain.capsules import FailureCapsule
from graphmem.domain.errors import InvalidInputError
from graphmem.domain.kinds import MemoryType, Tier
from graphmem.domain.models import Memory
from graphmem.domain.retrieval import ContextItem, ContextResult
from graphmem.domain.retrieval.explain import context_block
from graphmem.domain.retrieval.prompt import (
    HEADER,
    MAX_BUDGET_TOKENS,
    MIN_BUDGET_TOKENS,
    check_budget,
    estimate_tokens,
)

AT = 1_800_000_000.0


def item(n: int, content: str, **memory: object) -> ContextItem:
    failure = memory.pop("failure", None)
    return ContextItem(
        memory=Memory(
            id=f"m{n}",
            project_id="default",
            session_id="s",
            content=content,
            created_at=AT,
            updated_at=AT,
            **memory,
        ),
        score=1 - n / 10,
        components=[],
        failure=failure,
    )


def items(*contents: str) -> list[ContextItem]:
    return [
        item(n, c, memory_type=MemoryType.DECISION if n == 0 else None)
        for n, c in enumerate(contents)
    ]


def test_the_block_lists_memories_best_first_with_type_and_id():
    block = context_block(items("Use Postgres for the ledger", "Settle payments nightly"))
    assert block is not None
    assert block.splitlines() == [
        HEADER,
        "- [decision] Use Postgres for the ledger (memory m0)",
        "- Settle payments nightly (memory m1)",
    ]


def test_why_a_failure_and_an_archived_memory_are_said_under_it():
    capsule = FailureCapsule(
        id="c1",
        project_id="default",
        signature="sig",
        error="timeout",
        fix="raise the vault timeout",
        occurrence_count=3,
        first_seen_at=AT,
        last_seen_at=AT,
    )
    lesson = item(
        0,
        "The vault times out on cold start",
        rationale="seen in CI",
        failure=capsule,
        tier=Tier.ARCHIVED,
        archive_reason="stale",
    )
    block = context_block([lesson])
    assert block is not None
    assert block.splitlines()[1:] == [
        "- The vault times out on cold start (memory m0)",
        "  why: seen in CI",
        "  learned from a failure seen 3x; fixed by: raise the vault timeout",
        "  archived (stale): restore it before relying on it",
    ]


def test_the_block_stays_within_its_token_budget_shortening_the_last_memory():
    long = items(*[f"memory number {i} " + "word " * 60 for i in range(20)])
    block = context_block(long, budget_tokens=300)
    assert block is not None
    assert estimate_tokens(block) <= 300
    assert "(memory m0)" in block and "(memory m19)" not in block
    last = block.splitlines()[-1]
    assert "…" in last and last.endswith(")")


def test_the_largest_budget_stays_under_what_an_agent_passes_on_whole():
    block = context_block(items(*["x" * 9_000 for _ in range(5)]), budget_tokens=MAX_BUDGET_TOKENS)
    assert block is not None and len(block) < 10_000


def test_no_memories_or_none_that_fits_no_block():
    assert context_block([]) is None
    assert context_block(items("y " * 400), budget_tokens=MIN_BUDGET_TOKENS) is not None
    assert context_block(items("y" * 40), budget_tokens=20) is None


def test_multi_line_memories_stay_inside_their_item():
    block = context_block(items("first line\nsecond line"))
    assert block is not None
    assert block.splitlines()[1:] == ["- [decision] first line", "  second line (memory m0)"]


def test_a_result_renders_its_own_block_and_refuses_a_budget_out_of_limits():
    result = ContextResult(
        items=items("Use Postgres"), weights={}, max_access_count=0, candidates=1, took_ms=1.0
    )
    assert result.prompt_block() == context_block(result.items)
    with pytest.raises(InvalidInputError, match=r"budget_tokens: must be between 50 and 2400") as e:
        result.prompt_block(budget_tokens=MAX_BUDGET_TOKENS + 1)
    assert e.value.field == "budget_tokens"
    assert check_budget(MIN_BUDGET_TOKENS, field="budgetTokens") == MIN_BUDGET_TOKENS
