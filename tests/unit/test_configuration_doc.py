"""docs/configuration.md (and the Neo4j table of docs/neo4j.md) against the
settings as declared: every variable graphmem reads is documented with its
default, and nothing is documented that graphmem does not read."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from graphmem.cli.mcp import DEFAULT_PORT as MCP_DEFAULT_PORT
from graphmem.server.observability.logs import LogSettings
from graphmem.settings import Setting, env_name, names, settings_declared

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = ("configuration.md", "neo4j.md")
RULE_PLACEHOLDER = env_name("<rule>")
"""The row that stands for every retention rule (docs/retention.md has them)."""

ROW = re.compile(r"^\| (`GRAPHMEM_[^|]*) \| ([^|]*) \|", re.M)


def documented() -> dict[str, str]:
    """Each variable in a table of the pages, with its default as written."""
    found: dict[str, str] = {}
    for page in PAGES:
        for variables, defaults in ROW.findall((DOCS / page).read_text()):
            named = re.findall(r"`(GRAPHMEM_[^`]+)`", variables)
            values = [v.strip() for v in defaults.split(",")] if len(named) > 1 else [defaults]
            assert len(values) == len(named), f"{page}: {variables} | {defaults}"
            for name, value in zip(named, values, strict=True):
                assert name not in found or found[name] == value.strip(), name
                found[name] = value.strip()
    return found


def written(default: Any) -> str:
    """A default as the tables write it."""
    if default is None:
        return "unset"
    if isinstance(default, bool):
        return f"`{str(default).lower()}`"
    if isinstance(default, float):
        return f"`{default:g}`"
    return f"`{default}`"


def outside_settings() -> dict[str, Any]:
    """The variables read around ``Settings`` (by one command, or before the
    settings exist), with their defaults."""
    logs = {
        env_name(f"log_{name}"): info.default for name, info in LogSettings.model_fields.items()
    }
    return {
        names.API_KEY: None,
        names.URL: None,
        names.MCP_PORT: MCP_DEFAULT_PORT,
        names.OTEL: None,
        **logs,
    }


DOCUMENTED = documented()
SETTINGS = settings_declared()


@pytest.mark.parametrize("setting", SETTINGS, ids=lambda setting: setting.env)
def test_every_setting_is_documented_with_its_default(setting: Setting) -> None:
    assert setting.env in DOCUMENTED, f"{setting.env} is not in docs/{' or docs/'.join(PAGES)}"
    if setting.info.default_factory is not None:
        return  # computed where it runs (the platform's data directory): described in words
    assert DOCUMENTED[setting.env].startswith(written(setting.default)), setting.env


@pytest.mark.parametrize("variable", sorted(outside_settings()))
def test_every_other_variable_is_documented_with_its_default(variable: str) -> None:
    assert DOCUMENTED.get(variable, "").startswith(written(outside_settings()[variable]))


def test_nothing_is_documented_that_graphmem_does_not_read() -> None:
    known = {setting.env for setting in SETTINGS} | set(outside_settings()) | {RULE_PLACEHOLDER}
    assert sorted(set(DOCUMENTED) - known) == []


def test_the_client_side_names_are_the_settings_names() -> None:
    """A variable both sides read (the project, the port, the data directory) is one name."""
    declared = {setting.name: setting.env for setting in SETTINGS}
    for name in ("project", "port", "data_dir"):
        assert getattr(names, name.upper()) == declared[name]
