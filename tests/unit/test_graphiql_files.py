"""The packaged GraphiQL page names only files that ship beside it."""

from __future__ import annotations

import re

from graphmem.server import graphiql


def test_the_page_loads_only_packaged_files() -> None:
    html = graphiql.page()
    urls = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert urls, "the page names its scripts and styles"
    for url in urls:
        assert url.startswith(graphiql.PREFIX + "/"), url
        assert (graphiql.STATIC / url.removeprefix(graphiql.PREFIX + "/")).is_file(), url
    assert "http" not in " ".join(urls)


def test_the_page_runs_no_inline_script() -> None:
    """Its Content-Security-Policy allows scripts from the server only."""
    html = graphiql.page()
    assert re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html) is None
    assert "script-src 'self'" in html


def test_the_licences_of_what_ships_ship_with_it() -> None:
    text = (graphiql.STATIC / "LICENSES.txt").read_text()
    for package in ("graphiql", "react", "react-dom", "@graphiql/plugin-explorer"):
        assert f"{package} " in text
