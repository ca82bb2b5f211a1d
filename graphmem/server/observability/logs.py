"""Log lines: one JSON object per line (or plain text), stamped with the request id.

``graphmem serve`` configures this for the whole process
(``GRAPHMEM_LOG_FORMAT=auto|json|text``, ``GRAPHMEM_LOG_LEVEL``). ``auto``, the
default, writes readable lines when stderr is a terminal (a person watching
``graphmem serve``) and JSON otherwise (a service manager or a log shipper
reading it); ``json`` and ``text`` force one. Anything logged
with ``extra={"fields": {...}}`` gets those fields as keys of its line, which
is how telemetry events and the access log carry their data; log shippers
can then filter on them without parsing messages.
"""

from __future__ import annotations

import json
import logging
import sys
import weakref
from datetime import UTC, datetime
from typing import IO, Any, Literal

from pydantic import ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from graphmem.domain.errors import InvalidInputError
from graphmem.server.observability.request_ids import current_request_id
from graphmem.services.telemetry import Event, Telemetry
from graphmem.settings import env_name

LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
_BASE_KEYS = ("ts", "level", "logger", "message", "request_id")

events_log = logging.getLogger("graphmem.events")
access_log = logging.getLogger("graphmem.access")

# Per-call and per-memory events would drown the rest at INFO.
_DEBUG_EVENTS = frozenset(
    {
        "promotion.triggered",
        "memory.promoted",
        "memory.changed",
        "candidate.added",
        "staging.merged",
        "knowledge.context",
        "retrieval.search",
    }
)


class LogSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix=env_name("log_"), extra="ignore")

    format: Literal["auto", "json", "text"] = "auto"
    level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = "INFO"

    @field_validator("format", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("level", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.strip().upper() if isinstance(value, str) else value


def log_settings(**given: Any) -> LogSettings:
    """Settings from ``GRAPHMEM_LOG_*``, with ``given`` (the command line) on top."""
    try:
        return LogSettings(**{k: v for k, v in given.items() if v is not None})
    except ValidationError as exc:
        error = exc.errors()[0]
        name = env_name(f"log_{error['loc'][0]}")
        allowed = "auto, json or text" if error["loc"][0] == "format" else ", ".join(LEVELS)
        raise InvalidInputError(
            f"{name}: must be one of {allowed}, got {error['input']!r}", field=name
        ) from None


class RequestIdFilter(logging.Filter):
    """Stamps each record with the id of the request it was logged in (or None)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = current_request_id()
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", None),
        }
        for key, value in _fields(record).items():
            line.setdefault(key, value)
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        return json.dumps(line, default=str, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    """One readable line per record for a terminal, with the same data as the JSON form."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)-7s %(name)s [%(request_id)s] %(message)s")

    def formatMessage(self, record: logging.LogRecord) -> str:
        record.request_id = getattr(record, "request_id", None) or "-"
        text = super().formatMessage(record)
        fields = _fields(record)
        if fields:
            text += " " + " ".join(f"{key}={_text(value)}" for key, value in fields.items())
        return text


def _fields(record: logging.LogRecord) -> dict[str, Any]:
    fields = getattr(record, "fields", None)
    if not isinstance(fields, dict):
        return {}
    return {key: value for key, value in fields.items() if key not in _BASE_KEYS}


def _text(value: Any) -> str:
    text = str(value)
    plain = text and text.isprintable() and not any(c in text for c in ' ="')
    return text if plain else json.dumps(text)


def as_json(settings: LogSettings, stream: IO[str]) -> bool:
    """Whether lines to ``stream`` are JSON: as set, or (``auto``) unless a person reads them."""
    if settings.format == "auto":
        return not stream.isatty()
    return settings.format == "json"


NO_EFFECT_NOTICES = (
    "Neo.ClientNotification.Schema.IndexOrConstraintAlreadyExists",
    "Neo.ClientNotification.Schema.IndexOrConstraintDoesNotExist",
)
"""Neo4j's notices that a schema statement's ``IF NOT EXISTS`` / ``IF EXISTS``
found nothing to do. Every start runs each of graphmem's schema statements,
made safe to repeat that way, so on every start these say nothing but that
the schema is as it should be."""


class NoEffectNotices(logging.Filter):
    """Drops the Neo4j driver's notice lines of ``NO_EFFECT_NOTICES``: a dozen
    lines of them at every start would bury the banner and any notice that matters."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return not any(f"{{code: {code}}}" in message for code in NO_EFFECT_NOTICES)


def configure_logging(settings: LogSettings, stream: IO[str] | None = None) -> logging.Handler:
    """Send every log record of the process, uvicorn's included, to one handler.

    Returns the handler; it replaces the root logger's handlers, so calling
    this again reconfigures rather than duplicates.
    """
    stream = stream or sys.stderr
    handler = logging.StreamHandler(stream)
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(JsonFormatter() if as_json(settings, stream) else TextFormatter())
    root = logging.getLogger()
    for old in root.handlers[:]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(settings.level)
    notices = logging.getLogger("neo4j.notifications")
    if not any(isinstance(f, NoEffectNotices) for f in notices.filters):
        notices.addFilter(NoEffectNotices())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        # uvicorn's loggers log through the root handler; its access log is
        # replaced by graphmem.access, which knows the operation and request id.
        uvicorn_logger = logging.getLogger(name)
        uvicorn_logger.handlers.clear()
        uvicorn_logger.propagate = True
    return handler


_logged: weakref.WeakSet[Telemetry] = weakref.WeakSet()


def log_events(telemetry: Telemetry) -> None:
    """Log every event ``telemetry`` emits, once however many servers watch it."""
    if telemetry not in _logged:
        _logged.add(telemetry)
        telemetry.subscribe(_log_event)


def _idle_run(event: Event) -> bool:
    """A promotion run that moved nothing: the scheduler makes one per session
    every period, and at INFO they would bury the runs that did something."""
    fields = event.fields
    return event.name == "promotion.completed" and not any(
        fields.get(key) for key in ("promoted", "failed", "rotated")
    )


def _log_event(event: Event) -> None:
    if event.fields.get("status") == "error":
        level = logging.WARNING
    elif event.name in _DEBUG_EVENTS or _idle_run(event):
        level = logging.DEBUG
    else:
        level = logging.INFO
    if events_log.isEnabledFor(level):
        events_log.log(level, event.name, extra={"fields": {"event": event.name, **event.fields}})
