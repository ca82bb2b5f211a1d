"""The retention rules in force: the YAML file ``retention_file`` names, with a
variable named after a rule (``GRAPHMEM_PROMOTE_THRESHOLD``) overriding that
rule, so an operator keeps the policy in version control and still tunes one
number at deploy time. A rule that is a mapping or a group of rules takes JSON
(``GRAPHMEM_STALE_AFTER_DAYS='{"working": 2}'``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from graphmem.domain.errors import InvalidInputError, invalid_input
from graphmem.domain.retention import RetentionRules
from graphmem.settings.names import PREFIX

FILE_SETTING = "retention_file"
"""The flat name of the setting that names the file, which its errors point at."""


class _RulesFromEnvironment(RetentionRules, BaseSettings):
    """The rules with each one's variable read over the values given (the file's)."""

    model_config = SettingsConfigDict(env_prefix=PREFIX, extra="forbid", frozen=True)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # The environment wins over the file (passed in as init values).
        return (env_settings, init_settings)


def _file_values(path: Path | str | None) -> dict[str, Any]:
    """The rules a YAML file sets (none without a file)."""
    if path is None:
        return {}
    try:
        loaded = yaml.safe_load(Path(path).read_text()) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise InvalidInputError(
            f"{FILE_SETTING}: cannot read {path}: {exc}", field=FILE_SETTING
        ) from None
    if not isinstance(loaded, dict):
        raise InvalidInputError(
            f"{FILE_SETTING}: the top level must be a mapping", field=FILE_SETTING
        )
    return loaded


def load_rules(path: Path | str | None = None) -> RetentionRules:
    """The rules of the file at ``path`` (the defaults without one) under the
    environment's overrides, as plain ``RetentionRules``."""
    try:
        loaded = _RulesFromEnvironment(**_file_values(path))
    except ValidationError as exc:
        raise invalid_input(exc) from None
    # The validated values themselves: dumped, nested rules would become dicts.
    return RetentionRules.model_construct(
        **{name: getattr(loaded, name) for name in RetentionRules.model_fields}
    )
