"""Ways back from a mistake: ``unrelate`` on every surface, on a real graph;
``evaluate`` of a project that does not exist; a bad rules file at start."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from mcp import ClientSession
from typer.testing import CliRunner

from graphmem.api import GraphMem
from graphmem.cli import app
from graphmem.client import Client
from graphmem.domain.clock import ManualClock
from graphmem.domain.errors import InvalidInputError, NotFoundError
from graphmem.domain.kinds import RelationType
from graphmem.domain.models import WriteResult
from graphmem.graphql.app import create_app
from graphmem.settings import Settings
from graphmem.store.embedded import EmbeddedFalkorDB
from graphmem.store.falkordb import FalkorStore
from tests.conftest import cypher
from tests.integration.conftest import GraphQLClient, serve
from tests.integration.test_cli import cli, remember
from tests.integration.test_cli_evaluate import cli as evaluate_cli
from tests.integration.test_mcp import call, call_error, http_server, over_http


def events_in(store: FalkorStore) -> int:
    return cypher(store, "MATCH (e:RelationEvent) RETURN count(e)")[0][0]


def pair(gm: GraphMem) -> tuple[str, str]:
    rule = gm.remember({"content": "Never log card numbers", "memory_type": "rule"}).id
    task = gm.remember({"content": "Add request logging to checkout"}).id
    return rule, task


class TestUnrelate:
    def test_removes_one_relation_and_logs_who_and_why(self, gm: GraphMem, clock):
        rule, task = pair(gm)
        gm.relate(rule, task, RelationType.CONSTRAINS, rationale="PCI", weight=0.8)
        gm.relate(rule, task, RelationType.RELATED_TO)
        clock.advance(60)
        removed = gm.unrelate(
            rule, task, "CONSTRAINS", reason="the rule is about payments", removed_by="ana"
        )
        assert (removed.type, removed.rationale, removed.weight) == (
            RelationType.CONSTRAINS,
            "PCI",
            0.8,
        )
        (left,) = gm.relations([rule])[0]
        assert left.type is RelationType.RELATED_TO, "only the named type goes"
        for memory_id in (rule, task):
            (event,) = gm.relation_events(memory_id)
            assert (event.removed_by, event.reason, event.at) == (
                "ana",
                "the rule is about payments",
                clock.now(),
            )
            assert (event.type, event.from_id, event.to_id, event.rationale) == (
                RelationType.CONSTRAINS,
                rule,
                task,
                "PCI",
            )

    def test_a_relation_that_does_not_exist_is_not_found_and_writes_nothing(
        self, gm: GraphMem, store: FalkorStore
    ):
        rule, task = pair(gm)
        gm.relate(rule, task, RelationType.CONSTRAINS)
        for args in (
            (task, rule, "CONSTRAINS"),
            (rule, task, "ENABLES"),
            (rule, "nope", "ENABLES"),
        ):
            with pytest.raises(NotFoundError) as caught:
                gm.unrelate(*args, reason="wrong")
            assert caught.value.code == "NOT_FOUND" and caught.value.field == "relation"
        assert events_in(store) == 0
        assert [r.type for r in gm.relations([rule])[0]] == [RelationType.CONSTRAINS]
        with pytest.raises(InvalidInputError) as caught:
            gm.unrelate(rule, task, "CONSTRAINS", reason="  ")
        assert caught.value.field == "reason"
        with pytest.raises(InvalidInputError) as caught:
            gm.unrelate(rule, task, "OWNS", reason="x")
        assert caught.value.field == "type"
        assert events_in(store) == 0 and len(gm.relations([rule])[0]) == 1

    def test_removing_a_supersedes_edge_restores_the_older_memory(self, gm: GraphMem):
        old = gm.remember({"content": "Deploy with Fabric"}).id
        new = gm.remember({"content": "Deploy with Ansible"}).id
        gm.supersede(old, new)
        assert gm.get(old).superseded_by == new
        gm.unrelate(new, old, "SUPERSEDES", reason="Fabric is still used", removed_by="ops")
        assert gm.get(old).superseded_by is None
        assert gm.relations([old])[0] == []

    def test_removing_the_newest_of_two_supersedes_edges_leaves_the_other_standing(
        self, gm: GraphMem, clock: ManualClock
    ):
        old = gm.remember({"content": "Deploy with Fabric"}).id
        first = gm.remember({"content": "Deploy with Ansible"}).id
        second = gm.remember({"content": "Deploy with Nix"}).id
        gm.supersede(old, first)
        clock.advance(60)
        gm.supersede(old, second)
        assert gm.get(old).superseded_by == second
        gm.unrelate(second, old, "SUPERSEDES", reason="Nix was a trial", removed_by="ops")
        # Ansible still supersedes it, now and in a read of this moment later.
        assert gm.get(old).superseded_by == first
        clock.advance(60)
        (then,) = gm.get_many([old], as_of=clock.now() - 30)
        assert then.superseded_by == first


UNRELATE = """
mutation($from: ID!, $to: ID!, $type: RelationType!, $reason: String!, $by: String) {
  unrelate(fromId: $from, toId: $to, type: $type, reason: $reason, by: $by) {
    type fromId toId rationale
  }
}"""
EVENTS = """query($id: ID!) {
  relationEvents(memoryId: $id) { type fromId toId removedBy reason rationale at }
}"""


def test_graphql_unrelate(gql: GraphQLClient, gm: GraphMem, store: FalkorStore):
    rule, task = pair(gm)
    gm.relate(rule, task, RelationType.CONSTRAINS, rationale="PCI")
    variables = {"from": rule, "to": task, "type": "CONSTRAINS", "reason": "wrong rule"}
    removed = gql.data(UNRELATE, variables)["unrelate"]
    assert removed == {"type": "CONSTRAINS", "fromId": rule, "toId": task, "rationale": "PCI"}
    (event,) = gql.data(EVENTS, {"id": task})["relationEvents"]
    assert (event["removedBy"], event["reason"]) == ("graphql", "wrong rule")
    error = gql.error(UNRELATE, {**variables, "by": "ana"})
    assert error["extensions"]["code"] == "NOT_FOUND"
    assert error["extensions"]["field"] == "relation"
    assert events_in(store) == 1, "nothing written by the failed call"


def test_mcp_unrelate(gm: GraphMem, store: FalkorStore):
    rule, task = pair(gm)
    gm.relate(rule, task, RelationType.ENABLES)
    with http_server(gm) as url:

        async def scenario(session: ClientSession) -> None:
            removed = await call(
                session,
                "unrelate",
                from_id=rule,
                to_id=task,
                type="ENABLES",
                reason="not an enabler",
                agent_id="reviewer",
            )
            assert (removed["type"], removed["from_id"]) == ("ENABLES", rule)
            error = await call_error(
                session, "unrelate", from_id=rule, to_id=task, type="ENABLES", reason="again"
            )
            assert (error["code"], error["field"]) == ("NOT_FOUND", "relation")

        over_http(url, scenario)
    (event,) = gm.relation_events(rule)
    assert (event.removed_by, event.reason) == ("reviewer", "not an enabler")
    assert events_in(store) == 1


def test_cli_unrelate_and_evaluate_of_a_missing_project(data_dir: Path):
    rule = remember(data_dir, "Never log card numbers")
    task = remember(data_dir, "Add request logging to checkout")
    with GraphMem.open(_settings(data_dir)) as gm:
        gm.relate(rule, task, RelationType.CONSTRAINS)
    args = ("unrelate", rule, task, "--type", "CONSTRAINS", "--reason", "wrong")
    done = cli(data_dir, *args, "--by", "ana")
    assert done.exit_code == 0, done.output
    assert f"removed CONSTRAINS {rule} -> {task}" in done.stdout
    again = cli(data_dir, *args)
    assert again.exit_code == 1 and "error [NOT_FOUND]: relation:" in again.stderr
    with GraphMem.open(_settings(data_dir)) as gm:
        (event,) = gm.relation_events(rule)
        assert (event.removed_by, event.reason) == ("ana", "wrong")

    missing = evaluate_cli(data_dir, "--project", "typo")
    assert missing.exit_code == 4, missing.output
    assert "error [NOT_FOUND]: project: no project named 'typo'" in missing.stderr
    assert "default" in missing.stderr, "the message lists the projects there are"
    assert evaluate_cli(data_dir, "--project", "default").exit_code == 0


def _settings(data_dir: Path) -> Settings:
    return Settings(data_dir=data_dir, embedder="none")


def test_a_bad_rules_file_is_refused_at_start_naming_the_key(data_dir: Path, tmp_path: Path):
    for text, key in (
        ("restatement: {event_window_seconds: -5}\n", "restatement.event_window_seconds"),
        ("archive_expiry: {after_days: -3}\n", "archive_expiry.after_days"),
        ("promote_threshold: 0.6\npromote_treshold: 0.7\n", "promote_treshold"),
    ):
        rules = tmp_path / "rules.yaml"
        rules.write_text(text)
        result = CliRunner().invoke(
            app,
            ["list"],
            env={
                **{k: None for k in os.environ if k.startswith("GRAPHMEM_")},
                "GRAPHMEM_DATA_DIR": str(data_dir),
                "GRAPHMEM_EMBEDDER": "none",
                "GRAPHMEM_RETENTION_FILE": str(rules),
            },
        )
        assert result.exit_code == 1, result.output
        assert f"error [INVALID_INPUT]: {key}:" in result.stderr
        # Refused before the store opened: no database is left running behind it.
        assert EmbeddedFalkorDB(data_dir).pid() is None


def test_the_client_unrelates_and_reports_the_write_outcome(gm: GraphMem):
    rule, task = pair(gm)
    gm.relate(rule, task, RelationType.CONSTRAINS)
    with serve(create_app(gm)) as http, Client(str(http.base_url)) as client:
        removed = client.unrelate(rule, task, "CONSTRAINS", reason="wrong", removed_by="ana")
        assert (removed.from_id, removed.to_id) == (rule, task)
        (event,) = client.relation_events(task)
        assert (event.removed_by, event.reason) == ("ana", "wrong")
        with pytest.raises(NotFoundError):
            client.unrelate(rule, task, "CONSTRAINS", reason="again")
        port = "The billing API server in production listens on port 8000"
        old, _ = client.remember_detailed({"content": port})
        _, outcome = client.remember_detailed({"content": port.replace("8000", "9000")})
        assert (outcome.result, outcome.related_id) == (WriteResult.SUPERSEDED, old.id)
        (again,) = client.remember_many_detailed([{"content": port}])
        assert again.result is WriteResult.MERGED_EXACT and again.id == old.id
