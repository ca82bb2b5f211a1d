"""Commands that retrieve: hybrid search, knowledgeContext and the embedding backfill.

Every hit is printed with why it was found (its score's parts, the retrievers
and ranks, the relations walked, what it replaces), so a person can debug what
an agent was shown.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from enum import Enum
from typing import Annotated, Any, TypeVar, Union, get_args, get_origin

import typer
from annotated_types import Ge, Le
from pydantic import BaseModel
from rich.console import Console
from rich.progress import Progress, TaskID
from rich.table import Table
from rich.text import Text

from graphmem.cli import server_first
from graphmem.cli.common import (
    TYPES_HELP,
    AgentOption,
    AsOfOption,
    ProjectOption,
    app,
    opened,
    out,
    reported_errors,
    require_listed,
    require_project,
    settings_for,
    time_arg,
)
from graphmem.cli.terminal import escape_controls, shown
from graphmem.domain.checks import parse
from graphmem.domain.models import Memory
from graphmem.domain.retrieval import (
    ContextItem,
    ContextRequest,
    ContextResult,
    GraphPath,
    RetrieverHit,
    SearchRequest,
    SearchResult,
)
from graphmem.domain.retrieval.arguments import REQUIRED, Argument, arguments
from graphmem.domain.retrieval.context import parse_request
from graphmem.domain.scoring import ScoreComponent
from graphmem.settings import Settings

F = TypeVar("F", bound=Callable[..., Any])

JsonOption = Annotated[bool, typer.Option("--json", help="Print the whole result as JSON.")]
OccurredAfterOption = Annotated[
    str | None,
    typer.Option(help="Only what happened at or after this time (ISO 8601).", show_default=False),
]
OccurredBeforeOption = Annotated[
    str | None,
    typer.Option(help="Only what happened before this time (ISO 8601).", show_default=False),
]


def options_of(model: type[BaseModel], *, spelled: Sequence[str]) -> Callable[[F], F]:
    """The command with an option for each field of ``model`` (a request) besides
    those it ``spelled`` its own way (a shorter name, an argument, a negated flag),
    taking its help, limits and default from the model; the command gets them as
    keywords, to validate as they came. A field added to the model is an option
    without a line here."""

    def decorate(command: F) -> F:
        signature = inspect.signature(command, eval_str=True)
        own = [p for p in signature.parameters.values() if p.kind is not p.VAR_KEYWORD]
        derived = [_option(a) for a in arguments(model) if a.name not in spelled]
        # Before the options every command has (--json, --project, --agent).
        at = next((n for n, p in enumerate(own) if p.name == "as_json"), len(own))
        command.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=[*own[:at], *derived, *own[at:]]
        )
        return command

    return decorate


def _option(argument: Argument) -> inspect.Parameter:
    """A request field as a typer option: ``--max-results``, a flag for a boolean,
    repeated for a list, text for anything the model reads from text (an id, a
    time, an enum)."""
    flag = "--" + argument.name.replace("_", "-")
    default = None if argument.default is REQUIRED else argument.default
    kind: Any = _typed(argument.annotation)
    if kind is bool and default is True:
        flag = f"{flag}/--no-{flag[2:]}"
    if isinstance(default, Enum):
        default = default.value
    option = typer.Option(flag, help=_help(argument), show_default=default is not None)
    return inspect.Parameter(
        argument.name,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
        default=default,
        annotation=Annotated[kind, option],
    )


REPEATED = list[str] | None
"""A list option: given once per item."""


def _typed(annotation: Any) -> Any:
    """What typer parses an option of ``annotation`` as; the model checks the rest."""
    optional = get_origin(annotation) in (Union, types.UnionType)
    (kind,) = [a for a in get_args(annotation) if a is not type(None)] if optional else [annotation]
    if kind in (bool, int, float):
        return kind
    if get_origin(kind) is list:
        return REPEATED
    return str | None


def _help(argument: Argument) -> str:
    """The field's description, and its range when it has one."""
    low = next((m.ge for m in argument.info.metadata if isinstance(m, Ge)), None)
    high = next((m.le for m in argument.info.metadata if isinstance(m, Le)), None)
    shown = argument.info.description or ""
    if _typed(argument.annotation) == REPEATED:
        shown += " Repeat for more."
    return shown if low is None or high is None else f"{shown} {low:g} to {high:g}."


@app.command()
@options_of(SearchRequest, spelled=("query", "mode", "filters", "as_of"))
def search(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="What to look for.")],
    mode: Annotated[str, typer.Option(help="HYBRID, VECTOR, FULLTEXT or GRAPH.")] = "HYBRID",
    types: Annotated[
        list[str] | None,
        typer.Option("--type", help=f"Only this type; repeat for more. {TYPES_HELP}."),
    ] = None,
    tiers: Annotated[
        list[str] | None, typer.Option("--tier", help="Only this tier; repeat for more.")
    ] = None,
    tags: Annotated[
        list[str] | None, typer.Option("--tag", help="Only hits with this tag; repeat for more.")
    ] = None,
    session: Annotated[str | None, typer.Option(help="Only this session's memories.")] = None,
    min_confidence: Annotated[float, typer.Option(help="Lowest confidence shown.")] = 0.0,
    include_archived: Annotated[
        bool,
        typer.Option(
            "--archived",
            "--include-archived",
            help="Also archived memories, marked [archived]; graphmem restore <id> brings "
            "one back.",
        ),
    ] = False,
    exclude_candidates: Annotated[
        bool, typer.Option("--exclude-candidates", help="Hide candidates awaiting review.")
    ] = False,
    include_superseded: Annotated[
        bool,
        typer.Option(
            "--include-superseded", help="Show superseded hits rather than their successors."
        ),
    ] = False,
    occurred_after: OccurredAfterOption = None,
    occurred_before: OccurredBeforeOption = None,
    as_of: AsOfOption = None,
    as_json: JsonOption = False,
    project: ProjectOption = None,
    agent: AgentOption = None,
    **asked: Any,
) -> None:
    """Search memories by meaning, words and relations; every hit explains its score."""
    with reported_errors():
        request = parse(
            SearchRequest,
            {
                **asked,
                "query": query,
                "mode": mode.upper(),
                "as_of": time_arg(as_of),
                "filters": {
                    "types": types or [],
                    "tiers": tiers or [],
                    "tags": tags or [],
                    "session_id": session,
                    "min_confidence": min_confidence,
                    "include_archived": include_archived,
                    "include_candidates": not exclude_candidates,
                    "include_superseded": include_superseded,
                    "occurred_after": occurred_after,
                    "occurred_before": occurred_before,
                },
            },
        )
        settings = settings_for(ctx)
        result = server_first.search(settings, request, project=project, agent=agent)
        if result is not None and not result.hits:
            _require_served_project(settings, project)
    if result is None:
        with opened(ctx) as gm:
            result = gm.search(request, project_id=project, agent_id=agent)
            if not result.hits:
                require_project(gm, server_first.project_named(project))
    if as_json:
        out.print_json(result.model_dump_json())
        return
    _show_search(result)


def _require_served_project(settings: Settings, project: str | None) -> None:
    """``require_project`` through the server that answered: an empty answer from a
    project that does not exist is a typo, said as it is said locally."""
    named = server_first.project_named(project)
    if named is None:
        return
    known = server_first.projects(settings)
    if known is not None:
        require_listed(named, known)


def _show_search(result: SearchResult) -> None:
    ran = ", ".join(r.value for r in result.retrievers) or "none"
    out.print(
        Text(
            f"{len(result.hits)} hits ({result.mode}, retrievers: {ran}, {result.took_ms:.0f} ms)",
            style="bold",
        )
    )
    for note in result.notes:
        out.print(shown(f"note: {note}", style="yellow"))
    for n, hit in enumerate(result.hits, start=1):
        memory, why = hit.memory, hit.explanation
        out.print()
        out.print(Text(f"{n}. {hit.score:.3f}  {memory.id}  ", style="bold").append(_kind(memory)))
        out.print(shown(f"   {' '.join(memory.content.split())}"), crop=False)
        if hit.archived:
            out.print(shown(f"   {_archived(memory)}", style="yellow"), crop=False)
        if why.retrievers:
            out.print(Text(f"   found by: {_retrievers(why.retrievers)}"))
        if why.path is not None:
            steps = ", ".join(f"{s.from_id} -[{s.type.value}]-> {s.to_id}" for s in why.path.steps)
            out.print(
                Text(
                    f"   path from {why.path.seed_id} (x{why.path.factor:.2f}): {steps}",
                    style="cyan",
                )
            )
        if why.replaces:
            out.print(Text(f"   replaces: {', '.join(why.replaces)}", style="magenta"))
        out.print(Text(f"   score: {_components(why.components)}", style="dim"))
        for note in why.notes:
            out.print(shown(f"   note: {note}", style="yellow"))


@app.command()
@options_of(
    ContextRequest,
    spelled=("context_hint", "include_types", "include_archived", "session_id", "as_of"),
)
def context(
    ctx: typer.Context,
    hint: Annotated[str, typer.Argument(help="What the agent is about to do or discuss.")],
    types: Annotated[
        list[str] | None,
        typer.Option("--type", help=f"Only this type; repeat for more. {TYPES_HELP}."),
    ] = None,
    include_archived: Annotated[
        bool,
        typer.Option(
            "--archived",
            "--include-archived",
            help="Also archived memories, marked archived (not counted as used).",
        ),
    ] = False,
    session: Annotated[str | None, typer.Option(help="Only this session's memories.")] = None,
    no_record_access: Annotated[
        bool,
        typer.Option("--no-record-access", help="Do not count this as a retrieval of the results."),
    ] = False,
    as_of: AsOfOption = None,
    as_json: JsonOption = False,
    project: ProjectOption = None,
    agent: AgentOption = None,
    **asked: Any,
) -> None:
    """What an agent should know right now (knowledgeContext), each score explained."""
    record_access = False if no_record_access else None
    with reported_errors():
        request = parse_request(
            {
                **asked,
                "context_hint": hint,
                "include_types": types or None,
                "include_archived": include_archived,
                "session_id": session,
                "as_of": as_of,
            }
        )
        settings = settings_for(ctx)
        result = server_first.knowledge_context(
            settings, request, record_access=record_access, project=project, agent=agent
        )
        if result is not None and not result.items:
            _require_served_project(settings, project)
    if result is None:
        with opened(ctx) as gm:
            result = gm.knowledge_context(
                request, record_access=record_access, project_id=project, agent_id=agent
            )
            if not result.items:
                require_project(gm, server_first.project_named(project))
    if as_json:
        out.print_json(result.model_dump_json())
        return
    _show_context(result)


def _show_context(result: ContextResult) -> None:
    weights = " ".join(f"{name}={weight:.2f}" for name, weight in result.weights.items())
    out.print(
        Text(
            f"{len(result.items)} of {result.candidates} candidates ({result.took_ms:.0f} ms); "
            f"weights: {weights}",
            style="bold",
        )
    )
    for note in result.notes:
        out.print(shown(f"note: {note}", style="yellow"))
    if not result.items:
        return
    table = Table()
    for column in ("score", "id", "content", "components", "found by"):
        table.add_column(column, no_wrap=column in ("score", "id"))
    for item in result.items:
        table.add_row(
            f"{item.score:.3f}",
            item.memory.id,
            shown(" ".join(item.memory.content.split()))
            .append(
                f"\n{escape_controls(_archived(item.memory))}" if item.archived else "",
                style="yellow",
            )
            .append(escape_controls(_failure(item)), style="cyan"),
            _components(item.components),
            _retrievers(item.retrievers) or _via(item.path),
        )
    out.print(table, crop=False)


@app.command("backfill-embeddings")
def backfill_embeddings(
    ctx: typer.Context,
    batch_size: Annotated[int, typer.Option(help="Memories embedded per batch.")] = 256,
    all_projects: Annotated[
        bool, typer.Option("--all-projects", help="Every project, not only the default one.")
    ] = False,
    project: ProjectOption = None,
) -> None:
    """Embed the memories that have no embedding yet (after enabling embeddings)."""
    with opened(ctx) as gm, _embedding_bar() as progress:
        result = gm.backfill_embeddings(
            batch_size=batch_size, all_projects=all_projects, progress=progress, project_id=project
        )
    if result.embedded == 0 and result.remaining == 0:
        out.print("nothing to embed: every memory has an embedding")
        return
    out.print(f"embedded {result.embedded}, {result.remaining} remaining ({result.took_s:.1f} s)")


@contextmanager
def _embedding_bar() -> Iterator[Callable[[int, int], None]]:
    """A progress bar on stderr, drawn from the backfill's first report on: a
    backfill with nothing to embed reports nothing and draws none."""
    bar = Progress(console=Console(stderr=True))
    task: TaskID | None = None

    def progress(done: int, goal: int) -> None:
        nonlocal task
        if task is None:
            bar.start()
            task = bar.add_task("embedding memories", total=goal)
        bar.update(task, completed=done)

    try:
        yield progress
    finally:
        if task is not None:
            bar.stop()


def _failure(item: ContextItem) -> str:
    """A lesson learned from a failure, explained by its capsule."""
    if item.failure is None:
        return ""
    fix = f"; fix: {item.failure.fix}" if item.failure.fix else ""
    return f"\nlearned from failure {item.failure.id}, seen {item.failure.occurrence_count}x{fix}"


def _archived(memory: Memory) -> str:
    """How an archived hit is flagged, with the command that brings it back."""
    reason = f": {memory.archive_reason}" if memory.archive_reason else ""
    return f"archived{reason} (graphmem restore {memory.id})"


def _kind(memory: Any) -> Text:
    kind = memory.memory_type.value if memory.memory_type else "-"
    return Text(f"[{kind}, {memory.tier.value}, {memory.status.value}]", style="dim")


def _via(path: GraphPath | None) -> str:
    """How a context item reached only by a relation came: the seed and the relations."""
    if path is None:
        return "-"
    return f"via {path.seed_id} ({', '.join(s.type.value for s in path.steps)})"


def _retrievers(hits: list[RetrieverHit]) -> str:
    return ", ".join(f"{h.retriever.value} #{h.rank} ({h.score:.3f})" for h in hits)


def _components(components: list[ScoreComponent]) -> str:
    return " + ".join(
        f"{c.name} {c.value:.2f}x{c.weight:.2f}={c.contribution:.3f}" for c in components
    )
