"""The pure parts of the transfer formats: Sky's times and types, and Cypher literals."""

from __future__ import annotations

import pytest

from graphmem.domain.checks import epoch_seconds
from graphmem.domain.errors import InvalidInputError
from graphmem.domain.kinds import MemoryType
from graphmem.services.transfer.cypher_script import literal
from graphmem.services.transfer.lines import decode, properties
from graphmem.services.transfer.sky import iso, memory_id, memory_type, parse_record, sky_type


@pytest.mark.parametrize(
    "given, seconds",
    [
        ("2025-01-02T10:00:00Z", 1735812000.0),
        ("2025-01-02T10:00:00", 1735812000.0),
        ("2025-01-02T12:00:00+02:00", 1735812000.0),
        ("2025-01-02T10:00:00.1234Z", 1735812000.123),
        (1735812000, 1735812000.0),
        (1735812000.5, 1735812000.5),
        (1735812000500, 1735812000.5),
    ],
)
def test_sky_times(given, seconds):
    assert epoch_seconds(given) == seconds


@pytest.mark.parametrize("given", ["tomorrow", True, None, float("nan"), [1]])
def test_what_is_not_a_time(given):
    with pytest.raises(ValueError, match="must be"):
        epoch_seconds(given)


def test_iso_writes_utc_with_a_z_and_milliseconds_only_where_there_are_some():
    assert iso(1735812000.0) == "2025-01-02T10:00:00Z"
    assert iso(1735812000.5) == "2025-01-02T10:00:00.500Z"
    assert epoch_seconds(iso(1735812000.123)) == 1735812000.123


@pytest.mark.parametrize(
    "sky, mapped, tag",
    [
        ("decision", MemoryType.DECISION, None),
        ("Lesson_Learned", MemoryType.LESSON_LEARNED, None),
        ("lesson", MemoryType.LESSON_LEARNED, "sky-type:lesson"),
        ("Constraint", MemoryType.RULE, "sky-type:Constraint"),
        ("todo", None, "sky-type:todo"),
        (None, None, None),
        ("  ", None, None),
    ],
)
def test_sky_types_map_as_documented(sky, mapped, tag):
    assert memory_type(sky) == (mapped, tag)


def test_export_gives_back_the_sky_type_the_tag_kept():
    assert sky_type({"memory_type": "rule", "tags": ["ci", "sky-type:Constraint"]}) == (
        "Constraint",
        ["ci"],
    )
    assert sky_type({"memory_type": "fact", "tags": []}) == ("fact", [])
    assert sky_type({"tags": None}) == (None, [])


def test_a_record_has_one_id_per_project_time_and_text():
    first = memory_id("p", 1735812000.0, "text")
    assert first == memory_id("p", 1735812000.0, "text")
    assert len(first) == 32 and first.startswith(f"{1735812000000:012x}")
    assert len({first, memory_id("q", 1735812000.0, "text"), memory_id("p", 1.0, "text"),
                memory_id("p", 1735812000.0, "other")}) == 4  # fmt: skip


def test_sky_records_name_the_field_that_is_wrong():
    assert parse_record({"ts": 1, "content": " x ", "extra": 1}).content == "x"
    with pytest.raises(InvalidInputError) as caught:
        parse_record({"ts": 1, "content": "x", "importance": -0.1})
    assert caught.value.field == "importance"


@pytest.mark.parametrize(
    "value, text",
    [
        ('a "quoted" \\ back\nslash\r\t', '"a \\"quoted\\" \\\\ back\\nslash\\r\\t"'),
        ("it's é 😀", '"it\'s é 😀"'),
        ([1, 2.5, True, None], "[1, 2.5, true, null]"),
        ({"end": 1, "a b": "x"}, '{`end`: 1, `a b`: "x"}'),
        (1e-05, "1e-05"),
    ],
)
def test_cypher_literals(value, text):
    assert literal(value) == text


def test_a_literal_refuses_what_cypher_cannot_hold():
    for value in (float("inf"), float("nan"), object()):
        with pytest.raises(InvalidInputError):
            literal(value)


@pytest.mark.parametrize(
    "props, field",
    [
        ({"bad name": 1}, "props.bad name"),
        ({"x": {"nested": 1}}, "props.x"),
        ({"x": [[1]]}, "props.x"),
        ({"x": "nul\x00"}, "props.x"),
        ({"x": 2**63}, "props.x"),
        ({"x": float("inf")}, "props.x"),
    ],
)
def test_properties_the_graph_cannot_hold_are_named(props, field):
    with pytest.raises(InvalidInputError) as caught:
        properties(props, "props")
    assert caught.value.field == field


def test_nulls_are_absent_properties():
    assert properties({"a": None, "b": [1, "x"], "c": False}, "props") == {
        "b": [1, "x"],
        "c": False,
    }


def test_a_line_must_be_a_json_object():
    assert decode('{"a": 1}') == {"a": 1}
    for text, message in (("[1]", "not a JSON object"), ("{", "not JSON"),
                          ("{" + " " * 1_000_001 + "}", "longer than")):  # fmt: skip
        with pytest.raises(InvalidInputError, match=message):
            decode(text)
