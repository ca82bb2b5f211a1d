"""The explorer page at ``/explore``: the project's most important and newest
memories, search with explanations and a neighbourhood graph, talking to the
same server's ``/graphql``. What it shows is named by the URL's hash, so every
search and memory has a link.

The page is a bundle built from ``tools/explorer`` (``make explorer``) and
served as plain files, so a running server never fetches anything from
elsewhere. Its Content-Security-Policy keeps it that way in the browser too.
"""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

STATIC = Path(__file__).parent / "static"
BUNDLE = ("index.html", "explorer.js", "explorer.css")

# Scripts, styles and requests only from this server; cytoscape adds one
# <style> element of its own, hence inline styles.
POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": POLICY,
    "Cache-Control": "no-cache",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
NOT_BUILT = (
    "The explorer page has not been built: run `make explorer` "
    "(it bundles tools/explorer into graphmem/server/explore/static/), then reload.\n"
)


def built() -> bool:
    return all((STATIC / name).is_file() for name in BUNDLE)


async def page(_: Request) -> Response:
    if not built():
        return PlainTextResponse(NOT_BUILT, status_code=503)
    return FileResponse(STATIC / "index.html", headers=HEADERS, media_type="text/html")


def routes() -> list[BaseRoute]:
    """``/explore`` and its files, for the server's route list."""
    return [
        Route("/explore", page, methods=["GET"]),
        Mount(
            "/explore/static",
            app=StaticFiles(directory=STATIC, check_dir=False),
            name="explore-static",
        ),
    ]
