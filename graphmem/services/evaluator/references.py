"""Checks of what a memory points at and belongs to: memories of its own
project, and a session linked to that project."""

from __future__ import annotations

from collections.abc import Iterator

from graphmem.domain.consistency import Finding
from graphmem.services.evaluator.context import CheckContext, finding, is_live
from graphmem.services.evaluator.snapshot import Snapshot


def check_references(snap: Snapshot, ctx: CheckContext) -> Iterator[Finding]:
    graph = snap.graph
    for node, attrs in graph.nodes(data=True):
        for name in ("superseded_by", "merged_into"):
            target = attrs.get(name)
            if target is not None and target not in graph:
                yield finding(
                    "DANGLING_REFERENCE",
                    [node],
                    f"memory {node} has {name} = {target}, which is not a memory of "
                    f"project {snap.project_id}",
                    f"clear {name}, or point it at the memory that replaced {target}",
                    details={"field": name, "target": target},
                )
    for rel in snap.foreign:
        yield finding(
            "CROSS_PROJECT_RELATION",
            [rel.from_id, rel.to_id],
            f"memory {rel.from_id} {rel.type} {rel.to_id}, a memory of project "
            f"{rel.to_project or '(none)'}: nothing may cross a project boundary",
            "delete the relation; copy the memory into this project if it is needed here",
            details={"type": rel.type, "to_project": rel.to_project},
        )


def check_orphans(snap: Snapshot, ctx: CheckContext) -> Iterator[Finding]:
    sessions = snap.sessions
    for node, attrs in snap.graph.nodes(data=True):
        if not is_live(attrs):
            continue
        session = sessions.get(attrs.get("in_session") or "")
        if session is not None and session.in_project:
            continue
        where = (
            "is in no session"
            if session is None
            else f"is in session {session.id}, which is not linked to the project"
        )
        yield finding(
            "ORPHAN_MEMORY",
            [node],
            f"memory {node} {where}: no session-scoped read, promotion or rotation sees it",
            "archive it (graphmem evaluate --fix), or re-link its session",
            fixable=True,
            details={"session_id": attrs.get("session_id"), "tier": attrs.get("tier")},
        )
