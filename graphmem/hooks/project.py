"""Which project a hook call reads: the same rule as every other surface.

``--project``, else ``GRAPHMEM_PROJECT``, else the server's default project
(``default``, or an API key's only project): so what ``graphmem remember``,
GraphQL or the Python API wrote without naming a project is what the hook
reads. Scoping by repository is opt-in (``--project-from-repo``): the name of
the git work tree that holds ``cwd`` (for a linked work tree, the repository
it belongs to, so every checkout shares its memories), found by reading
``.git`` on disk because starting ``git`` would cost more than the hook.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from graphmem.settings import names

MAX_PROJECT_CHARS = 128
_NOT_ALLOWED = re.compile(r"[^A-Za-z0-9._:@-]+")


def resolve_project(
    flag: str | None, cwd: str | None, *, from_repo: bool = False
) -> tuple[str | None, str]:
    """The project to read and the rule that chose it; ``None`` leaves the choice to
    the server (its default project, or the API key's only project)."""
    if flag:
        return flag, "--project"
    if from_repo:
        name = repository_name(Path(cwd) if cwd else Path.cwd())
        if name:
            return name, "--project-from-repo (the git repository of the event's cwd)"
    configured = os.environ.get(names.PROJECT)
    if configured:
        return configured, names.PROJECT
    return None, f"the server's default project (no --project, no {names.PROJECT})"


def repository_name(start: Path) -> str | None:
    """The git repository holding ``start``, as a project id; ``None`` outside one."""
    for directory in (start, *start.parents):
        marker = directory / ".git"
        if marker.is_dir():
            return _as_identifier(directory.name)
        if marker.is_file():
            return _as_identifier(_linked_repository(marker) or directory.name)
    return None


def _linked_repository(marker: Path) -> str | None:
    """For a ``.git`` file (``gitdir: …``): the main repository of a linked work tree.

    A linked work tree's git directory names the repository's common directory
    in ``commondir``; a submodule's has none and keeps its own name.
    """
    try:
        line = marker.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not line.startswith("gitdir:"):
        return None
    git_dir = (marker.parent / line.removeprefix("gitdir:").strip()).resolve()
    try:
        common = (git_dir / (git_dir / "commondir").read_text(encoding="utf-8").strip()).resolve()
    except (OSError, UnicodeDecodeError):
        return None
    if common.name == ".git":
        return common.parent.name
    return common.name.removesuffix(".git")


def _as_identifier(name: str) -> str | None:
    """A directory name as a project id: letters, digits and ``. _ : @ -`` only."""
    cleaned = _NOT_ALLOWED.sub("-", name).strip("-")[:MAX_PROJECT_CHARS]
    return cleaned or None
