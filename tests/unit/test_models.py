"""Input validation: bad values name the field and the limit."""

from __future__ import annotations

import pytest

from graphmem.domain.checks import MAX_CONTENT_CHARS, MAX_TAGS, check_between, parse
from graphmem.domain.errors import InvalidInputError
from graphmem.domain.kinds import Source, Status, initial_status
from graphmem.domain.models import MemoryFilter, MemoryInput


@pytest.mark.parametrize(
    ("data", "field", "fragment"),
    [
        ({"content": ""}, "content", "must not be empty"),
        ({"content": "   "}, "content", "is blank"),
        ({"content": "x" * (MAX_CONTENT_CHARS + 1)}, "content", str(MAX_CONTENT_CHARS)),
        ({"content": "a", "confidence": 1.5}, "confidence", "less than or equal to 1"),
        ({"content": "a", "confidence": -0.1}, "confidence", "greater than or equal to 0"),
        ({"content": "a", "memory_type": "gossip"}, "memory_type", "decision"),
        ({"content": "a", "source": "rumour"}, "source", "auto_extracted"),
        ({"content": "a", "tier": "archived"}, "tier", "archived"),
        ({"content": "a", "tags": ["t"] * (MAX_TAGS + 1)}, "tags", str(MAX_TAGS)),
        ({"content": "a", "session_id": "has space"}, "session_id", "pattern"),
        ({"content": "a", "colour": "red"}, "colour", "unknown key 'colour'"),
        ({"content": "a", "project_id": "p"}, "project_id", "pass project_id="),
        ({"content": "nul\x00byte"}, "content", "NUL"),
        ({"content": "a", "evidence": ["ok", "b\x00"]}, "evidence.1", "NUL"),
    ],
)
def test_bad_input_names_the_field(data, field, fragment):
    with pytest.raises(InvalidInputError) as error:
        parse(MemoryInput, data)
    assert error.value.field == field
    assert error.value.message.startswith(f"{field}:")
    assert fragment in error.value.message


def test_content_is_stripped_and_tags_deduplicated():
    item = parse(MemoryInput, {"content": "  keep me  ", "tags": ["a", "b", "a"]})
    assert item.content == "keep me"
    assert item.tags == ["a", "b"]


@pytest.mark.parametrize(
    ("source", "status"),
    [
        (Source.AUTO_EXTRACTED, Status.CANDIDATE),
        (Source.MANUAL, Status.ACTIVE),
        (Source.AGENT, Status.ACTIVE),
        (Source.IMPORT, Status.ACTIVE),
    ],
)
def test_initial_status_follows_source(source, status):
    assert initial_status(source) is status


def test_filter_defaults_hide_archived():
    assert parse(MemoryFilter, {}).include_archived is False


@pytest.mark.parametrize("value", [0, 101, -1, True, 5.0, "5", None])
def test_a_count_outside_its_limits_names_the_field_and_both_limits(value):
    with pytest.raises(InvalidInputError) as raised:
        check_between("first", value, 1, 100)
    assert raised.value.field == "first"
    assert str(raised.value) == "first: must be between 1 and 100"


def test_a_count_within_its_limits_is_returned():
    assert [check_between("depth", n, 1, 3) for n in (1, 2, 3)] == [1, 2, 3]
