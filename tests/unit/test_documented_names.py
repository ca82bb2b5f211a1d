"""Every error class the README and the docs name imports from where they say.

A name written bare (`RateLimitedError`) is read as ``from graphmem import
RateLimitedError``; one written with its module (`graphmem.client.ServerError`)
must import from that module too, as the same class.
"""

from __future__ import annotations

import builtins
import importlib
import re
from pathlib import Path

import pytest

import graphmem
from graphmem.domain.errors import GraphMemError

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE)
SPAN = re.compile(r"`([^`\n]+)`")
ERROR_NAME = re.compile(r"\b((?:[a-z_][a-z0-9_]*\.)*[A-Z][A-Za-z0-9]*Error)\b")


def documented_errors() -> dict[str, list[str]]:
    """Each error name written in inline code, with the pages that write it;
    Python's own exceptions (`ValueError`) are not graphmem's to export."""
    found: dict[str, list[str]] = {}
    for page in PAGES:
        prose = FENCE.sub("", page.read_text(encoding="utf-8"))
        for span in SPAN.findall(prose):
            for name in ERROR_NAME.findall(span):
                if not hasattr(builtins, name):
                    found.setdefault(name, []).append(page.name)
    return found


DOCUMENTED = documented_errors()


def test_the_pages_name_the_errors_a_client_catches() -> None:
    bare = {name.rsplit(".", 1)[-1] for name in DOCUMENTED}
    assert {"UnauthenticatedError", "RateLimitedError", "ForbiddenError"} <= bare


@pytest.mark.parametrize("written", sorted(DOCUMENTED))
def test_a_documented_error_imports_from_where_the_page_says(written: str) -> None:
    module, _, name = written.rpartition(".")
    exported = getattr(graphmem, name, None)
    assert exported is not None, f"{written} ({DOCUMENTED[written]}) does not import from graphmem"
    assert name in graphmem.__all__
    assert isinstance(exported, type) and issubclass(exported, GraphMemError)
    if module:
        assert getattr(importlib.import_module(module), name) is exported
