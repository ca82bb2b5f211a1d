"""What-if tuning: the promotion and archival plan under other rules, beside
the rules in force, as a diff. A query, because it writes nothing."""

from __future__ import annotations

from datetime import datetime

import strawberry
from starlette.concurrency import run_in_threadpool
from strawberry.scalars import JSON
from strawberry.utils.str_converters import to_camel_case

from graphmem.domain import kinds
from graphmem.domain.clock import as_datetime
from graphmem.domain.errors import InvalidInputError
from graphmem.domain.retention import RetentionRules
from graphmem.graphql.errors import RequestPathError, renamed
from graphmem.graphql.operations import ProjectId
from graphmem.graphql.types.common import Info
from graphmem.graphql.types.memory import Memory
from graphmem.services import whatif

strawberry.enum(
    whatif.Outcome,
    name="WhatIfOutcome",
    description="What the next runs do with a memory: promote, archive, or leave it.",
)


@strawberry.input(description="The rules to try; each part left out keeps the rules in force.")
class WhatIfInput:
    preset: str | None = strawberry.field(
        default=None, description="A scoring preset by name (default, jarvis)."
    )
    weights: JSON | None = strawberry.field(
        default=None, description='Factor weights on top of the preset, e.g. {"recency": 0.4}.'
    )
    rules: JSON | None = strawberry.field(
        default=None,
        description='Retention rules by name, applied last, e.g. {"promote_threshold": 0.7}.',
    )
    rules_yaml: str | None = strawberry.field(
        default=None,
        description=f"A retention_rules.yaml variant as text (at most {whatif.MAX_RULES_YAML} "
        "characters); its keys override the rules in force.",
    )
    limit: int = strawberry.field(
        default=whatif.DEFAULT_CHANGES,
        description=f"Changes listed (at most {whatif.MAX_CHANGES}), most significant first; "
        "the counts cover every memory.",
    )


@strawberry.type(description="What one rule set does with a memory.")
class WhatIfFate:
    outcome: whatif.Outcome
    to_tier: kinds.Tier | None = strawberry.field(
        description="Where it goes: the promotion target or archived; null when it stays."
    )
    score: float = strawberry.field(description="Its importance under this rule set's scoring.")

    @classmethod
    def of(cls, fate: whatif.Fate) -> WhatIfFate:
        return cls(outcome=fate.outcome, to_tier=fate.to_tier, score=fate.score)


@strawberry.type(description="A memory the variant treats differently from the rules in force.")
class WhatIfChange:
    memory: Memory
    current: WhatIfFate
    variant: WhatIfFate


@strawberry.type(description="How many memories go from one outcome to another.")
class WhatIfTransition:
    current: whatif.Outcome
    variant: whatif.Outcome
    count: int


@strawberry.type(description="One side of the comparison.")
class WhatIfSide:
    preset: str
    promoted: int = strawberry.field(description="Memories the next promotion runs move.")
    archived: int = strawberry.field(description="Memories the next archival run archives.")
    rules: JSON = strawberry.field(description="Every retention rule, by name.")


@strawberry.type(description="The variant's plan beside the current one; nothing was written.")
class WhatIfReport:
    project_id: strawberry.ID
    at: datetime = strawberry.field(description="The instant both plans were scored at.")
    sessions: int = strawberry.field(description="Sessions whose promotion was planned.")
    current: WhatIfSide
    variant: WhatIfSide
    transitions: list[WhatIfTransition] = strawberry.field(
        description="Every memory either plan moves, counted by (current, variant) outcome."
    )
    changed: int = strawberry.field(description="Memories whose outcome or target tier differs.")
    changes: list[WhatIfChange] = strawberry.field(
        description="Those memories, grouped by (current, variant) outcome in the order "
        "promote, archive, stay, highest score first; at most the variant's limit."
    )
    duration_ms: float

    @classmethod
    def of(cls, report: whatif.WhatIfReport) -> WhatIfReport:
        def side(name: str, rules: RetentionRules, preset: str) -> WhatIfSide:
            totals = report.totals(name)
            return WhatIfSide(
                preset=preset,
                promoted=totals[whatif.Outcome.PROMOTE],
                archived=totals[whatif.Outcome.ARCHIVE],
                rules=JSON(rules.model_dump(mode="json")),
            )

        return cls(
            project_id=strawberry.ID(report.project_id),
            at=as_datetime(report.at),
            sessions=report.sessions,
            current=side("current", report.current_rules, report.current_preset),
            variant=side("variant", report.variant_rules, report.variant_preset),
            changed=report.changed,
            transitions=[
                WhatIfTransition(current=a, variant=b, count=n)
                for (a, b), n in sorted(report.transitions.items())
            ],
            changes=[
                WhatIfChange(
                    memory=Memory.of(c.memory),
                    current=WhatIfFate.of(c.current),
                    variant=WhatIfFate.of(c.variant),
                )
                for c in report.changes
            ],
            duration_ms=report.duration_ms,
        )


@strawberry.type
class WhatIfQuery:
    @strawberry.field(
        description="Which memories promotion and archival would move, keep or archive under "
        "other scoring or retention rules, compared with the rules in force. Writes nothing; "
        "a bad variant is an INVALID_INPUT error naming the key. Needs an admin key."
    )
    async def what_if(
        self, info: Info, variant: WhatIfInput, project_id: ProjectId = None
    ) -> WhatIfReport | None:
        given = {
            "preset": variant.preset,
            "weights": variant.weights,
            "rules": variant.rules,
            "rules_yaml": variant.rules_yaml,
            "limit": variant.limit,
        }
        try:
            report = await run_in_threadpool(
                info.context.gm.what_if,
                {k: v for k, v in given.items() if v is not None},
                project_id=project_id,
            )
        except InvalidInputError as exc:
            raise _within_variant(exc) from None
        return WhatIfReport.of(report)


def _within_variant(exc: InvalidInputError) -> InvalidInputError:
    """Name a bad key by its path in the request: ``variant.rules.promote_threshold``.
    Only the variant's own field is camelCased (``rules_yaml`` is ``rulesYaml``):
    the keys inside ``rules`` and ``weights`` are JSON, named as the client wrote
    them."""
    if not exc.fields:
        return exc
    names = {}
    for field in exc.fields:
        head, dot, rest = field.partition(".")
        names[field] = f"variant.{to_camel_case(head)}{dot}{rest}"
    return RequestPathError(renamed(exc.message, names), fields=list(names.values()))
