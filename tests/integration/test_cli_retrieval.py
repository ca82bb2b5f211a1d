"""The retrieval commands (search, context, backfill-embeddings), run for real."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphmem.api import GraphMem
from graphmem.settings import Settings
from tests.integration.conftest import run_cli as cli


def store(data_dir: Path) -> GraphMem:
    return GraphMem.open(Settings(data_dir=data_dir, embedder="none"))


def test_search_prints_each_hit_with_its_explanation(data_dir: Path):
    with store(data_dir) as gm:
        decision = gm.remember({"content": "Ship the mobile app through the beta channel"})
        rule = gm.remember(
            {"content": "Releases need sign-off from QA", "memory_type": "rule", "tags": ["qa"]}
        )
        gm.relate(rule.id, decision.id, "CONSTRAINS")

    shown = cli(data_dir, "search", "mobile app beta channel")
    assert shown.exit_code == 0, shown.output
    text = shown.stdout
    assert decision.id in text and rule.id in text
    assert "fulltext #1" in text and "embeddings" in text.lower()  # the note: vectors are off
    assert f"path from {decision.id}" in text and "-[CONSTRAINS]->" in text
    assert "relevance" in text

    as_json = cli(data_dir, "search", "mobile app beta channel", "--depth", "0", "--json")
    assert as_json.exit_code == 0, as_json.output
    body = json.loads(as_json.stdout)
    assert [h["memory"]["id"] for h in body["hits"]] == [decision.id]

    tagged = cli(data_dir, "search", "releases sign-off", "--tag", "qa", "--json")
    assert [h["memory"]["id"] for h in json.loads(tagged.stdout)["hits"]] == [rule.id]
    typed = cli(data_dir, "search", "releases sign-off", "--type", "decision", "--json")
    assert json.loads(typed.stdout)["hits"] == []


def test_search_walks_only_the_relation_types_named(data_dir: Path):
    """``--relation-types`` is the request's field, offered with no line of its own."""
    with store(data_dir) as gm:
        decision = gm.remember({"content": "Ship the mobile app through the beta channel"})
        rule = gm.remember({"content": "Releases need sign-off from QA", "memory_type": "rule"})
        gm.relate(rule.id, decision.id, "CONSTRAINS")

    def found(*options: str) -> list[str]:
        shown = cli(data_dir, "search", "mobile app beta channel", "--json", *options)
        assert shown.exit_code == 0, shown.output
        return [h["memory"]["id"] for h in json.loads(shown.stdout)["hits"]]

    assert found("--relation-types", "CONSTRAINS") == [decision.id, rule.id]
    assert found("--relation-types", "ENABLES") == [decision.id]
    refused = cli(data_dir, "search", "mobile app", "--relation-types", "SUPERSEDES")
    assert refused.exit_code != 0 and "relation_types" in refused.output


def test_context_prints_components_and_can_leave_accesses_alone(data_dir: Path):
    with store(data_dir) as gm:
        memory = gm.remember({"content": "the deploy script lives in tools/deploy.sh"})

    shown = cli(data_dir, "context", "deploy script", "--no-record-access")
    assert shown.exit_code == 0, shown.output
    assert memory.id in shown.stdout and "text_similarity" in shown.stdout
    with store(data_dir) as gm:
        assert gm.get(memory.id).retrieval_count == 0

    as_json = cli(data_dir, "context", "deploy script", "--json")
    body = json.loads(as_json.stdout)
    assert [i["memory"]["id"] for i in body["items"]] == [memory.id]
    assert sum(c["contribution"] for c in body["items"][0]["components"]) == pytest.approx(
        body["items"][0]["score"]
    )
    with store(data_dir) as gm:
        assert gm.get(memory.id).retrieval_count == 1
        assert gm.get(memory.id).access_count == 0


@pytest.mark.parametrize(
    "args",
    [
        ("context", "ab"),
        ("context", "deploy script", "--max-results", "51"),
        ("search", "deploy", "--depth", "4"),
        ("search", "deploy", "--mode", "SIDEWAYS"),
        ("backfill-embeddings",),  # embeddings are off
    ],
)
def test_bad_input_is_one_red_line(data_dir: Path, args: tuple[str, ...]):
    result = cli(data_dir, *args)
    assert result.exit_code == 1, result.output
    assert "error [INVALID_INPUT]" in result.stderr


def test_backfill_embeds_what_was_written_without_embeddings(data_dir: Path):
    with store(data_dir) as gm:
        gm.remember_many([{"content": f"note number {n}"} for n in range(3)])
    done = cli(data_dir, "backfill-embeddings", "--batch-size", "2", embedder="minilm")
    assert done.exit_code == 0, done.output
    assert "embedded 3, 0 remaining" in done.stdout
    again = cli(data_dir, "backfill-embeddings", embedder="minilm")
    assert "nothing to embed" in again.stdout
    assert "embedding memories" not in again.stderr  # no empty progress bar


def test_remember_takes_occurred_at_and_search_and_context_filter_on_it(data_dir: Path):
    written = cli(
        data_dir,
        "remember",
        "the office moved to Leipzig",
        "--type",
        "event",
        "--occurred-at",
        "2024-03-01T09:00:00Z",
    )
    assert written.exit_code == 0, written.output
    assert "2024-03-01T09:00:00+00:00" in written.stdout
    assert cli(data_dir, "remember", "the office moved to Dresden").exit_code == 0
    before = ("--occurred-before", "2025-01-01T00:00:00Z", "--min-relevance", "0", "--json")
    found = json.loads(cli(data_dir, "search", "office moved", *before).stdout)
    assert [h["memory"]["content"] for h in found["hits"]] == ["the office moved to Leipzig"]
    context = json.loads(cli(data_dir, "context", "where did the office move", *before).stdout)
    assert [i["memory"]["content"] for i in context["items"]] == ["the office moved to Leipzig"]
    after = ("--occurred-after", "2025-01-01T00:00:00Z", "--min-relevance", "0", "--json")
    found = json.loads(cli(data_dir, "search", "office moved", *after).stdout)
    assert [h["memory"]["content"] for h in found["hits"]] == ["the office moved to Dresden"]
    bad = cli(data_dir, "remember", "from nowhere", "--occurred-at", "next tuesday")
    assert bad.exit_code == 1 and "occurred_at" in bad.stderr
