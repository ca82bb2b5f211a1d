"""GraphiQL, served from the package: the page a browser gets on ``/graphql``.

Its scripts and styles are files under ``static/`` (built from ``tools/graphiql``
and committed), mounted at ``/graphiql/static`` outside the gated ``/graphql``
path so a browser can load them before it has a key. Nothing is fetched from
another host, so the page works offline and behind a strict proxy.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from starlette.routing import BaseRoute, Mount
from starlette.staticfiles import StaticFiles

STATIC = Path(__file__).parent / "static"
PREFIX = "/graphiql/static"


@cache
def page() -> str:
    """The page's HTML (it holds no data: the schema and results come from ``/graphql``)."""
    return (STATIC / "index.html").read_text(encoding="utf-8")


def routes() -> list[BaseRoute]:
    """The page's scripts and styles, for the server's route list."""
    return [Mount(PREFIX, app=StaticFiles(directory=STATIC), name="graphiql-static")]
