"""What-if tuning: what promotion and archival would do under other rules.

A variant (another scoring preset, other weights, a ``retention_rules.yaml``
variant, inline rule overrides) is planned beside the rules in force, both
with the services' own dry-run paths at one frozen instant, and the two plans
are compared memory by memory. Nothing is written: promotion is only
evaluated, archival runs as a dry run, and telemetry goes to a private hook so
no metric counts a run that did not happen. Because the real engines do the
planning, whatever rules they apply the what-if applies too.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from graphmem.domain.clock import Clock, ManualClock, stored_now
from graphmem.domain.errors import InvalidInputError, invalid_input, suggestion
from graphmem.domain.kinds import Tier
from graphmem.domain.models import Memory
from graphmem.domain.retention import RetentionRules
from graphmem.domain.scoring import PRESETS, Factor, ImportanceScorer
from graphmem.services.archival import Archiver
from graphmem.services.base import Basics
from graphmem.services.promotion import PromotionEngine
from graphmem.services.telemetry import Telemetry
from graphmem.store import Store
from graphmem.store.queries import memories as stored
from graphmem.store.queries import whatif

MAX_RULES_YAML = 65_536
"""Characters of a rules variant sent as text (a rules file is a few hundred)."""
DEFAULT_CHANGES = 200
MAX_CHANGES = 10_000
"""Changes listed in one answer; the transition counts always cover every memory."""
READ_BATCH = 1_000
"""Memories read per statement to describe the changes."""


FACTORS = [factor.value for factor in Factor]
"""The weights a variant may set, by name."""


class Outcome(StrEnum):
    PROMOTE = "promote"
    ARCHIVE = "archive"
    STAY = "stay"


class WhatIfVariant(BaseModel):
    """The rules to try: each part left out keeps what is in force."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    preset: str | None = Field(default=None, description="A scoring preset by name.")
    weights: dict[str, float] = Field(
        default_factory=dict, description="Factor weights on top of the preset."
    )
    rules: dict[str, Any] = Field(
        default_factory=dict, description="Retention rules by name, applied last."
    )
    rules_yaml: str | None = Field(
        default=None,
        max_length=MAX_RULES_YAML,
        description="A retention_rules.yaml variant, as text.",
    )
    limit: int = Field(
        default=DEFAULT_CHANGES,
        ge=0,
        le=MAX_CHANGES,
        description="Changes listed, most significant first; the counts cover all of them.",
    )


@dataclass(frozen=True)
class Fate:
    """What one rule set does with a memory in the next run."""

    outcome: Outcome
    score: float
    to_tier: Tier | None = None
    """Where it goes: the promotion target, ``archived``, or ``None`` when it stays."""


@dataclass(frozen=True)
class WhatIfChange:
    memory: Memory
    current: Fate
    variant: Fate


@dataclass
class WhatIfReport:
    project_id: str
    at: float
    """The instant both plans were scored at."""
    current_rules: RetentionRules
    variant_rules: RetentionRules
    current_preset: str
    variant_preset: str
    sessions: int
    changes: list[WhatIfChange] = field(default_factory=list)
    """Memories whose outcome or target tier differs, grouped by (current, variant)
    outcome in the order promote, archive, stay; at most the variant's ``limit``."""
    changed: int = 0
    """How many memories change in all (``changes`` may list fewer)."""
    transitions: dict[tuple[Outcome, Outcome], int] = field(default_factory=dict)
    """(current, variant) -> memories, over every memory either plan moves."""
    duration_ms: float = 0.0

    def totals(self, side: str) -> dict[Outcome, int]:
        """How many memories one side promotes and archives."""
        index = 0 if side == "current" else 1
        counts: Counter[Outcome] = Counter()
        for pair, count in self.transitions.items():
            if pair[index] is not Outcome.STAY:
                counts[pair[index]] += count
        return {outcome: counts[outcome] for outcome in (Outcome.PROMOTE, Outcome.ARCHIVE)}

    def to_dict(self) -> dict[str, Any]:
        """The report as plain JSON values (the CLI's ``--format json``)."""

        def fate(f: Fate) -> dict[str, Any]:
            return {
                "outcome": f.outcome.value,
                "to_tier": f.to_tier.value if f.to_tier else None,
                "score": round(f.score, 6),
            }

        def side(name: str, rules: RetentionRules, preset: str) -> dict[str, Any]:
            return {
                "preset": preset,
                "totals": {k.value: v for k, v in self.totals(name).items()},
                "rules": rules.model_dump(mode="json"),
            }

        return {
            "project_id": self.project_id,
            "at": self.at,
            "sessions": self.sessions,
            "changed": self.changed,
            "current": side("current", self.current_rules, self.current_preset),
            "variant": side("variant", self.variant_rules, self.variant_preset),
            "transitions": [
                {"current": a.value, "variant": b.value, "count": n}
                for (a, b), n in sorted(self.transitions.items())
            ],
            "changes": [
                {
                    "id": c.memory.id,
                    "session_id": c.memory.session_id,
                    "tier": c.memory.tier.value,
                    "content": c.memory.content,
                    "current": fate(c.current),
                    "variant": fate(c.variant),
                }
                for c in self.changes
            ],
            "duration_ms": self.duration_ms,
        }


def read_rules_file(path: Path | str) -> str:
    """A rules variant file's text; an unreadable file names the field."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInputError(
            f"rules_file: cannot read {path}: {exc}", field="rules_file"
        ) from None
    if len(text) > MAX_RULES_YAML:
        raise InvalidInputError(
            f"rules_file: at most {MAX_RULES_YAML} characters", field="rules_file"
        )
    return text


def variant_rules(
    current: RetentionRules,
    *,
    rules_yaml: str | None = None,
    overrides: Mapping[str, Any] | None = None,
    yaml_field: str = "rules_yaml",
) -> RetentionRules:
    """The current rules with a variant file's values, then the overrides, on top.

    Validated like the rules in force (unknown keys and out-of-range values
    are refused, naming the key). The environment is not consulted: a
    variant says exactly what it tries.
    """
    values = current.model_dump()
    if rules_yaml is not None:
        try:
            loaded = yaml.safe_load(rules_yaml)
        except yaml.YAMLError as exc:
            raise InvalidInputError(f"{yaml_field}: not YAML: {exc}", field=yaml_field) from None
        if loaded is not None and not isinstance(loaded, dict):
            raise InvalidInputError(
                f"{yaml_field}: the top level must be a mapping", field=yaml_field
            )
        values = _validated(_merged(values, loaded or {}), yaml_field).model_dump()
    return _validated(_merged(values, overrides or {}), "rules")


def _merged(values: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    """``changes`` over ``values``; a mapping rule (``stale_after_days``) is merged
    key by key, so a variant names only the tiers it changes."""
    merged = dict(values)
    for key, value in changes.items():
        before = merged.get(key)
        if isinstance(value, Mapping) and isinstance(before, Mapping):
            merged[key] = {**before, **value}
        else:
            merged[key] = value
    return merged


def _validated(values: Mapping[str, Any], prefix: str) -> RetentionRules:
    """The rules validated from the values given alone, not the environment."""
    try:
        return RetentionRules(**values)
    except ValidationError as exc:
        raise invalid_input(
            exc,
            locate=lambda loc: ".".join([prefix, *map(str, loc)]),
            known=RetentionRules.model_fields,
        ) from None


def variant_scorer(
    current: ImportanceScorer, *, preset: str | None, weights: Mapping[str, float]
) -> ImportanceScorer:
    """A new scorer: the named preset (or the current one) with the weights applied."""
    if preset is not None and preset not in PRESETS:
        raise InvalidInputError(
            f"preset: unknown preset {preset!r}{suggestion(preset, PRESETS)}; "
            f"one of {', '.join(sorted(PRESETS))}",
            field="preset",
        )
    for name in weights:
        if name not in FACTORS:
            field = f"weights.{name}"
            raise InvalidInputError(
                f"{field}: unknown factor {name!r}{suggestion(name, FACTORS)}, "
                f"one of {', '.join(FACTORS)}",
                field=field,
            )
    scorer = ImportanceScorer(PRESETS[preset] if preset is not None else current.preset)
    if weights:
        scorer.configure(**weights)
    return scorer


class WhatIf:
    """Plans promotion and archival under two rule sets and compares them."""

    def __init__(
        self, store: Store, *, clock: Clock, scorer: ImportanceScorer, rules: RetentionRules
    ) -> None:
        self.store = store
        self.clock = clock
        self.scorer = scorer
        self.rules = rules

    def run(
        self,
        variant: WhatIfVariant,
        *,
        project_id: str,
        rules_file: Path | str | None = None,
    ) -> WhatIfReport:
        """Both plans at one frozen instant, compared memory by memory: every
        transition counted, the changes listed most significant first."""
        started = time.perf_counter()
        rules = self._variant_rules(variant, rules_file)
        scorer = variant_scorer(self.scorer, preset=variant.preset, weights=variant.weights)
        # One instant for both plans: a moving clock would show recency drift as a change.
        frozen = ManualClock(stored_now(self.clock))
        sessions = whatif.sessions(self.store, project_id)
        evaluated: dict[str, Memory] = {}
        current = self._plan(self.scorer, self.rules, frozen, project_id, sessions, evaluated)
        planned = self._plan(scorer, rules, frozen, project_id, sessions, evaluated)
        report = WhatIfReport(
            project_id=project_id,
            at=frozen.now(),
            current_rules=self.rules,
            variant_rules=rules,
            current_preset=self.scorer.preset.name,
            variant_preset=scorer.preset.name,
            sessions=len(sessions),
        )
        pairs = paired(current, planned)
        report.transitions = dict(Counter((a.outcome, b.outcome) for a, b in pairs.values()))
        changed = changes_in(pairs)
        report.changed = len(changed)
        shown = changed[: variant.limit]
        missing = [memory_id for memory_id, _ in shown if memory_id not in evaluated]
        memories = evaluated | self._memories(missing, project_id)
        report.changes = _described(shown, memories, (self.scorer, scorer), frozen.now())
        report.duration_ms = (time.perf_counter() - started) * 1000
        return report

    def _variant_rules(
        self, variant: WhatIfVariant, rules_file: Path | str | None
    ) -> RetentionRules:
        """The variant's rules: a rules file (the CLI) or its text (the API), then
        the inline overrides; an error names whichever the caller gave."""
        if rules_file is not None and variant.rules_yaml is not None:
            raise InvalidInputError(
                "rules_file: give a rules file or rules_yaml, not both", field="rules_file"
            )
        return variant_rules(
            self.rules,
            rules_yaml=read_rules_file(rules_file) if rules_file else variant.rules_yaml,
            overrides=variant.rules,
            yaml_field="rules_file" if rules_file else "rules_yaml",
        )

    def _plan(
        self,
        scorer: ImportanceScorer,
        rules: RetentionRules,
        clock: Clock,
        project_id: str,
        sessions: list[str],
        evaluated: dict[str, Memory],
    ) -> dict[str, Fate]:
        """Each memory the next runs would move, by the engines' own dry paths.

        Promotion is planned per session (its cap is per run); a memory both
        plans would move is promoted, as the scheduler promotes first. The
        memories promotion read are kept in ``evaluated``, to describe changes
        without reading them again.
        """
        basics = Basics(self.store, clock, scorer, rules, Telemetry())
        engine = PromotionEngine(basics)
        fates: dict[str, Fate] = {}
        for session_id in sessions:
            for candidate in engine.evaluate(session_id, project_id=project_id):
                evaluated[candidate.memory.id] = candidate.memory
                fates[candidate.memory.id] = Fate(
                    Outcome.PROMOTE, candidate.score, candidate.to_tier
                )
        archival = Archiver(basics).archive_stale(project_id=project_id, dry_run=True)
        for item in archival.items:
            fates.setdefault(item.memory_id, Fate(Outcome.ARCHIVE, item.score, Tier.ARCHIVED))
        return fates

    def _memories(self, ids: list[str], project_id: str) -> dict[str, Memory]:
        found: dict[str, Memory] = {}
        for start in range(0, len(ids), READ_BATCH):
            for memory in stored.get(self.store, ids[start : start + READ_BATCH], project_id):
                found[memory.id] = memory
        return found


Pair = tuple[Fate, Fate]
"""What the rules in force and the variant do with one memory."""


def paired(current: Mapping[str, Fate], planned: Mapping[str, Fate]) -> dict[str, Pair]:
    """Every memory either plan moves, with both fates: a memory a plan leaves
    out stays."""
    stay = Fate(Outcome.STAY, 0.0)
    return {
        memory_id: (current.get(memory_id, stay), planned.get(memory_id, stay))
        for memory_id in current.keys() | planned.keys()
    }


def changes_in(pairs: Mapping[str, Pair]) -> list[tuple[str, Pair]]:
    """The memories whose outcome or target tier differs, most significant first
    (ties by id, so the listing is the same on every run)."""
    return sorted(
        (
            (memory_id, pair)
            for memory_id, pair in pairs.items()
            if (pair[0].outcome, pair[0].to_tier) != (pair[1].outcome, pair[1].to_tier)
        ),
        key=lambda item: (*_significance(*item[1]), item[0]),
    )


def _described(
    shown: list[tuple[str, Pair]],
    memories: Mapping[str, Memory],
    scorers: tuple[ImportanceScorer, ImportanceScorer],
    now: float,
) -> list[WhatIfChange]:
    """Each listed change with its memory; one forgotten between the plan and
    the read is left out."""
    changes = []
    for memory_id, (before, after) in shown:
        memory = memories.get(memory_id)
        if memory is not None:
            current = _scored(before, scorers[0], memory, now)
            changes.append(WhatIfChange(memory, current, _scored(after, scorers[1], memory, now)))
    return changes


def _scored(fate: Fate, scorer: ImportanceScorer, memory: Memory, now: float) -> Fate:
    """A memory that stays has no score from its plan: scored here, as the plan
    would have scored it."""
    if fate.outcome is Outcome.STAY:
        return Fate(Outcome.STAY, scorer.score(memory, now))
    return fate


_ORDER = {Outcome.PROMOTE: 0, Outcome.ARCHIVE: 1, Outcome.STAY: 2}


def _significance(current: Fate, variant: Fate) -> tuple[int, int, float]:
    """Changes listed first: grouped by (current, variant) outcome, the highest
    planned score first within a group."""
    return (_ORDER[current.outcome], _ORDER[variant.outcome], -max(current.score, variant.score))
