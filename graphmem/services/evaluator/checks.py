"""The consistency checks: pure functions from a snapshot to findings.

Each check reads the networkx graph of one project (see ``Snapshot``) and
returns findings with a stable code, a severity, the memories involved, a
message saying what is wrong and a fix saying what to do about it. Nothing
in them touches the store, so every check is tested on hand-built graphs.
The checks live by what they check; this is the list the evaluator runs.
"""

from __future__ import annotations

from graphmem.domain.consistency import Finding
from graphmem.services.evaluator.context import Check, CheckContext
from graphmem.services.evaluator.duplicates import (
    check_consolidation_provenance,
    check_near_duplicates,
)
from graphmem.services.evaluator.invariants import (
    check_invariants,
    check_promotion_log,
    check_times,
)
from graphmem.services.evaluator.overdue import check_overdue
from graphmem.services.evaluator.references import check_orphans, check_references
from graphmem.services.evaluator.relations import (
    check_constrains_cycles,
    check_relation_conflicts,
    check_rests_on_nothing_current,
)
from graphmem.services.evaluator.snapshot import Snapshot
from graphmem.services.evaluator.supersession import (
    check_forked_supersession,
    check_inverted_supersession,
    check_superseded_by,
    check_supersession_cycles,
)

CHECKS: tuple[Check, ...] = (
    check_supersession_cycles,
    check_inverted_supersession,
    check_forked_supersession,
    check_superseded_by,
    check_relation_conflicts,
    check_constrains_cycles,
    check_rests_on_nothing_current,
    check_near_duplicates,
    check_consolidation_provenance,
    check_invariants,
    check_times,
    check_promotion_log,
    check_references,
    check_orphans,
    check_overdue,
)


def run_checks(snap: Snapshot, ctx: CheckContext) -> list[Finding]:
    """Every check's findings, most severe first, in a stable order."""
    findings = [f for check in CHECKS for f in check(snap, ctx)]
    findings.sort(key=Finding.sort_key)
    return findings
