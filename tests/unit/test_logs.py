"""Log lines: JSON and text formats, their settings, request ids and telemetry events."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest

from graphmem.domain.errors import InvalidInputError
from graphmem.server.observability.logs import (
    JsonFormatter,
    RequestIdFilter,
    TextFormatter,
    configure_logging,
    log_events,
    log_settings,
)
from graphmem.server.observability.request_ids import RequestInfo, enter, leave, request_id_from
from graphmem.services.telemetry import Telemetry


def handler_into(buffer: io.StringIO, formatter: logging.Formatter) -> logging.Handler:
    handler = logging.StreamHandler(buffer)
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(formatter)
    return handler


@pytest.fixture
def captured() -> Iterator[io.StringIO]:
    """JSON lines of every record at DEBUG and above, for one test."""
    buffer = io.StringIO()
    handler = handler_into(buffer, JsonFormatter())
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield buffer
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def lines(buffer: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in buffer.getvalue().splitlines()]


def test_a_json_line_holds_the_base_keys_the_fields_and_the_exception(
    captured: io.StringIO,
) -> None:
    log = logging.getLogger("graphmem.test")
    fields = {"run_id": "r1", "promoted": 3, "level": "not the level", "at": object()}
    try:
        raise ValueError("boom")
    except ValueError:
        log.exception("run %s failed", "r1", extra={"fields": fields})

    (line,) = lines(captured)
    assert line["level"] == "ERROR" and line["logger"] == "graphmem.test"
    assert line["message"] == "run r1 failed"
    assert line["request_id"] is None
    assert line["ts"].endswith("+00:00") and "T" in line["ts"]
    assert (line["run_id"], line["promoted"]) == ("r1", 3)
    assert line["at"].startswith("<object object")
    assert "ValueError: boom" in line["exception"]


def test_records_logged_during_a_request_carry_its_id(captured: io.StringIO) -> None:
    log = logging.getLogger("graphmem.test")
    token = enter(RequestInfo(id="req-1", method="GET", path="/"))
    try:
        log.warning("inside")
    finally:
        leave(token)
    log.warning("outside")

    inside, outside = lines(captured)
    assert inside["request_id"] == "req-1"
    assert outside["request_id"] is None


def test_a_text_line_shows_the_request_id_and_the_fields() -> None:
    buffer = io.StringIO()
    log = logging.getLogger("graphmem.test.text")
    log.addHandler(handler_into(buffer, TextFormatter()))
    log.propagate = False
    try:
        token = enter(RequestInfo(id="req-2", method="GET", path="/"))
        log.warning("served", extra={"fields": {"path": "/a b", "status": 200}})
        leave(token)
        log.warning("idle")
    finally:
        log.handlers.clear()
        log.propagate = True

    served, idle = buffer.getvalue().splitlines()
    assert "WARNING graphmem.test.text [req-2] served" in served
    assert served.endswith('path="/a b" status=200')
    assert "[-] idle" in idle


def test_settings_default_to_auto_at_info_and_read_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("GRAPHMEM_LOG_FORMAT", raising=False)
    monkeypatch.delenv("GRAPHMEM_LOG_LEVEL", raising=False)
    assert (log_settings().format, log_settings().level) == ("auto", "INFO")

    monkeypatch.setenv("GRAPHMEM_LOG_FORMAT", "Text")
    monkeypatch.setenv("GRAPHMEM_LOG_LEVEL", "debug")
    assert (log_settings().format, log_settings().level) == ("text", "DEBUG")
    assert log_settings(level="warning").level == "WARNING", "the command line wins"


@pytest.mark.parametrize(
    ("variable", "value", "allowed"),
    [("GRAPHMEM_LOG_FORMAT", "xml", "auto, json or text"), ("GRAPHMEM_LOG_LEVEL", "loud", "DEBUG")],
)
def test_a_bad_setting_is_refused_by_name(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, allowed: str
) -> None:
    monkeypatch.setenv(variable, value)

    with pytest.raises(InvalidInputError) as caught:
        log_settings()

    assert caught.value.field == variable
    assert variable in caught.value.message and allowed in caught.value.message
    assert repr(value).lower() in caught.value.message.lower()


def test_configuring_replaces_the_root_handlers_and_routes_uvicorn_through_them() -> None:
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    uvicorn_error = logging.getLogger("uvicorn.error")
    uvicorn_error.addHandler(logging.NullHandler())
    buffer = io.StringIO()
    try:
        configure_logging(log_settings(format="json", level="WARNING"), buffer)
        configure_logging(log_settings(format="json", level="WARNING"), buffer)
        logging.getLogger("graphmem.test").info("below the level")
        uvicorn_error.warning("from uvicorn")

        assert len(root.handlers) == 1, "configuring twice must not log twice"
        assert root.level == logging.WARNING
        (line,) = lines(buffer)
        assert (line["logger"], line["message"]) == ("uvicorn.error", "from uvicorn")
    finally:
        for handler in root.handlers[:]:
            root.removeHandler(handler)
        for handler in saved[0]:
            root.addHandler(handler)
        root.setLevel(saved[1])


def test_telemetry_events_are_logged_once_with_their_fields(captured: io.StringIO) -> None:
    telemetry = Telemetry()
    log_events(telemetry)
    log_events(telemetry)  # a second server on the same GraphMem

    telemetry.emit("promotion.completed", 1.0, trigger="manual", promoted=2, run_id="r9")
    telemetry.emit("promotion.triggered", 1.0, trigger="manual")
    telemetry.emit("retrieval.search", 1.0, status="error", duration_ms=3.5)
    telemetry.emit("promotion.completed", 1.0, trigger="periodic", promoted=0, failed=0, rotated=0)

    completed, triggered, failed, idle = [
        line for line in lines(captured) if line["logger"] == "graphmem.events"
    ]
    assert completed["level"] == "INFO" and completed["message"] == "promotion.completed"
    assert (completed["event"], completed["promoted"], completed["run_id"]) == (
        "promotion.completed",
        2,
        "r9",
    )
    assert triggered["level"] == "DEBUG", "per-call events stay out of INFO"
    assert failed["level"] == "WARNING" and failed["status"] == "error"
    assert idle["level"] == "DEBUG", "a scheduled run that moved nothing stays out of INFO"


@pytest.mark.parametrize(
    ("header", "kept"),
    [
        ("abc-123", True),
        ("A.b_c-9", True),
        ("x" * 64, True),
        ("x" * 65, False),
        ("a b", False),
        ("a/b", False),
        ("", False),
        (None, False),
    ],
)
def test_incoming_request_ids_are_kept_only_when_sane(header: str | None, kept: bool) -> None:
    made = request_id_from(header)

    assert (made == header) is kept
    if not kept:
        assert len(made) == 32 and made != request_id_from(header)


class Terminal(io.StringIO):
    """A stream that says it is a terminal, as stderr does when a person runs serve."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("format", "stream", "json_lines"),
    [
        ("auto", Terminal(), False),
        ("auto", io.StringIO(), True),
        ("json", Terminal(), True),
        ("text", io.StringIO(), False),
    ],
)
def test_auto_logs_readable_lines_to_a_terminal_and_json_elsewhere(
    format: str, stream: io.StringIO, json_lines: bool
) -> None:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        configure_logging(log_settings(format=format, level="INFO"), stream)
        logging.getLogger("graphmem.test.auto").warning("port taken")
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
    line = stream.getvalue().splitlines()[-1]
    if json_lines:
        assert json.loads(line)["message"] == "port taken"
    else:
        assert line.endswith("WARNING graphmem.test.auto [-] port taken")
