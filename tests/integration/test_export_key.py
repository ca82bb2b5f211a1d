"""``graphmem export`` and ``graphmem import`` act as the key in GRAPHMEM_API_KEY.

Both open the store directly; without a key that is local access to the whole
project. With a key they are held to what the key may do, resolved as the server
resolves a request's: its projects, its role and the agent it is bound to.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import Result

from graphmem.api import GraphMem
from graphmem.settings import Settings
from tests.integration.conftest import run_cli

# A surface suite (the command line), on the embedded FalkorDB it starts itself.
pytestmark = pytest.mark.backends("falkordb")


@dataclass
class Project:
    """Project ``web``: ana's shared memory, ana's private one, one with no agent,
    and ben's private ones with relations, events and a failure capsule that
    touch them; project ``mobile`` beside it; keys for each case."""

    data_dir: Path
    shared: str
    ana_private: str
    unowned: str
    ben_private: str
    ben_archived: str
    lesson: str
    mobile: str
    ana_key: str
    web_key: str
    web_admin_key: str
    web_admin_ana_key: str
    mobile_key: str
    mobile_admin_key: str
    revoked_key: str

    @property
    def bens(self) -> tuple[str, str]:
        return self.ben_private, self.ben_archived


@pytest.fixture
def web(data_dir: Path) -> Project:
    with GraphMem.open(Settings(data_dir=data_dir, embedder="none", project="web")) as gm:
        shared = gm.remember(
            {"content": "deploys go out on Tuesdays", "agent_id": "ana", "visibility": "shared"}
        ).id
        ana_private = gm.remember(
            {"content": "ana suspects the cache", "agent_id": "ana", "visibility": "private"}
        ).id
        unowned = gm.remember({"content": "the staging database resets nightly"}).id
        # A candidate ben's reviewer rejects: archived, with an archival event.
        ben_archived = gm.remember(
            {
                "content": "ben thinks the vault password is hunter2",
                "agent_id": "ben",
                "visibility": "private",
                "source": "auto_extracted",
            }
        ).id
        gm.reject(ben_archived, "unsure")
        # Written twice (a staging event), and a decision of an agent's (promoted at once).
        ben = {
            "content": "ben decided to rotate the vault key monthly",
            "memory_type": "decision",
            "agent_id": "ben",
            "visibility": "private",
            "suggested_by": "agent",
        }
        ben_private = gm.remember(ben).id
        gm.remember(ben)
        gm.relate(ben_private, shared, "ENABLES")
        gm.relate(shared, ben_private, "RELATED_TO")
        gm.relate(ana_private, shared, "ENABLES")
        failure = gm.record_failure(
            {
                "error": "Error: the vault is sealed",
                "tool": "Bash",
                "context_memory_ids": [shared, ben_private, ana_private],
            }
        )
        assert failure.lesson_id is not None
        mobile = gm.remember({"content": "the app ships weekly"}, project_id="mobile").id

        def key(name: str, project: str, role: str, agent: str | None = None) -> str:
            return gm.keys.create(name, [project], role, agent_id=agent)[1]

        revoked, revoked_token = gm.keys.create("gone", ["web"], "read")
        gm.keys.revoke(revoked.id)
        return Project(
            data_dir=data_dir,
            shared=shared,
            ana_private=ana_private,
            unowned=unowned,
            ben_private=ben_private,
            ben_archived=ben_archived,
            lesson=failure.lesson_id,
            mobile=mobile,
            ana_key=key("ana", "web", "read", "ana"),
            web_key=key("web-reader", "web", "read"),
            web_admin_key=key("web-admin", "web", "admin"),
            web_admin_ana_key=key("web-admin-ana", "web", "admin", "ana"),
            mobile_key=key("mobile-reader", "mobile", "read"),
            mobile_admin_key=key("mobile-admin", "mobile", "admin"),
            revoked_key=revoked_token,
        )


def cli(web: Project, *args: str, key: str | None = None, **env: str) -> Result:
    if key is not None:
        env["GRAPHMEM_API_KEY"] = key
    return run_cli(web.data_dir, *args, env=env)


def exported(web: Project, *args: str, key: str | None = None, **env: str) -> list[dict]:
    out = web.data_dir / "out.jsonl"
    result = cli(web, "export", str(out), *args, key=key, **env)
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in out.read_text().splitlines()]


def memory_ids(lines: list[dict]) -> set[str]:
    return {line["props"]["id"] for line in lines if line["kind"] == "memory"}


@pytest.fixture
def fresh_dir() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(dir="/tmp", prefix="gmk-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_without_a_key_export_writes_the_whole_project(web: Project) -> None:
    lines = exported(web, "--project", "web")
    assert memory_ids(lines) >= {web.shared, web.ana_private, web.unowned, *web.bens}
    kinds = {line["kind"] for line in lines}
    assert {"promotion_event", "staging_event", "archival_event", "failure_capsule"} <= kinds


def test_an_agents_key_exports_the_shared_memories_and_its_own_only(
    web: Project, fresh_dir: Path
) -> None:
    lines = exported(web, key=web.ana_key)  # the key's only project: web
    assert lines[0]["project_id"] == "web"
    assert memory_ids(lines) == {web.shared, web.ana_private, web.unowned, web.lesson}
    text = "\n".join(json.dumps(line) for line in lines)
    for hidden in web.bens:
        # Not as a memory, nor as a relation's end, an event's memory or a capsule's link.
        assert hidden not in text
    assert "vault password" not in text and "rotate the vault key" not in text
    relations = {(r["from_id"], r["to_id"]) for r in lines if r["kind"] == "relation"}
    assert relations == {(web.ana_private, web.shared)}
    (capsule,) = [line for line in lines if line["kind"] == "failure_capsule"]
    assert sorted(capsule["in_context"]) == sorted([web.shared, web.ana_private])
    end = lines[-1]["counts"]
    assert end["memory"] == 4 and end["relation"] == 1
    assert end["promotion_event"] == end["archival_event"] == 0

    # What the agent took is a whole project: it imports with nothing skipped.
    dump = web.data_dir / "out.jsonl"
    imported = run_cli(fresh_dir, "import", str(dump))
    assert imported.exit_code == 0, imported.output
    assert "skipped 0 lines" in imported.output


def test_an_agents_export_names_no_session_or_memory_hidden_from_it(web: Project) -> None:
    with GraphMem.open(Settings(data_dir=web.data_dir, embedder="none", project="web")) as gm:
        gm.open_session("s-ben", name="ben's vault rotation plan")
        private = {"agent_id": "ben", "visibility": "private", "session_id": "s-ben"}
        gm.remember({"content": "ben's note of the plan", **private, "tags": ["critical"]})
        gm.run_promotion("s-ben")
        shared = {"agent_id": "ben", "visibility": "shared"}
        old = gm.remember({"content": "the vault opens with one key", **shared}).id
        gm.supersede(old, web.ben_private)
        folded = gm.remember({"content": "vault keys are kept offline", **shared}).id
        gm.merge_memories(web.ben_private, folded)
    lines = exported(web, key=web.ana_key)
    text = "\n".join(json.dumps(line) for line in lines)
    assert "s-ben" not in text and "vault rotation plan" not in text
    for hidden in web.bens:
        assert hidden not in text
    props = {line["props"]["id"]: line["props"] for line in lines if line["kind"] == "memory"}
    assert "superseded_by" not in props[old] and "valid_to_by" not in props[old]
    assert props[folded]["archive_reason"] == "merged into another memory"
    assert "merged_into" not in props[folded]
    (merged,) = [
        line["props"]
        for line in lines
        if line["kind"] == "archival_event" and line["props"]["memory_id"] == folded
    ]
    assert merged["reason"] == "merged into another memory" and "other_id" not in merged
    # Exported with no key, every name is there.
    whole = "\n".join(json.dumps(line) for line in exported(web, "--project", "web"))
    assert "s-ben" in whole and f"merged into {web.ben_private}" in whole


@pytest.mark.parametrize("fmt", ["sky", "graphml", "cypher"])
def test_every_format_holds_what_the_key_may_read(web: Project, fmt: str) -> None:
    out = web.data_dir / f"out.{fmt}"
    result = cli(web, "export", str(out), "--format", fmt, key=web.ana_key)
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert "deploys go out on Tuesdays" in text and "ana suspects the cache" in text
    assert "vault password" not in text and "rotate the vault key" not in text
    for hidden in web.bens:
        assert hidden not in text


def test_a_key_bound_to_no_agent_exports_every_agents_memories(web: Project) -> None:
    assert memory_ids(exported(web, key=web.web_key)) >= {web.ana_private, *web.bens}


def test_a_key_for_another_project_is_refused_naming_the_project(web: Project) -> None:
    out = web.data_dir / "out.jsonl"
    for result in (
        cli(web, "export", str(out), "--project", "web", key=web.mobile_key),
        cli(web, "export", str(out), key=web.mobile_key, GRAPHMEM_PROJECT="web"),
    ):
        assert result.exit_code == 1, result.output
        assert "error [FORBIDDEN]" in result.output
        assert "project 'web'" in result.output
        assert not out.exists()
    # The key's own project it may export.
    assert memory_ids(exported(web, key=web.mobile_key)) == {web.mobile}


@pytest.mark.parametrize("which", ["revoked", "unknown"])
def test_a_revoked_or_unknown_key_is_refused(web: Project, which: str) -> None:
    token = web.revoked_key if which == "revoked" else "gmk_" + "x" * 43
    out = web.data_dir / "out.jsonl"
    result = cli(web, "export", str(out), "--project", "web", key=token)
    assert result.exit_code == 1, result.output
    assert "error [UNAUTHENTICATED]" in result.output
    assert not out.exists()


def test_import_with_a_key_needs_an_admin_key_of_the_project_bound_to_no_agent(
    web: Project,
) -> None:
    dump = web.data_dir / "web.jsonl"
    assert cli(web, "export", str(dump), "--project", "web").exit_code == 0
    for key, said in (
        (web.web_key, "this operation needs admin"),
        (web.web_admin_ana_key, "acts as agent 'ana'"),
        (web.mobile_admin_key, "project 'web'"),  # the file's own project
        (web.revoked_key, "error [UNAUTHENTICATED]"),
    ):
        refused = cli(web, "import", str(dump), key=key)
        assert refused.exit_code == 1, refused.output
        assert said in refused.output
        assert "imported into" not in refused.output
    # --project names the project written to, and that is what the key is held to.
    elsewhere = cli(web, "import", str(dump), "--project", "web", key=web.mobile_admin_key)
    assert elsewhere.exit_code == 1 and "project 'web'" in elsewhere.output
    allowed = cli(web, "import", str(dump), key=web.web_admin_key)
    assert allowed.exit_code == 0, allowed.output
    assert "imported into project web: created nothing" in allowed.output
    # A Sky file goes into the key's project too.
    sky = web.data_dir / "notes.jsonl"
    sky.write_text(json.dumps({"ts": 1_700_000_000, "content": "from sky"}) + "\n")
    refused = cli(web, "import", str(sky), "--format", "sky", key=web.web_admin_ana_key)
    assert refused.exit_code == 1 and "acts as agent 'ana'" in refused.output
    landed = cli(web, "import", str(sky), "--format", "sky", key=web.web_admin_key)
    assert landed.exit_code == 0, landed.output
    assert "imported into project web: created 1 memory" in landed.output


# -- list, show and failures read the store itself as the key would through the server


def test_list_show_and_failures_show_an_agents_key_what_the_server_would(web: Project) -> None:
    listed = cli(web, "list", "--first", "50", key=web.ana_key)
    assert listed.exit_code == 0, listed.output
    assert "deploys go out on Tuesdays" in listed.output and "ana suspects" in listed.output
    assert "ben decided" not in listed.output and "hunter2" not in listed.output
    # Without a key, local access: every agent's memories of the project.
    everything = cli(web, "list", "--first", "50", "--project", "web")
    assert "ben decided" in everything.output and "ana suspects" in everything.output

    hidden = cli(web, "show", web.ben_private, key=web.ana_key)
    assert hidden.exit_code == 1 and "error [NOT_FOUND]" in hidden.output
    shown = cli(web, "show", web.shared, key=web.ana_key)
    assert shown.exit_code == 0, shown.output
    # ben's relation to the shared memory is his, and private: not shown to ana.
    assert web.ben_private not in shown.output and web.ana_private in shown.output

    failures = cli(web, "failures", key=web.ana_key)
    assert failures.exit_code == 0, failures.output
    assert "ben decided" not in failures.output


def test_list_show_and_failures_refuse_a_key_as_the_server_would(web: Project) -> None:
    # The key's only project is the one read when none is named.
    mobile = cli(web, "list", key=web.mobile_key)
    assert mobile.exit_code == 0 and "the app ships weekly" in mobile.output
    for args, token, code in (
        (("list", "--project", "web"), web.mobile_key, "FORBIDDEN"),
        (("show", web.shared, "--project", "web"), web.mobile_key, "FORBIDDEN"),
        (("failures", "--project", "web"), web.mobile_key, "FORBIDDEN"),
        (("list",), web.revoked_key, "UNAUTHENTICATED"),
        (("show", web.shared), "gmk_" + "x" * 43, "UNAUTHENTICATED"),
    ):
        result = cli(web, *args, key=token)
        assert result.exit_code == 1, (args, result.output)
        assert f"error [{code}]" in result.output, (args, result.output)


def test_review_reads_and_decides_as_the_key_would_through_the_server(web: Project) -> None:
    with GraphMem.open(Settings(data_dir=web.data_dir, embedder="none", project="web")) as gm:
        ana_candidate, ben_candidate = (
            gm.remember(
                {
                    "content": content,
                    "agent_id": agent,
                    "visibility": "private",
                    "source": "auto_extracted",
                }
            ).id
            for agent, content in (
                ("ana", "ana saw the build cache cold on Mondays"),
                ("ben", "ben thinks flaky tests come from the shared temp directory"),
            )
        )
    queue = cli(web, "review", "--list", key=web.ana_key)
    assert queue.exit_code == 0, queue.output
    assert ana_candidate in queue.output and ben_candidate not in queue.output

    for args, token, code in (
        (("review", "--approve", ana_candidate), web.ana_key, "FORBIDDEN"),  # a read key
        (("review", "--approve", ben_candidate), web.web_admin_ana_key, "NOT_FOUND"),
        (("review", "--all", "approve"), web.web_admin_ana_key, "FORBIDDEN"),
    ):
        result = cli(web, *args, key=token)
        assert result.exit_code == 1, (args, result.output)
        assert f"error [{code}]" in result.output, (args, result.output)
    approved = cli(web, "review", "--approve", ana_candidate, key=web.web_admin_ana_key)
    assert approved.exit_code == 0 and f"approved {ana_candidate}" in approved.output
    everything = cli(web, "review", "--list", "--project", "web")
    assert ben_candidate in everything.output and ana_candidate not in everything.output
