"""Content negotiation of the archive API without `?format=` (sathub.archive.api.render): the
browsable HTML page only when the client prefers text/html to JSON (a browser's Accept), JSON for
everything else (curl, the clients of spec/clients.md)."""

from __future__ import annotations

import pytest

from sathub.archive.api.render import wants_html

BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"


@pytest.mark.parametrize(
    "accept, html",
    [
        (BROWSER, True),
        ("text/html", True),
        ("text/*", True),
        ("application/json, text/html;q=0.9", False),
        ("text/html;q=0.5, application/json", False),
        ("text/html, application/json;q=0.9", True),
        ("application/json", False),
        ("*/*", False),  # curl's
        ("", False),
        ("image/png", False),
        ("text/html;q=nonsense", False),  # an unreadable quality is no preference
        ("TEXT/HTML", True),
    ],
)
def test_html_only_when_preferred_over_json(accept, html):
    assert wants_html(accept) is html
