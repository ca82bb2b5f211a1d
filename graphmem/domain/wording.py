"""How counts read in what graphmem prints: "1 memory", "2 memories"."""

from __future__ import annotations


def plural(count: int, one: str, many: str | None = None) -> str:
    """``count`` and the noun that agrees with it (``many`` defaults to ``one`` + s)."""
    return f"{count:,} {one if count == 1 else many or one + 's'}"
