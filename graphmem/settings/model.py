"""The ``Settings`` of a process: one section per concern, each setting read
from its own environment variable, and the list of every setting declared."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Self
from urllib.parse import urlsplit

from pydantic import BaseModel, Field, model_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from graphmem.settings.names import env_name
from graphmem.settings.sections import (
    NEO4J_SCHEMES,
    DefaultSettings,
    EmbeddingSettings,
    Neo4jSettings,
    RetentionSettings,
    ServerSettings,
    StoreSettings,
)


@dataclass(frozen=True)
class Setting:
    """One setting as declared: its section, its field there and its flat name."""

    section: str
    field: str
    info: FieldInfo

    @property
    def name(self) -> str:
        """The flat name: the keyword ``Settings`` takes and the variable's stem."""
        return self.info.alias or self.field

    @property
    def env(self) -> str:
        return env_name(self.name)

    @property
    def default(self) -> Any:
        """What the setting is when nothing sets it."""
        return self.info.get_default(call_default_factory=True)


class _FlatEnvironment(PydanticBaseSettingsSource):
    """Each setting from its own variable (``GRAPHMEM_NEO4J_URI``), nested into
    its section; names match in any case, as pydantic-settings matches them."""

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        environment = {key.upper(): value for key, value in os.environ.items()}
        found: dict[str, dict[str, str]] = {}
        for setting in settings_declared():
            if setting.env in environment:
                found.setdefault(setting.section, {})[setting.field] = environment[setting.env]
        return found


class Settings(BaseSettings):
    """Every setting of a graphmem process, by concern."""

    model_config = SettingsConfigDict(extra="forbid", hide_input_in_errors=True)

    server: ServerSettings = Field(default_factory=ServerSettings)
    store: StoreSettings = Field(default_factory=StoreSettings)
    neo4j: Neo4jSettings = Field(default_factory=Neo4jSettings)
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    retention: RetentionSettings = Field(default_factory=RetentionSettings)
    defaults: DefaultSettings = Field(default_factory=DefaultSettings)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # What the caller names wins over the environment.
        return (init_settings, _FlatEnvironment(settings_cls))

    def with_values(self, **changes: Any) -> Self:
        """A copy with the settings named by their flat names (``neo4j_database``)
        changed and checked again; the environment is not read a second time."""
        return self.model_validate({**self.model_dump(), **changes})

    @model_validator(mode="before")
    @classmethod
    def _flat_names_into_sections(cls, data: Any) -> Any:
        """``Settings(neo4j_uri=...)`` sets ``neo4j.uri``: a flat name goes into its
        section, over what the section had from the environment."""
        if not isinstance(data, dict):
            return data
        given = dict(data)
        for setting in settings_declared():
            if setting.name not in given or setting.name in SECTIONS:
                continue
            section = given.get(setting.section)
            values = section.model_dump() if isinstance(section, BaseModel) else dict(section or {})
            values[setting.field] = given.pop(setting.name)
            given[setting.section] = values
        return given

    @model_validator(mode="after")
    def _neo4j_connection(self) -> Self:
        """A wrong Neo4j setting fails at start with its name, not at the first query."""
        if self.store.backend != "neo4j":
            return self
        uri, named = self.neo4j.uri, env_name("neo4j_uri")
        if not uri:
            raise ValueError(f"{named} is required when {env_name('backend')} is neo4j")
        scheme = urlsplit(uri).scheme
        if scheme not in NEO4J_SCHEMES:
            raise ValueError(
                f"{named} must start with one of {', '.join(NEO4J_SCHEMES)}, "
                f"not {scheme or 'nothing'}://"
            )
        if "+" in scheme and self.neo4j.encrypted:
            raise ValueError(
                f"{scheme}:// already sets TLS; "
                f"use bolt:// or neo4j:// with {env_name('neo4j_encrypted')}"
            )
        if self.neo4j.trust == "custom" and self.neo4j.ca_file is None:
            raise ValueError(f"{env_name('neo4j_trust')}=custom needs {env_name('neo4j_ca_file')}")
        return self


SECTIONS: dict[str, type[BaseModel]] = {
    name: info.annotation
    for name, info in Settings.model_fields.items()
    if isinstance(info.annotation, type) and issubclass(info.annotation, BaseModel)
}
"""Each section of ``Settings`` by its field name."""


def _declared() -> Iterator[Setting]:
    for section, model in SECTIONS.items():
        for field, info in model.model_fields.items():
            yield Setting(section, field, info)


_SETTINGS = tuple(_declared())


def settings_declared() -> tuple[Setting, ...]:
    """Every setting, section by section, in the order declared."""
    return _SETTINGS


def setting_named(loc: tuple[Any, ...]) -> str:
    """The flat name of the setting a validation error of ``Settings`` points at
    (``("neo4j", "neo4j_pool_size")`` is ``neo4j_pool_size``); a refusal that spans
    settings points at none."""
    if len(loc) < 2:
        return ""
    section, name = loc[0], loc[1]
    for setting in settings_declared():
        if setting.section == section and name in (setting.field, setting.name):
            return setting.name
    return ".".join(map(str, loc))
