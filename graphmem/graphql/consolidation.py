"""Consolidation: one memory per group of related memories, the group
superseded and archived (``restore`` brings a source back); a dry run shows
the groups with fingerprints and writes nothing.
"""

from __future__ import annotations

import strawberry

from graphmem.domain.results import Group
from graphmem.graphql.operations import ProjectId, write
from graphmem.graphql.types.common import Info
from graphmem.graphql.types.memory import Memory
from graphmem.services import consolidator


@strawberry.type(description="Memories that say the same or closely related things.")
class ConsolidationGroup:
    fingerprint: str = strawberry.field(
        description="The members and their last writes: pass it back to consolidate "
        "exactly this group; a group that changed since is skipped with a note."
    )
    member_ids: list[strawberry.ID] = strawberry.field(description="Most central first.")
    members: list[Memory] = strawberry.field(description="The members as they were read.")
    content: str = strawberry.field(
        description="The consolidated statement: the central member's text and what the others add."
    )
    seen: str = strawberry.field(
        description="How often and when the group was seen; the consolidated memory's "
        "first evidence entry."
    )
    reason: str = strawberry.field(description="What joined them (similarity, relations).")

    @classmethod
    def of(cls, group: Group) -> ConsolidationGroup:
        return cls(
            fingerprint=group.fingerprint,
            member_ids=[strawberry.ID(i) for i in group.member_ids],
            members=[Memory.of(m) for m in group.members],
            content=group.content,
            seen=group.seen,
            reason=group.reason,
        )


@strawberry.type(description="One group consolidated.")
class ConsolidatedMemory:
    project_id: strawberry.Private[str]
    memory_id: strawberry.ID = strawberry.field(description="The consolidated memory.")
    source_ids: list[strawberry.ID] = strawberry.field(
        description="The memories it supersedes, each archived as consolidated into it."
    )
    fingerprint: str

    @strawberry.field(description="The consolidated memory as stored.")
    async def memory(self, info: Info) -> Memory | None:
        found = await info.context.loaders.memories(self.project_id).load(str(self.memory_id))
        return Memory.of(found) if found else None


@strawberry.type(description="What a consolidation found and, unless a dry run, wrote.")
class ConsolidationResult:
    project_id: strawberry.ID
    dry_run: bool
    scanned: int = strawberry.field(description="Live, active, current memories read.")
    eligible: int = strawberry.field(
        description="Of those, the ones that may be grouped (not pinned, not rules, "
        "not a CONSTRAINS source, not a failure's lesson)."
    )
    groups: list[ConsolidationGroup]
    consolidated: list[ConsolidatedMemory] = strawberry.field(description="Empty in a dry run.")
    memories_consolidated: int = strawberry.field(description="Sources archived in all.")
    notes: list[str] = strawberry.field(description="Groups skipped, and why.")

    @classmethod
    def of(cls, result: consolidator.ConsolidationResult) -> ConsolidationResult:
        return cls(
            project_id=strawberry.ID(result.project_id),
            dry_run=result.dry_run,
            scanned=result.scanned,
            eligible=result.eligible,
            groups=[ConsolidationGroup.of(g) for g in result.groups],
            consolidated=[
                ConsolidatedMemory(
                    project_id=result.project_id,
                    memory_id=strawberry.ID(c.memory_id),
                    source_ids=[strawberry.ID(i) for i in c.source_ids],
                    fingerprint=c.fingerprint,
                )
                for c in result.consolidated
            ],
            memories_consolidated=result.memories_consolidated,
            notes=list(result.notes),
        )


@strawberry.type
class ConsolidationMutation:
    @strawberry.mutation(
        description="Write one consolidated memory per group of related memories, "
        "superseding and archiving the group (restore brings a source back); with dryRun, "
        "only show the groups. fingerprints: only these groups of a dry run."
    )
    async def consolidate(
        self,
        info: Info,
        dry_run: bool = False,
        fingerprints: list[str] | None = None,
        project_id: ProjectId = None,
    ) -> ConsolidationResult | None:
        result = await write(
            info,
            info.context.gm.consolidate,
            dry_run=dry_run,
            fingerprints=fingerprints,
            project_id=project_id,
        )
        return ConsolidationResult.of(result)
