"""Operations on failure capsules: a failed step reported once, counted on recurrence."""

from __future__ import annotations

import builtins
from collections.abc import Mapping
from typing import Any

from graphmem.domain.auth import Role
from graphmem.domain.capsules import FailureCapsule, FailureOutcome, FailureReport
from graphmem.domain.checks import parse
from graphmem.operations import documents as doc
from graphmem.operations.codec import encode, read
from graphmem.operations.entry import operation
from graphmem.operations.requests import Call


class FailureOperations:
    @operation(Role.WRITE)
    def record_failure(
        report: FailureReport | Mapping[str, Any], *, project_id: str | None = None
    ) -> Call[FailureOutcome]:
        """Store a failure as a capsule (or count a recurrence of it) with its lesson
        candidate; nothing is written when the report is invalid."""
        document = f"""mutation($input: FailureReportInput!, $p: ID) {{
          recordFailure(input: $input, projectId: $p) {{
            created lessonStatus capsule {{ {doc.CAPSULE} }}
          }}
        }}"""

        def result(data: dict[str, Any]) -> FailureOutcome:
            payload = data["recordFailure"]
            capsule = read(FailureCapsule, payload["capsule"])
            return FailureOutcome(
                capsule=capsule,
                created=payload["created"],
                lesson_id=capsule.lesson_id,
                lesson_status=payload["lessonStatus"],
            )

        variables = {"input": encode(parse(FailureReport, report)), "p": project_id}
        return Call(document, variables, result)

    @operation(Role.READ)
    def failure_capsules(
        *,
        session_id: str | None = None,
        limit: int = 20,
        project_id: str | None = None,
    ) -> Call[builtins.list[FailureCapsule]]:
        """Failure capsules, most recently seen first."""
        document = f"""query($s: ID, $limit: Int!, $p: ID) {{
          failureCapsules(sessionId: $s, limit: $limit, projectId: $p) {{ {doc.CAPSULE} }}
        }}"""
        variables = {"s": session_id, "limit": limit, "p": project_id}
        return Call(
            document,
            variables,
            lambda data: [read(FailureCapsule, c) for c in data["failureCapsules"]],
        )

    @operation(Role.READ)
    def failure_capsule(capsule_id: str, *, project_id: str | None = None) -> Call[FailureCapsule]:
        document = f"""query($id: ID!, $p: ID) {{
          failureCapsule(id: $id, projectId: $p) {{ {doc.CAPSULE} }}
        }}"""
        variables = {"id": capsule_id, "p": project_id}
        return Call(document, variables, lambda data: read(FailureCapsule, data["failureCapsule"]))
