"""The limits docs/security.md promises are the ones the code enforces."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from graphmem.settings import settings_declared

DOC = (Path(__file__).resolve().parents[2] / "docs" / "security.md").read_text()


def test_documented_limits_match_the_code() -> None:
    rows = re.findall(r"^\| `(graphmem\.[\w.]+)\.(\w+)` \| (\d+) \|", DOC, re.M)
    assert len(rows) >= 15
    for module, name, value in rows:
        assert getattr(importlib.import_module(module), name) == int(value), name


def test_documented_settings_match_their_defaults() -> None:
    rows = re.findall(r"^\| `(GRAPHMEM_\w+)` \| (\d+)", DOC, re.M)
    assert len(rows) == 6
    defaults = {setting.env: setting.default for setting in settings_declared()}
    for name, value in rows:
        assert defaults[name] == int(value), name
