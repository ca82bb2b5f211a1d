"""The knowledge context as the text block an agent puts in its prompt: its
budget and wording (the renderer is ``ContextResult.prompt_block``, with the
result models in graphmem.domain.retrieval.explain).

One renderer for every surface that hands a context to a model: GraphQL's
``knowledgeContext { context }``, the MCP tool ``knowledge_context``, the
prompt hook (from the server's answer or the store's) and
``ContextResult.prompt_block`` in the Python API and the remote client, so the
same result reads the same everywhere. A token budget bounds it: the hook's
``--budget``, GraphQL's ``budgetTokens``, ``DEFAULT_BUDGET_TOKENS`` elsewhere.
Tokens are estimated, not counted: no tokenizer is loaded on the hook's path.
"""

from __future__ import annotations

from graphmem.domain.errors import InvalidInputError

CHARS_PER_TOKEN = 4
"""The usual rough ratio for English text and code; the budget is an estimate."""
DEFAULT_BUDGET_TOKENS = 1_000
MIN_BUDGET_TOKENS = 50
MAX_BUDGET_TOKENS = 2_400
"""9,600 characters: under the 10,000 a coding agent passes on from a hook unabridged."""
MIN_SHORTENED_TOKENS = 25
"""A memory is shortened to fit the budget only if this much of it can be shown."""
ELLIPSIS = "…"
HEADER = "Memories from graphmem, most relevant first:"
NOTHING = "No stored memories bear on this."
"""What a surface that must answer with text says when the block is empty."""


def estimate_tokens(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)


def check_budget(budget_tokens: int, *, field: str) -> int:
    """``budget_tokens`` if within the limits, else an error naming ``field``
    and the limits."""
    if not MIN_BUDGET_TOKENS <= budget_tokens <= MAX_BUDGET_TOKENS:
        raise InvalidInputError(
            f"{field}: must be between {MIN_BUDGET_TOKENS} and {MAX_BUDGET_TOKENS} tokens, "
            f"got {budget_tokens}",
            field=field,
        )
    return budget_tokens
