"""No function in ``graphmem/`` above cyclomatic complexity 15, as radon counts it.

A function past that has more paths than a reader can hold at once; it is
split into named steps (a pure plan and an apply step, a table for a chain of
ifs) instead. ``ALLOWED`` is empty: every function is at the limit or below.
Were one ever listed there with its number, it could only get simpler, and its
entry would have to go once at the limit or below, so the list only shrinks.
``radon cc graphmem -s -n C`` shows the same numbers.
"""

from __future__ import annotations

import functools
from pathlib import Path

from radon.complexity import cc_visit
from radon.visitors import Class, Function

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "graphmem"
LIMIT = 15

ALLOWED: dict[str, int] = {}
"""Functions let stay above ``LIMIT``, by ``path:qualified name``, with the most
each may count: none."""


@functools.cache
def complexities() -> dict[str, int]:
    """Every function and method of the package, by ``path:qualified name``, with
    its complexity (a nested function counts in the one that holds it, as radon
    shows it)."""
    found: dict[str, int] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(ROOT).as_posix()
        for block in cc_visit(path.read_text(encoding="utf-8")):
            functions = block.methods if isinstance(block, Class) else [block]
            for function in functions:
                assert isinstance(function, Function)
                name = f"{where}:{function.fullname}"
                found[name] = max(found.get(name, 0), function.complexity)
    return found


def test_no_function_is_above_the_limit() -> None:
    over = {
        name: count
        for name, count in complexities().items()
        if count > LIMIT and name not in ALLOWED
    }
    assert not over, (
        f"above cyclomatic complexity {LIMIT}: {over}; split each into named steps "
        "(radon cc graphmem -s -n C lists them)"
    )


def test_an_allowed_function_only_gets_simpler() -> None:
    found = complexities()
    risen = {
        name: (found[name], most)
        for name, most in ALLOWED.items()
        if name in found and found[name] > most
    }
    assert not risen, f"more complex than allowed, (now, allowed): {risen}"


def test_the_allow_list_only_holds_functions_above_the_limit() -> None:
    found = complexities()
    done = sorted(name for name in ALLOWED if found.get(name, 0) <= LIMIT)
    assert not done, (
        f"at most {LIMIT} now, or gone (renamed, moved, removed): remove them from ALLOWED: {done}"
    )


def test_the_count_is_radons_own() -> None:
    """The walk above sees what the command line shows: a known function, by
    its qualified name, with the number radon gives it."""
    found = complexities()
    source = "def f(x):\n    if x and x > 1:\n        return 1\n    return 0\n"
    (block,) = cc_visit(source)
    assert block.complexity == 3
    assert "graphmem/cli/lifecycle.py:review" in found
    assert "graphmem/services/promotion.py:PromotionEngine.promote" in found
    assert all(count >= 1 for count in found.values())
